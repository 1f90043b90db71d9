/**
 * Labels kept out of the JavaScript heap: the names in id order, front-coded in blocks of 16 (the
 * first name of a block whole, each other one as the length of the prefix it shares with the one
 * before and the rest), in one byte buffer with one offset per block. Host names sorted as Common
 * Crawl numbers them share long prefixes (com.example.www, com.example.shop): a few bytes each,
 * where a JavaScript string costs its characters twice over and a header. Looked up by id in one
 * block's decoding; by name by a binary search over the blocks when the names were added in byte
 * order (Common Crawl's vertices are), else through a sorted permutation of the ids built once.
 */
import type { Labels } from './labels.js';

export const LABEL_BLOCK = 16;
const BLOCK = LABEL_BLOCK;
const encoder = new TextEncoder();

/** The value readVarintAt read last (a module cell rather than an object per call). */
let varintRead = 0;

/** Reads a LEB128 varint of any size below 2^53 at `p` into varintRead; returns the position after it. */
function readVarintAt(data: Uint8Array, p: number): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = data[p++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) break;
    scale *= 128;
  }
  varintRead = value;
  return p;
}

/** Appends `value` as a varint: 7 bits per byte, low bits first, the high bit set on all but the last. */
function writeVarint(out: ByteSink, value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** A growing byte buffer: doubling, copied once more at the end. */
class ByteSink {
  bytes = new Uint8Array(1 << 16);
  length = 0;
  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
  push(byte: number): void {
    this.reserve(1);
    this.bytes[this.length++] = byte;
  }
  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Collects names in id order into front-coded labels. */
export class FrontCodedLabelsBuilder {
  private readonly data = new ByteSink();
  private offsets = new Float64Array(1024);
  private count = 0;
  private previous: Uint8Array = new Uint8Array(0);
  private sorted = true;

  get size(): number {
    return this.count;
  }

  /** Adds the name of node `size` (the next id). */
  add(name: string): void {
    const bytes = encoder.encode(name);
    if (this.count > 0 && this.sorted && compareBytes(this.previous, bytes) >= 0) this.sorted = false;
    if (this.count % BLOCK === 0) {
      const block = this.count / BLOCK;
      if (block >= this.offsets.length) {
        const grown = new Float64Array(this.offsets.length * 2);
        grown.set(this.offsets);
        this.offsets = grown;
      }
      this.offsets[block] = this.data.length;
      writeVarint(this.data, bytes.length);
      this.data.append(bytes);
    } else {
      const previous = this.previous;
      const limit = Math.min(previous.length, bytes.length);
      let shared = 0;
      while (shared < limit && previous[shared] === bytes[shared]) shared++;
      writeVarint(this.data, shared);
      writeVarint(this.data, bytes.length - shared);
      this.data.append(bytes.subarray(shared));
    }
    this.previous = bytes;
    this.count++;
  }

  /** The labels; the builder is spent. */
  finish(): FrontCodedLabels {
    const blocks = Math.ceil(this.count / BLOCK);
    return new FrontCodedLabels(this.data.bytes.slice(0, this.data.length), this.offsets.slice(0, blocks), this.count, this.sorted);
  }
}

export class FrontCodedLabels implements Labels {
  /** ids in byte order of their names, built on the first lookup by name when the names were not added sorted. */
  protected order: Int32Array | null = null;

  constructor(
    readonly data: Uint8Array,
    readonly offsets: Float64Array,
    readonly size: number,
    /** The names were added in strictly increasing byte order. */
    readonly sorted: boolean,
  ) {}

  /** The bytes of block k (from its first name to the next block). */
  protected blockBytes(k: number): Uint8Array {
    return this.data.subarray(this.offsets[k]!, k + 1 < this.offsets.length ? this.offsets[k + 1]! : this.data.length);
  }

  /** The ids in byte order of their names, or null when the names are sorted (ids are that order). */
  idsInNameOrder(): Int32Array | null {
    return this.sorted ? null : (this.order ??= this.sortedOrder());
  }

  static of(names: Iterable<string>): FrontCodedLabels {
    const builder = new FrontCodedLabelsBuilder();
    for (const name of names) builder.add(name);
    return builder.finish();
  }

  /** Decoded names are built here, each over the one before (front coding): no allocation per step. */
  private scratch = Buffer.alloc(256);

  /** Name `id` decoded into `scratch`; returns its length in bytes. */
  private decodeInto(id: number): number {
    if (!(id >= 0 && id < this.size)) throw new RangeError(`label id ${id} outside 0..${this.size - 1}`);
    const data = this.blockBytes(Math.floor(id / BLOCK));
    let p = readVarintAt(data, 0);
    let length = varintRead;
    if (this.scratch.length < length) this.scratch = Buffer.alloc(2 * length);
    let scratch = this.scratch;
    for (let i = 0; i < length; i++) scratch[i] = data[p + i]!;
    p += length;
    for (let k = id % BLOCK; k > 0; k--) {
      p = readVarintAt(data, p);
      const shared = varintRead;
      p = readVarintAt(data, p);
      const rest = varintRead;
      length = shared + rest;
      if (scratch.length < length) {
        const bigger = Buffer.alloc(2 * length);
        scratch.copy(bigger, 0, 0, shared);
        this.scratch = scratch = bigger;
      }
      for (let i = 0; i < rest; i++) scratch[shared + i] = data[p + i]!;
      p += rest;
    }
    return length;
  }

  /** The bytes of name `id` (a copy). */
  private bytesOf(id: number): Uint8Array {
    const length = this.decodeInto(id);
    return Uint8Array.prototype.slice.call(this.scratch, 0, length);
  }

  label(id: number): string {
    const length = this.decodeInto(id);
    // (After the decoding, which may have replaced the scratch buffer by a larger one.)
    return this.scratch.toString('utf8', 0, length);
  }

  id(label: string): number {
    if (this.size === 0) return -1;
    const target = encoder.encode(label);
    if (this.sorted) {
      // The last block whose first name is <= target, then a scan of that block.
      let lo = 0;
      let hi = Math.ceil(this.size / BLOCK) - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (compareBytes(this.bytesOf(mid * BLOCK), target) <= 0) lo = mid;
        else hi = mid - 1;
      }
      const end = Math.min(this.size, (lo + 1) * BLOCK);
      for (let id = lo * BLOCK; id < end; id++) if (compareBytes(this.bytesOf(id), target) === 0) return id;
      return -1;
    }
    const order = (this.order ??= this.sortedOrder());
    return this.searchOrder(order, target);
  }

  /** Binary search of `target` among the names in `order` (ids sorted by name). */
  protected searchOrder(order: { length: number; at(i: number): number | undefined }, target: Uint8Array): number {
    let lo = 0;
    let hi = order.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const id = order.at(mid)!;
      const c = compareBytes(this.bytesOf(id), target);
      if (c === 0) return id;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  protected sortedOrder(): Int32Array {
    const order = new Int32Array(this.size);
    for (let i = 0; i < this.size; i++) order[i] = i;
    // Decoded once per comparison pair would be n log n block decodings: decode each name once instead.
    const names = Array.from({ length: this.size }, (_, i) => this.bytesOf(i));
    order.sort((a, b) => compareBytes(names[a]!, names[b]!) || a - b);
    return order;
  }

  memoryBytes(): number {
    return this.data.byteLength + this.offsets.byteLength + (this.order?.byteLength ?? 0);
  }
}
