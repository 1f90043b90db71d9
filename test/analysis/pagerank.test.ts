import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pagerank } from '../../src/analysis/pagerank.js';
import { topK } from '../../src/analysis/top.js';
import { OptionError } from '../../src/errors.js';
import { loadGraph } from '../../src/formats/load.js';
import type { BuildOptions } from '../../src/graph/builder.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { maxAbsDifference, testData } from '../helpers.js';
import { type Edge, densePageRank, simpleEdges } from '../reference.js';

interface Oracle {
  edges?: Array<[number | string, number | string]>;
  n?: number;
  alpha?: number;
  weights?: number[] | null;
  directed?: boolean;
  dangling?: Record<string, number>;
  expected?: number[];
  expected_percent?: Record<string, number>;
  top?: Array<[number, number, number, number, string]>;
}

const oracles = JSON.parse(readFileSync(testData('oracles', 'published-small-graphs.json'), 'utf8')) as Record<string, Oracle>;

function graphOf(edges: Array<[number | string, number | string]>, weights?: number[] | null, options: BuildOptions = {}): Graph {
  const collector = new EdgeCollector(weights != null);
  edges.forEach(([a, b], i) => collector.add(String(a), String(b), weights?.[i] ?? 1));
  return collector.build(options).graph;
}

/** Scores in the order of the labels 0..n-1 or 1..n, as the oracles list them. */
function scoresByLabel(graph: Graph, scores: Float64Array, labels: Array<string | number>): number[] {
  return labels.map((label) => scores[graph.labels.id(String(label))]!);
}

function assertClose(actual: number[], expected: number[], tolerance: number, what: string): void {
  assert.equal(actual.length, expected.length, what);
  const difference = maxAbsDifference(actual, expected);
  assert.ok(difference <= tolerance, `${what}: max difference ${difference} > ${tolerance}\n${actual}\n${expected}`);
}

describe('PageRank against published values', () => {
  it('networkx: Langville-Meyer 6-page graph, alpha 0.9', () => {
    const oracle = oracles.networkx_LM6_alpha0dot9 ?? oracles['networkx_LM6_alpha0.9']!;
    const graph = graphOf(oracle.edges!);
    const result = pagerank(graph, { damping: 0.9, tolerance: 1e-14 });
    assertClose(scoresByLabel(graph, result.scores, [1, 2, 3, 4, 5, 6]), oracle.expected!, 1e-8, 'LM6');
  });

  it('networkx: the same graph with a custom dangling distribution', () => {
    const oracle = oracles['networkx_LM6_custom_dangling_alpha0.85']!;
    const graph = graphOf(oracles['networkx_LM6_alpha0.9']!.edges!);
    const dangling = new Float64Array(graph.nodeCount);
    for (const [label, weight] of Object.entries(oracle.dangling!)) dangling[graph.labels.id(label)] = weight;
    const result = pagerank(graph, { damping: 0.85, dangling, tolerance: 1e-14 });
    assertClose(scoresByLabel(graph, result.scores, [1, 2, 3, 4, 5, 6]), oracle.expected!, 1e-8, 'LM6 dangling');
  });

  for (const name of [
    'igraph_test_graph_1_directed_flag_0',
    'igraph_test_graph_2_directed_flag_0',
    'igraph_test_graph_3_weighted',
    'igraph_undirected_star_11',
    'igraph_undirected_multigraph',
  ]) {
    it(`igraph: ${name} (multi-edges counted, undirected edges both ways)`, () => {
      const oracle = oracles[name]!;
      const graph = graphOf(oracle.edges!, oracle.weights, {
        symmetric: oracle.directed === false,
        duplicates: 'count',
      });
      assert.equal(graph.nodeCount, oracle.n);
      const result = pagerank(graph, { damping: oracle.alpha!, tolerance: 1e-14 });
      const labels = Array.from({ length: oracle.n! }, (_, i) => i);
      assertClose(scoresByLabel(graph, result.scores, labels), oracle.expected!, 1e-6, name);
    });
  }

  it('GraphStream / Wikipedia: the 11-page example, in percent', () => {
    const oracle = oracles.wikipedia_11_node_graphstream!;
    const graph = graphOf(oracle.edges!);
    const result = pagerank(graph, { damping: 0.85 });
    const labels = Object.keys(oracle.expected_percent!);
    const percent = scoresByLabel(graph, result.scores, labels).map((x) => 100 * x);
    assertClose(percent, Object.values(oracle.expected_percent!), 0.05, 'wikipedia');
  });

  it("Moler's 6-page tiny web (Numerical Computing with MATLAB, 2.11), 4 digits", () => {
    const graph = graphOf(oracles.moler_tiny_web_6!.edges!);
    const result = pagerank(graph);
    const values = scoresByLabel(graph, result.scores, [1, 2, 3, 4, 5, 6]);
    assertClose(values, [0.321, 0.1705, 0.1066, 0.1368, 0.0643, 0.2007], 5e-5, 'tiny web');
  });

  it("Moler's harvard500: the top pages and values printed in the book", async () => {
    const { graph } = await loadGraph(testData('harvard500', 'harvard500.edges.tsv'), {
      labelsPath: testData('harvard500', 'harvard500.urls.tsv'),
    });
    assert.equal(graph.nodeCount, 500);
    assert.equal(graph.edgeCount, 2563);
    const result = pagerank(graph);
    const top = Array.from(topK(result.scores, 10), (id) => [graph.labels.label(id), result.scores[id]!] as const);
    // data/README.md: the values printed in Moler's book, to 4 digits.
    const book: Array<[string, number]> = [
      ['http://www.harvard.edu', 0.0843],
      ['http://www.hbs.edu', 0.0167],
      ['http://search.harvard.edu:8765/custom/query.html', 0.0166],
      ['http://www.med.harvard.edu', 0.0163],
      ['http://www.gse.harvard.edu', 0.0139],
    ];
    book.forEach(([url, value], i) => {
      assert.equal(top[i]![0], url);
      assert.ok(Math.abs(top[i]![1] - value) < 5e-5, `${url}: ${top[i]![1]} vs ${value}`);
    });
    // The oracle file's 6-digit values for the top 10, with in- and out-degrees.
    oracles.harvard500_moler_convention!.top!.forEach(([id, value, inDegree, outDegree, url], i) => {
      const v = graph.labels.id(url);
      assert.equal(v, graph.labels.id(String(id)));
      assert.equal(top[i]![0], url);
      assert.ok(Math.abs(result.scores[v]! - value) < 5e-7, `${url}: ${result.scores[v]} vs ${value}`);
      assert.equal(graph.inDegree(v), inDegree, `in-degree of ${url}`);
      assert.equal(graph.outDegree(v), outDegree, `out-degree of ${url}`);
    });
  });
});

describe('PageRank against an exact dense solve', () => {
  function randomCase(random: Random): { n: number; edges: Edge[] } {
    const n = 2 + random.nextInt(40);
    const m = random.nextInt(4 * n);
    const raw: Edge[] = [];
    for (let i = 0; i < m; i++) raw.push([random.nextInt(n), random.nextInt(n)]);
    // Make every page appear in a link so the node set is 0..n-1.
    for (let v = 0; v < n; v++) raw.push([v, v]);
    return { n, edges: simpleEdges(raw) };
  }

  function graphFrom(n: number, edges: readonly Edge[]): Graph {
    const collector = new EdgeCollector();
    for (let v = 0; v < n; v++) collector.addNumeric(v, v);
    for (const [a, b] of edges) collector.addNumeric(a, b);
    return collector.build().graph;
  }

  it('gives the exact stationary vector with dangling pages spread uniformly', () => {
    const random = new Random(99);
    for (let trial = 0; trial < 40; trial++) {
      const { n, edges } = randomCase(random);
      const damping = [0.5, 0.85, 0.99][trial % 3]!;
      const result = pagerank(graphFrom(n, edges), { damping, tolerance: 1e-13, maxIterations: 10_000 });
      assert.ok(result.converged);
      const exact = densePageRank(n, edges, { damping });
      const difference = maxAbsDifference(result.scores, exact);
      assert.ok(difference < 1e-10, `trial ${trial}: ${difference}`);
      const total = result.scores.reduce((s, x) => s + x, 0);
      assert.ok(Math.abs(total - 1) < 1e-12);
    }
  });

  it('gives the exact personalised vector (teleport and dangling distributions)', () => {
    const random = new Random(100);
    for (let trial = 0; trial < 20; trial++) {
      const { n, edges } = randomCase(random);
      const teleport = Array.from({ length: n }, () => (random.nextInt(3) === 0 ? 0 : random.next()));
      teleport[0] = 1;
      const dangling = Array.from({ length: n }, () => random.next());
      const result = pagerank(graphFrom(n, edges), {
        teleport: Float64Array.from(teleport),
        dangling: trial % 2 === 0 ? Float64Array.from(dangling) : null,
        tolerance: 1e-15,
      });
      const exact = densePageRank(n, edges, { teleport, ...(trial % 2 === 0 ? { dangling } : {}) });
      assert.ok(maxAbsDifference(result.scores, exact) < 1e-10, `trial ${trial}`);
    }
  });

  it('follows weighted links in proportion to their weights', () => {
    const random = new Random(101);
    for (let trial = 0; trial < 20; trial++) {
      const { n, edges } = randomCase(random);
      const weights = edges.map(() => 0.1 + random.nextInt(10));
      const collector = new EdgeCollector(true);
      for (let v = 0; v < n; v++) collector.addNumeric(v, v, 1);
      edges.forEach(([a, b], i) => collector.addNumeric(a, b, weights[i]!));
      const result = pagerank(collector.build().graph, { tolerance: 1e-15 });
      const exact = densePageRank(n, edges, { weights });
      assert.ok(maxAbsDifference(result.scores, exact) < 1e-10, `trial ${trial}`);
    }
  });
});

describe('PageRank iteration control', () => {
  const graph = graphOf(oracles.moler_tiny_web_6!.edges!);

  it('reports non-convergence instead of hiding it, with either solver', () => {
    const result = pagerank(graph, { maxIterations: 3, solver: 'power' });
    assert.equal(result.converged, false);
    assert.equal(result.iterations, 3);
    assert.ok(result.residual > 1e-10);
    const fast = pagerank(graph, { maxIterations: 2, solver: 'gauss-seidel' });
    assert.equal(fast.converged, false);
    assert.ok(fast.residual > 1e-10);
  });

  it('stops at the first iterate within the tolerance and reports its residual', () => {
    const residuals: number[] = [];
    const result = pagerank(graph, { solver: 'power', tolerance: 1e-6, onIteration: (_, r) => residuals.push(r) });
    assert.ok(result.converged);
    assert.equal(residuals.length, result.iterations);
    assert.equal(residuals.at(-1), result.residual);
    assert.ok(result.residual <= 1e-6);
    assert.ok(residuals.at(-2)! > 1e-6);
  });

  it('rejects impossible options with the option named', () => {
    for (const [options, name] of [
      [{ damping: 1 }, 'damping'],
      [{ damping: -0.1 }, 'damping'],
      [{ tolerance: 0 }, 'tolerance'],
      [{ maxIterations: 0 }, 'max-iterations'],
      [{ teleport: new Float64Array(2) }, 'teleport'],
      [{ teleport: new Float64Array(graph.nodeCount) }, 'teleport'],
    ] as const) {
      assert.throws(
        () => pagerank(graph, options),
        (error: unknown) => error instanceof OptionError && error.option === name,
      );
    }
  });
});
