import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countDangling, danglingNodes, degreeDistribution, degreeSummary, inDegrees, outDegrees } from '../../src/analysis/degrees.js';
import { topK } from '../../src/analysis/top.js';
import { buildFromEdges } from '../../src/graph/builder.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import { IdentityLabels } from '../../src/graph/labels.js';
import { Random } from '../../src/util/random.js';

describe('degrees', () => {
  const buffer = new EdgeBuffer();
  for (const [a, b] of [
    [0, 1],
    [0, 2],
    [0, 3],
    [1, 2],
    [2, 0],
    [4, 4],
  ] as const) {
    buffer.push(a, b);
  }
  const graph = buildFromEdges(5, buffer, new IdentityLabels(5)).graph;

  it('counts in- and out-degrees per page (Definition 1)', () => {
    assert.deepEqual(Array.from(outDegrees(graph)), [3, 1, 1, 0, 0]);
    assert.deepEqual(Array.from(inDegrees(graph)), [1, 1, 2, 1, 0]);
  });

  it('finds dangling pages (Definition 3), self-links not counting as links', () => {
    assert.deepEqual(Array.from(danglingNodes(graph)), [3, 4]);
    assert.equal(countDangling(graph), 2);
  });

  it('gives distributions and a summary', () => {
    assert.deepEqual(degreeDistribution(Int32Array.from([0, 2, 2, 5])), [
      [0, 1],
      [2, 2],
      [5, 1],
    ]);
    const summary = degreeSummary(graph);
    assert.deepEqual(summary.outDistribution, [
      [0, 2],
      [1, 2],
      [3, 1],
    ]);
    assert.deepEqual(summary.inDistribution, [
      [0, 1],
      [1, 3],
      [2, 1],
    ]);
    assert.equal(summary.maxOutDegree, 3);
    assert.equal(summary.maxInDegree, 2);
    assert.equal(summary.danglingNodes, 2);
    assert.equal(summary.unreferencedNodes, 1);
    assert.equal(summary.isolatedNodes, 1);
    assert.equal(summary.meanDegree, 1);
  });
});

describe('topK', () => {
  it('returns the best pages first, ties by increasing id, with heap and sort paths agreeing', () => {
    const random = new Random(4);
    for (let trial = 0; trial < 30; trial++) {
      const n = 1 + random.nextInt(300);
      const scores = Array.from({ length: n }, () => random.nextInt(20));
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
      for (const k of [0, 1, 5, Math.floor(n / 3), n, n + 5]) {
        assert.deepEqual(Array.from(topK(scores, k)), order.slice(0, Math.max(0, k)), `n ${n} k ${k}`);
      }
    }
  });
});
