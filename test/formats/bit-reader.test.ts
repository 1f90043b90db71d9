import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BitReader, BitStreamError, natToInt } from '../../src/formats/bit-reader.js';
import { Random } from '../../src/util/random.js';
import { BitWriter } from '../bv-encoder.js';

function bitsOf(text: string): Uint8Array {
  const writer = new BitWriter();
  for (const c of text) writer.writeBit(c === '1' ? 1 : 0);
  return writer.toBytes();
}

describe('BitReader', () => {
  it('reads the textbook codes', () => {
    // gamma: 0 -> 1, 1 -> 010, 2 -> 011, 3 -> 00100; unary 3 -> 0001; delta 0 -> 1, 1 -> 0100.
    const reader = new BitReader(bitsOf('1' + '010' + '011' + '00100' + '0001' + '1' + '0100'));
    assert.deepEqual(
      [reader.readGamma(), reader.readGamma(), reader.readGamma(), reader.readGamma(), reader.readUnary(), reader.readDelta(), reader.readDelta()],
      [0, 1, 2, 3, 3, 0, 1],
    );
    // zeta_3, bucket h = 0 holds 1..7: a minimal binary code gives 0 two bits and 1..6 three.
    const zeta = new BitReader(bitsOf('100' + '1010' + '1111'));
    assert.deepEqual([zeta.readZeta(3), zeta.readZeta(3), zeta.readZeta(3)], [0, 1, 6]);
  });

  it('round-trips random values in every code', () => {
    const random = new Random(5);
    const values: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const magnitude = random.nextInt(31);
      values.push(random.nextInt(2 ** magnitude));
    }
    const writer = new BitWriter();
    for (const v of values) {
      writer.writeGamma(v);
      writer.writeDelta(v);
      writer.writeZeta(v, 3);
      writer.writeZeta(v, 1);
      writer.writeUnary(v % 40);
      writer.writeBits(v, 31);
    }
    const reader = new BitReader(writer.toBytes());
    for (const v of values) {
      assert.equal(reader.readGamma(), v);
      assert.equal(reader.readDelta(), v);
      assert.equal(reader.readZeta(3), v);
      assert.equal(reader.readZeta(1), v);
      assert.equal(reader.readUnary(), v % 40);
      assert.equal(reader.readBits(31), v);
    }
    assert.equal(reader.position, writer.length);
  });

  it('throws a BitStreamError past the end instead of inventing bits', () => {
    const reader = new BitReader(new Uint8Array([0, 0]));
    assert.throws(() => reader.readUnary(), BitStreamError);
    const short = new BitReader(new Uint8Array([0b00000001]));
    short.readUnary();
    assert.throws(() => short.readBits(9), BitStreamError);
  });

  it('maps naturals to integers as WebGraph does', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5].map(natToInt), [0, -1, 1, -2, 2, -3]);
  });
});
