/** Per-page columns reserved ahead and grown 8 times (issue 38): values kept, empty entries read as empty. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Column } from '../../src/crawl/page-pipeline.js';
import { PartitionedMaxHeap } from '../../src/util/partitioned-heap.js';
import { FRESH_PAGES_BYTES, columnSize, grownColumn, reservedArray, reservedArrays } from '../../src/util/typed-arrays.js';

describe('reserved and grown columns', () => {
  it('reserves zeroed columns as views of one buffer, only when they are fresh pages together, or answers null', () => {
    const reserved = reservedArray(Float64Array, FRESH_PAGES_BYTES / 8);
    assert.ok(reserved !== null);
    assert.equal(reserved.length, FRESH_PAGES_BYTES / 8);
    assert.equal(reserved[reserved.length - 1], 0);
    // Under FRESH_PAGES_BYTES together: not reserved (calloc could clear reused memory, all resident).
    assert.equal(reservedArray(Float64Array, 1_000_000), null);
    // Beyond any buffer's length: refused with a RangeError, which becomes null.
    assert.equal(reservedArray(Float64Array, 2 ** 53), null);
    // Small columns together: one buffer, each view on its own 8-byte-aligned range, all zero.
    const capacity = 3_000_001;
    const trio = reservedArrays<[Uint8Array, Float64Array, Uint16Array, Int32Array]>(capacity, Uint8Array, Float64Array, Uint16Array, Int32Array);
    assert.ok(trio !== null);
    const [bytes, floats, shorts, ints] = trio;
    assert.ok(bytes.buffer === floats.buffer && floats.buffer === shorts.buffer && shorts.buffer === ints.buffer);
    for (const column of trio) assert.equal(column.length, capacity);
    assert.equal(floats.byteOffset % 8, 0);
    assert.ok(floats.byteOffset >= bytes.byteOffset + bytes.byteLength);
    assert.ok(shorts.byteOffset >= floats.byteOffset + floats.byteLength);
    assert.ok(ints.byteOffset >= shorts.byteOffset + shorts.byteLength);
    bytes.fill(255);
    shorts.fill(65_535);
    assert.equal(floats[0], 0);
    assert.equal(floats[capacity - 1], 0);
    assert.equal(ints[0], 0);
    ints[capacity - 1] = -5;
    assert.equal(shorts[capacity - 1], 65_535);
    assert.equal(ints[capacity - 1], -5);
  });

  it('grows columns twice, or 8 times once the new allocation is fresh pages, keeping every value', () => {
    assert.equal(columnSize(1024, 1025), 2048);
    // Float64: 8 x 2^19 x 8 bytes = 32 MB, fresh pages; a byte column of that length: twice.
    assert.equal(columnSize(2 ** 19, 2 ** 19 + 1, 8), 2 ** 22);
    assert.equal(columnSize(2 ** 19, 2 ** 19 + 1, 1), 2 ** 20);
    assert.equal(columnSize(2 ** 22, 2 ** 22 + 1, 1), 2 ** 25);
    assert.equal(columnSize(2 ** 19, 20 * 2 ** 19, 8), 20 * 2 ** 19);
    const small = Int32Array.from({ length: 100 }, (_, i) => i * 3 - 7);
    const grown = grownColumn(small, 101);
    assert.equal(grown.length, 200);
    assert.deepEqual(Array.from(grown.subarray(0, 100)), Array.from(small));
    assert.equal(grown[150], 0);
    const large = new Float64Array(2 ** 19).map((_, i) => i / 7);
    const bigger = grownColumn(large, 2 ** 19 + 1);
    assert.equal(bigger.length, 2 ** 22);
    assert.equal(bigger[2 ** 19 - 1], (2 ** 19 - 1) / 7);
    assert.equal(bigger[2 ** 19], 0);
  });

  it('a column with a non-zero empty value reads it for entries never set, reserved or grown', () => {
    const columns = [new Column(new Int32Array(4), -1), new Column(new Uint8Array(4), 255), new Column(new Uint16Array(4))] as const;
    const cases = [
      [-1, [0, 5, -1, 2 ** 31 - 1, -(2 ** 31)]],
      [255, [0, 1, 254, 255]],
      [0, [0, 9, 65_535]],
    ] as const;
    columns.forEach((column, c) => {
      const [empty, values] = cases[c]!;
      assert.equal(column.get(0), empty);
      assert.equal(column.get(1_000_000), empty, 'beyond the array');
      values.forEach((v, i) => column.set(i, v));
    });
    // 7 bytes a page together: 2^23 pages make 56 MB, fresh pages, one buffer.
    Column.reserve(2 ** 23, columns);
    assert.ok(columns.every((column) => column.data.length === 2 ** 23 && column.data.buffer === columns[0].data.buffer));
    columns.forEach((column, c) => {
      const [empty, values] = cases[c]!;
      values.forEach((v, i) => assert.equal(column.get(i), v));
      assert.equal(column.get(values.length), empty);
      assert.equal(column.get(2 ** 23 - 1), empty);
      column.set(2 ** 23 + 5, values[1]!);
      assert.equal(column.get(2 ** 23 + 5), values[1]);
      assert.equal(column.get(2 ** 23 + 4), empty);
      values.forEach((v, i) => assert.equal(column.get(i), v));
    });
  });

  it("a heap reserved for many items holds none until they are set, and finds the best among those set", () => {
    const heap = new PartitionedMaxHeap(2, 4_000_000);
    assert.equal(heap.size, 0);
    assert.equal(heap.has(0), false);
    assert.equal(heap.has(3_999_999), false);
    assert.equal(heap.part(12), -1);
    assert.equal(heap.top(0), -1);
    heap.set(3_999_999, 0.5, 0);
    heap.set(7, 0.75, 2);
    heap.set(0, 0.25, 0);
    assert.equal(heap.top(0), 7);
    assert.equal(heap.part(7), 2);
    assert.equal(heap.part(0), 0);
    heap.remove(7);
    assert.equal(heap.has(7), false);
    assert.equal(heap.part(7), 2, 'an item keeps its part while out');
    assert.equal(heap.top(0), 3_999_999);
    heap.set(2_000_000, 0.9, 0);
    assert.equal(heap.top(0), 2_000_000);
    assert.equal(heap.has(1_999_999), false);
    assert.equal(heap.size, 3);
  });
});
