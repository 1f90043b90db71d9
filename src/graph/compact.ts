/**
 * A compact graph for the analyses that pull along in-links (PageRank's gather): each page's
 * in-list gap-encoded in byte-aligned varints, read in page order, as WebGraph's BV format and
 * LAW's compressed graphs store adjacency (Boldi and Vigna, "The WebGraph Framework I", 2004:
 * successors sorted, first one relative to the page, then gaps). Per page: twice its in-degree
 * (plus 1 when all its gaps fit in one byte), the first in-neighbour as a zig-zag difference from
 * the page, then each next one as its gap minus 1.
 * Web graphs' locality (links to nearby ids: pages of one host are numbered together) keeps most
 * gaps under 128, one byte each, against 4 bytes per link in the plain CSR. A byte offset is kept
 * every SAMPLE pages only, so threads can start anywhere at a multiple of it: 1/8 byte per page.
 * Page ids stay below 2^30 so that every value decodes with 32-bit shifts.
 */
import type { Graph } from './graph.js';

/** A byte offset is kept for every SAMPLE-th page. */
export const SAMPLE = 64;
/** Largest page count: zig-zag differences of ids must stay below 2^31. */
export const COMPACT_MAX_NODES = 2 ** 30;

export interface CompactInLists {
  nodeCount: number;
  linkCount: number;
  /** The encoded in-lists, page after page (on shared memory, for the threads). */
  bytes: Uint8Array;
  /** samples[k] = byte offset of page k * SAMPLE's list; samples[last] = bytes used. */
  samples: Float64Array;
}

/** Bytes held: the encoded lists and the sampled offsets. */
export function compactBytes(lists: CompactInLists): number {
  return lists.bytes.byteLength + lists.samples.byteLength;
}

/** Appends varints to a growing byte buffer (shared memory at the end). */
class VarintWriter {
  bytes: Uint8Array;
  length = 0;
  constructor(capacity: number) {
    this.bytes = new Uint8Array(Math.max(16, capacity));
  }
  write(value: number): void {
    if (this.length + 5 > this.bytes.length) {
      const grown = new Uint8Array(Math.ceil(this.bytes.length * 1.5) + 16);
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }
}

/** Zig-zag: 0, -1, 1, -2, ... to 0, 1, 2, 3, ... */
function zigzag(x: number): number {
  return x >= 0 ? 2 * x : -2 * x - 1;
}

/**
 * Encodes in-lists given page by page: `inList(v)` returns page v's in-neighbours, sorted and
 * distinct (a plain graph's in-lists are). Used by `compactFromGraph` and by generators that
 * write the compact form without a plain graph.
 */
export function encodeInLists(nodeCount: number, inList: (v: number) => ArrayLike<number>, expectedLinks = nodeCount): CompactInLists {
  if (nodeCount >= COMPACT_MAX_NODES) throw new RangeError(`a compact graph holds fewer than 2^30 pages, got ${nodeCount}`);
  const writer = new VarintWriter(Math.ceil(expectedLinks * 1.5) + nodeCount);
  const samples = new Float64Array(Math.ceil(nodeCount / SAMPLE) + 1);
  let links = 0;
  for (let v = 0; v < nodeCount; v++) {
    if (v % SAMPLE === 0) samples[v / SAMPLE] = writer.length;
    const list = inList(v);
    const degree = list.length;
    // The header: 2 * degree, plus 1 when every gap after the first fits in one byte (the gather
    // then reads them without a branch per link).
    let small = 1;
    for (let i = 1; i < degree; i++) {
      if (list[i]! <= list[i - 1]!) throw new RangeError(`in-list of page ${v} is not sorted and distinct at position ${i}`);
      if (list[i]! - list[i - 1]! - 1 >= 0x80) small = 0;
    }
    writer.write(2 * degree + small);
    if (degree === 0) continue;
    let previous = list[0]!;
    writer.write(zigzag(previous - v));
    for (let i = 1; i < degree; i++) {
      const source = list[i]!;
      writer.write(source - previous - 1);
      previous = source;
    }
    links += degree;
  }
  samples[samples.length - 1] = writer.length;
  const bytes = new Uint8Array(new SharedArrayBuffer(writer.length));
  bytes.set(writer.bytes.subarray(0, writer.length));
  const sharedSamples = new Float64Array(new SharedArrayBuffer(samples.byteLength));
  sharedSamples.set(samples);
  return { nodeCount, linkCount: links, bytes, samples: sharedSamples };
}

/** The compact in-lists of a plain graph (unweighted: a compact graph carries no weights). */
export function compactFromGraph(graph: Graph): CompactInLists {
  if (graph.weighted) throw new RangeError('a compact graph has no link weights: rank the weighted graph in its plain form');
  return encodeInLists(graph.nodeCount, (v) => graph.predecessors(v), graph.edgeCount);
}

/** Decodes page v's in-list (tests, and the rare reader that wants one list). */
export function inListOf(lists: CompactInLists, v: number): Int32Array {
  const { bytes, samples } = lists;
  let p = samples[Math.floor(v / SAMPLE)]!;
  const read = (): number => {
    let b = bytes[p++]!;
    let value = b & 0x7f;
    let shift = 7;
    while (b >= 0x80) {
      b = bytes[p++]!;
      value |= (b & 0x7f) << shift;
      shift += 7;
    }
    return value >>> 0;
  };
  for (let u = v - (v % SAMPLE); ; u++) {
    const degree = read() >>> 1;
    if (u === v) {
      const list = new Int32Array(degree);
      if (degree === 0) return list;
      const z = read();
      let source = v + (z & 1 ? -((z + 1) / 2) : z / 2);
      list[0] = source;
      for (let i = 1; i < degree; i++) {
        source += read() + 1;
        list[i] = source;
      }
      return list;
    }
    if (degree > 0) for (let i = 0; i < degree; i++) read();
  }
}
