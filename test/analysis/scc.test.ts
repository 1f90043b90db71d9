import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentOf, componentSizeDistribution, reachable, stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { choosePivot, stronglyConnectedComponentsAroundPivot } from '../../src/analysis/scc-pivot.js';
import { loadGraph } from '../../src/formats/load.js';
import { buildFromEdges } from '../../src/graph/builder.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import type { Graph } from '../../src/graph/graph.js';
import { IdentityLabels } from '../../src/graph/labels.js';
import { Random } from '../../src/util/random.js';
import { testData } from '../helpers.js';

function graphOf(n: number, pairs: Array<[number, number]>): Graph {
  const buffer = new EdgeBuffer();
  for (const [a, b] of pairs) buffer.push(a, b);
  return buildFromEdges(n, buffer, new IdentityLabels(n)).graph;
}

/** Components by brute force: u ~ v iff each reaches the other (transitive closure by DFS from every page). */
function bruteForceComponents(n: number, pairs: Array<[number, number]>): number[][] {
  const adjacency = Array.from({ length: n }, () => [] as number[]);
  for (const [a, b] of pairs) adjacency[a]!.push(b);
  const reach = Array.from({ length: n }, (_, s) => {
    const seen = new Set([s]);
    const stack = [s];
    while (stack.length > 0) for (const w of adjacency[stack.pop()!]!) if (!seen.has(w)) (seen.add(w), stack.push(w));
    return seen;
  });
  const done = new Set<number>();
  const components: number[][] = [];
  for (let v = 0; v < n; v++) {
    if (done.has(v)) continue;
    const members = [];
    for (let w = 0; w < n; w++) if (reach[v]!.has(w) && reach[w]!.has(v)) members.push(w);
    members.forEach((w) => done.add(w));
    components.push(members);
  }
  return components;
}

function canonical(component: Int32Array, count: number): number[][] {
  const groups = Array.from({ length: count }, () => [] as number[]);
  component.forEach((c, v) => groups[c]!.push(v));
  return groups.sort((a, b) => a[0]! - b[0]!);
}

describe('strongly connected components', () => {
  it('finds the components of a small graph, sinks first', () => {
    // 0 <-> 1 -> 2 <-> 3 -> 4, and 5 alone pointing at 0.
    const graph = graphOf(6, [
      [0, 1],
      [1, 0],
      [1, 2],
      [2, 3],
      [3, 2],
      [3, 4],
      [5, 0],
    ]);
    const scc = stronglyConnectedComponents(graph);
    assert.equal(scc.count, 4);
    assert.deepEqual(canonical(scc.component, scc.count), [[0, 1], [2, 3], [4], [5]]);
    assert.equal(scc.largest, 2);
    assert.equal(scc.sizes[scc.component[0]!], 2);
    // Tarjan's order is a reverse topological order: 4 finishes before {2,3} before {0,1} before 5.
    assert.ok(scc.component[4]! < scc.component[2]!);
    assert.ok(scc.component[2]! < scc.component[0]!);
    assert.ok(scc.component[0]! < scc.component[5]!);
    assert.deepEqual(componentSizeDistribution(scc), [
      [1, 2],
      [2, 2],
    ]);
  });

  it('agrees with brute force and with Algorithm 3 on random graphs', () => {
    const random = new Random(13);
    for (let trial = 0; trial < 60; trial++) {
      const n = 1 + random.nextInt(50);
      const pairs: Array<[number, number]> = [];
      const m = random.nextInt(3 * n);
      for (let i = 0; i < m; i++) pairs.push([random.nextInt(n), random.nextInt(n)]);
      const graph = graphOf(n, pairs);
      const scc = stronglyConnectedComponents(graph);
      const expected = bruteForceComponents(n, pairs);
      assert.deepEqual(canonical(scc.component, scc.count), expected, `trial ${trial}`);
      assert.equal(scc.largest, Math.max(...expected.map((c) => c.length)));
      for (let root = 0; root < n; root += 7) {
        const members = Array.from(componentOf(graph, root));
        assert.deepEqual(members, expected.find((c) => c.includes(root)));
      }
    }
  });

  it('has no recursion limit: a cycle through a million pages is one component', () => {
    const n = 1_000_000;
    const buffer = new EdgeBuffer();
    for (let v = 0; v < n; v++) buffer.push(v, (v + 1) % n);
    const graph = buildFromEdges(n, buffer, new IdentityLabels(n)).graph;
    const scc = stronglyConnectedComponents(graph);
    assert.equal(scc.count, 1);
    assert.equal(scc.largest, n);
    assert.equal(componentOf(graph, 12345).length, n);
  });

  it('marks what a page reaches and what reaches it', () => {
    const graph = graphOf(4, [
      [0, 1],
      [1, 2],
      [3, 2],
    ]);
    assert.deepEqual(Array.from(reachable(graph, [0], 'out')), [1, 1, 1, 0]);
    assert.deepEqual(Array.from(reachable(graph, [2], 'in')), [1, 1, 1, 1]);
  });
});

/** Every link u -> w goes from a component numbered no lower than w's (sinks first). */
function assertTopological(graph: Graph, component: Int32Array, what: string): void {
  for (let u = 0; u < graph.nodeCount; u++) {
    for (const w of graph.successors(u)) {
      if (component[u]! < component[w]!) assert.fail(`${what}: link ${u} -> ${w} goes from component ${component[u]} up to ${component[w]}`);
    }
  }
}

describe('Tarjan as WebAssembly (kernels/scc.wat)', () => {
  it('gives the same component ids as the JavaScript search, on random graphs and on cnr-2000', async () => {
    const random = new Random(41);
    const graphs: Graph[] = [];
    for (let trial = 0; trial < 40; trial++) {
      const n = 1 + random.nextInt(300);
      const pairs: Array<[number, number]> = [];
      for (let i = 0; i < random.nextInt(4 * n) + 1; i++) pairs.push([random.nextInt(n), random.nextInt(n)]);
      graphs.push(graphOf(n, pairs));
    }
    graphs.push((await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph);
    for (const [i, graph] of graphs.entries()) {
      const js = stronglyConnectedComponents(graph, { kernel: 'js' });
      const wasm = stronglyConnectedComponents(graph, { kernel: 'wasm' });
      assert.equal(wasm.count, js.count, `graph ${i}`);
      assert.deepEqual(Array.from(wasm.component), Array.from(js.component), `graph ${i}`);
      assert.deepEqual(Array.from(wasm.sizes), Array.from(js.sizes), `graph ${i}`);
      assert.equal(wasm.largestId, js.largestId);
      assert.ok(wasm.component.buffer instanceof SharedArrayBuffer, 'the components on shared memory');
    }
    // 'auto' takes it for these graphs, and Tarjan in JavaScript when the finishing order is asked.
    assert.equal(stronglyConnectedComponents(graphs.at(-1)!).count, 100_977);
    assert.ok(stronglyConnectedComponents(graphs.at(-1)!, { finishOrder: true }).finishOrder !== undefined);
    assert.throws(() => stronglyConnectedComponents(graphs[0]!, { kernel: 'wasm', finishOrder: true }), /finishing order/);
  });
});

describe('strongly connected components around a pivot', () => {
  it('picks the page with the largest in-degree times out-degree', () => {
    // 2 has in 2, out 1 (product 2); 1 has in 1, out 3 (product 3).
    const graph = graphOf(5, [
      [0, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [3, 2],
      [2, 0],
    ]);
    assert.equal(choosePivot(graph), 1);
    assert.equal(choosePivot(graphOf(3, [[0, 1]])), -1);
  });

  it('finds the same components as brute force, numbered topologically, on random graphs (1 and 2 threads)', () => {
    const random = new Random(29);
    for (let trial = 0; trial < 60; trial++) {
      const n = 1 + random.nextInt(60);
      const pairs: Array<[number, number]> = [];
      const m = random.nextInt(3 * n);
      for (let i = 0; i < m; i++) pairs.push([random.nextInt(n), random.nextInt(n)]);
      const graph = graphOf(n, pairs);
      const expected = bruteForceComponents(n, pairs);
      for (const threads of [1, 2]) {
        const scc = stronglyConnectedComponentsAroundPivot(graph, { threads });
        assert.deepEqual(canonical(scc.component, scc.count), expected, `trial ${trial}, ${threads} threads`);
        assert.equal(scc.largest, Math.max(...expected.map((c) => c.length)));
        assert.equal(scc.sizes.reduce((a, b) => a + b, 0), n);
        for (let v = 0; v < n; v++) assert.equal(scc.sizes[scc.component[v]!], expected.find((c) => c.includes(v))!.length);
        assertTopological(graph, scc.component, `trial ${trial}`);
      }
    }
  });

  it('numbers the pages the pivot reaches before its component and the pages reaching it after', () => {
    // 5 -> {0 <-> 1 <-> 2 (pivot 1)} -> 3 -> 4, and 6 alone.
    const graph = graphOf(7, [
      [5, 0],
      [0, 1],
      [1, 0],
      [1, 2],
      [2, 1],
      [1, 3],
      [3, 4],
    ]);
    const scc = stronglyConnectedComponentsAroundPivot(graph, { threads: 1 });
    assert.deepEqual(canonical(scc.component, scc.count), [[0, 1, 2], [3], [4], [5], [6]]);
    assert.ok(scc.component[4]! < scc.component[3]!);
    assert.ok(scc.component[3]! < scc.component[1]!);
    assert.ok(scc.component[1]! < scc.component[5]!);
    assert.equal(scc.largestId, scc.component[0]);
  });

  it('agrees with Tarjan on cnr-2000 (1 and 2 threads)', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    const tarjan = stronglyConnectedComponents(graph);
    for (const threads of [1, 2]) {
      const scc = stronglyConnectedComponentsAroundPivot(graph, { threads });
      assert.equal(scc.count, tarjan.count);
      assert.equal(scc.largest, 112_023);
      // The same sets: Tarjan's ids map one to one onto the pivot's.
      const map = new Int32Array(tarjan.count).fill(-1);
      for (let v = 0; v < graph.nodeCount; v++) {
        const t = tarjan.component[v]!;
        if (map[t] === -1) map[t] = scc.component[v]!;
        else assert.equal(scc.component[v], map[t], `page ${v}`);
      }
      assertTopological(graph, scc.component, `cnr-2000, ${threads} threads`);
    }
  });
});
