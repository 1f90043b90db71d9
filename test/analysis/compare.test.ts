import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { averageRanks, kendallTau, meanRelativeError, spearman, topOverlap } from '../../src/analysis/compare.js';
import { Random } from '../../src/util/random.js';

/** Kendall's tau-b by counting all pairs. */
function bruteKendall(a: number[], b: number[]): number {
  let concordant = 0;
  let discordant = 0;
  let tiedA = 0;
  let tiedB = 0;
  const n = a.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const da = Math.sign(a[i]! - a[j]!);
      const db = Math.sign(b[i]! - b[j]!);
      if (da === 0) tiedA++;
      if (db === 0) tiedB++;
      if (da !== 0 && db !== 0) {
        if (da === db) concordant++;
        else discordant++;
      }
    }
  }
  const pairs = (n * (n - 1)) / 2;
  return (concordant - discordant) / Math.sqrt((pairs - tiedA) * (pairs - tiedB));
}

function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  const mx = Array.from(x).reduce((s, v) => s + v, 0) / n;
  const my = Array.from(y).reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

describe('rank comparison', () => {
  it('Kendall tau-b equals a brute-force O(n^2) count on random inputs with ties', () => {
    const random = new Random(51);
    for (let trial = 0; trial < 200; trial++) {
      const n = 2 + random.nextInt(200);
      const levels = 1 + random.nextInt(trial % 2 === 0 ? 5 : 1000);
      const a = Array.from({ length: n }, () => random.nextInt(levels));
      const b = a.map((x) => (random.nextInt(3) === 0 ? random.nextInt(levels) : x + random.nextInt(2)));
      const expected = bruteKendall(a, b);
      const actual = kendallTau(a, b);
      if (Number.isNaN(expected)) assert.ok(Number.isNaN(actual));
      else assert.ok(Math.abs(actual - expected) < 1e-12, `trial ${trial}: ${actual} vs ${expected}`);
    }
  });

  it('Kendall tau is 1, -1 and about 0 where it should be', () => {
    const a = Array.from({ length: 1000 }, (_, i) => i);
    assert.equal(kendallTau(a, a.map((x) => 2 * x + 1)), 1);
    assert.equal(kendallTau(a, a.map((x) => -x)), -1);
    const random = new Random(52);
    const shuffled = a.map(() => random.next());
    assert.ok(Math.abs(kendallTau(a, shuffled)) < 0.1);
  });

  it('Spearman is the Pearson correlation of average ranks', () => {
    const random = new Random(53);
    for (let trial = 0; trial < 50; trial++) {
      const n = 3 + random.nextInt(100);
      const a = Array.from({ length: n }, () => random.nextInt(10));
      const b = Array.from({ length: n }, (_, i) => a[i]! + random.nextInt(5));
      assert.ok(Math.abs(spearman(a, b) - pearson(averageRanks(a), averageRanks(b))) < 1e-12);
    }
    assert.deepEqual(Array.from(averageRanks([10, 20, 10, 30])), [1.5, 3, 1.5, 4]);
    assert.equal(spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1);
  });

  it('top-k overlap and the OPIC paper\'s mean relative error', () => {
    const reference = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    const other = [10, 9, 1, 7, 6, 5, 4, 3, 2, 8];
    assert.equal(topOverlap(reference, other, 3), 2 / 3);
    assert.equal(topOverlap(reference, reference, 5), 1);
    const estimate = reference.map((x, i) => (i === 0 ? x * 1.1 : x));
    const error = meanRelativeError(estimate, reference);
    assert.ok(Math.abs(error.all - 1) < 1e-12, `${error.all}`);
    assert.ok(Math.abs(error.top10Percent - 10) < 1e-12);
  });
});
