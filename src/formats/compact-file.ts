/**
 * wga's compact graph file (`.wgc`): the compact lists of src/graph/compact.ts as they sit in
 * memory, so that a graph of billions of links loads at disk speed, and a single page's lists and
 * name can be read in place (a few reads, no load) by `wga page` and `wga top`.
 *
 * Layout (little-endian):
 *   bytes 0-7     magic "WGACMP1\n"
 *   bytes 8-11    length L of the JSON header (uint32), then the header; the first section starts
 *                 at HEADER_BYTES
 *   sections      at the offsets the header gives: for each direction kept ('in', 'out'):
 *                 `D.bytes` (the lists, segment after segment, padding included), `D.samples`
 *                 (float64 per block of 64 pages, plus the end), `D.offsets` (uint32 per page, the
 *                 offset of its list from its block's sample); for labels: `labels.data` and
 *                 `labels.offsets` (front-coded blocks of 16 names, float64 per block), and
 *                 `labels.order` (int32 per page, ids by name) when the names are not sorted.
 * The header: {format, version, nodes, links, segmentBytes, sections: {name: [offset, length]},
 * labels: {count, sorted} | null, level, reversed, source}.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { FileNotFoundError, InputFormatError } from '../errors.js';
import { type CompactLists, CompactListsWriter, type CompactWriterOptions, SAMPLE } from '../graph/compact.js';
import { FrontCodedLabels, LABEL_BLOCK } from '../graph/front-coded-labels.js';
import { openForReading } from './file-stream.js';
import type { Labels } from '../graph/labels.js';
import { IdentityLabels, IntegerLabels } from '../graph/labels.js';
import { type BuiltGraph, buildFromRows } from '../graph/builder.js';
import { decodeList, forEachList, readVarint, varintLength } from '../graph/compact.js';

export const COMPACT_MAGIC = 'WGACMP1\n';
/** Room for the magic, the length and the JSON header. */
export const HEADER_BYTES = 8192;
/** readSync and writeSync move at most 2 GB at a time. */
const IO_CHUNK = 1 << 30;

export type Direction = 'in' | 'out';

export interface CompactFileHeader {
  format: 'wga-compact';
  version: 1;
  nodes: number;
  links: number;
  segmentBytes: number;
  sections: Record<string, [number, number]>;
  /** Names (front-coded) or numbers (`integers`: the labels of a numeric edge list), or none (ids). */
  labels: { count: number; sorted: boolean; integers?: boolean } | null;
  /** What the nodes are: page, host or domain. */
  level: string;
  /** Host or domain names in Common Crawl's reversed notation. */
  reversed: boolean;
  /** Where the graph came from (a file, a generator and its parameters). */
  source: string;
}

export function isCompactPath(path: string): boolean {
  return /\.wgc$/.test(path);
}

function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) {
    const wrote = writeSync(fd, bytes, done, Math.min(IO_CHUNK, bytes.length - done), position + done);
    done += wrote;
  }
}

function readAll(fd: number, into: Uint8Array, position: number, path: string): void {
  let done = 0;
  while (done < into.length) {
    const got = readSync(fd, into, done, Math.min(IO_CHUNK, into.length - done), position + done);
    if (got <= 0) throw new InputFormatError(path, undefined, `ends early, at byte ${position + done}`);
    done += got;
  }
}

function viewBytes(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * Writes a `.wgc` file section by section: lists stream to disk as their segments fill (bounded
 * memory), then their samples and offsets; then labels; `close` writes the header.
 */
export class CompactFileWriter {
  private readonly fd: number;
  private end = HEADER_BYTES;
  private readonly sections: Record<string, [number, number]> = {};
  private nodes = -1;
  private links = 0;
  private segmentBytes = 0;
  private labels: CompactFileHeader['labels'] = null;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'w');
    } catch (error) {
      throw new FileNotFoundError(path, `cannot write: ${(error as Error).message}`);
    }
  }

  private section(name: string, bytes: Uint8Array): void {
    // Sections start on 8-byte boundaries.
    this.end = Math.ceil(this.end / 8) * 8;
    writeAll(this.fd, bytes, this.end);
    this.sections[name] = [this.end, bytes.length];
    this.end += bytes.length;
  }

  /**
   * A writer of one direction's lists whose segments go to the file as they fill; `keep` also keeps
   * them in memory (to transpose them next). Call `endLists` with what its `finish` returns.
   */
  beginLists(direction: Direction, nodes: number, options: CompactWriterOptions & { keep?: boolean } = {}): CompactListsWriter {
    this.setNodes(nodes);
    this.end = Math.ceil(this.end / 8) * 8;
    const base = this.end;
    const kept: Uint8Array[] = [];
    this.sections[`${direction}.bytes`] = [base, 0];
    const writer = new CompactListsWriter(nodes, {
      ...options,
      onSegment: (start, bytes) => {
        writeAll(this.fd, bytes, base + start);
        if (options.keep === true) kept.push(bytes);
      },
    });
    const finish = writer.finish.bind(writer);
    writer.finish = (): CompactLists => {
      const lists = finish();
      return { ...lists, segments: kept };
    };
    return writer;
  }

  /** Records the lists written through `beginLists` (their samples and offsets). */
  endLists(direction: Direction, lists: CompactLists): void {
    const [base] = this.sections[`${direction}.bytes`]!;
    const used = lists.samples[lists.samples.length - 1]!;
    this.sections[`${direction}.bytes`] = [base, used];
    this.end = base + used;
    this.finishLists(direction, lists);
  }

  /** Writes lists held in memory (all their segments). */
  writeLists(direction: Direction, lists: CompactLists): void {
    this.setNodes(lists.nodeCount);
    this.end = Math.ceil(this.end / 8) * 8;
    const base = this.end;
    lists.segments.forEach((segment, s) => writeAll(this.fd, segment, base + s * lists.segmentBytes));
    const used = lists.samples[lists.samples.length - 1]!;
    this.sections[`${direction}.bytes`] = [base, used];
    this.end = base + used;
    this.finishLists(direction, lists);
  }

  private finishLists(direction: Direction, lists: CompactLists): void {
    if (this.segmentBytes !== 0 && this.segmentBytes !== lists.segmentBytes) throw new RangeError('both directions must use the same segment size');
    this.segmentBytes = lists.segmentBytes;
    this.links = lists.linkCount;
    this.section(`${direction}.samples`, viewBytes(lists.samples));
    if (lists.offsets !== null) this.section(`${direction}.offsets`, viewBytes(lists.offsets));
  }

  writeLabels(labels: FrontCodedLabels): void {
    this.setNodes(labels.size);
    this.section('labels.data', labels.data);
    this.section('labels.offsets', viewBytes(labels.offsets));
    const order = labels.idsInNameOrder();
    if (order !== null) this.section('labels.order', viewBytes(order));
    this.labels = { count: labels.size, sorted: labels.sorted };
  }

  /** Numeric labels (the ids of an edge list whose numbers are not 0..n-1), increasing. */
  writeIntegerLabels(values: Int32Array): void {
    this.setNodes(values.length);
    this.section('labels.integers', viewBytes(values));
    this.labels = { count: values.length, sorted: true, integers: true };
  }

  private setNodes(nodes: number): void {
    if (this.nodes !== -1 && this.nodes !== nodes) throw new RangeError(`the file has ${this.nodes} pages, not ${nodes}`);
    this.nodes = nodes;
  }

  close(meta: { level?: string; reversed?: boolean; source: string }): CompactFileHeader {
    const header: CompactFileHeader = {
      format: 'wga-compact',
      version: 1,
      nodes: this.nodes,
      links: this.links,
      segmentBytes: this.segmentBytes,
      sections: this.sections,
      labels: this.labels,
      level: meta.level ?? 'page',
      reversed: meta.reversed ?? false,
      source: meta.source,
    };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    if (12 + json.length > HEADER_BYTES) throw new RangeError('compact file header too long');
    const head = Buffer.alloc(12);
    head.write(COMPACT_MAGIC, 0, 'latin1');
    head.writeUInt32LE(json.length, 8);
    writeAll(this.fd, head, 0);
    writeAll(this.fd, json, 12);
    ftruncateSync(this.fd, this.end);
    closeSync(this.fd);
    return header;
  }

  /** Gives up: closes the file (the caller removes it). */
  abort(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

/** An open `.wgc` file: its header, lists loaded into memory, pages and names read in place. */
export class CompactFile {
  readonly header: CompactFileHeader;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    header: CompactFileHeader,
  ) {
    this.header = header;
  }

  static open(path: string): CompactFile {
    const fd = openForReading(path);
    try {
      const size = fstatSync(fd).size;
      const head = Buffer.alloc(12);
      if (readSync(fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 8) !== COMPACT_MAGIC) {
        throw new InputFormatError(path, undefined, `not a wga compact graph (no '${COMPACT_MAGIC.trim()}' header)`);
      }
      const length = head.readUInt32LE(8);
      if (length > HEADER_BYTES - 12) throw new InputFormatError(path, undefined, `header length ${length} is too long`);
      const json = Buffer.alloc(length);
      readAll(fd, json, 12, path);
      let header: CompactFileHeader;
      try {
        header = JSON.parse(json.toString('utf8')) as CompactFileHeader;
      } catch {
        throw new InputFormatError(path, undefined, 'the header is not JSON');
      }
      if (header.format !== 'wga-compact' || header.version !== 1) throw new InputFormatError(path, undefined, `format ${String(header.format)} version ${String(header.version)}: expected wga-compact version 1`);
      for (const [name, [offset, bytes]] of Object.entries(header.sections)) {
        if (!(offset >= HEADER_BYTES && offset + bytes <= size)) throw new InputFormatError(path, undefined, `section ${name} (bytes ${offset}..${offset + bytes}) lies outside the file's ${size} bytes: truncated?`);
      }
      return new CompactFile(path, fd, header);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  get nodeCount(): number {
    return this.header.nodes;
  }

  get linkCount(): number {
    return this.header.links;
  }

  has(direction: Direction): boolean {
    return this.header.sections[`${direction}.bytes`] !== undefined;
  }

  private sectionOf(name: string): [number, number] {
    const section = this.header.sections[name];
    if (section === undefined) throw new InputFormatError(this.path, undefined, `has no ${name} section`);
    return section;
  }

  private readSection(name: string, into: ArrayBufferView): void {
    const [offset, bytes] = this.sectionOf(name);
    if (bytes !== into.byteLength) throw new InputFormatError(this.path, undefined, `section ${name} holds ${bytes} bytes, ${into.byteLength} expected`);
    readAll(this.fd, viewBytes(into), offset, this.path);
  }

  /** Loads one direction's lists into shared memory (with the per-page offsets when asked). */
  readLists(direction: Direction, options: { offsets?: boolean } = {}): CompactLists {
    const n = this.header.nodes;
    const { segmentBytes } = this.header;
    const samples = new Float64Array(new SharedArrayBuffer(8 * (Math.ceil(n / SAMPLE) + 1)));
    this.readSection(`${direction}.samples`, samples);
    const [base, used] = this.sectionOf(`${direction}.bytes`);
    if (samples[samples.length - 1] !== used) throw new InputFormatError(this.path, undefined, `${direction}-lists: the samples end at ${samples[samples.length - 1]}, the lists at ${used}`);
    const segments: Uint8Array[] = [];
    for (let start = 0; start < used || segments.length === 0; start += segmentBytes) {
      const bytes = new Uint8Array(new SharedArrayBuffer(Math.min(segmentBytes, used - start)));
      readAll(this.fd, bytes, base + start, this.path);
      segments.push(bytes);
    }
    let offsets: Uint32Array | null = null;
    if (options.offsets === true) {
      offsets = new Uint32Array(new SharedArrayBuffer(4 * n));
      this.readSection(`${direction}.offsets`, offsets);
    }
    return { nodeCount: n, linkCount: this.header.links, segmentBytes, segments, samples, offsets };
  }

  /** One direction's per-page offsets (each list's position from its block's sample), for lists read without them. */
  readOffsets(direction: Direction): Uint32Array {
    const offsets = new Uint32Array(new SharedArrayBuffer(4 * this.header.nodes));
    this.readSection(`${direction}.offsets`, offsets);
    return offsets;
  }

  /** Bytes one direction's lists take in memory (lists, samples, and offsets when asked). */
  listBytes(direction: Direction, offsets: boolean): number {
    const n = this.header.nodes;
    return this.sectionOf(`${direction}.bytes`)[1] + 8 * (Math.ceil(n / SAMPLE) + 1) + (offsets ? 4 * n : 0);
  }

  private readAt(offset: number, length: number): Uint8Array {
    const bytes = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const got = readSync(this.fd, bytes, done, length - done, offset + done);
      if (got <= 0) break;
      done += got;
    }
    return bytes.subarray(0, done);
  }

  /** Page v's list in one direction, read in place (three reads, nothing loaded). */
  listInPlace(direction: Direction, v: number): Int32Array {
    const n = this.header.nodes;
    if (!(v >= 0 && v < n)) throw new RangeError(`page ${v} outside 0..${n - 1}`);
    const [base] = this.sectionOf(`${direction}.bytes`);
    const [samplesAt] = this.sectionOf(`${direction}.samples`);
    const [offsetsAt] = this.sectionOf(`${direction}.offsets`);
    const sample = Buffer.from(this.readAt(samplesAt + 8 * Math.floor(v / SAMPLE), 8)).readDoubleLE(0);
    const offset = Buffer.from(this.readAt(offsetsAt + 4 * v, 4)).readUInt32LE(0);
    const at = base + sample + offset;
    const header = readVarint(this.readAt(at, 5), 0);
    // The whole list at once: at most 5 bytes a neighbour.
    const list = new Int32Array(header >>> 1);
    decodeList(this.readAt(at + varintLength(header), 5 * list.length), 0, v, list.length, list);
    return list;
  }

  /** The names, read in place (a block per lookup), or null when the file has none. */
  labelsInPlace(): Labels | null {
    if (this.header.labels === null) return null;
    if (this.header.labels.integers === true) return new IntegerLabelFile(this, this.header.labels.count);
    return new FrontCodedLabelFile(this, this.header.labels.count, this.header.labels.sorted);
  }

  /**
   * The names read into memory (front-coded, as in the file: about 5 bytes a host of Common Crawl's
   * graph), for work that names every page in no useful order: the ranks table. In place, each name
   * costs two reads of the file (about 10 us); in memory, a block's decoding.
   */
  labelsInMemory(): Labels | null {
    const header = this.header.labels;
    if (header === null) return null;
    const n = header.count;
    if (header.integers === true) {
      const values = new Int32Array(n);
      this.readSectionInto('labels.integers', values);
      return new IntegerLabels(values);
    }
    const [, dataBytes] = this.sectionBounds('labels.data')!;
    const data = new Uint8Array(dataBytes);
    this.readSectionInto('labels.data', data);
    const blockOffsets = new Float64Array(Math.ceil(n / LABEL_BLOCK));
    this.readSectionInto('labels.offsets', blockOffsets);
    return new FrontCodedLabels(data, blockOffsets, n, header.sorted);
  }

  /** @internal reads a whole section into `into` (its size must match). */
  readSectionInto(name: string, into: ArrayBufferView): void {
    this.readSection(name, into);
  }

  /** @internal a section's [offset, bytes]. */
  sectionBounds(name: string): [number, number] | undefined {
    return this.header.sections[name];
  }

  /** @internal bytes of the file. */
  bytesAt(offset: number, length: number): Uint8Array {
    return this.readAt(offset, length);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** Front-coded labels read from a `.wgc` file in place: a block of 16 names per lookup by id, a binary search of blocks by name. */
class FrontCodedLabelFile extends FrontCodedLabels {
  private readonly dataAt: number;
  private readonly dataBytes: number;
  private readonly offsetsAt: number;
  private readonly blocks: number;

  constructor(
    private readonly file: CompactFile,
    size: number,
    sorted: boolean,
  ) {
    super(new Uint8Array(0), new Float64Array(0), size, sorted);
    [this.dataAt, this.dataBytes] = file.sectionBounds('labels.data')!;
    this.offsetsAt = file.sectionBounds('labels.offsets')![0];
    this.blocks = Math.ceil(size / LABEL_BLOCK);
  }

  /** The last block read: neighbours listed in id order share blocks. */
  private cached: { block: number; bytes: Uint8Array } | null = null;

  protected override blockBytes(k: number): Uint8Array {
    if (this.cached?.block === k) return this.cached.bytes;
    const bytes = this.readBlock(k);
    this.cached = { block: k, bytes };
    return bytes;
  }

  private readBlock(k: number): Uint8Array {
    const bounds = Buffer.from(this.file.bytesAt(this.offsetsAt + 8 * k, 16));
    const start = bounds.readDoubleLE(0);
    const end = k + 1 < this.blocks ? bounds.readDoubleLE(8) : this.dataBytes;
    return this.file.bytesAt(this.dataAt + start, end - start);
  }

  override idsInNameOrder(): Int32Array | null {
    return null;
  }

  override id(label: string): number {
    if (this.sorted) return super.id(label);
    const [orderAt] = this.file.sectionBounds('labels.order')!;
    const order = { length: this.size, at: (i: number): number => Buffer.from(this.file.bytesAt(orderAt + 4 * i, 4)).readInt32LE(0) };
    return this.searchOrder(order, new TextEncoder().encode(label));
  }

  override memoryBytes(): number {
    return 0;
  }
}

/** Numeric labels read from a `.wgc` file in place: 4 bytes per lookup by id, a binary search by number. */
class IntegerLabelFile implements Labels {
  private readonly at: number;

  constructor(
    private readonly file: CompactFile,
    readonly size: number,
  ) {
    this.at = file.sectionBounds('labels.integers')![0];
  }

  private value(id: number): number {
    return Buffer.from(this.file.bytesAt(this.at + 4 * id, 4)).readInt32LE(0);
  }

  label(id: number): string {
    if (!(id >= 0 && id < this.size)) throw new RangeError(`label id ${id} outside 0..${this.size - 1}`);
    return String(this.value(id));
  }

  id(label: string): number {
    if (!/^(0|[1-9][0-9]*)$/.test(label)) return -1;
    const target = Number(label);
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.value(mid);
      if (v === target) return mid;
      if (v < target) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  memoryBytes(): number {
    return 0;
  }
}

/**
 * A compact graph file as a plain graph (CSR both ways, labels in memory): what every analysis
 * without a compact kernel reads. The out-lists are decoded straight into the CSR rows.
 */
export function readCompactAsGraph(path: string): BuiltGraph {
  const file = CompactFile.open(path);
  try {
    const n = file.nodeCount;
    const m = file.linkCount;
    if (m >= 2 ** 32) throw new InputFormatError(path, undefined, `${m} links: the plain graph holds fewer than 2^32; use the commands that read the compact form (stats, rank, levels, scc)`);
    const out = file.readLists('out');
    const offsets = new Uint32Array(new SharedArrayBuffer(4 * (n + 1)));
    const targets = new Int32Array(new SharedArrayBuffer(4 * m));
    let e = 0;
    forEachList(out, 0, n, (v, degree, bytes, p) => {
      const end = decodeList(bytes, p, v, degree, targets.subarray(e, e + degree));
      e += degree;
      offsets[v + 1] = e;
      return end;
    });
    out.segments.length = 0;
    let labels: Labels = new IdentityLabels(n);
    const header = file.header.labels;
    if (header !== null && header.integers === true) {
      const values = new Int32Array(n);
      file.readSectionInto('labels.integers', values);
      labels = new IntegerLabels(values);
    } else if (header !== null) labels = file.labelsInMemory()!;
    return buildFromRows(n, { offsets, targets, weights: null }, labels, { selfLoopsRemoved: true, sorted: true });
  } finally {
    file.close();
  }
}
