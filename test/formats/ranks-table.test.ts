import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankPositions } from '../../src/formats/ranks-table.js';
import { Random } from '../../src/util/random.js';

/** The definition, by a comparator: highest first, ties by id, NaN last (position 0). */
function reference(values: ArrayLike<number>): { order: number[]; position: number[] } {
  const n = values.length;
  const order = Array.from({ length: n }, (_, v) => v);
  order.sort((a, b) => {
    const x = values[a]!;
    const y = values[b]!;
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) === Number.isNaN(y) ? a - b : Number.isNaN(x) ? 1 : -1;
    return y - x || a - b;
  });
  const position = new Array<number>(n).fill(0);
  order.forEach((v, i) => {
    position[v] = Number.isNaN(values[v]!) ? 0 : i + 1;
  });
  return { order, position };
}

function check(values: Float64Array, resortLimit?: number): void {
  const expected = reference(values);
  const got = rankPositions(values, resortLimit === undefined ? {} : { resortLimit });
  assert.deepEqual(Array.from(got.order), expected.order);
  assert.deepEqual(Array.from(got.position), expected.position);
}

test('rank positions: signs, zeros, infinities, NaN and ties, by the native sort as by a comparator', () => {
  check(Float64Array.from([0.5, -0, 0, Number.NaN, -1, Infinity, -Infinity, 0.5, 3e-300, -3e-300, Number.NaN, 1e300, -1e300, 0.25]));
  check(new Float64Array(0));
  check(Float64Array.from([Number.NaN]));
  const single = rankPositions([7]);
  assert.deepEqual([Array.from(single.order), Array.from(single.position)], [[0], [1]]);
});

test('rank positions: values that differ only in the bits the key leaves out are sorted again, short and long runs', () => {
  const random = new Random(7);
  // 5,000 nodes: the key keeps the top 64 - 13 bits of each value; these differ in the last 12 mantissa bits.
  const n = 5000;
  const values = new Float64Array(n);
  const base = new Float64Array(1);
  const words = new Uint32Array(base.buffer);
  for (let v = 0; v < n; v++) {
    base[0] = random.next() < 0.5 ? 1 / 3 : -2 / 7;
    words[0] = ((words[0]! & ~0xfff) | Math.floor(random.next() * 0x1000)) >>> 0;
    // Exact ties too: a fifth of the nodes take a value another node has.
    values[v] = v > 0 && random.next() < 0.2 ? values[Math.floor(random.next() * v)]! : base[0]!;
  }
  check(values);
  // The same runs by the second packing (runs longer than the limit), not the comparator.
  check(values, 4);
});

test('rank positions: random scores with many ties, against the comparator', () => {
  const random = new Random(3);
  for (const n of [2, 3, 1000, 65_537]) {
    const values = Float64Array.from({ length: n }, () => (random.next() < 0.3 ? Math.floor(random.next() * 5) / 10 : random.next() < 0.02 ? Number.NaN : random.next() * 1e-6));
    check(values);
  }
});
