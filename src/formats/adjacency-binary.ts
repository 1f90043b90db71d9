/**
 * wga's binary adjacency file (`.wgadj`): a graph's out-rows as they sit in
 * memory, so that a graph of 10^9 links loads at disk speed with no parsing
 * and no buffer beside the graph itself.
 *
 * Layout (all little-endian):
 *   bytes 0-7    magic "WGADJ01\n"
 *   bytes 8-15   nodes n (uint64, below 2^31)
 *   bytes 16-23  links m (uint64, below 2^32)
 *   bytes 24-31  zero (reserved)
 *   then n uint32 out-degrees, then m int32 targets, row by row.
 * Rows may hold self-links, repeats and any order (they are cleaned as a
 * WebGraph file's are); the writer of bench/generate-web-graph.ts stores them
 * sorted and clean, which lets the reader skip that step.
 *
 * Loading keeps the out-rows (4 bytes per link, read straight into place)
 * and transposes them into the in-rows (4 more): peak 8 bytes per link plus
 * 8 per page, against 12-24 for the text and WebGraph readers.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { InputFormatError } from '../errors.js';
import { openForReading } from './file-stream.js';
import { type BuiltGraph, buildFromRows } from '../graph/builder.js';
import type { Csr } from '../graph/csr.js';
import { IdentityLabels } from '../graph/labels.js';
import { sharedInt32, sharedUint32 } from '../parallel/shared-memory.js';

export const ADJACENCY_MAGIC = 'WGADJ01\n';
export const ADJACENCY_HEADER_BYTES = 32;
/** readSync moves at most 2 GB at a time. */
const READ_CHUNK = 1 << 30;

export function isAdjacencyPath(path: string): boolean {
  return /\.wgadj$/.test(path);
}

/** Reads a `.wgadj` file into a graph with identity labels. */
export function readAdjacencyFile(path: string): BuiltGraph {
  const fd = openForReading(path);
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.alloc(ADJACENCY_HEADER_BYTES);
    if (readSync(fd, header, 0, ADJACENCY_HEADER_BYTES, 0) !== ADJACENCY_HEADER_BYTES || header.toString('latin1', 0, 8) !== ADJACENCY_MAGIC) {
      throw new InputFormatError(path, undefined, `not a wga adjacency file (no '${ADJACENCY_MAGIC.trim()}' header)`);
    }
    const n = Number(header.readBigUInt64LE(8));
    const m = Number(header.readBigUInt64LE(16));
    if (n >= 2 ** 31 || m >= 2 ** 32) throw new InputFormatError(path, undefined, `${n} nodes and ${m} links: at most 2^31 - 1 and 2^32 - 1`);
    const expected = ADJACENCY_HEADER_BYTES + 4 * n + 4 * m;
    if (size !== expected) {
      throw new InputFormatError(path, undefined, `${size} bytes, but ${n} nodes and ${m} links take ${expected}: truncated or not this format`);
    }
    const offsets = sharedUint32(n + 1);
    readInto(fd, new Uint8Array(offsets.buffer, 4, 4 * n), ADJACENCY_HEADER_BYTES, path);
    // Degrees to offsets in place: offsets[v + 1] held v's degree.
    let total = 0;
    for (let v = 1; v <= n; v++) {
      total += offsets[v]!;
      if (total > m) throw new InputFormatError(path, undefined, `the degrees of nodes 0..${v - 1} add up to more than the ${m} links`);
      offsets[v] = total;
    }
    if (total !== m) throw new InputFormatError(path, undefined, `the degrees add up to ${total}, the header says ${m} links`);
    const targets = sharedInt32(m);
    readInto(fd, new Uint8Array(targets.buffer), ADJACENCY_HEADER_BYTES + 4 * n, path);
    const clean = checkRows(n, offsets, targets, path);
    const rows: Csr = { offsets, targets, weights: null };
    return buildFromRows(n, rows, new IdentityLabels(n), { selfLoopsRemoved: clean, sorted: clean });
  } finally {
    closeSync(fd);
  }
}

function readInto(fd: number, into: Uint8Array, position: number, path: string): void {
  let done = 0;
  while (done < into.length) {
    const length = Math.min(READ_CHUNK, into.length - done);
    const got = readSync(fd, into, done, length, position + done);
    if (got <= 0) throw new InputFormatError(path, undefined, `ends early, at byte ${position + done}`);
    done += got;
  }
}

/** Checks every target is a node; true when every row is strictly increasing and free of self-links. */
function checkRows(n: number, offsets: Uint32Array, targets: Int32Array, path: string): boolean {
  let clean = true;
  let e = 0;
  for (let v = 0; v < n; v++) {
    const end = offsets[v + 1]!;
    let previous = -1;
    for (; e < end; e++) {
      const t = targets[e]!;
      if (t < 0 || t >= n) throw new InputFormatError(path, undefined, `node ${v}: link to ${t}, outside 0..${n - 1}`);
      if (t <= previous || t === v) clean = false;
      previous = t;
    }
  }
  return clean;
}

/**
 * Writes a `.wgadj` file row by row: `addRow` appends one node's targets,
 * `close` writes the degrees and the header. Nodes are numbered in the
 * order of the calls; the node count must be known up front.
 */
export class AdjacencyWriter {
  private readonly fd: number;
  private readonly degrees: Uint32Array;
  private node = 0;
  private links = 0;
  private readonly buffer = new Int32Array(1 << 20);
  private fill = 0;
  /** Targets already on disk. */
  private written = 0;

  constructor(
    readonly path: string,
    readonly nodes: number,
  ) {
    this.fd = openSync(path, 'w');
    this.degrees = new Uint32Array(nodes);
  }

  addRow(targets: ArrayLike<number>, length = targets.length): void {
    if (this.node >= this.nodes) throw new RangeError(`AdjacencyWriter: more than ${this.nodes} rows`);
    this.degrees[this.node++] = length;
    for (let i = 0; i < length; i++) {
      if (this.fill === this.buffer.length) this.flush();
      this.buffer[this.fill++] = targets[i]!;
    }
    this.links += length;
  }

  close(): { nodes: number; links: number } {
    if (this.node !== this.nodes) throw new RangeError(`AdjacencyWriter: ${this.node} rows written, ${this.nodes} announced`);
    this.flush();
    const header = Buffer.alloc(ADJACENCY_HEADER_BYTES);
    header.write(ADJACENCY_MAGIC, 0, 'latin1');
    header.writeBigUInt64LE(BigInt(this.nodes), 8);
    header.writeBigUInt64LE(BigInt(this.links), 16);
    writeSync(this.fd, header, 0, header.length, 0);
    const bytes = new Uint8Array(this.degrees.buffer);
    for (let done = 0; done < bytes.length; done += READ_CHUNK) {
      writeSync(this.fd, bytes, done, Math.min(READ_CHUNK, bytes.length - done), ADJACENCY_HEADER_BYTES + done);
    }
    closeSync(this.fd);
    return { nodes: this.nodes, links: this.links };
  }

  private flush(): void {
    if (this.fill === 0) return;
    const position = ADJACENCY_HEADER_BYTES + 4 * this.nodes + 4 * this.written;
    writeSync(this.fd, new Uint8Array(this.buffer.buffer, 0, 4 * this.fill), 0, 4 * this.fill, position);
    this.written += this.fill;
    this.fill = 0;
  }
}
