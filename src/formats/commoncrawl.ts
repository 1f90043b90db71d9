/**
 * Common Crawl's hyperlink graphs (https://commoncrawl.org/web-graphs), read as they are
 * downloaded: a vertices file of `id<TAB>reversed.name` lines (the domain graph adds a third
 * column, the number of hosts of the domain) and an edges file of `from<TAB>to` lines, each
 * possibly gzipped and split into parts.
 *
 * Where the files are, given one path P:
 * - P a directory holding `vertices/` and `edges/` subdirectories of part files (the host graph's
 *   release layout), or holding files whose names contain `vertices` and `edges`;
 * - P a prefix: `P-vertices.txt.gz` and `P-edges.txt.gz` (the domain graph's single files), or
 *   `P-vertices.txt` / `P-edges.txt`.
 * Parts are read in name order; ids are Common Crawl's (0 to n-1), kept as wga's node ids.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FileNotFoundError, InputFormatError } from '../errors.js';
import { type BuildOptions, type BuiltGraph, buildFromEdges } from '../graph/builder.js';
import { EdgeBuffer } from '../graph/edge-buffer.js';
import type { GraphLevel } from '../graph/hosts.js';
import { TextLabels } from '../graph/labels.js';
import { FrontCodedLabelsBuilder } from '../graph/front-coded-labels.js';
import { LineSplitter, type StreamProgress, fileExists, fileSize, streamFile } from './file-stream.js';

export interface CommonCrawlFiles {
  vertices: string[];
  edges: string[];
}

export interface CommonCrawlGraph extends BuiltGraph {
  /** 'host' for a host graph, 'domain' when the vertices carry a host count (the domain graph). */
  level: GraphLevel;
  /** The domain graph's host count of each domain, else null. */
  hostCounts: Int32Array | null;
  files: CommonCrawlFiles;
}

const PART_FILE = /\.(txt|tsv)(\.gz)?$|\.gz$/;

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function partsIn(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => PART_FILE.test(name) && !name.startsWith('.')).sort();
  return names.map((name) => join(dir, name));
}

/** The vertices and edges files of the graph named by `path`, or null when `path` names none. */
export async function findCommonCrawlFiles(path: string): Promise<CommonCrawlFiles | null> {
  if (await isDirectory(path)) {
    if ((await isDirectory(join(path, 'vertices'))) && (await isDirectory(join(path, 'edges')))) {
      return { vertices: await partsIn(join(path, 'vertices')), edges: await partsIn(join(path, 'edges')) };
    }
    const files = await partsIn(path);
    const vertices = files.filter((f) => basename(f).includes('vertices'));
    const edges = files.filter((f) => basename(f).includes('edges'));
    return vertices.length > 0 || edges.length > 0 ? { vertices, edges } : null;
  }
  for (const suffix of ['.txt.gz', '.txt']) {
    const vertices = `${path}-vertices${suffix}`;
    const edges = `${path}-edges${suffix}`;
    if ((await fileExists(vertices)) || (await fileExists(edges))) return { vertices: [vertices], edges: [edges] };
  }
  return null;
}

/** A non-negative decimal integer of bytes [start, end), or -1. */
function parseId(buffer: Buffer, start: number, end: number): number {
  if (start >= end || end - start > 15) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = buffer[i]! - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

export interface CommonCrawlOptions extends BuildOptions {
  onProgress?: (progress: StreamProgress & { edges: number }) => void;
}

/** Reads a Common Crawl graph: its vertices (labels in reversed notation) and its edges, parts in name order. */
/**
 * Streams Common Crawl's edge part files: `onEdge(from, to)` for every `from<TAB>to` line, each id
 * checked against the n vertices (file:line errors); `onFileDone` after each file.
 */
export async function readCommonCrawlEdges(
  files: readonly string[],
  n: number,
  onEdge: (from: number, to: number) => void,
  onProgress?: (p: StreamProgress) => void,
  onFileDone?: (file: string) => Promise<void>,
): Promise<void> {
  for (const file of files) {
    const splitter = new LineSplitter((buffer, start, end, line) => {
      if (end > start && buffer[end - 1] === 13) end--;
      if (end === start) return;
      const tab = buffer.indexOf(9, start);
      if (tab < 0 || tab >= end) throw new InputFormatError(file, line, 'expected from<TAB>to');
      const from = parseId(buffer, start, tab);
      const to = parseId(buffer, tab + 1, end);
      if (from < 0 || to < 0) throw new InputFormatError(file, line, 'expected two vertex ids, from<TAB>to');
      if (from >= n || to >= n) throw new InputFormatError(file, line, `vertex ${Math.max(from, to)} is not in the vertices file (ids 0 to ${n - 1})`);
      onEdge(from, to);
    }, file);
    await streamFile(file, (chunk) => splitter.write(chunk), { where: () => splitter.lineNumber + 1, ...(onProgress === undefined ? {} : { onProgress }) });
    splitter.end();
    await onFileDone?.(file);
  }
}

export async function readCommonCrawl(path: string, options: CommonCrawlOptions = {}): Promise<CommonCrawlGraph> {
  const files = await findCommonCrawlFiles(path);
  if (files === null) {
    throw new FileNotFoundError(path, 'holds no Common Crawl graph: expected a directory with vertices/ and edges/, files named *vertices* and *edges*, or PATH-vertices.txt.gz and PATH-edges.txt.gz');
  }
  if (files.vertices.length === 0) throw new FileNotFoundError(path, 'has edges but no vertices file (id<TAB>reversed.host lines)');
  if (files.edges.length === 0) throw new FileNotFoundError(path, 'has vertices but no edges file (from<TAB>to lines)');
  const totalBytes = (await Promise.all([...files.vertices, ...files.edges].map(fileSize))).reduce((a, b) => a + b, 0);
  let doneBytes = 0;
  const progress = (edges: number) => (p: StreamProgress): void => options.onProgress?.({ bytesRead: doneBytes + p.bytesRead, totalBytes, edges });

  // Vertices: ids must cover 0..n-1, each once. In Common Crawl's files they come in order: the names
  // go straight into front-coded labels (a few bytes each, outside the JavaScript heap); ids out of
  // order fall back to an array of strings.
  const builder = new FrontCodedLabelsBuilder();
  const fallback: { names: string[] | null } = { names: null };
  let counts: number[] | null = null;
  let columns = 0;
  for (const file of files.vertices) {
    const splitter = new LineSplitter((buffer, start, end, line) => {
      if (end > start && buffer[end - 1] === 13) end--;
      if (end === start) return;
      const tab = buffer.indexOf(9, start);
      if (tab < 0 || tab >= end) throw new InputFormatError(file, line, 'expected id<TAB>name');
      const id = parseId(buffer, start, tab);
      if (id < 0) throw new InputFormatError(file, line, `the vertex id '${buffer.toString('utf8', start, Math.min(tab, start + 20))}' is no non-negative integer`);
      const second = buffer.indexOf(9, tab + 1);
      const nameEnd = second < 0 || second >= end ? end : second;
      const lineColumns = nameEnd === end ? 2 : 3;
      if (columns === 0) {
        columns = lineColumns;
        if (columns === 3) counts = [];
      } else if (columns !== lineColumns) {
        throw new InputFormatError(file, line, `expected ${columns} columns, as the first vertex line has`);
      }
      const name = buffer.toString('utf8', tab + 1, nameEnd);
      if (fallback.names === null && id === builder.size) builder.add(name);
      else {
        if (fallback.names === null) {
          if (id < builder.size) throw new InputFormatError(file, line, `vertex ${id} is given twice`);
          const sofar = builder.finish();
          fallback.names = Array.from({ length: sofar.size }, (_, i) => sofar.label(i));
        }
        const names = fallback.names;
        if (names[id] !== undefined) throw new InputFormatError(file, line, `vertex ${id} is given twice`);
        names[id] = name;
      }
      if (counts !== null) {
        const hosts = parseId(buffer, nameEnd + 1, end);
        if (hosts < 0) throw new InputFormatError(file, line, 'the third column (hosts of the domain) is no non-negative integer');
        counts[id] = hosts;
      }
    }, file);
    await streamFile(file, (chunk) => splitter.write(chunk), { where: () => splitter.lineNumber + 1, onProgress: progress(0) });
    splitter.end();
    doneBytes += await fileSize(file);
  }
  const names = fallback.names;
  const n = names === null ? builder.size : names.length;
  if (names !== null) {
    for (let id = 0; id < n; id++) {
      if (names[id] === undefined) throw new InputFormatError(files.vertices[0]!, undefined, `vertex ids must run from 0 to ${n - 1}, but ${id} is missing`);
    }
  }

  const edges = new EdgeBuffer(false);
  await readCommonCrawlEdges(files.edges, n, (from, to) => edges.push(from, to), (p) => progress(edges.length)(p), async (file) => {
    doneBytes += await fileSize(file);
  });
  const built = buildFromEdges(n, edges, names === null ? builder.finish() : new TextLabels(names), options);
  const hostCounts = counts === null ? null : Int32Array.from(counts as number[]);
  return { ...built, level: hostCounts === null ? 'host' : 'domain', hostCounts, files };
}
