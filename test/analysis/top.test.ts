import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { topK, topKBy } from '../../src/analysis/top.js';
import { Random } from '../../src/util/random.js';

/** The k best by a full sort: higher score first, equal scores by increasing id. */
function referenceTop(scores: ArrayLike<number>, k: number): number[] {
  const ids = Array.from({ length: scores.length }, (_, i) => i);
  ids.sort((a, b) => (scores[b]! - scores[a]! !== 0 ? scores[b]! - scores[a]! : a - b));
  return ids.slice(0, k);
}

describe('topK', () => {
  it('equals a full sort, ties by id, on both of its paths (heap, and sort when k is a large share)', () => {
    const random = new Random(7);
    for (const n of [1, 5, 100, 10_000]) {
      // Few distinct values, so that ties are common.
      const scores = Float64Array.from({ length: n }, () => Math.floor(random.next() * 20) / 7);
      for (const k of [1, 3, 10, Math.ceil(n / 4), n, n + 5]) {
        assert.deepEqual(Array.from(topK(scores, k)), referenceTop(scores, k), `n ${n}, k ${k}`);
      }
    }
  });

  it('asks topKBy\'s score function once per page', () => {
    const scores = Float64Array.from({ length: 5_000 }, (_, i) => (i * 7919) % 5_003);
    const asked = new Uint32Array(scores.length);
    const top = topKBy(scores.length, (v) => (asked[v]!++, scores[v]!), 50);
    assert.deepEqual(Array.from(top), referenceTop(scores, 50));
    assert.ok(asked.every((count) => count === 1));
  });

  it('returns nothing for k = 0 or no pages', () => {
    assert.equal(topK(new Float64Array(3), 0).length, 0);
    assert.equal(topK(new Float64Array(0), 4).length, 0);
  });
});
