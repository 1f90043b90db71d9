/**
 * Gauss-Seidel over strongly connected components on the compact in-lists
 * (src/analysis/pagerank-compact-scc.ts) against the plain power iteration (Algorithm 1, the
 * reference every solver is tested against) and the plain Gauss-Seidel over components: the same
 * vector, the stopping rule met, in fewer passes than power iteration; one and two threads, dangling
 * pages, small closed components, lists cut into segments.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outDegrees } from '../../src/analysis/degrees.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { compactSccPageRank } from '../../src/analysis/pagerank-compact-scc.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { loadGraph } from '../../src/formats/load.js';
import { buildFromEdges } from '../../src/graph/builder.js';
import { compactFromGraph } from '../../src/graph/compact.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import type { Graph } from '../../src/graph/graph.js';
import { IdentityLabels } from '../../src/graph/labels.js';
import { testData } from '../helpers.js';

function graphOf(n: number, pairs: Array<[number, number]>): Graph {
  const buffer = new EdgeBuffer();
  for (const [a, b] of pairs) buffer.push(a, b);
  return buildFromEdges(n, buffer, new IdentityLabels(n)).graph;
}

function compare(graph: Graph, threads: number, segmentBytes?: number) {
  const power = pagerank(graph, { solver: 'power', tolerance: 1e-13, threads: 1 });
  const lists = compactFromGraph(graph, { offsets: true, ...(segmentBytes === undefined ? {} : { segmentBytes }) });
  const run = compactSccPageRank(lists, outDegrees(graph), { damping: 0.85, tolerance: 1e-11, maxIterations: 1000, threads });
  assert.ok(run.converged && run.residual <= 1e-11, `residual ${run.residual}`);
  let sum = 0;
  let distance = 0;
  for (let v = 0; v < graph.nodeCount; v++) {
    sum += run.scores[v]!;
    distance += Math.abs(run.scores[v]! - power.scores[v]!);
  }
  assert.ok(Math.abs(sum - 1) < 1e-12, `sum ${sum}`);
  // Both within their residuals of the fixed point: ||x - pi||_1 <= residual / (1 - c).
  assert.ok(distance < 1e-10, `L1 distance to power iteration ${distance}`);
  return { run, power };
}

describe('Gauss-Seidel over components on the compact graph', () => {
  it('gives power iteration\'s vector on cnr-2000 in fewer passes, with the plain solver\'s components', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    const scc = stronglyConnectedComponents(graph);
    for (const threads of [1, 2]) {
      const { run, power } = compare(graph, threads);
      assert.equal(run.threads, threads);
      assert.equal(run.components, scc.count);
      assert.equal(run.largestComponent, Math.max(...scc.sizes));
      assert.ok(run.passes < power.iterations / 1.5, `${run.passes} passes against ${power.iterations} power iterations`);
    }
  });

  it('handles dangling pages, a large component swept by two threads, and lists cut into segments', () => {
    const graph = powerLawGraph({ nodes: 80_000, seed: 4, danglingShare: 0.3, minInDegree: 4 }).graph;
    assert.ok(graph.edgeCount >= 200_000, `${graph.edgeCount} links: too few for two threads`);
    const { run } = compare(graph, 2, 1 << 17);
    assert.equal(run.threads, 2);
    compare(graph, 1);
  });

  it('solves small closed cycles and chains exactly, as the linear system says', () => {
    // 0 -> 1 -> 2 <-> 3, 4 dangling, 0 -> 4; the closed pair {2, 3} holds most of the mass.
    const graph = graphOf(5, [[0, 1], [1, 2], [2, 3], [3, 2], [0, 4]]);
    const lists = compactFromGraph(graph, { offsets: true });
    const run = compactSccPageRank(lists, outDegrees(graph), { damping: 0.85, tolerance: 1e-13, maxIterations: 1000, threads: 1 });
    const power = pagerank(graph, { solver: 'power', tolerance: 1e-15, threads: 1 });
    for (let v = 0; v < 5; v++) assert.ok(Math.abs(run.scores[v]! - power.scores[v]!) < 1e-12, `page ${v}: ${run.scores[v]} against ${power.scores[v]}`);
    assert.equal(run.components, 4);
    assert.ok(run.converged);
  });

  it('needs the per-page offsets', () => {
    const graph = powerLawGraph({ nodes: 1000, seed: 1 }).graph;
    assert.throws(() => compactSccPageRank(compactFromGraph(graph, { offsets: false }), outDegrees(graph), { damping: 0.85, tolerance: 1e-10, maxIterations: 100 }), /per-page offsets/);
  });
});
