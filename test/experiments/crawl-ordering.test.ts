/**
 * The crawl-ordering replay (experiments/crawl-ordering.ts): its measures on a
 * graph small enough to check by hand, and, on the demo site crawled by the
 * crawler (`wga demo`'s site: 3,000 generated pages, seed 1, with its hazards),
 * that the live PageRank ranks the known pages closer to the final PageRank
 * than OPIC's estimate at every mark of the first pass, and that the pagerank
 * strategy fetches more of the final PageRank early than Greedy and BFS.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pagerank } from '../../src/analysis/pagerank.js';
import { Crawler } from '../../src/crawl/crawler.js';
import { completeSettings } from '../../src/crawl/settings.js';
import { type OrderingMark, runOrderingExperiment } from '../../src/experiments/crawl-ordering.js';
import { orderingCsv, writeOrderingReport } from '../../src/experiments/ordering-report.js';
import { Website } from '../../src/experiments/website.js';
import { serveWebsite } from '../../src/experiments/website-server.js';
import { buildFromEdges } from '../../src/graph/builder.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import { IdentityLabels } from '../../src/graph/labels.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { temporaryDirectory } from '../helpers.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

function graphOf(n: number, edges: Array<[number, number]>) {
  const buffer = new EdgeBuffer();
  for (const [u, v] of edges) buffer.push(u, v);
  return buildFromEdges(n, buffer, new IdentityLabels(n)).graph;
}

describe('the crawl-ordering replay', () => {
  it('measures RankMass, top pages and tau on a small graph, over the pages reachable from the seed', async () => {
    // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 0; 4 -> 0 (4 is not reachable from 0).
    const graph = graphOf(5, [[0, 1], [0, 2], [1, 3], [2, 3], [3, 0], [4, 0]]);
    const result = runOrderingExperiment(graph, { seeds: [0], strategies: ['bfs', 'greedy', 'pagerank'], marks: [0.25, 0.5, 1], updateEvery: 1 });
    assert.equal(result.pages, 4);
    assert.equal(result.links, 5);
    const exact = pagerank(graphOf(4, [[0, 1], [0, 2], [1, 3], [2, 3], [3, 0]]), { tolerance: 1e-12 }).scores;
    const bfs = result.marks.filter((m) => m.strategy === 'bfs');
    // BFS fetches 0, then 1 and 2, then 3: at 25% page 0 alone, at 50% pages 0 and 1.
    assert.deepEqual(bfs.map((m) => [m.fetched, m.known]), [[1, 3], [2, 4], [4, 4]]);
    assert.ok(Math.abs(bfs[0]!.rankMass - exact[0]!) < 1e-9);
    assert.ok(Math.abs(bfs[1]!.rankMass - exact[0]! - exact[1]!) < 1e-9);
    for (const m of result.marks.filter((x) => x.mark === 1)) {
      assert.ok(Math.abs(m.rankMass - 1) < 1e-9);
      assert.equal(m.top10, 4);
      assert.equal(m.top100, 4);
      assert.ok(m.tauLive > 0.999, `${m.strategy}: ${m.tauLive}`);
      // Nothing left to guess or to leave dangling: the other two estimates are the PageRank too.
      assert.ok(m.tauDangling > 0.999, `${m.strategy}: dangling ${m.tauDangling}`);
      assert.ok(m.tauOracle > 0.999, `${m.strategy}: oracle ${m.tauOracle}`);
      // At the end every known page is fetched: the tau over fetched pages is the tau over all.
      assert.equal(m.tauLiveFetched, m.tauLive);
      assert.equal(m.tauOpicFetched, m.tauOpic);
      assert.ok(Number.isNaN(m.tauLiveUnfetched) && Number.isNaN(m.tauOpicUnfetched));
    }
    const files = await writeOrderingReport(result, join(dir.path, 'small'), 'a small graph', 'test');
    assert.equal(files.length, 5);
    assert.match(orderingCsv(result), /^strategy,mark_percent,fetched,known,rank_mass,top10_fetched,top100_fetched,tau_opic,tau_live,tau_opic_fetched,tau_live_fetched,tau_opic_unfetched,tau_live_unfetched,tau_dangling,tau_oracle\nbfs,25,1,3,/);
  });

  it('on the demo site: the live PageRank ranks better than OPIC at every mark; the pagerank strategy collects more PageRank early', { timeout: 300_000 }, async (t) => {
    const site = await serveWebsite(new Website({ pages: 3000, seed: 1 }));
    const store = SqliteStore.open(join(dir.path, 'demo.db'));
    let result;
    try {
      // The settings of `wga demo` (src/cli/commands/demo.ts).
      await Crawler.run(
        store,
        completeSettings({ seeds: [`${site.origin}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, perHost: 8, concurrency: 8, fences: ['/calendar/[0-9]{2,}\\.html$'], live: false }),
      );
      const { graph, pageIds } = await store.loadGraph();
      result = runOrderingExperiment(graph, { seeds: [pageIds.indexOf(1)] });
    } finally {
      await store.close();
      await site.close();
    }
    const at = (strategy: string, mark: number): OrderingMark => result.marks.find((m) => m.strategy === strategy && m.mark === mark)!;
    for (const m of result.marks) t.diagnostic(`${m.strategy} ${100 * m.mark}%: RankMass ${m.rankMass.toFixed(3)}, top10 ${m.top10}, tau OPIC ${m.tauOpic.toFixed(3)}, live ${m.tauLive.toFixed(3)}`);
    for (const strategy of ['bfs', 'greedy', 'pagerank']) {
      for (const mark of [0.01, 0.05, 0.1, 0.25, 0.5, 1]) {
        const m = at(strategy, mark);
        assert.ok(m.tauLive > m.tauOpic, `${strategy} at ${100 * mark}%: live ${m.tauLive} vs OPIC ${m.tauOpic}`);
      }
      assert.ok(at(strategy, 1).tauLive >= 0.999);
    }
    for (const mark of [0.1, 0.25]) {
      assert.ok(at('pagerank', mark).rankMass >= at('greedy', mark).rankMass, `RankMass at ${100 * mark}% vs greedy`);
      assert.ok(at('pagerank', mark).rankMass >= at('bfs', mark).rankMass, `RankMass at ${100 * mark}% vs bfs`);
    }
  });
});
