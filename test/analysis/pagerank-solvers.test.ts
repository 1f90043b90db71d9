/** The fast PageRank solver against the reference power iteration, on every graph of data/. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { closedComponents, pagerank } from '../../src/analysis/pagerank.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { OptionError } from '../../src/errors.js';
import { loadGraph } from '../../src/formats/load.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { l1Distance, testData } from '../helpers.js';

function assertSameVector(graph: Graph, name: string, options: { teleport?: Float64Array; damping?: number } = {}): void {
  const reference = pagerank(graph, { ...options, solver: 'power', tolerance: 1e-13, maxIterations: 100_000 });
  for (const threads of [1, 2]) {
    const fast = pagerank(graph, { ...options, solver: 'gauss-seidel', tolerance: 1e-12, threads });
    assert.equal(fast.solver, 'gauss-seidel');
    assert.ok(fast.converged, `${name}: converged`);
    assert.ok(fast.residual <= 1e-12, `${name}: residual ${fast.residual}`);
    const distance = l1Distance(fast.scores, reference.scores);
    assert.ok(distance <= 1e-10, `${name}, ${threads} thread(s): L1 distance ${distance}`);
  }
  // At the default tolerance both solvers meet it and stay as close to the reference as power iteration does.
  const fast = pagerank(graph, { ...options, solver: 'gauss-seidel' });
  const power = pagerank(graph, { ...options, solver: 'power' });
  assert.ok(fast.residual <= 1e-10);
  assert.ok(fast.equivalentIterations < power.iterations, `${name}: ${fast.equivalentIterations} vs ${power.iterations}`);
  assert.ok(l1Distance(fast.scores, reference.scores) <= 1e-9, `${name}: default tolerance`);
  // 'auto' picks one of them and meets the tolerance too.
  const auto = pagerank(graph, options);
  assert.ok(auto.converged && auto.residual <= 1e-10);
  assert.ok(l1Distance(auto.scores, reference.scores) <= 1e-9, `${name}: auto`);
}

describe('Gauss-Seidel over SCCs equals power iteration', () => {
  for (const [name, path] of [
    ['cnr-2000', testData('cnr-2000', 'cnr-2000.graph')],
    ['hollins', testData('hollins', 'hollins.edges.txt')],
    ['harvard500', testData('harvard500', 'harvard500.edges.tsv')],
  ] as const) {
    it(`on ${name}, to 1e-10 in L1`, async () => {
      const { graph } = await loadGraph(path);
      assertSameVector(graph, name);
    });
  }

  it('power iteration gives the same vector on one and two threads (cnr-2000)', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    const one = pagerank(graph, { solver: 'power', threads: 1 });
    const two = pagerank(graph, { solver: 'power', threads: 2 });
    assert.equal(one.iterations, 117);
    assert.equal(two.iterations, one.iterations);
    // Every page sums its in-links in the same order; only the partial sums of the residual and dangling mass differ.
    assert.ok(l1Distance(one.scores, two.scores) < 1e-12, `L1 ${l1Distance(one.scores, two.scores)}`);
    const personalised = new Float64Array(graph.nodeCount);
    for (let i = 0; i < 100; i++) personalised[(i * 7919) % graph.nodeCount] = 1 + (i % 3);
    const a = pagerank(graph, { solver: 'power', threads: 1, teleport: personalised, tolerance: 1e-8 });
    const b = pagerank(graph, { solver: 'power', threads: 2, teleport: personalised, tolerance: 1e-8 });
    assert.equal(a.iterations, b.iterations);
    assert.ok(l1Distance(a.scores, b.scores) < 1e-12);
  });

  it('reports each sweep as it ends (the live convergence curve), ending with the result\'s iterations and residual (cnr-2000)', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    // Threads 2 sweeps the giant component (1.6M links) on both threads at once, 1 on this thread.
    for (const threads of [1, 2]) {
      const events: Array<[number, number]> = [];
      let solving = true;
      let reportedWhileSolving = 0;
      const result = pagerank(graph, {
        solver: 'gauss-seidel',
        threads,
        onIteration: (iteration, residual) => {
          events.push([iteration, residual]);
          if (solving) reportedWhileSolving++;
        },
      });
      solving = false;
      assert.equal(result.solver, 'gauss-seidel');
      assert.equal(reportedWhileSolving, events.length);
      // One event per sweep number 1, 2, ... as the sweeps happen (not one at the end), the measured
      // residual possibly at the same number as the last sweep, then one per refinement round.
      const numbers = [...new Set(events.map(([i]) => i))];
      assert.deepEqual(numbers, Array.from({ length: result.iterations }, (_, i) => i + 1), `${threads} thread(s)`);
      assert.ok(events.length >= result.iterations && events.length <= result.iterations + 1, `${events.length} events`);
      assert.ok(result.iterations > 20, `${result.iterations} sweeps`);
      assert.deepEqual(events[events.length - 1], [result.iterations, result.residual], 'the last event is the result');
      assert.ok(events[0]![1] > 1e-2, `first sweep's change ${events[0]![1]}`);
      assert.ok(events[events.length - 2]![1] < 1e-9, 'the sweeps reach the tolerance');
    }
  });

  it('on the published small graphs (directed, unweighted ones)', () => {
    const oracles = JSON.parse(readFileSync(testData('oracles', 'published-small-graphs.json'), 'utf8')) as Record<
      string,
      { edges?: Array<[number | string, number | string]>; directed?: boolean; weights?: unknown; alpha?: number }
    >;
    let checked = 0;
    for (const [name, oracle] of Object.entries(oracles)) {
      if (oracle.edges === undefined || oracle.directed === false || oracle.weights != null || name.includes('hits')) continue;
      const collector = new EdgeCollector();
      for (const [a, b] of oracle.edges) collector.add(String(a), String(b));
      assertSameVector(collector.build().graph, name, { damping: oracle.alpha ?? 0.85 });
      checked++;
    }
    assert.ok(checked >= 3, `${checked} graphs`);
  });

  it('with personalised teleport and on random graphs with many components', () => {
    const random = new Random(31);
    for (let trial = 0; trial < 10; trial++) {
      const n = 50 + random.nextInt(2000);
      const collector = new EdgeCollector();
      for (let i = 0; i < 3 * n; i++) collector.addNumeric(random.nextInt(n), random.nextInt(n));
      const { graph } = collector.build();
      const teleport = new Float64Array(graph.nodeCount);
      for (let i = 0; i < 5; i++) teleport[random.nextInt(graph.nodeCount)] = 1 + random.nextInt(3);
      assertSameVector(graph, `random ${trial}`, trial % 2 === 0 ? { teleport } : {});
    }
  });

  it("is 'auto''s choice on web graphs, where power iteration would take long, and not on random ones", async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    assert.equal(pagerank(graph).solver, 'gauss-seidel');
    const random = new EdgeCollector();
    const generator = new Random(32);
    for (let i = 0; i < 200_000; i++) random.addNumeric(generator.nextInt(20_000), generator.nextInt(20_000));
    const fast = pagerank(random.build().graph);
    assert.equal(fast.solver, 'power');
    assert.ok(fast.iterations < 40);
  });

  it("counts the closed components that make 'auto' skip power iteration (second eigenvalue = c)", () => {
    // {0, 1} and {2, 3} are closed; {4, 5} has a link out (5 -> 0); 6 is dangling (its mass goes
    // everywhere); {7, 8} links out to 6.
    const collector = new EdgeCollector();
    for (const [a, b] of [[0, 1], [1, 0], [2, 3], [3, 2], [4, 5], [5, 4], [5, 0], [7, 8], [8, 7], [7, 6]] as const) collector.addNumeric(a, b);
    const graph = collector.build().graph;
    const scc = stronglyConnectedComponents(graph);
    assert.equal(closedComponents(graph, scc), 2);
    assert.equal(closedComponents(graph, scc, 1), 1);
    // With two closed components power iteration converges at rate c in the end: 'auto' goes to Gauss-Seidel.
    assert.equal(pagerank(graph).solver, 'gauss-seidel');
  });

  it('is chosen by default only where it applies', () => {
    const collector = new EdgeCollector(true);
    collector.add('a', 'b', 2);
    collector.add('b', 'a', 1);
    const weighted = collector.build().graph;
    assert.equal(pagerank(weighted).solver, 'power');
    assert.throws(() => pagerank(weighted, { solver: 'gauss-seidel' }), OptionError);
  });
});
