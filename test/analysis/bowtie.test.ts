import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOW_TIE_PARTS, BowTiePart, bowTie } from '../../src/analysis/bowtie.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { loadGraph } from '../../src/formats/load.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { testData } from '../helpers.js';

function graphOf(n: number, edges: Array<[number, number]>): Graph {
  const collector = new EdgeCollector();
  for (let v = 0; v < n; v++) collector.addNumeric(v, v);
  for (const [a, b] of edges) collector.addNumeric(a, b);
  return collector.build().graph;
}

/** The definitions, by brute-force reachability. */
function bruteForce(graph: Graph): number[] {
  const n = graph.nodeCount;
  const reach = Array.from({ length: n }, (_, s) => {
    const seen = new Set([s]);
    const stack = [s];
    while (stack.length > 0) for (const w of graph.successors(stack.pop()!)) if (!seen.has(w)) (seen.add(w), stack.push(w));
    return seen;
  });
  const scc = stronglyConnectedComponents(graph);
  const core = (v: number): boolean => scc.component[v] === scc.largestId;
  const anyCore = [...Array(n).keys()].find(core)!;
  const isIn = (v: number): boolean => !core(v) && reach[v]!.has(anyCore);
  const isOut = (v: number): boolean => !core(v) && reach[anyCore]!.has(v);
  return Array.from({ length: n }, (_, v) => {
    if (core(v)) return BowTiePart.core;
    if (isIn(v)) return BowTiePart.in;
    if (isOut(v)) return BowTiePart.out;
    const fromIn = [...Array(n).keys()].some((u) => isIn(u) && reach[u]!.has(v));
    const toOut = [...Array(n).keys()].some((u) => isOut(u) && reach[v]!.has(u));
    if (fromIn && toOut) return BowTiePart.tubes;
    if (fromIn) return BowTiePart.inTendrils;
    if (toOut) return BowTiePart.outTendrils;
    return BowTiePart.disconnected;
  });
}

describe('bow-tie', () => {
  it('places every page of a textbook bow-tie', () => {
    // core {0,1,2}; IN 3 -> 0; OUT 2 -> 4; tube 3 -> 5 -> 4; in-tendril 3 -> 6; out-tendril 7 -> 4; 8 disconnected.
    const graph = graphOf(9, [
      [0, 1],
      [1, 2],
      [2, 0],
      [3, 0],
      [2, 4],
      [3, 5],
      [5, 4],
      [3, 6],
      [7, 4],
    ]);
    const { part, sizes } = bowTie(graph);
    assert.deepEqual(Array.from(part), [0, 0, 0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(sizes, { core: 3, in: 1, out: 1, tubes: 1, inTendrils: 1, outTendrils: 1, disconnected: 1 });
  });

  it('partitions the pages as the definitions say, on random graphs', () => {
    const random = new Random(41);
    for (let trial = 0; trial < 40; trial++) {
      const n = 2 + random.nextInt(40);
      const edges: Array<[number, number]> = [];
      for (let i = 0; i < 1.3 * n; i++) edges.push([random.nextInt(n), random.nextInt(n)]);
      const graph = graphOf(n, edges);
      const { part, sizes } = bowTie(graph);
      assert.deepEqual(Array.from(part), bruteForce(graph), `trial ${trial}`);
      assert.equal(BOW_TIE_PARTS.reduce((s, name) => s + sizes[name], 0), n);
    }
  });

  it('partitions hollins and cnr-2000', async () => {
    for (const path of [testData('hollins', 'hollins.edges.txt'), testData('cnr-2000', 'cnr-2000.graph')]) {
      const { graph } = await loadGraph(path);
      const { part, sizes } = bowTie(graph);
      assert.equal(BOW_TIE_PARTS.reduce((s, name) => s + sizes[name], 0), graph.nodeCount);
      const counted = new Array<number>(7).fill(0);
      for (const p of part) counted[p]!++;
      assert.deepEqual(counted, BOW_TIE_PARTS.map((name) => sizes[name]));
      assert.equal(sizes.core, stronglyConnectedComponents(graph).largest);
    }
  });
});
