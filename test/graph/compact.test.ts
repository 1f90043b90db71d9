/**
 * The compact graph (src/graph/compact.ts) and PageRank on it (src/analysis/pagerank-compact.ts):
 * every in-list decodes to the plain graph's, and PageRank gives the plain power iteration's vector,
 * iterations and residual, on cnr-2000 (LAW's BV files) and on a generated graph with dangling pages.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactPageRank } from '../../src/analysis/pagerank-compact.js';
import { outDegrees } from '../../src/analysis/degrees.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { loadGraph } from '../../src/formats/load.js';
import {
  compactBytes,
  compactFromGraph,
  compactOutListsFromGraph,
  encodeInLists,
  listOf,
  transposeCompact,
  transposeDegrees,
} from '../../src/graph/compact.js';
import { compactLevels, compactScc } from '../../src/analysis/compact-search.js';
import { bowTie } from '../../src/analysis/bowtie.js';
import { compactBowTie } from '../../src/analysis/bowtie-compact.js';
import { levels } from '../../src/analysis/levels.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { outDegrees as plainOutDegrees, inDegrees as plainInDegrees } from '../../src/analysis/degrees.js';
import type { Graph } from '../../src/graph/graph.js';
import { parseEdgeList } from '../../src/formats/edgelist.js';
import { testData } from '../helpers.js';
import { runCli } from '../crawl/crawl-fixtures.js';

function sameLists(graph: Graph): void {
  const lists = compactFromGraph(graph);
  assert.equal(lists.linkCount, graph.edgeCount);
  for (let v = 0; v < graph.nodeCount; v++) assert.deepEqual(Array.from(listOf(lists, v)), Array.from(graph.predecessors(v)), `in-list of ${v}`);
}

function samePageRank(graph: Graph, threads: number, segmentBytes?: number): { iterations: number; bytesPerLink: number } {
  const lists = compactFromGraph(graph, segmentBytes === undefined ? {} : { segmentBytes });
  if (segmentBytes !== undefined) assert.ok(lists.segments.length > 3, `${lists.segments.length} segments`);
  const plain = pagerank(graph, { solver: 'power', tolerance: 1e-12, threads });
  const compact = compactPageRank(lists, outDegrees(graph), { tolerance: 1e-12, threads });
  assert.equal(compact.iterations, plain.iterations);
  assert.ok(Math.abs(compact.residual - plain.residual) <= 1e-15, `residual ${compact.residual} vs ${plain.residual}`);
  let largest = 0;
  for (let v = 0; v < graph.nodeCount; v++) largest = Math.max(largest, Math.abs(compact.scores[v]! - plain.scores[v]!));
  assert.ok(largest <= 1e-12, `largest difference ${largest}`);
  return { iterations: compact.iterations, bytesPerLink: compactBytes(lists) / graph.edgeCount };
}

describe('compact graph', () => {
  it('decodes every in-list of cnr-2000 and of a generated graph as the plain graph has it', async () => {
    sameLists((await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph);
    sameLists(powerLawGraph({ nodes: 5000, seed: 4 }).graph);
    // Lists far from their page (zig-zag both ways), long gaps (multi-byte varints), empty lists.
    sameLists(parseEdgeList('0 99999\n99999 0\n5 70000\n70000 5\n3 3\n', 'far', { ids: 'numeric' }).graph);
  });

  it('gives the plain power iteration\'s PageRank on cnr-2000, 1 and 2 threads, in a fraction of the bytes', async () => {
    const graph = (await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph;
    const one = samePageRank(graph, 1);
    const two = samePageRank(graph, 2);
    assert.equal(one.iterations, two.iterations);
    // LAW's crawl order keeps gaps small: a little over a byte per link, against 4 (plus offsets) plain.
    assert.ok(one.bytesPerLink < 1.5, `${one.bytesPerLink} bytes per link`);
  });

  it('gives the plain PageRank on a generated graph with dangling pages', () => {
    const graph = powerLawGraph({ nodes: 20_000, seed: 9, danglingShare: 0.3 }).graph;
    samePageRank(graph, 1);
    samePageRank(graph, 2);
  });

  it('wga rank --compact: the top pages and residual of --solver power, with the bytes per link', async () => {
    const path = testData('cnr-2000', 'cnr-2000.graph');
    const compact = await runCli(['rank', path, '--compact', '--tolerance', '1e-12', '--top', '50', '--json', '-q']);
    const plain = await runCli(['rank', path, '--solver', 'power', '--tolerance', '1e-12', '--top', '50', '--json', '-q']);
    assert.equal(compact.code, 0, compact.stderr);
    type Top = { solver: string; iterations: number; top: Array<{ label: string; score: number }>; compact?: { bytesPerLink: number } };
    const a = JSON.parse(compact.stdout) as Top;
    const b = JSON.parse(plain.stdout) as Top;
    assert.equal(a.solver, 'power (compact)');
    assert.equal(a.iterations, b.iterations);
    assert.ok(a.compact!.bytesPerLink > 0.5 && a.compact!.bytesPerLink < 1.5);
    const plainScores = new Map(b.top.map((t) => [t.label, t.score]));
    // Ties may swap places in the last bits; every listed page has the plain score within 1e-12.
    for (const t of a.top.slice(0, 40)) assert.ok(Math.abs(t.score - plainScores.get(t.label)!) <= 1e-12, t.label);
    const refused = await runCli(['rank', path, '--compact', '--method', 'harmonic', '-q']);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr.trim(), 'wga: --compact: is an option of --method pagerank (power iteration on the compact graph)');
    const solver = await runCli(['rank', path, '--compact', '--solver', 'gauss-seidel', '-q']);
    assert.match(solver.stderr, /^wga: --compact: runs power iteration/);
  });

  it('gives the same PageRank with the lists cut into many segments (blocks never straddle two)', async () => {
    const graph = (await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph;
    samePageRank(graph, 1, 1 << 20);
    samePageRank(graph, 2, 1 << 20);
    const small = powerLawGraph({ nodes: 3000, seed: 2, danglingShare: 0.2 }).graph;
    const lists = compactFromGraph(small, { segmentBytes: 4096 });
    assert.ok(lists.segments.length > 5);
    for (const segment of lists.segments) assert.ok(segment.length <= 4096);
    for (let v = 0; v < small.nodeCount; v++) assert.deepEqual(Array.from(listOf(lists, v)), Array.from(small.predecessors(v)), `in-list of ${v}`);
  });

  it('transposes in bounded passes, and counts degrees from the headers and the lists', async () => {
    const graph = (await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph;
    const inLists = compactFromGraph(graph, { segmentBytes: 1 << 19 });
    let passes = 0;
    const outLists = transposeCompact(inLists, { budgetLinks: 400_000, segmentBytes: 1 << 19, onPass: () => passes++ });
    assert.ok(passes >= 8, `${passes} passes`);
    assert.equal(outLists.linkCount, graph.edgeCount);
    for (let v = 0; v < graph.nodeCount; v += 7) assert.deepEqual(Array.from(listOf(outLists, v)), Array.from(graph.successors(v)), `out-list of ${v}`);
    const listDegrees = new Int32Array(graph.nodeCount);
    assert.deepEqual(transposeDegrees(outLists, listDegrees), plainInDegrees(graph));
    assert.deepEqual(listDegrees, plainOutDegrees(graph));
    assert.deepEqual(transposeDegrees(inLists), plainOutDegrees(graph));
  });

  it('levels and strongly connected components on the compact out-lists are the plain ones', async () => {
    const cnr = (await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph;
    const generated = powerLawGraph({ nodes: 20_000, seed: 5, danglingShare: 0.3 }).graph;
    // Every part of a bow-tie: core 0-1, IN 2, OUT 3, a tube 4 (2 -> 4 -> 3), an in-tendril 5, an
    // out-tendril 6, a disconnected pair 7 -> 8.
    const drawn = parseEdgeList('0 1\n1 0\n2 0\n1 3\n2 4\n4 3\n2 5\n6 3\n7 8\n', 'bow-tie', { ids: 'numeric' }).graph;
    for (const [graph, roots] of [[cnr, [0, 60595, 247028]], [generated, [1, 2]], [drawn, [2]]] as const) {
      const out = compactOutListsFromGraph(graph, { segmentBytes: 1 << 16 });
      assert.ok(out.segments.length > 1 || graph === drawn);
      const plain = levels(graph, roots, { threads: 1 });
      for (const threads of [1, 2]) {
        const compact = compactLevels(out, roots, { threads });
        assert.deepEqual(compact.histogram, plain.histogram);
        assert.deepEqual(compact.level, plain.level);
      }
      const limited = compactLevels(out, roots, { maxLevel: 3 });
      assert.deepEqual(limited.histogram, levels(graph, roots, { threads: 1, maxLevel: 3 }).histogram);
      const a = compactScc(out);
      const b = stronglyConnectedComponents(graph, { kernel: 'js' });
      assert.equal(a.count, b.count);
      assert.equal(a.largest, b.largest);
      // Same search order: the same ids, not only the same sets.
      assert.deepEqual(a.component, b.component);
      assert.deepEqual(a.sizes, b.sizes);
      // The bow-tie, one direction's lists at a time: bowTie's parts, page for page.
      const inLists = compactFromGraph(graph, { segmentBytes: 1 << 20, offsets: true });
      const asked: string[] = [];
      const compactParts = compactBowTie(a, (direction) => {
        asked.push(direction);
        return direction === 'out' ? out : inLists;
      });
      const plainParts = bowTie(graph, b);
      assert.deepEqual(compactParts.sizes, plainParts.sizes);
      assert.deepEqual(compactParts.part, plainParts.part);
      assert.deepEqual(asked, ['out', 'in', 'in', 'out']);
      if (graph === drawn) assert.deepEqual(Array.from(compactParts.part), [0, 0, 1, 2, 3, 4, 5, 6, 6]);
    }
    // The largest component of cnr-2000 as LAW lists it: 112,023 pages (34.4%).
    assert.equal(compactScc(compactOutListsFromGraph(cnr)).largest, 112_023);
  });

  it('lumps the dangling pages: the plain iterations and vector, the core alone iterated', async () => {
    const cnr = (await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph;
    // 85% of the pages dangling, as in Common Crawl's host graph: lumped by default.
    const web = powerLawGraph({ nodes: 20_000, seed: 9, danglingShare: 0.85 }).graph;
    for (const [graph, lump] of [[cnr, true], [web, undefined]] as const) {
      for (const threads of [1, 2]) {
        const plain = pagerank(graph, { solver: 'power', tolerance: 1e-12, threads });
        const lumped = compactPageRank(compactFromGraph(graph), outDegrees(graph), { tolerance: 1e-12, threads, ...(lump === undefined ? {} : { lump }) });
        assert.ok(lumped.core.pages < graph.nodeCount && lumped.core.links <= graph.edgeCount, 'iterated over the core only');
        // The stopping rule bounds the plain residual from above: the same step or a later one.
        assert.ok(lumped.iterations >= plain.iterations && lumped.iterations <= plain.iterations + 1, `${lumped.iterations} against ${plain.iterations}`);
        let largest = 0;
        for (let v = 0; v < graph.nodeCount; v++) largest = Math.max(largest, Math.abs(lumped.scores[v]! - plain.scores[v]!));
        assert.ok(largest <= 1e-12, `largest difference ${largest}`);
      }
    }
    // Below half dangling, the plain compact iteration runs over every page.
    assert.equal(compactPageRank(compactFromGraph(cnr), outDegrees(cnr)).core.pages, cnr.nodeCount);
  });

  it('pulls the same sums whether each list is gathered as decoded or decoded ahead in blocks', async () => {
    // cnr-2000 has lists of one-byte gaps, of mixed gaps, and 65 longer than a block (up to 18,000 links).
    const cnr = (await loadGraph(testData('cnr-2000', 'cnr-2000.graph'))).graph;
    const web = powerLawGraph({ nodes: 20_000, seed: 9, danglingShare: 0.85 }).graph;
    for (const [graph, segmentBytes, lump] of [[cnr, undefined, false], [cnr, 1 << 20, false], [web, undefined, undefined]] as const) {
      const lists = compactFromGraph(graph, segmentBytes === undefined ? {} : { segmentBytes });
      for (const threads of [1, 2]) {
        // The two kernels must agree exactly at any tolerance: a looser one only saves iterations.
        const options = { tolerance: 1e-9, threads, lump };
        const direct = compactPageRank(lists, outDegrees(graph), { ...options, kernel: 'direct' });
        const blocked = compactPageRank(lists, outDegrees(graph), { ...options, kernel: 'blocked' });
        assert.equal(blocked.iterations, direct.iterations);
        assert.equal(blocked.residual, direct.residual);
        // The same sources in the same order: not close, equal.
        assert.deepEqual(blocked.scores, direct.scores, `${graph.nodeCount} pages, ${threads} threads`);
      }
    }
  });

  it('refuses what it cannot hold, naming it', () => {
    assert.throws(() => encodeInLists(3, (v) => (v === 1 ? [2, 0] : [])), /list of page 1 is not sorted and distinct/);
    assert.throws(() => encodeInLists(3, (v) => (v === 1 ? [0, 3] : [])), /list of page 1: neighbour 3 outside 0\.\.2/);
    const weighted = parseEdgeList('0 1 2\n1 0 1\n', 'w', { weighted: true }).graph;
    assert.throws(() => compactFromGraph(weighted), /no link weights/);
    assert.throws(() => encodeInLists(2 ** 30, () => []), /fewer than 2\^30 pages/);
  });
});
