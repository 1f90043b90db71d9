/**
 * The crawler's URLs, off the JavaScript heap: for each known page (ids 0, 1,
 * 2... in the order they are added) its key (url.ts) and the URL it is fetched
 * by, as UTF-8 bytes in large buffers, and a hash index from key to id.
 *
 * Why not a Map<string, number> and two string arrays: a crawl knows many more
 * pages than it has fetched (every link target is a page, with its OPIC cash),
 * and the budget is 300 bytes per known, unfetched URL. A Map entry
 * and a flat key string cost about 110 bytes live for a 58-character URL, and
 * the process about twice that, since V8 lets its heap grow to about twice the
 * live data between full collections. Here a URL costs its bytes (once when
 * the URL is its key, the usual case) plus 20 bytes of columns and about 11 of
 * hash slots, in typed arrays whose memory is what the process holds.
 */
import { grown } from '../util/typed-arrays.js';

/** Bytes per arena chunk once grown; a URL never straddles two chunks. */
const CHUNK_BYTES = 64 * 1024 * 1024;
/** Chunk index and offset in one float: start = chunk * OFFSET_RANGE + offset, exact below 2^53. */
const OFFSET_RANGE = 2 ** 32;
const EMPTY = 0;

/** FNV-1a over bytes [0, length) of `bytes`. */
function fnv1a(bytes: Uint8Array, length: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

export class UrlTable {
  private readonly chunkBytes: number;
  private chunks: Buffer[];
  /** Bytes used in the last chunk. */
  private used = 0;
  private starts = new Float64Array(1024);
  private keyBytes = new Uint32Array(1024);
  /** Bytes of the URL after its key; 0 when the URL is the key. */
  private urlBytes = new Uint32Array(1024);
  private hashes = new Uint32Array(1024);
  /** Open addressing with linear probing: id + 1, or EMPTY. Kept at most half full. */
  private slots = new Int32Array(2048);
  private count = 0;
  /** The key looked up or added last, encoded. */
  private scratch = Buffer.alloc(4096);

  /** `chunkBytes` only for tests: the size chunks grow to before another is started. */
  constructor(chunkBytes = CHUNK_BYTES) {
    if (!(Number.isInteger(chunkBytes) && chunkBytes >= 16 && chunkBytes < OFFSET_RANGE)) throw new RangeError(`chunk size ${chunkBytes}`);
    this.chunkBytes = chunkBytes;
    this.chunks = [Buffer.alloc(Math.min(chunkBytes, 64 * 1024))];
  }

  /** URLs held. */
  get size(): number {
    return this.count;
  }

  /** The id of the page with this key, or -1. */
  id(key: string): number {
    const length = this.encode(key);
    return this.find(fnv1a(this.scratch, length), length);
  }

  /** Adds a page (its key must be new) and returns its id, the next one. */
  add(key: string, url: string): number {
    const keyLength = this.encode(key);
    const hash = fnv1a(this.scratch, keyLength);
    if (this.find(hash, keyLength) !== -1) throw new Error(`internal error: URL key added twice: ${key.slice(0, 200)}`);
    const urlLength = url === key ? 0 : Buffer.byteLength(url, 'utf8');
    const id = this.count;
    if (id === this.starts.length) {
      const size = id * 2;
      this.starts = grown(this.starts, size);
      this.keyBytes = grown(this.keyBytes, size);
      this.urlBytes = grown(this.urlBytes, size);
      this.hashes = grown(this.hashes, size);
    }
    const [chunk, offset] = this.reserve(keyLength + urlLength);
    const buffer = this.chunks[chunk]!;
    this.scratch.copy(buffer, offset, 0, keyLength);
    if (urlLength > 0) buffer.write(url, offset + keyLength, urlLength, 'utf8');
    this.starts[id] = chunk * OFFSET_RANGE + offset;
    this.keyBytes[id] = keyLength;
    this.urlBytes[id] = urlLength;
    this.hashes[id] = hash;
    this.count++;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.insert(id);
    return id;
  }

  /** The key of page `id`. */
  key(id: number): string {
    const [buffer, offset] = this.locate(id);
    return buffer.toString('utf8', offset, offset + this.keyBytes[id]!);
  }

  /** The URL page `id` is fetched by. */
  url(id: number): string {
    const [buffer, offset] = this.locate(id);
    const keyLength = this.keyBytes[id]!;
    const urlLength = this.urlBytes[id]!;
    return urlLength === 0 ? buffer.toString('utf8', offset, offset + keyLength) : buffer.toString('utf8', offset + keyLength, offset + keyLength + urlLength);
  }

  private locate(id: number): [Buffer, number] {
    if (!(id >= 0 && id < this.count)) throw new RangeError(`no URL with id ${id}`);
    const start = this.starts[id]!;
    const chunk = Math.floor(start / OFFSET_RANGE);
    return [this.chunks[chunk]!, start - chunk * OFFSET_RANGE];
  }

  /** Encodes `key` into the scratch buffer; returns its length in bytes. */
  private encode(key: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.alloc(key.length * 3);
    return this.scratch.write(key, 0, 'utf8');
  }

  /** The id whose key is the `length` bytes in the scratch buffer, with this hash; or -1. */
  private find(hash: number, length: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === EMPTY) return -1;
      const id = entry - 1;
      if (this.hashes[id] === hash && this.keyBytes[id] === length && this.sameKey(id, length)) return id;
    }
  }

  private sameKey(id: number, length: number): boolean {
    const [buffer, offset] = this.locate(id);
    return this.scratch.compare(buffer, offset, offset + length, 0, length) === 0;
  }

  /** Room for `bytes` at the end of the last chunk (grown, or a new one). */
  private reserve(bytes: number): [number, number] {
    let last = this.chunks.length - 1;
    let buffer = this.chunks[last]!;
    if (this.used + bytes > buffer.length) {
      if (buffer.length < this.chunkBytes && this.used + bytes <= this.chunkBytes) {
        let size = buffer.length * 2;
        while (size < this.used + bytes) size *= 2;
        const bigger = Buffer.alloc(Math.min(size, this.chunkBytes));
        buffer.copy(bigger, 0, 0, this.used);
        this.chunks[last] = buffer = bigger;
      } else {
        this.chunks.push(Buffer.alloc(Math.max(this.chunkBytes, bytes)));
        last++;
        this.used = 0;
      }
    }
    const offset = this.used;
    this.used += bytes;
    return [last, offset];
  }

  private insert(id: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[id]! & mask;
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.slots[slot] = id + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let id = 0; id < this.count; id++) this.insert(id);
  }
}
