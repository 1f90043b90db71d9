import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { levels } from '../../src/analysis/levels.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { loadGraph } from '../../src/formats/load.js';
import { OptionError } from '../../src/errors.js';
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

/** Shortest click counts by Bellman-Ford style relaxation: independent of BFS. */
function relaxedDistances(n: number, pairs: Array<[number, number]>, roots: number[]): number[] {
  const distance = new Array<number>(n).fill(Infinity);
  for (const r of roots) distance[r] = 0;
  for (let round = 0; round < n; round++) {
    for (const [a, b] of pairs) if (a !== b && distance[a]! + 1 < distance[b]!) distance[b] = distance[a]! + 1;
  }
  return distance.map((d) => (d === Infinity ? -1 : d));
}

describe('levels (Algorithm 4)', () => {
  it('counts clicks from the nearest of several roots', () => {
    // 0 -> 1 -> 2 -> 3, 4 -> 3, 5 unreachable.
    const graph = graphOf(6, [
      [0, 1],
      [1, 2],
      [2, 3],
      [4, 3],
      [5, 0],
    ]);
    const one = levels(graph, [0]);
    assert.deepEqual(Array.from(one.level), [0, 1, 2, 3, -1, -1]);
    assert.deepEqual(one.histogram, [1, 1, 1, 1]);
    assert.equal(one.reached, 4);
    assert.equal(one.unreachable, 2);
    assert.equal(one.maxLevel, 3);
    const two = levels(graph, [0, 4, 4]);
    assert.deepEqual(Array.from(two.level), [0, 1, 2, 1, 0, -1]);
    assert.deepEqual(two.histogram, [2, 2, 1]);
  });

  it('stops at maxLevel', () => {
    const graph = graphOf(4, [
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    const result = levels(graph, [0], { maxLevel: 2 });
    assert.deepEqual(Array.from(result.level), [0, 1, 2, -1]);
    assert.equal(result.unreachable, 1);
  });

  it('agrees with shortest paths by relaxation on random graphs', () => {
    const random = new Random(17);
    for (let trial = 0; trial < 40; trial++) {
      const n = 1 + random.nextInt(60);
      const pairs: Array<[number, number]> = [];
      for (let i = 0; i < 2 * n; i++) pairs.push([random.nextInt(n), random.nextInt(n)]);
      const roots = [random.nextInt(n), random.nextInt(n)];
      const result = levels(graphOf(n, pairs), roots);
      const expected = relaxedDistances(n, pairs, roots);
      assert.deepEqual(Array.from(result.level), expected);
      const histogram: number[] = [];
      for (const d of expected) if (d >= 0) histogram[d] = (histogram[d] ?? 0) + 1;
      assert.deepEqual(result.histogram, histogram);
    }
  });

  it('rejects a root outside the graph', () => {
    assert.throws(() => levels(graphOf(2, [[0, 1]]), [5]), OptionError);
  });

  it('gives the same levels on several threads as on one, with shortest paths on random graphs', () => {
    const random = new Random(23);
    for (let trial = 0; trial < 30; trial++) {
      const n = 1 + random.nextInt(80);
      const pairs: Array<[number, number]> = [];
      for (let i = 0; i < 2 * n; i++) pairs.push([random.nextInt(n), random.nextInt(n)]);
      const roots = [random.nextInt(n), random.nextInt(n)];
      const graph = graphOf(n, pairs);
      const expected = relaxedDistances(n, pairs, roots);
      for (const threads of [2, 3]) {
        const result = levels(graph, roots, { threads });
        assert.deepEqual(Array.from(result.level), expected, `trial ${trial}, ${threads} threads`);
        assert.equal(result.reached, expected.filter((d) => d >= 0).length);
      }
      const limited = levels(graph, roots, { threads: 2, maxLevel: 2 });
      assert.deepEqual(Array.from(limited.level), expected.map((d) => (d > 2 ? -1 : d)), `trial ${trial}, max level 2`);
    }
  });

  it('gives the same levels, histogram and reach on cnr-2000 on one and two threads', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    // From the giant component's first page, as the benchmark: it reaches every page.
    const scc = stronglyConnectedComponents(graph);
    const root = scc.component.indexOf(scc.largestId);
    const one = levels(graph, [root], { threads: 1 });
    for (const options of [{ threads: 2 }, { threads: 2, maxLevel: 5 }, {}]) {
      const other = levels(graph, [root], options);
      const reference = 'maxLevel' in options ? levels(graph, [root], { threads: 1, maxLevel: 5 }) : one;
      assert.deepEqual(other.histogram, reference.histogram, JSON.stringify(options));
      assert.equal(other.reached, reference.reached);
      assert.equal(other.maxLevel, reference.maxLevel);
      assert.ok(other.level.every((d, v) => d === reference.level[v]), JSON.stringify(options));
    }
    assert.equal(one.reached, 325_557);
    assert.ok(one.maxLevel > 5);
    assert.throws(() => levels(graph, [root], { threads: 0 }), OptionError);
  });
});
