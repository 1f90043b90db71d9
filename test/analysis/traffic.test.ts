import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spearman } from '../../src/analysis/compare.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { type TrafficResult, trafficRank } from '../../src/analysis/traffic.js';
import { OptionError } from '../../src/errors.js';
import { loadGraph } from '../../src/formats/load.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { testData } from '../helpers.js';
import { maximumEntropyFlow } from '../reference.js';

/** Flows rebuilt from the result's multipliers alone: p_ij = s q a_i / a_j, p_iA = t a_i, p_Aj = t / a_j (a_A = 1). */
function flowsFrom(graph: Graph, result: TrafficResult, prior?: Float64Array, source?: Float64Array) {
  const s = Math.exp(result.mu - 1);
  const t = Math.exp(result.nu - 1);
  const a = result.hotness;
  const u = source ?? a;
  const n = graph.nodeCount;
  const inflow = new Float64Array(n);
  const outflow = new Float64Array(n);
  const real: number[] = [];
  let artificialIn = 0;
  let artificialOut = 0;
  for (let i = 0; i < n; i++) {
    const begin = graph.outOffsets[i]!;
    graph.successors(i).forEach((j, k) => {
      const p = s * (prior?.[begin + k] ?? 1) * u[i]! / a[j]!;
      real.push(p);
      outflow[i]! += p;
      inflow[j]! += p;
    });
    outflow[i]! += t * u[i]!;
    inflow[i]! += t / a[i]!;
    artificialIn += t * u[i]!;
    artificialOut += t / a[i]!;
  }
  return { inflow, outflow, real, artificialIn, artificialOut, s, t };
}

function graphOf(n: number, edges: Array<[number, number]>): Graph {
  const collector = new EdgeCollector();
  for (let v = 0; v < n; v++) collector.addNumeric(v, v);
  for (const [a, b] of edges) collector.addNumeric(a, b);
  return collector.build().graph;
}

/** The primal problem of a graph for the Newton reference: edge list (real, then i->A, then A->j), constraints, right-hand sides. */
function primalProblem(graph: Graph, alpha: number, known: Map<number, number> = new Map()) {
  const n = graph.nodeCount;
  const edges: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) for (const j of graph.successors(i)) edges.push([i, j]);
  const realCount = edges.length;
  for (let i = 0; i < n; i++) edges.push([i, n]);
  for (let j = 0; j < n; j++) edges.push([n, j]);
  const rows: number[][] = [];
  const rhs: number[] = [];
  for (let v = 0; v < n; v++) {
    const out = edges.map(([a]) => (a === v ? 1 : 0));
    const into = edges.map(([, b]) => (b === v ? 1 : 0));
    const h = known.get(v);
    if (h === undefined) {
      rows.push(out.map((o, e) => o - into[e]!));
      rhs.push(0);
    } else {
      rows.push(out);
      rhs.push(h);
      rows.push(into);
      rhs.push(h);
    }
  }
  rows.push(edges.map((_, e) => (e < realCount ? 1 : 0)));
  rhs.push(alpha);
  rows.push(edges.map((_, e) => (e < realCount ? 0 : 1)));
  rhs.push(1 - alpha);
  return { edges, realCount, rows, rhs };
}

describe('TrafficRank and HOTness (maximum-entropy traffic)', () => {
  it('is optimal on hollins: conservation to 1e-8, both totals, the closed form', async () => {
    const { graph } = await loadGraph(testData('hollins', 'hollins.edges.txt'));
    const result = trafficRank(graph, { tolerance: 1e-10 });
    assert.ok(result.converged);
    const { inflow, outflow, real, artificialIn, artificialOut } = flowsFrom(graph, result);
    for (let j = 0; j < graph.nodeCount; j++) {
      assert.ok(Math.abs(inflow[j]! - outflow[j]!) / inflow[j]! < 1e-8, `page ${j}`);
    }
    assert.ok(Math.abs(artificialIn - artificialOut) / artificialIn < 1e-8);
    assert.ok(Math.abs(real.reduce((s, p) => s + p, 0) - 0.85) < 1e-12);
    assert.ok(Math.abs(artificialIn + artificialOut - 0.15) < 1e-12);
    assert.ok(Math.abs(result.realFlow - 0.85) < 1e-12);
    // TrafficRank is the in-flow, normalised.
    const total = inflow.reduce((s, x) => s + x, 0);
    for (let j = 0; j < graph.nodeCount; j += 97) assert.ok(Math.abs(result.trafficRank[j]! - inflow[j]! / total) < 1e-15);
    // Entropy of the closed-form flows.
    let entropy = 0;
    for (const p of real) entropy -= p * Math.log(p);
    for (let j = 0; j < graph.nodeCount; j++) {
      const s = Math.exp(result.nu - 1);
      for (const p of [s * result.hotness[j]!, s / result.hotness[j]!]) entropy -= p * Math.log(p);
    }
    assert.ok(Math.abs(entropy - result.entropy) < 1e-9);
  });

  it('equals a direct numerical maximisation of the entropy on small graphs', () => {
    const random = new Random(61);
    for (let trial = 0; trial < 6; trial++) {
      // A cycle through every page keeps the problem feasible (each page can pass its traffic on).
      const n = 4 + random.nextInt(6);
      const edges: Array<[number, number]> = [];
      for (let v = 0; v < n; v++) edges.push([v, (v + 1) % n]);
      for (let i = 0; i < n; i++) edges.push([random.nextInt(n), random.nextInt(n)]);
      const graph = graphOf(n, edges);
      const alpha = 0.6 + 0.3 * random.next();
      const result = trafficRank(graph, { alpha, tolerance: 1e-13 });
      const problem = primalProblem(graph, alpha);
      const p = maximumEntropyFlow(new Array(problem.edges.length).fill(1), problem.rows, problem.rhs);
      const { real, s, t } = flowsFrom(graph, result);
      real.forEach((flow, e) => assert.ok(Math.abs(flow - p[e]!) < 1e-9, `trial ${trial}, link ${e}: ${flow} vs ${p[e]}`));
      for (let j = 0; j < n; j++) {
        assert.ok(Math.abs(t * result.hotness[j]! - p[problem.realCount + j]!) < 1e-9);
        assert.ok(Math.abs(t / result.hotness[j]! - p[problem.realCount + n + j]!) < 1e-9);
      }
      const entropy = -p.reduce((sum, x) => sum + x * Math.log(x), 0);
      assert.ok(Math.abs(entropy - result.entropy) < 1e-9);
      assert.ok(s > 0);
    }
  });

  it('with a prior per link maximises the cross-entropy', () => {
    const random = new Random(62);
    const n = 7;
    const edges: Array<[number, number]> = [];
    for (let i = 0; i < 16; i++) edges.push([random.nextInt(n), random.nextInt(n)]);
    const graph = graphOf(n, edges);
    const prior = Float64Array.from({ length: graph.edgeCount }, () => 0.2 + 3 * random.next());
    const result = trafficRank(graph, { prior, tolerance: 1e-13 });
    const problem = primalProblem(graph, 0.85);
    const q = [...prior, ...new Array(2 * n).fill(1)];
    const p = maximumEntropyFlow(q, problem.rows, problem.rhs);
    flowsFrom(graph, result, prior).real.forEach((flow, e) => assert.ok(Math.abs(flow - p[e]!) < 1e-9, `link ${e}`));
    // A constant prior changes nothing.
    const constant = trafficRank(graph, { prior: new Float64Array(graph.edgeCount).fill(3), tolerance: 1e-13 });
    const plain = trafficRank(graph, { tolerance: 1e-13 });
    plain.hotness.forEach((h, j) => assert.ok(Math.abs(h - constant.hotness[j]!) < 1e-9));
  });

  it('fixes the traffic of pages with known hits and conserves it elsewhere', () => {
    const random = new Random(63);
    const n = 8;
    const edges: Array<[number, number]> = [];
    for (let v = 0; v < n; v++) edges.push([v, (v + 1) % n], [v, random.nextInt(n)]);
    const graph = graphOf(n, edges);
    const known = new Map([
      [2, 0.2],
      [5, 0.05],
    ]);
    const result = trafficRank(graph, { knownHits: known, tolerance: 1e-13 });
    assert.ok(result.converged);
    const problem = primalProblem(graph, 0.85, known);
    const p = maximumEntropyFlow(new Array(problem.edges.length).fill(1), problem.rows, problem.rhs);
    // In-flow of every page from the reference flows, against the result's traffic (normalised in-flow).
    const inflow = new Array<number>(n).fill(0);
    problem.edges.forEach(([, b], e) => {
      if (b < n) inflow[b]! += p[e]!;
    });
    const total = inflow.reduce((s, x) => s + x, 0);
    inflow.forEach((x, j) => assert.ok(Math.abs(x / total - result.trafficRank[j]!) < 1e-9, `page ${j}`));
    assert.ok(Math.abs(inflow[2]! - 0.2) < 1e-12 && Math.abs(inflow[5]! - 0.05) < 1e-12);
  });

  it('converges to the same point with Jacobi, Gauss-Seidel and Anderson sweeps; Anderson needs the fewest', async () => {
    const { graph } = await loadGraph(testData('harvard500', 'harvard500.edges.tsv'));
    const results = (['jacobi', 'gauss-seidel', 'anderson'] as const).map((sweep) => trafficRank(graph, { sweep, tolerance: 1e-11 }));
    for (const r of results) {
      assert.ok(r.converged);
      r.hotness.forEach((h, j) => assert.ok(Math.abs(h - results[0]!.hotness[j]!) / h < 1e-8));
    }
    assert.ok(results[2]!.sweeps < results[1]!.sweeps && results[1]!.sweeps < results[0]!.sweeps);
    assert.ok(results[2]!.sweeps * 4 < results[0]!.sweeps);
  });

  it('reports a problem without solution as not converged (alpha too large for the graph)', () => {
    // Page 3 must pass all it receives to A, but A's links carry only 1 - alpha.
    const graph = graphOf(4, [
      [2, 1],
      [1, 3],
      [0, 3],
    ]);
    const result = trafficRank(graph, { alpha: 0.71 });
    assert.equal(result.converged, false);
    assert.equal(result.violation, Infinity);
    assert.ok(result.sweeps < 2000);
  });

  it('reports non-convergence', () => {
    const graph = graphOf(5, [
      [0, 1],
      [1, 2],
      [2, 0],
      [3, 0],
    ]);
    const result = trafficRank(graph, { maxSweeps: 2, sweep: 'jacobi' });
    assert.equal(result.converged, false);
    assert.equal(result.sweeps, 2);
    assert.ok(result.violation > 1e-10);
    assert.throws(() => trafficRank(graph, { alpha: 1 }), OptionError);
    assert.throws(() => trafficRank(graph, { prior: new Float64Array(2) }), OptionError);
  });
});

describe('the sign of HOTness (NOTES section 4, measured with an independent solver)', () => {
  const correlations = async (path: string) => {
    const { graph } = await loadGraph(path);
    const result = trafficRank(graph, { tolerance: 1e-8 });
    const rank = pagerank(graph).scores;
    const linking: number[] = [];
    for (let v = 0; v < graph.nodeCount; v++) if (graph.outDegree(v) > 0) linking.push(v);
    const pick = (values: ArrayLike<number>) => linking.map((v) => values[v]!);
    const outDegree = Array.from({ length: graph.nodeCount }, (_, v) => graph.outDegree(v));
    return {
      hotPageRank: spearman(pick(result.hotness), pick(rank)),
      hotOutDegree: spearman(result.hotness, outDegree),
      trafficOutDegree: spearman(result.trafficRank, outDegree),
    };
  };

  it('hollins: HOTness rises with PageRank (+0.67) and falls with out-degree (-0.65); traffic favours hubs (+0.88)', async () => {
    const c = await correlations(testData('hollins', 'hollins.edges.txt'));
    assert.ok(Math.abs(c.hotPageRank - 0.67) < 0.02, `${c.hotPageRank}`);
    assert.ok(Math.abs(c.hotOutDegree + 0.65) < 0.02, `${c.hotOutDegree}`);
    assert.ok(Math.abs(c.trafficOutDegree - 0.88) < 0.02, `${c.trafficOutDegree}`);
  });

  it('cnr-2000: +0.45, -0.53 and +0.71', async () => {
    const c = await correlations(testData('cnr-2000', 'cnr-2000.graph'));
    assert.ok(Math.abs(c.hotPageRank - 0.45) < 0.02, `${c.hotPageRank}`);
    assert.ok(Math.abs(c.hotOutDegree + 0.53) < 0.02, `${c.hotOutDegree}`);
    assert.ok(Math.abs(c.trafficOutDegree - 0.71) < 0.02, `${c.trafficOutDegree}`);
  });
});
