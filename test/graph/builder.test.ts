import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildFromEdges } from '../../src/graph/builder.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { IdentityLabels, IntegerLabels, TextLabels } from '../../src/graph/labels.js';
import { Random } from '../../src/util/random.js';

function fromPairs(n: number, pairs: Array<[number, number]>, options = {}) {
  const buffer = new EdgeBuffer();
  for (const [a, b] of pairs) buffer.push(a, b);
  return buildFromEdges(n, buffer, new IdentityLabels(n), options);
}

function successors(graph: Graph): number[][] {
  return Array.from({ length: graph.nodeCount }, (_, v) => Array.from(graph.successors(v)));
}

function predecessors(graph: Graph): number[][] {
  return Array.from({ length: graph.nodeCount }, (_, v) => Array.from(graph.predecessors(v)));
}

describe('buildFromEdges', () => {
  it('merges duplicate links, drops self-links and reports both', () => {
    const { graph, report } = fromPairs(4, [
      [0, 1],
      [0, 1],
      [1, 1],
      [2, 0],
      [0, 2],
      [3, 3],
      [0, 1],
      [2, 1],
    ]);
    assert.deepEqual(report, { rawEdges: 8, selfLoopsDropped: 2, duplicatesDropped: 2 });
    assert.equal(graph.nodeCount, 4);
    assert.equal(graph.edgeCount, 4);
    assert.deepEqual(successors(graph), [[1, 2], [], [0, 1], []]);
    assert.deepEqual(predecessors(graph), [[2], [0, 2], [0], []]);
    assert.equal(graph.outDegree(0), 2);
    assert.equal(graph.inDegree(1), 2);
    assert.equal(graph.weighted, false);
  });

  it('sorts successor lists given in any order', () => {
    const { graph } = fromPairs(5, [
      [0, 4],
      [0, 2],
      [0, 3],
      [0, 1],
      [4, 0],
      [3, 0],
    ]);
    assert.deepEqual(successors(graph)[0], [1, 2, 3, 4]);
    assert.deepEqual(predecessors(graph)[0], [3, 4]);
  });

  it('matches a set-based construction on random multigraphs', () => {
    const random = new Random(7);
    for (let trial = 0; trial < 20; trial++) {
      const n = 1 + random.nextInt(60);
      const m = random.nextInt(400);
      const pairs: Array<[number, number]> = [];
      for (let i = 0; i < m; i++) pairs.push([random.nextInt(n), random.nextInt(n)]);
      const { graph, report } = fromPairs(n, pairs);
      const expected = Array.from({ length: n }, () => new Set<number>());
      let loops = 0;
      for (const [a, b] of pairs) {
        if (a === b) loops++;
        else expected[a]!.add(b);
      }
      const expectedLists = expected.map((s) => [...s].sort((x, y) => x - y));
      assert.deepEqual(successors(graph), expectedLists);
      const expectedIn = Array.from({ length: n }, () => [] as number[]);
      expectedLists.forEach((list, a) => list.forEach((b) => expectedIn[b]!.push(a)));
      assert.deepEqual(predecessors(graph), expectedIn);
      const edges = expectedLists.reduce((s, l) => s + l.length, 0);
      assert.equal(graph.edgeCount, edges);
      assert.equal(report.selfLoopsDropped, loops);
      assert.equal(report.duplicatesDropped, m - loops - edges);
    }
  });

  it('counts parallel links as weights when asked (multigraph convention)', () => {
    const { graph, report } = fromPairs(
      3,
      [
        [0, 1],
        [1, 2],
        [1, 2],
        [1, 2],
      ],
      { duplicates: 'count' },
    );
    assert.equal(report.duplicatesDropped, 2);
    assert.deepEqual(Array.from(graph.outWeights!), [1, 3]);
    assert.deepEqual(Array.from(graph.inWeights!), [1, 3]);
  });

  it('adds both directions for undirected input', () => {
    const { graph } = fromPairs(
      3,
      [
        [0, 1],
        [1, 2],
      ],
      { symmetric: true },
    );
    assert.deepEqual(successors(graph), [[1], [0, 2], [1]]);
    assert.deepEqual(predecessors(graph), [[1], [0, 2], [1]]);
  });

  it('keeps the built graph under 12 bytes per link', () => {
    const random = new Random(3);
    const n = 20_000;
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < 10 * n; i++) pairs.push([random.nextInt(n), random.nextInt(n)]);
    const { graph } = fromPairs(n, pairs);
    const bytesPerEdge = graph.memoryBytes() / graph.edgeCount;
    assert.ok(bytesPerEdge < 12, `${bytesPerEdge} bytes per edge`);
    assert.ok(bytesPerEdge >= 8, `${bytesPerEdge} bytes per edge: adjacency holds two 4-byte ids per link`);
  });
});

describe('EdgeCollector', () => {
  it('keeps numeric labels in numeric order with id = label for 0..n-1', () => {
    const collector = new EdgeCollector();
    collector.add('2', '0');
    collector.add('1', '2');
    const { graph } = collector.build();
    assert.ok(graph.labels instanceof IdentityLabels);
    assert.deepEqual(successors(graph), [[], [2], [0]]);
  });

  it('numbers sparse integer labels densely in increasing order', () => {
    const collector = new EdgeCollector();
    collector.add('1000000000', '5');
    collector.add('5', '70');
    const { graph } = collector.build();
    assert.ok(graph.labels instanceof IntegerLabels);
    assert.deepEqual(
      Array.from({ length: 3 }, (_, i) => graph.labels.label(i)),
      ['5', '70', '1000000000'],
    );
    assert.equal(graph.labels.id('1000000000'), 2);
    assert.equal(graph.labels.id('6'), -1);
    assert.deepEqual(successors(graph), [[1], [], [0]]);
  });

  it('switches to text labels at the first non-integer label and keeps labels as written', () => {
    const collector = new EdgeCollector();
    collector.add('7', '8');
    collector.add('007', '7');
    collector.add('http://a.example/', '8');
    const { graph } = collector.build();
    assert.ok(graph.labels instanceof TextLabels);
    const labels = Array.from({ length: graph.nodeCount }, (_, i) => graph.labels.label(i));
    assert.deepEqual(labels, ['7', '8', '007', 'http://a.example/']);
    assert.equal(graph.labels.id('007'), 2);
    assert.deepEqual(Array.from(graph.successors(2)), [0]);
    assert.deepEqual(Array.from(graph.predecessors(1)), [0, 3]);
  });
});

describe('EdgeBuffer', () => {
  function contents(buffer: EdgeBuffer): Array<[number, number]> {
    const result: Array<[number, number]> = [];
    for (let i = 0; i < buffer.chunkCount; i++) {
      const sources = buffer.sources(i);
      const targets = buffer.targets(i);
      for (let j = 0; j < buffer.chunkLength(i); j++) result.push([sources[j]!, targets[j]!]);
    }
    return result;
  }

  it('keeps grouped sources as runs across chunk boundaries', () => {
    const buffer = new EdgeBuffer();
    const pushed: Array<[number, number]> = [];
    for (let s = 0; pushed.length < 200_000; s++) {
      for (let k = 0; k < 1 + (s % 13); k++) {
        pushed.push([s, k]);
        buffer.push(s, k);
      }
    }
    assert.equal(buffer.runLengthSources, true);
    assert.ok(buffer.chunkCount > 2);
    assert.deepEqual(contents(buffer), pushed);
    buffer.mapEndpoints((x) => x + 1);
    assert.deepEqual(
      contents(buffer),
      pushed.map(([a, b]) => [a + 1, b + 1]),
    );
  });

  it('switches to per-link sources when links are not grouped, keeping what it has', () => {
    const buffer = new EdgeBuffer();
    const pushed: Array<[number, number]> = [];
    const random = new Random(8);
    for (let i = 0; i < 100_000; i++) {
      // Grouped at first, then random order.
      const s = i < 50_000 ? Math.floor(i / 4) : random.nextInt(1000);
      pushed.push([s, i]);
      buffer.push(s, i);
    }
    assert.equal(buffer.runLengthSources, false);
    assert.deepEqual(contents(buffer), pushed);
  });
});
