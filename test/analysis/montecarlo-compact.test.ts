/**
 * Monte Carlo PageRank over compact out-lists (src/analysis/montecarlo-compact.ts) against the
 * plain kernel (montecarlo.ts) on the same graph and seed: the same random streams, so the same
 * visits, scores and standard deviations bit for bit, on one thread and two, with the lists cut in
 * many segments; and `wga rank G.wgc --method montecarlo` against `wga rank FILE --method montecarlo`.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { monteCarloPageRank } from '../../src/analysis/montecarlo.js';
import { compactMonteCarloPageRank } from '../../src/analysis/montecarlo-compact.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { loadGraph } from '../../src/formats/load.js';
import { compactOutListsFromGraph } from '../../src/graph/compact.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { sharedData, temporaryDirectory, testData } from '../helpers.js';

describe('Monte Carlo PageRank on the compact out-lists', { timeout: 600_000 }, () => {
  it("gives the plain kernel's visits, scores and standard deviations, bit for bit (cnr-2000, a generated graph)", async () => {
    const cnr = (await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph;
    const generated = powerLawGraph({ nodes: 50_000, seed: 9, danglingShare: 0.25 }).graph;
    for (const [graph, walksPerPage] of [[cnr, 1], [generated, 3]] as const) {
      const lists = compactOutListsFromGraph(graph, { segmentBytes: 1 << 16 });
      assert.ok(lists.segments.length > 3, `${lists.segments.length} segments`);
      const plain = monteCarloPageRank(graph, { walksPerPage, seed: 7, threads: 1 });
      for (const threads of [1, 2]) {
        const compact = compactMonteCarloPageRank(lists, { walksPerPage, seed: 7, threads });
        assert.equal(compact.totalVisits, plain.totalVisits);
        assert.deepEqual(compact.visits, plain.visits);
        assert.deepEqual(compact.scores, plain.scores);
        assert.deepEqual(compact.standardDeviations, plain.standardDeviations);
      }
      // Another seed, other walks: the test can tell seeds apart.
      assert.notDeepEqual(compactMonteCarloPageRank(lists, { walksPerPage, seed: 8, threads: 1 }).visits, plain.visits);
    }
  });

  it('wga rank G.wgc --method montecarlo: the plain command\'s top pages and scores; its options refused elsewhere', async () => {
    const dir = temporaryDirectory();
    try {
      const edges = sharedData('hollins', 'hollins.edges.txt');
      const graph = join(dir.path, 'h.wgc');
      assert.equal((await runCli(['convert', edges, graph, '-q'])).code, 0);
      type Rank = { top: Array<{ label: string; score: number }> };
      const compact = await runCli(['rank', graph, '--method', 'montecarlo', '--walks', '4', '--seed', '2', '--top', '20', '--json', '--save', '-q']);
      assert.equal(compact.code, 0, compact.stderr);
      const plain = await runCli(['rank', edges, '--method', 'montecarlo', '--walks', '4', '--seed', '2', '--top', '20', '--json', '-q']);
      assert.equal(plain.code, 0, plain.stderr);
      const a = (JSON.parse(compact.stdout) as Rank).top;
      const b = (JSON.parse(plain.stdout) as Rank).top;
      assert.deepEqual(a.map((t) => [t.label, t.score]), b.map((t) => [t.label, t.score]));
      const top = await runCli(['top', '--graph', graph, '--score', 'montecarlo', '--top', '3', '--json']);
      assert.equal(top.code, 0, top.stderr);
      assert.deepEqual((JSON.parse(top.stdout) as Rank).top.map((t) => t.score), a.slice(0, 3).map((t) => t.score));
      const walks = await runCli(['rank', graph, '--walks', '4', '-q']);
      assert.equal(walks.code, 2);
      assert.match(walks.stderr, /^wga: --walks: is an option of --method montecarlo/);
    } finally {
      dir.cleanup();
    }
  });
});
