/**
 * `wga convert`: any graph file into the compact file (`.wgc`), holding as little as the input
 * allows. Out-lists come first, then the in-lists as their transpose (in passes of a bounded
 * buffer), both written to the file as their segments fill:
 * - an edge list with numeric ids, and Common Crawl's edge files: through an external sort
 *   (external-sort.ts) into a temporary directory, never holding the edge list; the ids an edge
 *   list uses become 0..n-1 in their numeric order, as the plain reader numbers them;
 * - a `.wgadj` file and WebGraph BV files: row by row (their rows are out-lists already; BV's are
 *   decoded into one array of 4 bytes a link first, a third of the plain graph's loading);
 * - edge lists with text ids (URLs) and label files: read as a plain graph first (a text id needs
 *   its name table in memory anyway), then encoded.
 */
import { closeSync, fstatSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ExitCode, InputFormatError, OptionError, WgaError } from '../errors.js';
import { type CompactLists, type CompactListsWriter, transposeCompact } from '../graph/compact.js';
import { FrontCodedLabels, FrontCodedLabelsBuilder } from '../graph/front-coded-labels.js';
import { IdentityLabels, IntegerLabels } from '../graph/labels.js';
import { ADJACENCY_HEADER_BYTES, ADJACENCY_MAGIC } from './adjacency-binary.js';
import { findCommonCrawlFiles, readCommonCrawlEdges } from './commoncrawl.js';
import { CompactFileWriter, type CompactFileHeader } from './compact-file.js';
import { ExternalPairSorter } from './external-sort.js';
import { LineSplitter, openForReading, streamFile } from './file-stream.js';
import { type LoadOptions, detectFormat, loadGraph } from './load.js';
import { readWebGraphRows } from './webgraph-bv.js';

export interface ConvertOptions extends Omit<LoadOptions, 'onProgress'> {
  /** Directory for the sort's runs (default: the system's temporary directory). */
  tmp?: string;
  /** Links per sorted run (memory: 16 bytes each). */
  runLinks?: number;
  /** Links per pass of the transposition (memory: 4 bytes each). */
  budgetLinks?: number;
  segmentBytes?: number;
  onProgress?: (message: string) => void;
}

export interface ConvertReport {
  input: string;
  output: string;
  format: string;
  /** How the input was read: 'external sort', 'rows' or 'in memory'. */
  route: string;
  nodes: number;
  links: number;
  selfLoopsDropped: number;
  duplicatesDropped: number;
  runs: number;
  bytes: { outLists: number; inLists: number; labels: number; file: number };
  seconds: number;
}

/** Thrown by the numeric reader at a text id: the caller reads the file the other way (a WgaError so that the stream passes it on as it is). */
class TextIdError extends WgaError {
  constructor() {
    super('text ids', ExitCode.input);
  }
}

function parseUint(buffer: Buffer, start: number, end: number): number {
  if (end <= start || end - start > 10) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = buffer[i]! - 48;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  if (end - start > 1 && buffer[start] === 48) return -1;
  return value;
}

/** Builds out-lists from pairs in (source, target) order: repeats and self-links dropped, pages without links given empty lists. */
class OutListBuilder {
  private source = -1;
  private list = new Int32Array(1024);
  private length = 0;
  selfLoops = 0;
  duplicates = 0;

  constructor(
    private readonly writer: CompactListsWriter,
    private readonly remap: (id: number) => number,
  ) {}

  private flushTo(page: number): void {
    if (this.source >= 0) this.writer.add(this.list, this.length);
    for (let v = this.writer.pages; v < page; v++) this.writer.add(this.list, 0);
    this.length = 0;
  }

  push(rawSource: number, rawTarget: number): void {
    const source = this.remap(rawSource);
    const target = this.remap(rawTarget);
    if (source !== this.source) {
      this.flushTo(source);
      this.source = source;
    }
    if (source === target) {
      this.selfLoops++;
      return;
    }
    if (this.length > 0 && this.list[this.length - 1] === target) {
      this.duplicates++;
      return;
    }
    if (this.length === this.list.length) {
      const grown = new Int32Array(this.list.length * 2);
      grown.set(this.list);
      this.list = grown;
    }
    this.list[this.length++] = target;
  }

  finish(nodes: number): void {
    if (this.source >= 0) {
      this.writer.add(this.list, this.length);
      this.source = -1;
      this.length = 0;
    }
    for (let v = this.writer.pages; v < nodes; v++) this.writer.add(this.list, 0);
  }
}

/** Ids seen, as bits; ranks by popcount (the dense id of a numeric label). */
class IdSet {
  bits = new Uint32Array(1024);
  max = -1;
  private ranks: Int32Array | null = null;

  add(id: number): void {
    const word = id >>> 5;
    if (word >= this.bits.length) {
      let size = this.bits.length * 2;
      while (size <= word) size *= 2;
      const grown = new Uint32Array(size);
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[word]! |= 1 << (id & 31);
    if (id > this.max) this.max = id;
  }

  get size(): number {
    this.prepare();
    const words = (this.max >>> 5) + 1;
    return this.max < 0 ? 0 : this.ranks![words - 1]! + popcount(this.bits[words - 1]!);
  }

  /** True when the ids are exactly 0..max. */
  get dense(): boolean {
    return this.size === this.max + 1;
  }

  private prepare(): void {
    if (this.ranks !== null) return;
    const words = (this.max >>> 5) + 1;
    this.ranks = new Int32Array(Math.max(1, words));
    let total = 0;
    for (let w = 0; w < words; w++) {
      this.ranks[w] = total;
      total += popcount(this.bits[w]!);
    }
  }

  rank(id: number): number {
    this.prepare();
    const word = id >>> 5;
    return this.ranks![word]! + popcount(this.bits[word]! & ((1 << (id & 31)) - 1));
  }

  /** The ids in increasing order. */
  values(): Int32Array {
    const out = new Int32Array(this.size);
    let k = 0;
    const words = (this.max >>> 5) + 1;
    for (let w = 0; w < words; w++) {
      let word = this.bits[w]!;
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        out[k++] = w * 32 + bit;
        word &= word - 1;
      }
    }
    return out;
  }
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Reads an edge list of numeric ids into the sorter; throws TextIdError at the first text id. */
async function sortNumericEdgeList(path: string, sorter: ExternalPairSorter, ids: IdSet, options: ConvertOptions): Promise<void> {
  const undirected = options.symmetric === true;
  let dataLines = 0;
  const splitter = new LineSplitter((buffer, start, lineEnd, line) => {
    let end = lineEnd;
    while (end > start && (buffer[end - 1] === 13 || buffer[end - 1] === 32 || buffer[end - 1] === 9)) end--;
    let i = start;
    while (i < end && (buffer[i] === 32 || buffer[i] === 9)) i++;
    if (i === end || buffer[i] === 35 || buffer[i] === 37) return;
    let j = i;
    while (j < end && buffer[j] !== 32 && buffer[j] !== 9 && buffer[j] !== 44) j++;
    let k = j;
    while (k < end && (buffer[k] === 32 || buffer[k] === 9 || buffer[k] === 44)) k++;
    let l = k;
    while (l < end && buffer[l] !== 32 && buffer[l] !== 9 && buffer[l] !== 44) l++;
    const from = parseUint(buffer, i, j);
    const to = parseUint(buffer, k, l);
    dataLines++;
    if (from < 0 || to < 0 || k === end) {
      // A header line (auto or asked for) is skipped; any other text id means text ids.
      if (dataLines === 1 && options.header !== false) return;
      if (k === end) throw new InputFormatError(path, line, 'expected two node ids');
      throw new TextIdError();
    }
    if (from >= 2 ** 30 || to >= 2 ** 30) throw new InputFormatError(path, line, `node id ${Math.max(from, to)}: a compact graph numbers fewer than 2^30 pages`);
    ids.add(from);
    ids.add(to);
    sorter.add(from, to);
    if (undirected) sorter.add(to, from);
  }, path);
  await streamFile(path, (chunk) => splitter.write(chunk), {
    where: () => splitter.lineNumber + 1,
    onProgress: (p) => {
      if (sorter.pairs % 4 === 0) options.onProgress?.(`reading ${path}: ${Math.round((100 * p.bytesRead) / Math.max(1, p.totalBytes))}%, ${sorter.pairs.toLocaleString('en-US')} links, ${sorter.runCount} sorted runs`);
    },
  });
  splitter.end();
}

/** Writes the in-lists (transpose of the out-lists kept in memory) and closes the file. */
function finishFile(
  writer: CompactFileWriter,
  out: CompactLists,
  options: ConvertOptions,
  labels: (() => void) | null,
  meta: { level?: string; reversed?: boolean; source: string },
): CompactFileHeader {
  writer.endLists('out', out);
  const inWriter = writer.beginLists('in', out.nodeCount, { offsets: true, ...(options.segmentBytes === undefined ? {} : { segmentBytes: options.segmentBytes }) });
  const inLists = transposeCompact(out, {
    writer: inWriter,
    ...(options.budgetLinks === undefined ? {} : { budgetLinks: options.budgetLinks }),
    onPass: (pass, lo, hi) => options.onProgress?.(`in-lists: pass ${pass + 1}, pages ${lo.toLocaleString('en-US')}..${hi.toLocaleString('en-US')}`),
  });
  writer.endLists('in', inLists);
  out.segments.length = 0;
  labels?.();
  return writer.close(meta);
}

function listOptions(options: ConvertOptions): { segmentBytes?: number } {
  return options.segmentBytes === undefined ? {} : { segmentBytes: options.segmentBytes };
}

export async function convertToCompact(input: string, output: string, options: ConvertOptions = {}): Promise<ConvertReport> {
  const started = performance.now();
  if (input === output) throw new OptionError('--out', 'must differ from the input');
  if (options.weighted === true || options.duplicates === 'count') throw new OptionError(options.weighted === true ? '--weighted' : '--count-duplicates', 'a compact graph has no link weights');
  const requested = options.format ?? 'auto';
  const format = requested === 'auto' ? await detectFormat(input) : requested;
  const tmp = options.tmp ?? tmpdir();
  const report = (route: string, header: CompactFileHeader, extra: { selfLoops: number; duplicates: number; runs: number }): ConvertReport => {
    const section = (name: string): number => header.sections[name]?.[1] ?? 0;
    return {
      input,
      output,
      format,
      route,
      nodes: header.nodes,
      links: header.links,
      selfLoopsDropped: extra.selfLoops,
      duplicatesDropped: extra.duplicates,
      runs: extra.runs,
      bytes: {
        outLists: section('out.bytes') + section('out.samples') + section('out.offsets'),
        inLists: section('in.bytes') + section('in.samples') + section('in.offsets'),
        labels: section('labels.data') + section('labels.offsets') + section('labels.order') + section('labels.integers'),
        file: fileSizeSync(output),
      },
      seconds: (performance.now() - started) / 1000,
    };
  };
  const fail = (writer: CompactFileWriter | null, error: unknown): never => {
    writer?.abort();
    rmSync(output, { force: true });
    throw error;
  };

  if (format === 'edges' && options.labelsPath === undefined) {
    const sorter = new ExternalPairSorter(tmp, options.runLinks);
    const ids = new IdSet();
    let writer: CompactFileWriter | null = null;
    try {
      await sortNumericEdgeList(input, sorter, ids, options);
      if (sorter.pairs === 0) throw new InputFormatError(input, undefined, 'no links found: the file is empty or holds only comments');
      const n = ids.size;
      const dense = ids.dense;
      writer = new CompactFileWriter(output);
      const outWriter = writer.beginLists('out', n, { keep: true, offsets: true, ...listOptions(options) });
      const builder = new OutListBuilder(outWriter, dense ? (id) => id : (id) => ids.rank(id));
      const runs = sorter.runCount + 1;
      options.onProgress?.(`merging ${runs} sorted runs into out-lists`);
      sorter.drain((a, b) => builder.push(a, b));
      builder.finish(n);
      const out = outWriter.finish();
      const w = writer;
      const header = finishFile(w, out, options, dense ? null : () => w.writeIntegerLabels(ids.values()), { source: input });
      return report('external sort', header, { selfLoops: builder.selfLoops, duplicates: builder.duplicates, runs });
    } catch (error) {
      sorter.cleanUp();
      if (!(error instanceof TextIdError)) return fail(writer, error);
      writer?.abort();
      options.onProgress?.(`${input} has text ids: reading it as a plain graph first`);
    }
  }

  if (format === 'commoncrawl') {
    const files = await findCommonCrawlFiles(input);
    if (files === null || files.vertices.length === 0 || files.edges.length === 0) {
      // The plain reader gives the precise error.
      await loadGraph(input, { ...loadOptions(options), format: 'commoncrawl' });
    }
    const { vertices, edges } = files!;
    const builder = new FrontCodedLabelsBuilder();
    for (const file of vertices) {
      const splitter = new LineSplitter((buffer, start, lineEnd, line) => {
        const end = lineEnd > start && buffer[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd;
        if (end === start) return;
        const tab = buffer.indexOf(9, start);
        if (tab < 0 || tab >= end) throw new InputFormatError(file, line, 'expected id<TAB>name');
        const id = parseUint(buffer, start, tab);
        if (id !== builder.size) throw new InputFormatError(file, line, `vertex ${buffer.toString('utf8', start, Math.min(tab, start + 20))} out of order: the compact form reads vertices numbered 0, 1, 2, ... in order (expected ${builder.size})`);
        const second = buffer.indexOf(9, tab + 1);
        builder.add(buffer.toString('utf8', tab + 1, second < 0 || second >= end ? end : second));
      }, file);
      await streamFile(file, (chunk) => splitter.write(chunk), { where: () => splitter.lineNumber + 1 });
      splitter.end();
    }
    const names = builder.finish();
    const n = names.size;
    const sorter = new ExternalPairSorter(tmp, options.runLinks);
    let writer: CompactFileWriter | null = null;
    try {
      await readCommonCrawlEdges(edges, n, (from, to) => sorter.add(from, to));
      writer = new CompactFileWriter(output);
      const outWriter = writer.beginLists('out', n, { keep: true, offsets: true, ...listOptions(options) });
      const builderOut = new OutListBuilder(outWriter, (id) => id);
      const runs = sorter.runCount + 1;
      sorter.drain((a, b) => builderOut.push(a, b));
      builderOut.finish(n);
      const w = writer;
      const header = finishFile(w, outWriter.finish(), options, () => w.writeLabels(names), { level: 'host', reversed: true, source: input });
      return report('external sort', header, { selfLoops: builderOut.selfLoops, duplicates: builderOut.duplicates, runs });
    } catch (error) {
      sorter.cleanUp();
      return fail(writer, error);
    }
  }

  if (format === 'wgadj' && options.labelsPath === undefined) return convertAdjacency(input, output, options, report, fail);

  if (format === 'bv' && options.labelsPath === undefined) {
    // The successor lists as stored (4 bytes a link), written row by row: never the plain graph's two directions.
    const { nodes, rows: csr } = await readWebGraphRows(input);
    let writer: CompactFileWriter | null = null;
    try {
      writer = new CompactFileWriter(output);
      const outWriter = writer.beginLists('out', nodes, { keep: true, offsets: true, ...listOptions(options) });
      const rows = new RowWriter(outWriter);
      for (let v = 0; v < nodes; v++) {
        const from = csr.offsets[v]!;
        const row = rows.begin(csr.offsets[v + 1]! - from);
        row.set(csr.targets.subarray(from, from + row.length));
        rows.end(v, row.length);
      }
      const header = finishFile(writer, outWriter.finish(), options, null, { source: input });
      return report('rows', header, { selfLoops: rows.selfLoops, duplicates: rows.duplicates, runs: 0 });
    } catch (error) {
      return fail(writer, error);
    }
  }

  // In memory: BV files, text ids, label files.
  const loaded = await loadGraph(input, loadOptions(options));
  const graph = loaded.graph;
  if (graph.weighted) throw new OptionError('--format', 'a compact graph has no link weights');
  let writer: CompactFileWriter | null = null;
  try {
    writer = new CompactFileWriter(output);
    const outWriter = writer.beginLists('out', graph.nodeCount, { keep: true, offsets: true, ...listOptions(options) });
    for (let v = 0; v < graph.nodeCount; v++) outWriter.add(graph.successors(v));
    const labels = graph.labels;
    const w = writer;
    const writeLabels =
      labels instanceof IdentityLabels
        ? null
        : labels instanceof IntegerLabels
          ? () => w.writeIntegerLabels(labels.values)
          : () => w.writeLabels(labels instanceof FrontCodedLabels ? labels : FrontCodedLabels.of(Array.from({ length: graph.nodeCount }, (_, v) => labels.label(v))));
    const header = finishFile(w, outWriter.finish(), options, writeLabels, { ...(loaded.level === undefined ? {} : { level: loaded.level }), reversed: loaded.reversed === true, source: input });
    return report('in memory', header, { selfLoops: loaded.report.selfLoopsDropped, duplicates: loaded.report.duplicatesDropped, runs: 0 });
  } catch (error) {
    return fail(writer, error);
  }
}

/** The options the plain readers take (without the converter's own). */
function loadOptions(options: ConvertOptions): LoadOptions {
  const { tmp: _tmp, runLinks: _run, budgetLinks: _budget, segmentBytes: _segment, onProgress: _progress, ...rest } = options;
  return rest;
}

function fileSizeSync(path: string): number {
  return statSync(path).size;
}

/** Writes out-rows as they come (any order, repeats and self-links allowed) as clean compact out-lists. */
class RowWriter {
  private row = new Int32Array(1024);
  selfLoops = 0;
  duplicates = 0;

  constructor(private readonly writer: CompactListsWriter) {}

  /** Room for the next row's `degree` targets. */
  begin(degree: number): Int32Array {
    if (this.row.length < degree) this.row = new Int32Array(Math.max(degree, 2 * this.row.length));
    return this.row.subarray(0, degree);
  }

  /** Sorts page v's row, drops its self-links and repeats, and writes it. */
  end(v: number, degree: number): void {
    const row = this.row;
    const list = row.subarray(0, degree);
    let sorted = true;
    for (let i = 1; i < degree; i++) if (list[i]! <= list[i - 1]!) sorted = false;
    if (!sorted) list.sort();
    let kept = 0;
    for (let i = 0; i < degree; i++) {
      const t = list[i]!;
      if (t === v) this.selfLoops++;
      else if (kept > 0 && row[kept - 1] === t) this.duplicates++;
      else row[kept++] = t;
    }
    this.writer.add(row, kept);
  }
}

/** A `.wgadj` file row by row: rows sorted and cleaned as they are read (they are out-lists already). */
function convertAdjacency(
  input: string,
  output: string,
  options: ConvertOptions,
  report: (route: string, header: CompactFileHeader, extra: { selfLoops: number; duplicates: number; runs: number }) => ConvertReport,
  fail: (writer: CompactFileWriter | null, error: unknown) => never,
): ConvertReport {
  const fd = openForReading(input);
  let writer: CompactFileWriter | null = null;
  try {
    const header = Buffer.alloc(ADJACENCY_HEADER_BYTES);
    if (readSync(fd, header, 0, ADJACENCY_HEADER_BYTES, 0) !== ADJACENCY_HEADER_BYTES || header.toString('latin1', 0, 8) !== ADJACENCY_MAGIC) {
      throw new InputFormatError(input, undefined, `not a wga adjacency file (no '${ADJACENCY_MAGIC.trim()}' header)`);
    }
    const n = Number(header.readBigUInt64LE(8));
    const m = Number(header.readBigUInt64LE(16));
    const size = fstatSync(fd).size;
    if (size !== ADJACENCY_HEADER_BYTES + 4 * n + 4 * m) throw new InputFormatError(input, undefined, `${size} bytes, but ${n} nodes and ${m} links take ${ADJACENCY_HEADER_BYTES + 4 * n + 4 * m}: truncated or not this format`);
    const degrees = new Uint32Array(n);
    readFully(fd, new Uint8Array(degrees.buffer), ADJACENCY_HEADER_BYTES, input);
    writer = new CompactFileWriter(output);
    const outWriter = writer.beginLists('out', n, { keep: true, offsets: true, ...listOptions(options) });
    const chunk = new Int32Array(1 << 22);
    let chunkStart = 0;
    let chunkFill = 0;
    let position = ADJACENCY_HEADER_BYTES + 4 * n;
    let read = 0;
    const rows = new RowWriter(outWriter);
    for (let v = 0; v < n; v++) {
      const row = rows.begin(degrees[v]!);
      for (let i = 0; i < row.length; i++) {
        if (read === chunkStart + chunkFill) {
          chunkStart = read;
          chunkFill = Math.min(chunk.length, m - read);
          readFully(fd, new Uint8Array(chunk.buffer, 0, 4 * chunkFill), position, input);
          position += 4 * chunkFill;
        }
        const t = chunk[read - chunkStart]!;
        read++;
        if (t < 0 || t >= n) throw new InputFormatError(input, undefined, `node ${v}: link to ${t}, outside 0..${n - 1}`);
        row[i] = t;
      }
      rows.end(v, row.length);
      if (v % 4_000_000 === 0) options.onProgress?.(`out-lists: ${v.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} pages`);
    }
    const { selfLoops, duplicates } = rows;
    const header2 = finishFile(writer, outWriter.finish(), options, null, { source: input });
    return report('rows', header2, { selfLoops, duplicates, runs: 0 });
  } catch (error) {
    return fail(writer, error);
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, into: Uint8Array, position: number, path: string): void {
  let done = 0;
  while (done < into.length) {
    const got = readSync(fd, into, done, Math.min(1 << 30, into.length - done), position + done);
    if (got <= 0) throw new InputFormatError(path, undefined, `ends early, at byte ${position + done}`);
    done += got;
  }
}

