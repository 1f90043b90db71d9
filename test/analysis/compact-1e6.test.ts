/**
 * The compact analyses against the plain ones on a graph of 10^6 pages (the second size
 * after cnr-2000): a power-law graph of 1,000,000 pages with dangling pages, its lists encoded in
 * several segments. TrafficRank and HOTness within the tolerance's reach of the plain solver's,
 * HyperBall's estimates bit for bit, PageRank by Gauss-Seidel within 1e-12 of power iteration, the
 * strongly connected components identical. (About a minute on two cores.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outDegrees } from '../../src/analysis/degrees.js';
import { hyperBall } from '../../src/analysis/hyperball.js';
import { compactHyperBall } from '../../src/analysis/hyperball-compact.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { compactPageRank } from '../../src/analysis/pagerank-compact.js';
import { compactScc } from '../../src/analysis/compact-search.js';
import { bowTie } from '../../src/analysis/bowtie.js';
import { compactBowTie } from '../../src/analysis/bowtie-compact.js';
import { monteCarloPageRank } from '../../src/analysis/montecarlo.js';
import { compactMonteCarloPageRank } from '../../src/analysis/montecarlo-compact.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { trafficRank } from '../../src/analysis/traffic.js';
import { compactTrafficRank } from '../../src/analysis/traffic-compact.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { compactFromGraph, compactOutListsFromGraph } from '../../src/graph/compact.js';

describe('compact analyses equal the plain ones at 10^6 pages', () => {
  const graph = powerLawGraph({ nodes: 1_000_000, seed: 11, danglingShare: 0.15 }).graph;
  // Segments of 2 MB: the lists (about 1.5 MB per 10^6 links) cross several.
  const inLists = compactFromGraph(graph, { offsets: false, segmentBytes: 1 << 21 });

  it('TrafficRank and HOTness', () => {
    const outLists = compactOutListsFromGraph(graph, { offsets: false, segmentBytes: 1 << 21 });
    const plain = trafficRank(graph, { tolerance: 1e-12 });
    const compact = compactTrafficRank(inLists, outLists, { tolerance: 1e-12, threads: 2, history: 'float32' });
    assert.ok(plain.converged && compact.converged);
    let traffic = 0;
    let hot = 0;
    for (let v = 0; v < graph.nodeCount; v++) {
      traffic = Math.max(traffic, Math.abs(compact.trafficRank[v]! - plain.trafficRank[v]!));
      hot = Math.max(hot, Math.abs(compact.hotness[v]! - plain.hotness[v]!) / plain.hotness[v]!);
    }
    assert.ok(traffic < 1e-12, `TrafficRank differs by ${traffic}`);
    assert.ok(hot < 1e-9, `HOTness differs by ${hot} (relative)`);
  });

  it('HyperBall: the same estimates, bit for bit', () => {
    const plain = hyperBall(graph, { log2m: 4, seed: 3, threads: 2 });
    const compact = compactHyperBall(inLists, { log2m: 4, seed: 3, threads: 2 });
    assert.equal(compact.iterations, plain.iterations);
    assert.deepEqual(compact.harmonic, plain.harmonic);
    assert.deepEqual(compact.reach, plain.reach);
  });

  it('PageRank: Gauss-Seidel on the compact lists, in id order and over components, within 1e-12 of power iteration', () => {
    const power = pagerank(graph, { solver: 'power', tolerance: 1e-13, threads: 2 });
    const withOffsets = compactFromGraph(graph, { offsets: true, segmentBytes: 1 << 21 });
    const plainScc = stronglyConnectedComponents(graph);
    for (const lists of [inLists, withOffsets]) {
      const gs = compactPageRank(lists, outDegrees(graph), { solver: 'gauss-seidel', tolerance: 1e-12, threads: 2 });
      assert.ok(gs.converged);
      // With the per-page offsets the sweeps go over the components (Tarjan's search on the in-lists).
      assert.equal(gs.components?.count ?? null, lists.offsets === null ? null : plainScc.count);
      let distance = 0;
      for (let v = 0; v < graph.nodeCount; v++) distance += Math.abs(gs.scores[v]! - power.scores[v]!);
      assert.ok(distance < 1e-11, `L1 distance ${distance}`);
    }
  });

  it('strongly connected components, ids too, and the bow-tie around the giant one: the same', () => {
    const out = compactOutListsFromGraph(graph);
    const plain = stronglyConnectedComponents(graph);
    const compact = compactScc(out);
    assert.equal(compact.count, plain.count);
    assert.deepEqual(compact.component, plain.component);
    const inWithOffsets = compactFromGraph(graph, { offsets: true });
    const parts = compactBowTie(compact, (direction) => (direction === 'out' ? out : inWithOffsets));
    const plainParts = bowTie(graph, plain);
    assert.deepEqual(parts.sizes, plainParts.sizes);
    assert.deepEqual(parts.part, plainParts.part);
  });

  it('Monte Carlo: the same visits and standard deviations, bit for bit', () => {
    const out = compactOutListsFromGraph(graph);
    const plain = monteCarloPageRank(graph, { seed: 4, threads: 2 });
    const compact = compactMonteCarloPageRank(out, { seed: 4, threads: 2 });
    assert.deepEqual(compact.visits, plain.visits);
    assert.deepEqual(compact.standardDeviations, plain.standardDeviations);
  });
});
