/**
 * Gathers over compact lists (src/graph/compact.ts) for the kernels that sweep pages in order: a
 * list's header, then the sum over its neighbours of a vector's values (or of their inverses),
 * decoded inline as it goes (pagerank-compact.ts's pullDirect measured a call per value too slow).
 * Each leaves the position after what it read in `listEnd`. And the threads' ranges of pages.
 */

import { SAMPLE } from '../graph/compact.js';
import { sharedInt32 } from '../parallel/shared-memory.js';

/**
 * Page ranges for `threads` threads of about equal cost, cut at sampled pages: the encoded bytes of
 * the lists (one direction's samples, or both directions' added) plus `pageCost` per page.
 */
export function splitBySamples(samples: Float64Array | readonly Float64Array[], n: number, threads: number, pageCost = 2): Int32Array {
  const all = samples instanceof Float64Array ? [samples] : samples;
  const bounds = threads > 1 ? sharedInt32(threads + 1) : new Int32Array(threads + 1);
  const blocks = all[0]!.length - 1;
  const cost = (block: number): number => {
    let bytes = pageCost * Math.min(n, block * SAMPLE);
    for (const s of all) bytes += s[block]!;
    return bytes;
  };
  const total = cost(blocks);
  let block = 0;
  for (let t = 1; t < threads; t++) {
    while (block < blocks && cost(block) < (total * t) / threads) block++;
    bounds[t] = Math.min(n, block * SAMPLE);
  }
  bounds[threads] = n;
  return bounds;
}

/** The position after the last header or list read. */
export let listEnd = 0;

/** Page v's list at bytes[p...] (its header given): the sum of value[u] over its neighbours u. */
export function sumOfValues(bytes: Uint8Array, p: number, v: number, header: number, value: Float64Array): number {
  const degree = header >>> 1;
  if (degree === 0) {
    listEnd = p;
    return 0;
  }
  let b = bytes[p++]!;
  let code = b & 0x7f;
  if (b > 0x7f) {
    let shift = 7;
    do {
      b = bytes[p++]!;
      code |= (b & 0x7f) << shift;
      shift += 7;
    } while (b > 0x7f);
  }
  let u = (v + ((code >>> 1) ^ -(code & 1))) | 0;
  let sum = value[u]!;
  if (header & 1) {
    for (let k = 1; k < degree; k++) {
      u = (u + bytes[p++]! + 1) | 0;
      sum += value[u]!;
    }
  } else {
    for (let k = 1; k < degree; k++) {
      b = bytes[p++]!;
      let gap = b & 0x7f;
      if (b > 0x7f) {
        let shift = 7;
        do {
          b = bytes[p++]!;
          gap |= (b & 0x7f) << shift;
          shift += 7;
        } while (b > 0x7f);
      }
      u = (u + gap + 1) | 0;
      sum += value[u]!;
    }
  }
  listEnd = p;
  return sum;
}

/** The same, of 1 / value[u]. */
export function sumOfInverses(bytes: Uint8Array, p: number, v: number, header: number, value: Float64Array): number {
  const degree = header >>> 1;
  if (degree === 0) {
    listEnd = p;
    return 0;
  }
  let b = bytes[p++]!;
  let code = b & 0x7f;
  if (b > 0x7f) {
    let shift = 7;
    do {
      b = bytes[p++]!;
      code |= (b & 0x7f) << shift;
      shift += 7;
    } while (b > 0x7f);
  }
  let u = (v + ((code >>> 1) ^ -(code & 1))) | 0;
  let sum = 1 / value[u]!;
  if (header & 1) {
    for (let k = 1; k < degree; k++) {
      u = (u + bytes[p++]! + 1) | 0;
      sum += 1 / value[u]!;
    }
  } else {
    for (let k = 1; k < degree; k++) {
      b = bytes[p++]!;
      let gap = b & 0x7f;
      if (b > 0x7f) {
        let shift = 7;
        do {
          b = bytes[p++]!;
          gap |= (b & 0x7f) << shift;
          shift += 7;
        } while (b > 0x7f);
      }
      u = (u + gap + 1) | 0;
      sum += 1 / value[u]!;
    }
  }
  listEnd = p;
  return sum;
}

/** A header varint at bytes[p]; its end in `end`. */
export function readHeader(bytes: Uint8Array, p: number): number {
  let b = bytes[p++]!;
  let value = b & 0x7f;
  if (b > 0x7f) {
    let shift = 7;
    do {
      b = bytes[p++]!;
      value |= (b & 0x7f) << shift;
      shift += 7;
    } while (b > 0x7f);
  }
  listEnd = p;
  return value >>> 0;
}

/**
 * Decodes `count` gaps from bytes[p...] into the sources after `source`, written to into[at...];
 * returns the position after them. `oneByte`: every gap takes one byte (the list's flag), no branch
 * per link.
 */
export function decodeGaps(bytes: Uint8Array, p: number, source: number, count: number, oneByte: number, into: Int32Array, at: number): number {
  let q = p;
  let s = source;
  const end = at + count;
  if (oneByte) {
    for (let i = at; i < end; i++) into[i] = s = (s + bytes[q++]! + 1) | 0;
    return q;
  }
  for (let i = at; i < end; i++) {
    let b = bytes[q++]!;
    let gap = b;
    if (b > 0x7f) {
      gap &= 0x7f;
      b = bytes[q++]!;
      gap |= (b & 0x7f) << 7;
      if (b > 0x7f) {
        b = bytes[q++]!;
        gap |= (b & 0x7f) << 14;
        if (b > 0x7f) {
          b = bytes[q++]!;
          gap |= (b & 0x7f) << 21;
          if (b > 0x7f) gap |= bytes[q++]! << 28;
        }
      }
    }
    into[i] = s = (s + gap + 1) | 0;
  }
  return q;
}

/** The lists of a block of pages decoded ahead of their gathers: the sources, and where each page's end. */
export interface DecodedBlock {
  sources: Int32Array;
  ends: Int32Array;
}

export function decodedBlock(): DecodedBlock {
  return { sources: new Int32Array(1 << 14), ends: new Int32Array(SAMPLE) };
}

/**
 * Decodes the lists of pages first..last - 1 (at most SAMPLE of them) from bytes[p...] into
 * `into` (its sources grown for a block with more): page first + i's sources end at ends[i].
 * Returns the position after the last list. A kernel that gathers after decoding a block keeps
 * more of its loads in flight than one that decodes between them (pagerank-compact.ts's pullBlocked).
 */
export function decodeBlock(bytes: Uint8Array, p: number, first: number, last: number, into: DecodedBlock): number {
  let q = p;
  let m = 0;
  const ends = into.ends;
  for (let v = first; v < last; v++) {
    const header = readHeader(bytes, q);
    q = listEnd;
    const degree = header >>> 1;
    if (degree > 0) {
      if (m + degree > into.sources.length) {
        const grown = new Int32Array(Math.max(m + degree, 2 * into.sources.length));
        grown.set(into.sources.subarray(0, m));
        into.sources = grown;
      }
      const code = readHeader(bytes, q);
      const source = (v + ((code >>> 1) ^ -(code & 1))) | 0;
      into.sources[m] = source;
      q = decodeGaps(bytes, listEnd, source, degree - 1, header & 1, into.sources, m + 1);
      m += degree;
    }
    ends[v - first] = m;
  }
  return q;
}
