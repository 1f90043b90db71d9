import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IncrementalPageRank } from '../../src/analysis/incremental-pagerank.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { Random } from '../../src/util/random.js';
import { l1Distance, maxAbsDifference } from '../helpers.js';
import { densePageRank } from '../reference.js';

describe('IncrementalPageRank', () => {
  it('equals the dense PageRank of a small graph with dangling pages, built page by page', () => {
    // 0 -> 1, 2; 1 -> 2; 2 -> 0; 3 -> 2; 4 dangling, 5 dangling (never fetched).
    const lists: number[][] = [[1, 2], [2], [0], [2], [], []];
    const live = new IncrementalPageRank(0.85);
    live.growTo(3);
    live.setLinks(0, [1, 2]);
    live.solve(1e-8);
    live.growTo(6);
    live.setLinks(1, [2]);
    live.setLinks(2, [0]);
    live.solve(1e-8);
    live.setLinks(3, [2]);
    live.solve(1e-12);
    const edges = lists.flatMap((targets, u) => targets.map((v) => [u, v] as [number, number]));
    const expected = densePageRank(6, edges);
    assert.ok(maxAbsDifference(live.scores(), expected) < 1e-11, `${live.scores()} vs ${expected}`);
  });

  it('carries on from an exported state (as when the updates move to the worker thread)', () => {
    const first = new IncrementalPageRank(0.85);
    first.growTo(4);
    first.setLinks(0, [1, 2, 3]);
    first.setLinks(1, [0]);
    first.solve(1e-3, 2);
    const next = IncrementalPageRank.fromState(structuredClone(first.exportState()));
    assert.equal(next.pending, first.pending);
    next.growTo(5);
    next.setLinks(2, [3, 4]);
    next.solve(1e-12);
    const expected = densePageRank(5, [[0, 1], [0, 2], [0, 3], [1, 0], [2, 3], [2, 4]]);
    assert.ok(maxAbsDifference(next.scores(), expected) < 1e-11);
    assert.equal(next.linkCount, 6);
  });

  it('follows links replaced by a refetch', () => {
    const live = new IncrementalPageRank(0.85);
    live.growTo(4);
    live.setLinks(0, [1, 2, 3]);
    live.setLinks(1, [0]);
    live.solve(1e-6);
    live.setLinks(0, [3]);
    live.addLinks(2, [3]);
    live.solve(1e-12);
    const expected = densePageRank(4, [[0, 3], [1, 0], [2, 3]]);
    assert.ok(maxAbsDifference(live.scores(), expected) < 1e-11);
    assert.equal(live.linkCount, 3);
  });

  it('matches pagerank() on a 20,000-page power-law graph read in a random order, with few pushes per change', () => {
    const { graph } = powerLawGraph({ nodes: 20_000, seed: 3, danglingShare: 0.1 });
    const n = graph.nodeCount;
    const order = Int32Array.from({ length: n }, (_, i) => i);
    const random = new Random(5);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random.next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const live = new IncrementalPageRank(0.85);
    live.growTo(n);
    let updates = 0;
    for (let i = 0; i < n; i++) {
      const u = order[i]!;
      live.setLinks(u, graph.successors(u));
      if (i % 500 === 499) {
        live.solve(1e-6);
        updates++;
      }
    }
    live.refreshResidual();
    live.solve(1e-11);
    const exact = pagerank(graph, { tolerance: 1e-12 }).scores;
    assert.ok(l1Distance(live.scores(), exact) < 1e-10, `L1 ${l1Distance(live.scores(), exact)}`);
    assert.ok(live.errorBound() < 1e-10);
    assert.equal(updates, 40);
  });
});
