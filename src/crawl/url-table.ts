/**
 * The crawler's URLs: for each known page (ids 0, 1, 2... in the order they are added) its key
 * (url.ts) and the URL it is fetched by, and an index from key to id.
 *
 * Why this shape: a crawl knows many more pages than it has fetched (every link target is a page,
 * with its OPIC cash), so what a known, unfetched URL costs in RAM decides how large a crawl fits
 * (issue 38; the OPIC paper's crawler kept its URL text on disk and the cash vector in RAM).
 * - The index holds no text: a key is known by a 64-bit fingerprint (two independent 32-bit
 *   hashes of its UTF-8 bytes), as BUbiNG's sieve knows URLs. Two keys with one fingerprint
 *   would be taken for one page; among 10^8 keys the chance that any two collide is about 3 in
 *   10,000 (n^2 / 2^65).
 * - The text (key, then the URL when it differs) is appended to a byte stream. The stream's
 *   recent part is in RAM, in chunks; `spill(n)` writes the chunks whose pages all have ids
 *   below n to a file (the crawler calls it once its store holds those pages) and lets them go.
 *   Text of a spilled page is read back from the file when asked for (a page being fetched, a
 *   report): one positional read, from the page cache most of the time. The file is unlinked as
 *   soon as it is opened, so nothing is left behind, even after kill -9.
 * - A record is its two lengths (LEB128 varints: usually 2 bytes and 1), the key, then the URL when
 *   it differs. Records are appended in id order with no gap between them, so a page's record is
 *   found from the stream position of the first page of its block of POSITION_BLOCK ids, by
 *   stepping over the records before it in the block: one position (8 bytes) per block instead of
 *   one per page, and no lengths in RAM (they were 4 bytes a page: issue 38). A spilled block is
 *   read back whole, one positional read of about 32 records.
 * - Per page in RAM: the fingerprint (8 bytes), a 32nd of a position and 1.33 to 2 hash slots of
 *   4 bytes (the index is kept between 50% and 75% full): 13.5 to 16.5 bytes, plus the text until
 *   it is spilled.
 * - The index grows by half, not twice (a doubled table is 25% to 50% full just after: at 10^8
 *   keys a power of two would hold 2.7 x 10^8 slots, 1.07 GB, against 0.7 GB here), and in place:
 *   its slots are a view of room reserved ahead (util/typed-arrays.ts), so a growth neither copies
 *   the table nor keeps the old one until a collection (at 10^8 keys that was 0.5 GB more at the
 *   moment of the growth). A growth only needs the fingerprints: the slots are cleared and every
 *   id inserted again. A key's first slot is its low hash scaled to the table's length (a multiply
 *   and a shift: any length works, not only powers of two).
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { columnSize, grown, reservedArray, reservedArrays } from '../util/typed-arrays.js';

/** Bytes of a text chunk once grown; a record never straddles two chunks. */
const CHUNK_BYTES = 4 * 1024 * 1024;
const EMPTY = 0;
/** Pages per stored stream position (a power of two). */
const POSITION_BLOCK = 32;
const POSITION_SHIFT = 5;
/** Keys and URLs longer than this (bytes) are refused (the crawler's URLs are at most 2,048). */
const MAX_TEXT_BYTES = 65_535;
/** The index is grown past this share of full slots, by GROWTH times. */
const MAX_LOAD = 0.75;
const GROWTH = 1.5;
/** Room reserved ahead for the slots, in growths (GROWTH^4: about 5 times the length in use). */
const SLOT_ROOM_GROWTHS = 4;

/** Bytes of n as a LEB128 varint (n < 2^21). */
function varintBytes(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/** Writes n as a LEB128 varint at `at`; returns the position after it. */
function writeVarint(buffer: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buffer[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buffer[at++] = n;
  return at;
}

/** The value readVarint read last (one module-level cell rather than an object per call). */
let varintValue = 0;

/** Reads a LEB128 varint at `at` into varintValue; returns the position after it. */
function readVarint(buffer: Uint8Array, at: number): number {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = buffer[at++]!;
    value |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  varintValue = value;
  return at;
}

/** FNV-1a over bytes [0, length). */
function fnv1a(bytes: Uint8Array, length: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** A second hash, independent of FNV-1a: multiply-rotate per byte, then MurmurHash3's finaliser. */
function mixHash(bytes: Uint8Array, length: number): number {
  let hash = 0x9747b28c ^ length;
  for (let i = 0; i < length; i++) {
    hash = Math.imul(hash ^ bytes[i]!, 0x5bd1e995);
    hash ^= hash >>> 15;
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

interface Chunk {
  buffer: Buffer;
  /** Stream position of the chunk's first byte. */
  start: number;
  used: number;
  /** The largest id with a record in it (-1: none yet). */
  lastId: number;
}

export interface UrlTableOptions {
  /** Size text chunks grow to (tests use small ones). */
  chunkBytes?: number;
  /** Where the spill file goes; null: text stays in RAM (`spill` does nothing). */
  spillDir?: string | null;
  /** Pages the per-page columns have room for from the start (typed-arrays.ts, reservedArrays); more still fit: they then grow. */
  capacity?: number;
}

export class UrlTable {
  private readonly chunkBytes: number;
  private readonly spillDir: string | null;
  private chunks: Chunk[];
  /** Stream bytes [0, spilledEnd) are in the file. */
  private spilledEnd = 0;
  private file: number | null = null;
  private fpLow = new Uint32Array(1024);
  private fpHigh = new Uint32Array(1024);
  /** Stream position of the first record of each block of POSITION_BLOCK ids. */
  private blockStarts = new Float64Array(1024 / POSITION_BLOCK);
  /** Open addressing with linear probing: id + 1, or EMPTY; a view of `slotRoom` from its start. */
  private slots = new Int32Array(2048);
  private slotRoom: ArrayBuffer = this.slots.buffer;
  /** slots.length / 2^32: a key's first slot is floor(low hash * slotScale). */
  private slotScale = 2048 / 2 ** 32;
  private count = 0;
  /** The key looked up or added last, encoded; and a buffer for records read back from the file. */
  private scratch = Buffer.alloc(4096);
  private readBack = Buffer.alloc(4096);
  /** The last record read back from the file (a page's key and URL are often asked for in turn). */
  private lastRead: { id: number; key: string; url: string } | null = null;

  constructor(options: UrlTableOptions | number = {}) {
    const { chunkBytes = CHUNK_BYTES, spillDir = null, capacity = 0 } = typeof options === 'number' ? { chunkBytes: options } : options;
    if (!(Number.isInteger(chunkBytes) && chunkBytes >= 16)) throw new RangeError(`chunk size ${chunkBytes}`);
    const reserved = capacity > this.fpLow.length ? reservedArrays<[Uint32Array<ArrayBuffer>, Uint32Array<ArrayBuffer>]>(capacity, Uint32Array, Uint32Array) : null;
    if (reserved !== null) {
      [this.fpLow, this.fpHigh] = reserved;
      this.blockStarts = new Float64Array(Math.ceil(capacity / POSITION_BLOCK));
    }
    this.chunkBytes = chunkBytes;
    this.spillDir = spillDir;
    this.chunks = [{ buffer: Buffer.alloc(Math.min(chunkBytes, 64 * 1024)), start: 0, used: 0, lastId: -1 }];
  }

  /** URLs held. */
  get size(): number {
    return this.count;
  }

  /** The index: its slots, how full it is, and the bytes reserved for it (address space, RAM only for the slots in use). */
  get index(): { slots: number; load: number; reservedBytes: number } {
    return { slots: this.slots.length, load: this.count / this.slots.length, reservedBytes: this.slotRoom.byteLength };
  }

  /** Bytes of text in the spill file, and in RAM. */
  get textBytes(): { spilled: number; inMemory: number } {
    let inMemory = 0;
    for (const chunk of this.chunks) inMemory += chunk.buffer.length;
    return { spilled: this.spilledEnd, inMemory };
  }

  /** The id of the page with this key, or -1. */
  id(key: string): number {
    const length = this.encode(key);
    return this.find(fnv1a(this.scratch, length), mixHash(this.scratch, length));
  }

  /** Adds a page (its key must be new) and returns its id, the next one. */
  add(key: string, url: string): number {
    const keyLength = this.encode(key);
    const low = fnv1a(this.scratch, keyLength);
    const high = mixHash(this.scratch, keyLength);
    if (this.find(low, high) !== -1) throw new Error(`internal error: URL key added twice: ${key.slice(0, 200)}`);
    const urlLength = url === key ? 0 : Buffer.byteLength(url, 'utf8');
    if (keyLength > MAX_TEXT_BYTES || urlLength > MAX_TEXT_BYTES) throw new RangeError(`URL of ${Math.max(keyLength, urlLength)} bytes: the table holds at most ${MAX_TEXT_BYTES}`);
    const id = this.count;
    if (id === this.fpLow.length) {
      const size = columnSize(id, id + 1, Uint32Array.BYTES_PER_ELEMENT);
      this.blockStarts = grown(this.blockStarts, Math.ceil(size / POSITION_BLOCK));
      this.fpLow = grown(this.fpLow, size);
      this.fpHigh = grown(this.fpHigh, size);
    }
    const header = varintBytes(keyLength) + varintBytes(urlLength);
    const chunk = this.reserve(header + keyLength + urlLength);
    const offset = chunk.used;
    const afterHeader = writeVarint(chunk.buffer, writeVarint(chunk.buffer, offset, keyLength), urlLength);
    this.scratch.copy(chunk.buffer, afterHeader, 0, keyLength);
    if (urlLength > 0) chunk.buffer.write(url, afterHeader + keyLength, urlLength, 'utf8');
    chunk.used += header + keyLength + urlLength;
    chunk.lastId = id;
    if ((id & (POSITION_BLOCK - 1)) === 0) this.blockStarts[id >>> POSITION_SHIFT] = chunk.start + offset;
    this.fpLow[id] = low;
    this.fpHigh[id] = high;
    this.count++;
    if (this.count > this.slots.length * MAX_LOAD) this.rehash(Math.ceil(this.slots.length * GROWTH));
    else this.insert(id);
    return id;
  }

  /** The key of page `id`. */
  key(id: number): string {
    return this.text(id, 'key');
  }

  /** The URL page `id` is fetched by. */
  url(id: number): string {
    return this.text(id, 'url');
  }

  /**
   * Pages below id `n` are stored elsewhere (the crawl's store): the chunks holding only their
   * text go to the spill file and leave RAM. Without a spill directory, nothing happens.
   */
  spill(n: number): void {
    if (this.spillDir === null) return;
    // The last chunk is being filled: it stays.
    let spilled = 0;
    while (spilled < this.chunks.length - 1 && this.chunks[spilled]!.lastId < n) spilled++;
    if (spilled === 0) return;
    this.file ??= this.openSpillFile();
    for (let c = 0; c < spilled; c++) {
      const chunk = this.chunks[c]!;
      for (let written = 0; written < chunk.used; ) written += writeSync(this.file, chunk.buffer, written, chunk.used - written, chunk.start + written);
      this.spilledEnd = chunk.start + chunk.used;
    }
    this.chunks = this.chunks.slice(spilled);
  }

  /** Closes the spill file (the table's spilled text is gone with it). */
  close(): void {
    if (this.file !== null) closeSync(this.file);
    this.file = null;
  }

  private openSpillFile(): number {
    const path = join(this.spillDir!, `.wga-urls-${process.pid}-${Math.random().toString(36).slice(2, 10)}.spill`);
    const fd = openSync(path, 'w+', 0o600);
    // Unlinked at once: the file lives as long as the descriptor, and no crash leaves it behind.
    unlinkSync(path);
    return fd;
  }

  private text(id: number, which: 'key' | 'url'): string {
    if (!(id >= 0 && id < this.count)) throw new RangeError(`no URL with id ${id}`);
    if (this.lastRead?.id === id) return which === 'key' ? this.lastRead.key : this.lastRead.url;
    const first = id & ~(POSITION_BLOCK - 1);
    const start = this.blockStarts[id >>> POSITION_SHIFT]!;
    // The block's bytes: up to the next block's first record, or the stream's end.
    const last = this.chunks[this.chunks.length - 1]!;
    const end = first + POSITION_BLOCK < this.count ? this.blockStarts[(id >>> POSITION_SHIFT) + 1]! : last.start + last.used;
    let buffer: Buffer;
    let at: number;
    const chunk = start >= this.spilledEnd ? this.chunkAt(start) : null;
    if (chunk !== null && chunk.start + chunk.used >= end) {
      buffer = chunk.buffer;
      at = start - chunk.start;
    } else {
      this.copySpan(start, end - start);
      buffer = this.readBack;
      at = 0;
    }
    // Step over the records before this one in its block.
    let keyLength = 0;
    let urlLength = 0;
    for (let j = first; ; j++) {
      at = readVarint(buffer, at);
      keyLength = varintValue;
      at = readVarint(buffer, at);
      urlLength = varintValue;
      if (j === id) break;
      at += keyLength + urlLength;
    }
    const key = buffer.toString('utf8', at, at + keyLength);
    const url = urlLength === 0 ? key : buffer.toString('utf8', at + keyLength, at + keyLength + urlLength);
    // A page's key and URL are often asked for in turn.
    this.lastRead = { id, key, url };
    return which === 'key' ? key : url;
  }

  /** Stream bytes [position, position + length) into readBack, from the spill file and the RAM chunks. */
  private copySpan(position: number, length: number): void {
    if (this.readBack.length < length) this.readBack = Buffer.alloc(Math.max(length, 2 * this.readBack.length));
    let done = 0;
    const fromFile = Math.min(length, Math.max(0, this.spilledEnd - position));
    while (done < fromFile) {
      const got = readSync(this.file!, this.readBack, done, fromFile - done, position + done);
      if (got === 0) throw new Error(`internal error: the URL spill file ends before stream position ${position + done}`);
      done += got;
    }
    while (done < length) {
      const chunk = this.chunkAt(position + done);
      const offset = position + done - chunk.start;
      const take = Math.min(length - done, chunk.used - offset);
      if (take <= 0) throw new Error(`internal error: no text at stream position ${position + done}`);
      chunk.buffer.copy(this.readBack, done, offset, offset + take);
      done += take;
    }
  }

  /** The RAM chunk holding stream position `position` (the newest chunks are asked for most). */
  private chunkAt(position: number): Chunk {
    for (let c = this.chunks.length - 1; c >= 0; c--) if (this.chunks[c]!.start <= position) return this.chunks[c]!;
    throw new Error(`internal error: no chunk holds stream position ${position}`);
  }

  /** Encodes `key` into the scratch buffer; returns its length in bytes. */
  private encode(key: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.alloc(key.length * 3);
    return this.scratch.write(key, 0, 'utf8');
  }

  /** The id with this fingerprint, or -1. */
  private find(low: number, high: number): number {
    const slots = this.slots;
    const length = slots.length;
    for (let slot = Math.floor(low * this.slotScale); ; slot = slot + 1 === length ? 0 : slot + 1) {
      const entry = slots[slot]!;
      if (entry === EMPTY) return -1;
      const id = entry - 1;
      if (this.fpLow[id] === low && this.fpHigh[id] === high) return id;
    }
  }

  /** Room for `bytes` at the end of the last chunk (grown, or a new one after it in the stream). */
  private reserve(bytes: number): Chunk {
    let chunk = this.chunks[this.chunks.length - 1]!;
    if (chunk.used + bytes > chunk.buffer.length) {
      if (chunk.buffer.length < this.chunkBytes && chunk.used + bytes <= this.chunkBytes) {
        let size = chunk.buffer.length * 2;
        while (size < chunk.used + bytes) size *= 2;
        const bigger = Buffer.alloc(Math.min(size, this.chunkBytes));
        chunk.buffer.copy(bigger, 0, 0, chunk.used);
        chunk.buffer = bigger;
      } else {
        chunk = { buffer: Buffer.alloc(Math.max(this.chunkBytes, bytes)), start: chunk.start + chunk.used, used: 0, lastId: -1 };
        this.chunks.push(chunk);
      }
    }
    return chunk;
  }

  private insert(id: number): void {
    const slots = this.slots;
    const length = slots.length;
    let slot = Math.floor(this.fpLow[id]! * this.slotScale);
    while (slots[slot] !== EMPTY) slot = slot + 1 === length ? 0 : slot + 1;
    slots[slot] = id + 1;
  }

  /** The index with `size` slots, in place when the reserved room holds them (see the header). */
  private rehash(size: number): void {
    if (size * Int32Array.BYTES_PER_ELEMENT <= this.slotRoom.byteLength) {
      this.slots = new Int32Array(this.slotRoom, 0, size);
      this.slots.fill(EMPTY);
    } else {
      // Room for a few growths more; under FRESH_PAGES_BYTES reserving would cost RAM, so a small
      // index is allocated at its length.
      const room = reservedArray(Int32Array, Math.ceil(size * GROWTH ** SLOT_ROOM_GROWTHS));
      this.slots = room === null ? new Int32Array(size) : new Int32Array(room.buffer, 0, size);
      this.slotRoom = this.slots.buffer;
    }
    this.slotScale = size / 2 ** 32;
    for (let id = 0; id < this.count; id++) this.insert(id);
  }
}
