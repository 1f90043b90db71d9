/**
 * The compact graph: each page's list of neighbours (in-neighbours for PageRank's gather, out-
 * neighbours for searches) gap-encoded in byte-aligned varints, read in page order, as WebGraph's
 * BV format and LAW's compressed graphs store adjacency (Boldi and Vigna, "The WebGraph Framework
 * I", 2004: neighbours sorted, the first relative to the page, then gaps). Per page: twice its
 * degree (plus 1 when all its gaps fit in one byte), the first neighbour as a zig-zag difference
 * from the page, then each next one as its gap minus 1.
 * Web graphs' locality (links to nearby ids: pages of one host are numbered together) keeps most
 * gaps under 128, one byte each, against 4 bytes per link in the plain CSR.
 *
 * Layout in memory: the bytes in segments of at most `segmentBytes` (a typed array holds fewer
 * than 2^32 bytes, and Common Crawl's host graph needs more); the lists of a block of SAMPLE pages
 * never straddle two segments (the writer pads to the next segment instead), so a kernel switches
 * segment only between blocks. `samples[k]` is the global byte offset of page k * SAMPLE's list
 * (segment = floor(offset / segmentBytes)); kernels that read lists in page order need nothing
 * more (1/8 byte per page). Searches that jump from page to page also keep `offsets[v]`, the
 * offset of v's list from its block's sample (4 bytes per page).
 * Page ids stay below 2^30 so that every value decodes with 32-bit shifts.
 */
import type { Graph } from './graph.js';

/** A byte offset is kept for every SAMPLE-th page. */
export const SAMPLE = 64;
/** Largest page count: zig-zag differences of ids must stay below 2^31. */
export const COMPACT_MAX_NODES = 2 ** 30;
/** Bytes per segment: 1 GiB (below 2^31, so local offsets are small integers for V8). */
export const SEGMENT_BYTES = 2 ** 30;

export interface CompactLists {
  nodeCount: number;
  linkCount: number;
  /** Bytes per segment (the last one may be shorter). */
  segmentBytes: number;
  /** The encoded lists, page after page, in segments (on shared memory, for the threads). */
  segments: Uint8Array[];
  /** samples[k] = global byte offset of page k * SAMPLE's list; samples[last] = bytes used. */
  samples: Float64Array;
  /** offsets[v] = offset of v's list from samples[v / SAMPLE]; null when not kept. */
  offsets: Uint32Array | null;
}

/** Bytes held: the encoded lists, the sampled offsets and the per-page offsets. */
export function compactBytes(lists: CompactLists): number {
  let bytes = lists.samples.byteLength + (lists.offsets?.byteLength ?? 0);
  for (const segment of lists.segments) bytes += segment.byteLength;
  return bytes;
}

/**
 * Zig-zag: 0, -1, 1, -2, ... to 0, 1, 2, 3, ... The decoders undo it without a branch, as
 * (z >>> 1) ^ -(z & 1): whether a list starts before or after its page is a coin toss, which a
 * branch mispredicts (on cnr-2000, 9% of PageRank's time sat on that line).
 */
function zigzag(x: number): number {
  return x >= 0 ? 2 * x : -2 * x - 1;
}

function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}

export interface CompactWriterOptions {
  /** Bytes per segment (default SEGMENT_BYTES; tests use small ones to cross segments). */
  segmentBytes?: number;
  /** Keep the per-page offsets (default true). */
  offsets?: boolean;
  /**
   * Called with each finished segment (its global start offset, its bytes); the writer then forgets
   * it (a file writer's way to stay in bounded memory). Without it the segments are kept.
   */
  onSegment?: (start: number, bytes: Uint8Array) => void;
}

/**
 * Encodes lists given page by page (`add`), each sorted and distinct, into compact lists. A block of
 * SAMPLE pages is staged, then placed in the current segment, or at the start of the next one when
 * it does not fit (the rest of the segment is left as zeros).
 */
export class CompactListsWriter {
  readonly segmentBytes: number;
  private readonly samples: Float64Array;
  private readonly offsets: Uint32Array | null;
  private readonly onSegment: ((start: number, bytes: Uint8Array) => void) | null;
  private readonly kept: Uint8Array[] = [];
  /** The segment being filled, and how much of it is used. */
  private segment: Uint8Array;
  private segmentUsed = 0;
  private segmentIndex = 0;
  /** The block being encoded. */
  private block = new Uint8Array(1 << 12);
  private blockUsed = 0;
  private page = 0;
  private links = 0;
  private finished = false;

  constructor(
    readonly nodeCount: number,
    options: CompactWriterOptions = {},
  ) {
    if (!(Number.isInteger(nodeCount) && nodeCount >= 0)) throw new RangeError(`page count must be a non-negative integer, got ${nodeCount}`);
    if (nodeCount >= COMPACT_MAX_NODES) throw new RangeError(`a compact graph holds fewer than 2^30 pages, got ${nodeCount}`);
    this.segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
    if (!(Number.isInteger(this.segmentBytes) && this.segmentBytes >= 64 && this.segmentBytes <= 2 ** 31)) throw new RangeError(`segment bytes must be 64..2^31, got ${this.segmentBytes}`);
    this.samples = new Float64Array(new SharedArrayBuffer(8 * (Math.ceil(nodeCount / SAMPLE) + 1)));
    this.offsets = options.offsets === false ? null : new Uint32Array(new SharedArrayBuffer(4 * nodeCount));
    this.onSegment = options.onSegment ?? null;
    this.segment = new Uint8Array(Math.min(this.segmentBytes, 1 << 16));
  }

  /** Pages added so far (the id of the next one). */
  get pages(): number {
    return this.page;
  }

  private put(value: number): void {
    if (this.blockUsed + 5 > this.block.length) {
      const grown = new Uint8Array(this.block.length * 2);
      grown.set(this.block.subarray(0, this.blockUsed));
      this.block = grown;
    }
    let v = value;
    while (v >= 0x80) {
      this.block[this.blockUsed++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.block[this.blockUsed++] = v;
  }

  /** Adds the list of the next page: `length` values of `list`, strictly increasing, each in 0..n-1. */
  add(list: ArrayLike<number>, length = list.length): void {
    const v = this.page;
    if (v >= this.nodeCount) throw new RangeError(`more than the ${this.nodeCount} pages announced`);
    if (this.offsets !== null) {
      if (this.blockUsed > 0xffffffff) throw new RangeError(`the lists of pages ${v - (v % SAMPLE)}..${v} take more than 4 GB`);
      this.offsets[v] = this.blockUsed;
    }
    // The header: 2 * degree, plus 1 when every gap after the first fits in one byte (the gather
    // then reads them without a branch per link).
    let small = 1;
    for (let i = 0; i < length; i++) {
      const x = list[i]!;
      if (!(x >= 0 && x < this.nodeCount)) throw new RangeError(`list of page ${v}: neighbour ${x} outside 0..${this.nodeCount - 1}`);
      if (i > 0) {
        const gap = x - list[i - 1]!;
        if (gap <= 0) throw new RangeError(`list of page ${v} is not sorted and distinct at position ${i}`);
        if (gap - 1 >= 0x80) small = 0;
      }
    }
    this.put(2 * length + small);
    if (length > 0) {
      let previous = list[0]!;
      this.put(zigzag(previous - v));
      for (let i = 1; i < length; i++) {
        const x = list[i]!;
        this.put(x - previous - 1);
        previous = x;
      }
    }
    this.links += length;
    this.page++;
    if (this.page % SAMPLE === 0 || this.page === this.nodeCount) this.placeBlock();
  }

  /** Places the staged block in the current segment (or the next) and records its sample. */
  private placeBlock(): void {
    const size = this.blockUsed;
    if (size > this.segmentBytes) throw new RangeError(`the lists of the ${SAMPLE} pages before ${this.page} take ${size} bytes, more than a segment (${this.segmentBytes})`);
    if (this.segmentUsed + size > this.segmentBytes) this.closeSegment();
    const blockIndex = Math.ceil(this.page / SAMPLE) - 1;
    this.samples[blockIndex] = this.segmentIndex * this.segmentBytes + this.segmentUsed;
    if (this.segmentUsed + size > this.segment.length) {
      let capacity = this.segment.length * 2;
      while (capacity < this.segmentUsed + size) capacity *= 2;
      const grown = new Uint8Array(Math.min(this.segmentBytes, capacity));
      grown.set(this.segment.subarray(0, this.segmentUsed));
      this.segment = grown;
    }
    this.segment.set(this.block.subarray(0, size), this.segmentUsed);
    this.segmentUsed += size;
    this.blockUsed = 0;
  }

  /** Hands over the current segment (exactly its used bytes, on shared memory) and starts the next. */
  private closeSegment(): void {
    const bytes = sharedBytes(this.segmentUsed);
    bytes.set(this.segment.subarray(0, this.segmentUsed));
    if (this.onSegment !== null) this.onSegment(this.segmentIndex * this.segmentBytes, bytes);
    else this.kept.push(bytes);
    this.segmentIndex++;
    this.segmentUsed = 0;
    this.segment = new Uint8Array(Math.min(this.segmentBytes, 1 << 16));
  }

  /** The lists (their segments empty when `onSegment` took them). */
  finish(): CompactLists {
    if (this.finished) throw new Error('CompactListsWriter: finished twice');
    if (this.page !== this.nodeCount) throw new RangeError(`${this.page} lists written, ${this.nodeCount} pages announced`);
    this.finished = true;
    const end = this.segmentIndex * this.segmentBytes + this.segmentUsed;
    this.samples[this.samples.length - 1] = end;
    if (this.segmentUsed > 0 || this.segmentIndex === 0) this.closeSegment();
    return { nodeCount: this.nodeCount, linkCount: this.links, segmentBytes: this.segmentBytes, segments: this.kept, samples: this.samples, offsets: this.offsets };
  }
}

/**
 * Encodes lists given page by page: `listOf(v)` returns page v's neighbours, sorted and distinct
 * (a plain graph's lists are).
 */
export function encodeLists(nodeCount: number, listOf: (v: number) => ArrayLike<number>, options: CompactWriterOptions = {}): CompactLists {
  const writer = new CompactListsWriter(nodeCount, options);
  for (let v = 0; v < nodeCount; v++) writer.add(listOf(v));
  return writer.finish();
}

/** In-lists given page by page (the form PageRank's gather reads), without per-page offsets. */
export function encodeInLists(nodeCount: number, inList: (v: number) => ArrayLike<number>, options: CompactWriterOptions = {}): CompactLists {
  return encodeLists(nodeCount, inList, { offsets: false, ...options });
}

/** The compact in-lists of a plain graph (unweighted: a compact graph carries no weights). */
export function compactFromGraph(graph: Graph, options: CompactWriterOptions = {}): CompactLists {
  if (graph.weighted) throw new RangeError('a compact graph has no link weights: rank the weighted graph in its plain form');
  return encodeInLists(graph.nodeCount, (v) => graph.predecessors(v), options);
}

/** The compact out-lists of a plain graph, with per-page offsets (for searches). */
export function compactOutListsFromGraph(graph: Graph, options: CompactWriterOptions = {}): CompactLists {
  if (graph.weighted) throw new RangeError('a compact graph has no link weights');
  return encodeLists(graph.nodeCount, (v) => graph.successors(v), options);
}

/** The segment holding page v's list. */
export function listBytes(lists: CompactLists, v: number): Uint8Array {
  return lists.segments[Math.floor(lists.samples[Math.floor(v / SAMPLE)]! / lists.segmentBytes)]!;
}

/** Where page v's list starts in listBytes(lists, v) (needs the per-page offsets). */
export function listStart(lists: CompactLists, v: number): number {
  const start = lists.samples[Math.floor(v / SAMPLE)]!;
  return start - Math.floor(start / lists.segmentBytes) * lists.segmentBytes + lists.offsets![v]!;
}

/**
 * Reads lists one varint at a time: `seek(v)` to a page (by its offset when kept, else from its
 * block's sample), then `degree()` and `next()` for each neighbour. For tests, tools and the
 * searches of compact-search.ts, which inline the same decoding in their loops.
 */
export class CompactCursor {
  private bytes: Uint8Array;
  private p = 0;
  private page = 0;
  private left = 0;
  private previous = 0;
  private first = true;

  constructor(private readonly lists: CompactLists) {
    this.bytes = lists.segments[0] ?? new Uint8Array(0);
  }

  private read(): number {
    const value = readVarint(this.bytes, this.p);
    this.p += varintLength(value);
    return value;
  }

  /** Moves to page v's list; returns its degree. */
  seek(v: number): number {
    const { lists } = this;
    if (!(v >= 0 && v < lists.nodeCount)) throw new RangeError(`page ${v} outside 0..${lists.nodeCount - 1}`);
    this.bytes = listBytes(lists, v);
    if (lists.offsets !== null) this.p = listStart(lists, v);
    else {
      const block = Math.floor(v / SAMPLE);
      this.p = lists.samples[block]! - Math.floor(lists.samples[block]! / lists.segmentBytes) * lists.segmentBytes;
      for (let u = block * SAMPLE; u < v; u++) {
        const degree = this.read() >>> 1;
        for (let i = 0; i < degree; i++) this.read();
      }
    }
    this.page = v;
    this.left = this.read() >>> 1;
    this.first = true;
    return this.left;
  }

  /** The next neighbour of the page, or -1 after the last. */
  next(): number {
    if (this.left === 0) return -1;
    this.left--;
    const z = this.read();
    if (this.first) {
      this.first = false;
      this.previous = this.page + ((z >>> 1) ^ -(z & 1));
    } else this.previous += z + 1;
    return this.previous;
  }
}

/** Decodes page v's list (tests, and the rare reader that wants one list). */
export function listOf(lists: CompactLists, v: number): Int32Array {
  const cursor = new CompactCursor(lists);
  const list = new Int32Array(cursor.seek(v));
  for (let i = 0; i < list.length; i++) list[i] = cursor.next();
  return list;
}

/** The varint at bytes[p] (7 bits a byte, low bits first); `varintLength` of it is how far it reaches. */
export function readVarint(bytes: Uint8Array, p: number): number {
  let q = p;
  let b = bytes[q++]!;
  let value = b & 0x7f;
  let shift = 7;
  while (b >= 0x80) {
    b = bytes[q++]!;
    value |= (b & 0x7f) << shift;
    shift += 7;
  }
  return value >>> 0;
}

/** Bytes of the varint of `value`. */
export function varintLength(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

/** The position after `count` varints from p. */
export function skipVarints(bytes: Uint8Array, p: number, count: number): number {
  let q = p;
  for (let i = 0; i < count; i++) while (bytes[q++]! >= 0x80);
  return q;
}

/**
 * Visits the lists of pages lo..hi in order: `visit(v, degree, bytes, p)` gets the segment's bytes
 * and the position of v's first neighbour, and returns the position after v's list. The varint
 * decoding is the caller's (kernels inline it).
 */
export function forEachList(lists: CompactLists, lo: number, hi: number, visit: (v: number, degree: number, bytes: Uint8Array, p: number) => number): void {
  const { samples, segments, segmentBytes } = lists;
  let v = lo;
  while (v < hi) {
    const block = Math.floor(v / SAMPLE);
    const start = samples[block]!;
    const segment = Math.floor(start / segmentBytes);
    const bytes = segments[segment]!;
    let p = start - segment * segmentBytes;
    // From the block's first page to v (lo may fall inside a block).
    for (let u = block * SAMPLE; u < v; u++) {
      const header = readVarint(bytes, p);
      p = skipVarints(bytes, p + varintLength(header), header >>> 1);
    }
    const blockEnd = Math.min(hi, (block + 1) * SAMPLE);
    for (; v < blockEnd; v++) {
      const header = readVarint(bytes, p);
      p = visit(v, header >>> 1, bytes, p + varintLength(header));
    }
  }
}

/**
 * Decodes `degree` neighbours of page v from bytes[p...] into `into` (from index 0); returns the
 * position after them.
 */
export function decodeList(bytes: Uint8Array, p: number, v: number, degree: number, into: Int32Array | Uint32Array): number {
  let q = p;
  let previous = 0;
  for (let i = 0; i < degree; i++) {
    let b = bytes[q++]!;
    let value = b & 0x7f;
    let shift = 7;
    while (b >= 0x80) {
      b = bytes[q++]!;
      value |= (b & 0x7f) << shift;
      shift += 7;
    }
    value >>>= 0;
    previous = i === 0 ? v + ((value >>> 1) ^ -(value & 1)) : previous + value + 1;
    into[i] = previous;
  }
  return q;
}

/**
 * Links per pass of transposeCompact when not given: 2^28, a buffer of 1 GB. Each pass decodes all
 * the lists, so a larger budget saves time, but the conversion's peak memory is what users plan
 * with (measured: 40% of the free memory took a 10^9-link conversion to 11.7 GB instead of 6).
 */
export const TRANSPOSE_BUDGET_LINKS = 2 ** 28;

/**
 * How often each page appears in the lists: its degree in the transpose (out-degrees from in-lists);
 * on shared memory. `listDegrees`, when given, gets every list's own length in the same pass.
 */
export function transposeDegrees(lists: CompactLists, listDegrees?: Int32Array): Int32Array {
  const degrees = new Int32Array(new SharedArrayBuffer(4 * lists.nodeCount));
  forEachDecodedList(lists, (v, list, degree) => {
    if (listDegrees !== undefined) listDegrees[v] = degree;
    for (let i = 0; i < degree; i++) degrees[list[i]!]!++;
  });
  return degrees;
}

/** Every page's list decoded in turn into one reused buffer: `visit(v, buffer, degree)`. */
export function forEachDecodedList(lists: CompactLists, visit: (v: number, list: Int32Array, degree: number) => void): void {
  let buffer = new Int32Array(1024);
  forEachList(lists, 0, lists.nodeCount, (v, degree, bytes, p) => {
    if (buffer.length < degree) buffer = new Int32Array(Math.max(degree, 2 * buffer.length));
    const end = decodeList(bytes, p, v, degree, buffer);
    visit(v, buffer, degree);
    return end;
  });
}

/**
 * The transpose of compact lists (out-lists from in-lists, or back), in bounded memory: pages are
 * taken in ranges whose lists in the transpose hold at most `budgetLinks` links, and for each range
 * one pass over all the lists collects the range's lists (sorted, as pages are read in order) into
 * a buffer of that size, then encodes them. Memory: the lists read, one n-integer array of degrees,
 * and the buffer (4 bytes per link of the budget).
 */
export function transposeCompact(
  lists: CompactLists,
  options: CompactWriterOptions & { budgetLinks?: number; onPass?: (pass: number, lo: number, hi: number) => void; writer?: CompactListsWriter } = {},
): CompactLists {
  const n = lists.nodeCount;
  const budget = Math.max(1, Math.min(options.budgetLinks ?? TRANSPOSE_BUDGET_LINKS, 2 ** 31 - 1));
  const degrees = transposeDegrees(lists);
  const { budgetLinks: _budget, onPass, writer: given, ...writerOptions } = options;
  const writer = given ?? new CompactListsWriter(n, writerOptions);
  if (writer.pages !== 0 || writer.nodeCount !== n) throw new RangeError('transposeCompact: the writer must be new and of the same page count');
  let lo = 0;
  let pass = 0;
  let buffer = new Int32Array(0);
  while (lo < n) {
    // The range lo..hi: as many pages as the budget holds (at least one).
    let hi = lo;
    let links = 0;
    while (hi < n && (hi === lo || links + degrees[hi]! <= budget)) links += degrees[hi++]!;
    onPass?.(pass++, lo, hi);
    if (buffer.length < links) buffer = new Int32Array(Math.max(links, Math.min(budget, 2 * buffer.length)));
    const start = new Float64Array(hi - lo + 1);
    for (let u = lo; u < hi; u++) start[u - lo + 1] = start[u - lo]! + degrees[u]!;
    const fill = start.slice(0, hi - lo);
    forEachDecodedList(lists, (v, list, degree) => {
      for (let i = 0; i < degree; i++) {
        const u = list[i]!;
        if (u >= lo && u < hi) buffer[fill[u - lo]!++] = v;
      }
    });
    for (let u = lo; u < hi; u++) writer.add(buffer.subarray(start[u - lo]!, start[u - lo + 1]!));
    lo = hi;
  }
  return writer.finish();
}
