/**
 * The live PageRank during a crawl (crawl/live-rank.ts): at the end of the
 * first pass its vector, stored as the 'live' run, is the exact PageRank of
 * the crawled graph (loaded back from the store and solved by pagerank());
 * it is in the checkpoints' crawl_state while the crawl runs; it survives a
 * resume; --no-live turns it off.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { kendallTau } from '../../src/analysis/compare.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { Crawler } from '../../src/crawl/crawler.js';
import { LiveRank } from '../../src/crawl/live-rank.js';
import { setOpsOfOutLists } from '../../src/crawl/live-rank-protocol.js';
import type { OutListBatch } from '../../src/store/out-lists.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { parseLiveRankState } from '../../src/crawl/live-state.js';
import { type CrawlSettings, completeSettings } from '../../src/crawl/settings.js';
import { Website } from '../../src/experiments/website.js';
import { serveWebsite } from '../../src/experiments/website-server.js';
import { liveTop } from '../../src/app/live-rank.js';
import { deleteRun, topPages } from '../../src/app/pages.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { CRAWL_STATE, type Store } from '../../src/store/store.js';
import { maxAbsDifference, temporaryDirectory } from '../helpers.js';
import { runCli } from './crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let stores = 0;
const newDbPath = (): string => join(dir.path, `live-${stores++}.db`);
const site = new Website({ pages: 300, seed: 5 });

function settingsFor(origin: string, extra: Partial<CrawlSettings> = {}): CrawlSettings {
  return completeSettings({ seeds: [`${origin}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, fences: ['/calendar/'], ...extra });
}

/** The stored 'live' run against the exact PageRank of the stored graph. */
async function assertLiveIsExact(store: Store): Promise<void> {
  const { graph, pageIds } = await store.loadGraph();
  const exact = pagerank(graph, { tolerance: 1e-12 }).scores;
  const run = await store.latestRun('live');
  assert.ok(run !== null, 'a live run is stored');
  assert.equal(run.pages, graph.nodeCount);
  const live = await store.runScores(run.id, pageIds);
  assert.ok(kendallTau(live, exact) >= 0.999, `tau ${kendallTau(live, exact)}`);
  // The final solve's tolerance is 1e-10 in L1: every page is within it.
  assert.ok(maxAbsDifference(live, exact) <= 1e-10, `max difference ${maxAbsDifference(live, exact)}`);
  assert.ok(run.residual !== null && run.residual <= 1e-10, `error bound ${run.residual}`);
}

describe('live PageRank in a crawl', () => {
  it('ends the first pass with the exact PageRank of the crawled graph, stored as a run and in crawl_state', async () => {
    const server = await serveWebsite(site);
    const db = newDbPath();
    const store = SqliteStore.open(db);
    let best: string[] = [];
    try {
      const report = await Crawler.run(store, settingsFor(server.origin, { liveIntervalMs: 50 }));
      assert.equal(report.stoppedBy, 'done');
      assert.ok(report.live !== null);
      assert.equal(report.live.pages, report.known);
      assert.ok(report.live.updates >= 1);
      assert.ok(report.live.pushes > 0 && report.live.bytes > 0);
      // Updates this small run on the crawler's thread throughout.
      assert.equal(report.live.inWorker, false);
      await assertLiveIsExact(store);
      const state = parseLiveRankState((await store.crawlState())[CRAWL_STATE.liveRank]);
      assert.ok(state !== null, 'the last checkpoint holds the live ranking');
      assert.equal(state.final, true);
      assert.equal(state.pages, report.known);
      // The stored top is the run's top.
      const run = (await store.latestRun('live'))!;
      const top = await store.topPages(run.id, 10);
      assert.deepEqual(state.top.slice(0, 10).map(([id]) => id), top.map((t) => t.page.id));
      // The application's view: during a crawl the checkpoint's ranking, after it the run (same pages).
      const view = await liveTop(store, { limit: 10 });
      assert.equal(view.source, 'run');
      assert.deepEqual(view.top.map((t) => t.url), top.map((t) => t.page.url));
      best = top.map((t) => t.page.url);
      // The CLI prints the same ranking.
      const cli = await runCli(['top', '--db', db, '--score', 'live', '--top', '10', '--json']);
      assert.equal(cli.code, 0, cli.stderr);
      const json = JSON.parse(cli.stdout) as { source: string; top: Array<{ url: string }> };
      assert.equal(json.source, 'run');
      assert.deepEqual(json.top.map((t) => t.url), best);
      const text = await runCli(['top', '--db', db, '--score', 'live', '--top', '3']);
      assert.match(text.stdout, /live PageRank of the crawl in .*: run 2, \d+ pages, solved at the end of the crawl/);
      // The API's /api/top?score=live (app/pages.ts): the run after the crawl; the checkpoint's
      // ranking when there is no newer run, as while a crawl runs (here: the run deleted).
      const fromRun = await topPages(store, { method: 'live', k: 10 });
      assert.equal(fromRun.run?.method, 'live');
      assert.deepEqual(fromRun.top.map((t) => t.url), best);
      await deleteRun(store, run.id);
      const fromCheckpoint = await topPages(store, { method: 'live', k: 10 });
      assert.equal(fromCheckpoint.run, null);
      assert.deepEqual(fromCheckpoint.top.map((t) => t.url), best);
      assert.equal((await liveTop(store, { limit: 10 })).source, 'checkpoint');
    } finally {
      await store.close();
      await server.close();
    }
  });

  it('after --max-pages and --resume the live vector covers the links stored before', async () => {
    const server = await serveWebsite(site);
    const store = SqliteStore.open(newDbPath());
    try {
      // The worker from the start (the other tests: on the crawler's thread, and a hand-over).
      const settings = settingsFor(server.origin, { maxPages: 40, liveInlineEdges: 0 });
      const first = await Crawler.run(store, settings);
      assert.equal(first.stoppedBy, 'max-pages');
      // Unfetched pages are dangling: the vector of a stopped crawl is the PageRank of what it stored.
      await assertLiveIsExact(store);
      const second = await Crawler.run(store, { ...settings, maxPages: null }, { resume: true });
      assert.equal(second.stoppedBy, 'done');
      await assertLiveIsExact(store);
    } finally {
      await store.close();
      await server.close();
    }
  });

  it('moves the updates to a worker thread mid-crawl, or from the start, and still ends exact', async () => {
    const server = await serveWebsite(site);
    try {
      // 0: a worker from the start; 1: the hand-over after the first update on the crawler's thread.
      for (const liveInlineEdges of [0, 1]) {
        const store = SqliteStore.open(newDbPath());
        try {
          const report = await Crawler.run(store, settingsFor(server.origin, { liveIntervalMs: 20, liveInlineEdges }));
          assert.equal(report.stoppedBy, 'done');
          assert.ok(report.live !== null);
          assert.equal(report.live.inWorker, true, `liveInlineEdges ${liveInlineEdges}`);
          assert.equal(report.live.pages, report.known);
          await assertLiveIsExact(store);
        } finally {
          await store.close();
        }
      }
    } finally {
      await server.close();
    }
  });

  it('sends a batch of changes too big for the crawler\'s thread (a resumed crawl\'s graph) to the worker, and ends exact', async () => {
    const { graph } = powerLawGraph({ nodes: 50_000, seed: 7, danglingShare: 0.1, minInDegree: 20 });
    assert.ok(graph.edgeCount + 3 * graph.nodeCount > 1_000_000, 'the batch is over the limit');
    const live = new LiveRank();
    try {
      live.grow(graph.nodeCount);
      for (let v = 0; v < graph.nodeCount; v++) {
        const targets = graph.successors(v);
        if (targets.length > 0) live.setLinks(v, targets);
      }
      const vector = await live.finish();
      assert.equal(live.inWorker, true);
      assert.equal(vector.pages, graph.nodeCount);
      assert.ok(maxAbsDifference(vector.scores, pagerank(graph, { tolerance: 1e-12 }).scores) <= 1e-10);
    } finally {
      await live.close();
    }
  });

  it("takes a resume's stored out-lists as encoded batches, on the crawler's thread or the worker's, and ends exact", async () => {
    // Out-lists in store ids (crawl id + 1), in batches of `per` sources, as a store gives them.
    const batchesOf = (graph: ReturnType<typeof powerLawGraph>['graph'], per: number): OutListBatch[] => {
      const result: OutListBatch[] = [];
      for (let first = 0; first < graph.nodeCount; first += per) {
        const sources: number[] = [];
        const ends: number[] = [];
        const targets: number[] = [];
        for (let v = first; v < Math.min(graph.nodeCount, first + per); v++) {
          const out = graph.successors(v);
          if (out.length === 0) continue;
          sources.push(v + 1);
          for (const t of out) targets.push(t + 1);
          ends.push(targets.length);
        }
        result.push({ sources: Int32Array.from(sources), ends: Int32Array.from(ends), targets: Int32Array.from(targets) });
      }
      return result;
    };
    // Small batches of a small graph on the crawler's thread; one batch over its limit starts the worker.
    const cases = [
      { nodes: 20_000, minInDegree: 5, per: 500, inWorker: false },
      { nodes: 50_000, minInDegree: 20, per: 50_000, inWorker: true },
    ];
    for (const { nodes, minInDegree, per, inWorker } of cases) {
      const { graph } = powerLawGraph({ nodes, seed: 9, danglingShare: 0.1, minInDegree });
      const live = new LiveRank({ inlineEdges: Number.MAX_SAFE_INTEGER });
      try {
        live.grow(graph.nodeCount);
        const batches = batchesOf(graph, per);
        const size = batches.reduce((sum, b) => sum + b.targets.length + 3 * b.sources.length, 0);
        assert.equal(size > 1_000_000, inWorker, `${size} operations`);
        for (const batch of batches) live.applyOps(setOpsOfOutLists(batch, -1));
        const vector = await live.finish();
        assert.equal(live.inWorker, inWorker, `${nodes} pages`);
        assert.equal(vector.pages, graph.nodeCount);
        assert.equal(vector.links, graph.edgeCount);
        assert.ok(maxAbsDifference(vector.scores, pagerank(graph, { tolerance: 1e-12 }).scores) <= 1e-10, `${nodes} pages`);
      } finally {
        await live.close();
      }
    }
  });

  it('--live-share: taken, reported, and refused outside (0, 1] with a one-line error', async () => {
    const server = await serveWebsite(site);
    try {
      const common = ['--allow-ip', '127.0.0.1/32', '--delay', '0', '--max-pages', '40', '--fence', '/calendar/'];
      const json = await runCli(['crawl', `${server.origin}/`, '--db', newDbPath(), ...common, '--live-share', '0.05', '-q', '--json']);
      assert.equal(json.code, 0, json.stderr);
      const live = (JSON.parse(json.stdout) as { live: { share: number; held: number; heldMs: number; updates: number } }).live;
      assert.equal(live.share, 0.05);
      assert.ok(live.held >= 0 && live.heldMs >= 0 && live.updates >= 1);
      const text = await runCli(['crawl', `${server.origin}/`, '--db', newDbPath(), ...common, '-q']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /live PageRank\s+\d+ vectors.*the final one within \d\.\de-\d+ \(L1\)/);
      for (const bad of ['0', '1.5', 'half']) {
        const refused = await runCli(['crawl', `${server.origin}/`, '--db', newDbPath(), ...common, '--live-share', bad, '-q']);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /--live-share/);
        assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
      }
    } finally {
      await server.close();
    }
  });

  it('--no-live: no worker, no live run; the pagerank strategy refuses it', async () => {
    const server = await serveWebsite(site);
    const store = SqliteStore.open(newDbPath());
    try {
      const report = await Crawler.run(store, settingsFor(server.origin, { live: false, maxPages: 20 }));
      assert.equal(report.live, null);
      assert.equal(await store.latestRun('live'), null);
      assert.throws(() => settingsFor(server.origin, { live: false, strategy: 'pagerank' }), /--no-live/);
    } finally {
      await store.close();
      await server.close();
    }
  });
});
