import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Random } from '../../src/util/random.js';

describe('Random', () => {
  it('is reproducible from its seed and differs between seeds', () => {
    const a = new Random(42);
    const b = new Random(42);
    const c = new Random(43);
    const first = Array.from({ length: 10 }, () => a.nextUint32());
    assert.deepEqual(first, Array.from({ length: 10 }, () => b.nextUint32()));
    assert.notDeepEqual(first, Array.from({ length: 10 }, () => c.nextUint32()));
  });

  it('draws integers uniformly (chi-square test at the 0.1% level)', () => {
    const random = new Random(1);
    // Critical chi-square values at 0.1% for 1, 6 and 9 degrees of freedom.
    const critical: Record<number, number> = { 2: 10.83, 7: 22.46, 10: 27.88 };
    for (const bound of [2, 7, 1000, 3_000_000_000]) {
      const buckets = Math.min(bound, 10);
      const counts = new Array<number>(buckets).fill(0);
      const draws = 200_000;
      for (let i = 0; i < draws; i++) {
        const x = random.nextInt(bound);
        assert.ok(x >= 0 && x < bound && Number.isInteger(x));
        counts[Math.floor((x * buckets) / bound)]!++;
      }
      const expected = draws / buckets;
      const chi2 = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
      assert.ok(chi2 < critical[buckets]!, `bound ${bound}: chi2 ${chi2}`);
    }
    const unit = Array.from({ length: 100_000 }, () => random.next());
    assert.ok(unit.every((x) => x >= 0 && x < 1));
    const mean = unit.reduce((s, x) => s + x, 0) / unit.length;
    assert.ok(Math.abs(mean - 0.5) < 0.005);
  });
});
