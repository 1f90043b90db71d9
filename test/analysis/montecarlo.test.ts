import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type MonteCarloResult, monteCarloPageRank } from '../../src/analysis/montecarlo.js';
import { MonteCarloWalks, diffGraphs } from '../../src/analysis/montecarlo-incremental.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { topK } from '../../src/analysis/top.js';
import { OptionError } from '../../src/errors.js';
import { loadGraph } from '../../src/formats/load.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { testData } from '../helpers.js';
import { type Edge, expectedVisits, kolmogorovSmirnov } from '../reference.js';

function graphOf(n: number, edges: readonly Edge[]): Graph {
  const collector = new EdgeCollector();
  for (let v = 0; v < n; v++) collector.addNumeric(v, v);
  for (const [a, b] of edges) collector.addNumeric(a, b);
  return collector.build().graph;
}

/** A small web: a cycle with chords, and a few dangling pages. */
function smallWeb(n: number, seed: number): Edge[] {
  const random = new Random(seed);
  const edges = new Set<string>();
  for (let v = 0; v < n - 4; v++) {
    edges.add(`${v},${(v + 1) % (n - 4)}`);
    for (let k = 0; k < 2; k++) {
      const w = random.nextInt(n);
      if (w !== v) edges.add(`${v},${w}`);
    }
  }
  return [...edges].map((e) => e.split(',').map(Number) as unknown as Edge);
}

/** Pages whose Monte Carlo score is within `sigmas` of its own standard deviation of the exact value. */
function withinOwnError(result: MonteCarloResult, exact: Float64Array, pages: Int32Array, sigmas: number): number {
  let count = 0;
  for (const j of pages) if (Math.abs(result.scores[j]! - exact[j]!) <= sigmas * result.standardDeviations[j]!) count++;
  return count;
}

describe('Monte Carlo PageRank (Algorithm 2)', () => {
  it('has the expected visits of complete paths stopping at dangling pages', () => {
    const n = 24;
    const edges = smallWeb(n, 5);
    const graph = graphOf(n, edges);
    const expected = expectedVisits(n, edges, 0.85, 20);
    const runs = 200;
    const mean = new Float64Array(n);
    for (let r = 0; r < runs; r++) {
      const result = monteCarloPageRank(graph, { walksPerPage: 20, seed: r, threads: 1 });
      for (let j = 0; j < n; j++) mean[j]! += result.visits[j]! / runs;
    }
    for (let j = 0; j < n; j++) {
      // Visits to a page over 20 * 24 walks: standard error of the mean below 4% of it here.
      assert.ok(Math.abs(mean[j]! - expected[j]!) < 0.05 * expected[j]!, `page ${j}: ${mean[j]} vs ${expected[j]}`);
    }
  });

  it('estimates PageRank (dangling mass spread uniformly) when normalised by all visits', () => {
    const n = 24;
    const edges = smallWeb(n, 6);
    const graph = graphOf(n, edges);
    const exact = pagerank(graph, { tolerance: 1e-14 }).scores;
    const result = monteCarloPageRank(graph, { walksPerPage: 20_000, seed: 3, threads: 1 });
    for (let j = 0; j < n; j++) {
      assert.ok(Math.abs(result.scores[j]! - exact[j]!) < 4 * result.standardDeviations[j]!, `page ${j}`);
      assert.ok(Math.abs(result.scores[j]! - exact[j]!) / exact[j]! < 0.03, `page ${j}`);
    }
  });

  it('reports standard deviations that match the spread of repeated runs', () => {
    const n = 30;
    const graph = graphOf(n, smallWeb(n, 7));
    const runs = 300;
    const scores: number[][] = Array.from({ length: n }, () => []);
    const reported = new Float64Array(n);
    for (let r = 0; r < runs; r++) {
      const result = monteCarloPageRank(graph, { walksPerPage: 30, seed: 1000 + r, threads: 1 });
      for (let j = 0; j < n; j++) {
        scores[j]!.push(result.scores[j]!);
        reported[j]! += result.standardDeviations[j]! / runs;
      }
    }
    for (let j = 0; j < n; j++) {
      const m = scores[j]!.reduce((s, x) => s + x, 0) / runs;
      const observed = Math.sqrt(scores[j]!.reduce((s, x) => s + (x - m) ** 2, 0) / (runs - 1));
      const ratio = reported[j]! / observed;
      assert.ok(ratio > 0.75 && ratio < 1.33, `page ${j}: reported ${reported[j]} observed ${observed}`);
    }
  });

  it('is reproducible from the seed, whatever the number of threads', () => {
    const { graph } = (() => {
      const collector = new EdgeCollector();
      const random = new Random(9);
      for (let i = 0; i < 60_000; i++) collector.addNumeric(random.nextInt(20_000), random.nextInt(20_000));
      return collector.build();
    })();
    const one = monteCarloPageRank(graph, { walksPerPage: 12, seed: 4, threads: 1 });
    const two = monteCarloPageRank(graph, { walksPerPage: 12, seed: 4, threads: 2 });
    const three = monteCarloPageRank(graph, { walksPerPage: 12, seed: 4, threads: 3 });
    assert.deepEqual(two.visits, one.visits);
    assert.deepEqual(three.visits, one.visits);
    assert.deepEqual(three.standardDeviations, one.standardDeviations);
    const other = monteCarloPageRank(graph, { walksPerPage: 12, seed: 5, threads: 2 });
    assert.notDeepEqual(other.visits, one.visits);
    // The walks kept for updates are the same walks.
    const kept = MonteCarloWalks.run(graph, { walksPerPage: 12, seed: 4 }).estimate();
    assert.deepEqual(kept.visits, one.visits);
    assert.deepEqual(kept.standardDeviations, one.standardDeviations);
  });

  it('rejects impossible options with the option named', () => {
    const graph = graphOf(3, [[0, 1]]);
    for (const [options, name] of [
      [{ walksPerPage: 0 }, 'walks'],
      [{ damping: 1 }, 'damping'],
      [{ seed: -1 }, 'seed'],
      [{ threads: 0 }, 'threads'],
    ] as const) {
      assert.throws(() => monteCarloPageRank(graph, options), (e: unknown) => e instanceof OptionError && e.option === name);
    }
  });
});

describe('Monte Carlo on real graphs, within its own error estimate', () => {
  it('hollins: the top 100 pages within 3 of their standard deviations (m = 50)', async () => {
    const { graph } = await loadGraph(testData('hollins', 'hollins.edges.txt'));
    const exact = pagerank(graph, { tolerance: 1e-12 }).scores;
    const result = monteCarloPageRank(graph, { walksPerPage: 50, seed: 11 });
    const top = topK(exact, 100);
    assert.ok(withinOwnError(result, exact, top, 2) >= 90, `${withinOwnError(result, exact, top, 2)} within 2 sigma`);
    assert.ok(withinOwnError(result, exact, top, 3) >= 98);
  });

  it('cnr-2000 with one walk per page: top 10 within 10%, 95 of the top 100 within 2 sigma', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    const exact = pagerank(graph).scores;
    const result = monteCarloPageRank(graph, { walksPerPage: 1, seed: 1 });
    const top10 = topK(exact, 10);
    for (const j of top10) {
      assert.ok(Math.abs(result.scores[j]! - exact[j]!) / exact[j]! < 0.1, `page ${j}`);
      assert.ok(result.standardDeviations[j]! / result.scores[j]! < 0.05, `page ${j}: relative sd`);
    }
    const within = withinOwnError(result, exact, topK(exact, 100), 2);
    assert.ok(within >= 95, `${within} of the top 100 within 2 sigma`);
  });
});

describe('incremental Monte Carlo', () => {
  const n = 20;
  const before = smallWeb(n, 12);
  // After: some links removed, some added, a page (19) removed with its links, a page (20) added.
  const random = new Random(13);
  const after: Edge[] = before.filter(([a, b]) => random.nextInt(6) !== 0 && a !== 19 && b !== 19);
  after.push([2, 20], [20, 0], [20, 5], [7, 3], [8, 14]);
  const oldGraph = graphOf(n, before);
  const collector = new EdgeCollector();
  for (let v = 0; v <= 20; v++) if (v !== 19) collector.addNumeric(v, v);
  for (const [a, b] of after) collector.addNumeric(a, b);
  const newGraph = collector.build().graph;

  it('finds the changed pages by label', () => {
    const change = diffGraphs(oldGraph, newGraph);
    assert.equal(change.oldToNew[oldGraph.labels.id('19')], -1);
    assert.equal(change.changed[newGraph.labels.id('20')], 1);
    assert.equal(change.changed[newGraph.labels.id('7')], 1);
    let changed = 0;
    for (const flag of change.changed) changed += flag;
    assert.ok(changed < newGraph.nodeCount, 'some pages are unchanged');
  });

  it('gives the same distribution as a fresh run on the new graph', () => {
    const runs = 400;
    const updated: number[][] = [];
    const fresh: number[][] = [];
    const mean = new Float64Array(newGraph.nodeCount);
    for (let r = 0; r < runs; r++) {
      const walks = MonteCarloWalks.run(oldGraph, { walksPerPage: 10, seed: r });
      walks.update(newGraph);
      updated.push(Array.from(walks.estimate().visits));
      fresh.push(Array.from(monteCarloPageRank(newGraph, { walksPerPage: 10, seed: 100_000 + r, threads: 1 }).visits));
    }
    const newEdges: Edge[] = [];
    for (let v = 0; v < newGraph.nodeCount; v++) for (const w of newGraph.successors(v)) newEdges.push([v, w]);
    const expected = expectedVisits(newGraph.nodeCount, newEdges, 0.85, 10);
    // Critical value of the two-sample KS test at the 0.1% level for 400 + 400 samples.
    const critical = 1.95 * Math.sqrt(2 / runs);
    for (let j = 0; j < newGraph.nodeCount; j++) {
      const a = updated.map((v) => v[j]!);
      const b = fresh.map((v) => v[j]!);
      assert.ok(kolmogorovSmirnov(a, b) < critical, `page ${newGraph.labels.label(j)}: KS ${kolmogorovSmirnov(a, b)}`);
      mean[j] = a.reduce((s, x) => s + x, 0) / runs;
      assert.ok(Math.abs(mean[j]! - expected[j]!) < 0.06 * expected[j]!, `page ${j}: ${mean[j]} vs ${expected[j]}`);
    }
    const totals = (rows: number[][]): number[] => rows.map((v) => v.reduce((s, x) => s + x, 0));
    assert.ok(kolmogorovSmirnov(totals(updated), totals(fresh)) < critical);
  });

  it('reruns only the walks that reached a changed page', async () => {
    const { graph } = await loadGraph(testData('hollins', 'hollins.edges.txt'));
    const walks = MonteCarloWalks.run(graph, { walksPerPage: 5, seed: 2 });
    // Remove the out-links of one low-ranked page and add one link elsewhere.
    const exact = pagerank(graph).scores;
    const victim = topK(exact.map((x) => -x), 1)[0]!;
    const collector = new EdgeCollector();
    for (let v = 0; v < graph.nodeCount; v++) {
      for (const w of graph.successors(v)) if (v !== victim) collector.add(graph.labels.label(v), graph.labels.label(w));
    }
    collector.add(graph.labels.label(victim), graph.labels.label(0));
    const changedGraph = collector.build().graph;
    const report = walks.update(changedGraph);
    assert.ok(report.walksContinued < walks.walks / 10, `${report.walksContinued} walks continued`);
    assert.ok(report.stepsSimulated < report.totalSteps / 10);
    const updated = walks.estimate();
    const truth = pagerank(changedGraph).scores;
    const top = topK(truth, 20);
    assert.ok(withinOwnError(updated, truth, top, 3) >= 19);
  });
});
