/**
 * WebGraph BVGraph reader: the compressed format in which LAW (Laboratory for
 * Web Algorithmics) distributes its web crawls, as BASENAME.graph (the bit
 * stream), BASENAME.properties (a Java properties file) and optionally
 * BASENAME.offsets (the bit offset of every successor list).
 *
 * Format (Boldi and Vigna, "The WebGraph Framework I: Compression Techniques",
 * WWW 2004). For each node x in order: its outdegree d; if d > 0 and the window
 * is not empty, a reference r (the list is then partly copied from x - r's
 * list through a copy-block list: copy B1, skip B2, copy B3, ...; what follows
 * the last block is copied when the block count is even); if successors remain,
 * intervals of consecutive ids (first left extreme relative to x, then gaps
 * from the previous right extreme), then residuals (first relative to x, then
 * gaps minus one). Version 0 with the default codes is decoded: gamma for
 * outdegrees, blocks, block counts, intervals and offsets, unary for
 * references, zeta_k for residuals.
 */
import { readFile } from 'node:fs/promises';
import { FileNotFoundError, InputFormatError } from '../errors.js';
import { type BuiltGraph, buildFromRows } from '../graph/builder.js';
import type { Csr } from '../graph/csr.js';
import { IdentityLabels } from '../graph/labels.js';
import { BitReader, BitStreamError, natToInt } from './bit-reader.js';
import { fileExists } from './file-stream.js';
import { grown } from '../util/typed-arrays.js';
import { BodyDigest, bodyDigestReady } from '../util/digest.js';

export interface BvProperties {
  nodes: number;
  arcs: number;
  windowSize: number;
  minIntervalLength: number;
  zetaK: number;
  version: number;
  raw: Map<string, string>;
}

export interface BvFiles {
  basename: string;
  graph: string;
  properties: string;
  offsets: string;
}

/** The three file names of a WebGraph basename; `path` may be the basename or any of the files. */
export function bvFiles(path: string): BvFiles {
  const basename = path.replace(/\.(graph|properties|offsets)$/, '');
  return {
    basename,
    graph: `${basename}.graph`,
    properties: `${basename}.properties`,
    offsets: `${basename}.offsets`,
  };
}

/** The default flags, the only ones decoded; an empty value means the same. */
const DEFAULT_FLAGS = new Set([
  'OUTDEGREES_GAMMA',
  'BLOCKS_GAMMA',
  'RESIDUALS_ZETA',
  'REFERENCES_UNARY',
  'BLOCK_COUNT_GAMMA',
  'OFFSETS_GAMMA',
  'INTERVALS_GAMMA',
]);

/**
 * The .properties keys under which wga records the XXH64 digests of the .graph and .offsets files
 * it writes ('xxh64:' and 16 hexadecimal digits), checked when present.
 */
export const BV_DIGEST_KEYS = { graph: 'wga.graph.digest', offsets: 'wga.offsets.digest' } as const;

/** Parses a Java properties file's text (key=value or key: value, '#' and '!' comments). */
export function parseProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const match = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (match !== null) result.set(match[1]!, match[2]!);
    else result.set(line, '');
  }
  return result;
}

/** Reads and checks the properties a decoder needs. */
export function bvPropertiesFrom(raw: Map<string, string>, path: string): BvProperties {
  const integer = (key: string, fallback?: number): number => {
    const text = raw.get(key);
    if (text === undefined) {
      if (fallback !== undefined) return fallback;
      throw new InputFormatError(path, undefined, `missing property '${key}'`);
    }
    if (!/^\d+$/.test(text.trim())) {
      throw new InputFormatError(path, undefined, `property '${key}' must be a non-negative integer, found '${text}'`);
    }
    return Number(text.trim());
  };
  const graphClass = raw.get('graphclass');
  if (graphClass !== undefined && !/BVGraph$/.test(graphClass.trim())) {
    throw new InputFormatError(path, undefined, `graphclass '${graphClass}' is not a BVGraph`);
  }
  const version = integer('version', 0);
  if (version !== 0) {
    throw new InputFormatError(path, undefined, `BVGraph version ${version} is not supported (only version 0)`);
  }
  const flags = (raw.get('compressionflags') ?? '').split('|').map((f) => f.trim()).filter((f) => f !== '');
  const unsupported = flags.filter((flag) => !DEFAULT_FLAGS.has(flag));
  if (unsupported.length > 0) {
    throw new InputFormatError(
      path,
      undefined,
      `compression flags ${unsupported.join('|')} are not supported (only the default codes are decoded)`,
    );
  }
  const properties: BvProperties = {
    nodes: integer('nodes'),
    arcs: integer('arcs'),
    windowSize: integer('windowsize', 7),
    minIntervalLength: integer('minintervallength', 4),
    zetaK: integer('zetak', 3),
    version,
    raw,
  };
  if (properties.nodes > 0x7fffffff || properties.arcs > 0xffffffff) {
    throw new InputFormatError(path, undefined, `graphs above 2^31 nodes or 2^32 arcs are not supported`);
  }
  if (properties.zetaK < 1 || properties.zetaK > 20) {
    throw new InputFormatError(path, undefined, `property 'zetak' must be between 1 and 20, found ${properties.zetaK}`);
  }
  if (properties.minIntervalLength === 1) {
    throw new InputFormatError(path, undefined, `property 'minintervallength' must be 0 or at least 2, found 1`);
  }
  return properties;
}

/**
 * Decodes the successor lists of a BVGraph bit stream into rows (self-links
 * and all, as stored). `offsets`, when given, is the offsets file's bit stream
 * and every list's position is checked against it.
 */
export function decodeBvGraph(
  graphBytes: Uint8Array,
  properties: BvProperties,
  paths: { graph: string; properties: string; offsets?: string },
  offsetsBytes?: Uint8Array,
): Csr {
  const { nodes: n, arcs, windowSize, minIntervalLength, zetaK } = properties;
  const mismatch = (x: number, problem: string): InputFormatError =>
    new InputFormatError(paths.graph, undefined, `node ${x}: ${problem}; does ${paths.properties} describe this graph file?`);
  if (n > graphBytes.length * 8) {
    throw mismatch(0, `${n} nodes cannot fit in ${graphBytes.length} bytes`);
  }
  const bits = new BitReader(graphBytes);
  const offsetBits = offsetsBytes === undefined ? null : new BitReader(offsetsBytes);
  const rowStart = new Uint32Array(n + 1);
  let targets: Int32Array = new Int32Array(Math.min(arcs, 1 << 24));
  let copied = new Int32Array(64);
  let spans: Int32Array = new Int32Array(64);
  let residuals = new Int32Array(64);
  let blocks = new Int32Array(16);
  let m = 0;
  let x = 0;
  let expectedOffset = 0;
  // The offsets file holds the gaps between the bit positions where lists start, then the end.
  const checkOffset = (what: string): void => {
    if (offsetBits === null) return;
    expectedOffset += offsetBits.readGamma();
    if (bits.position !== expectedOffset) {
      throw new InputFormatError(
        paths.offsets ?? 'offsets',
        undefined,
        `${what} at bit ${bits.position} of the graph file but the offsets file says ${expectedOffset}`,
      );
    }
  };
  try {
    for (x = 0; x < n; x++) {
      checkOffset(`node ${x} starts`);
      rowStart[x] = m;
      const degree = bits.readGamma();
      if (degree === 0) continue;
      if (m + degree > arcs) throw mismatch(x, `more than the ${arcs} arcs the properties announce`);
      if (degree > n) throw mismatch(x, `outdegree ${degree} exceeds the ${n} nodes`);
      if (m + degree > targets.length) targets = grown(targets, Math.min(arcs, Math.max(2 * targets.length, m + degree)));

      // Reference part: a copy of part of the list of x - reference.
      let copiedCount = 0;
      if (windowSize > 0) {
        const reference = bits.readUnary();
        if (reference > windowSize || reference > x) {
          throw mismatch(x, `reference ${reference} outside the window of ${Math.min(windowSize, x)} previous lists`);
        }
        if (reference > 0) {
          const refStart = rowStart[x - reference]!;
          const refEnd = rowStart[x - reference + 1]!;
          const blockCount = bits.readGamma();
          if (blockCount > refEnd - refStart + 1) throw mismatch(x, `${blockCount} copy blocks for a list of ${refEnd - refStart}`);
          if (blockCount > blocks.length) blocks = new Int32Array(2 * blockCount);
          for (let i = 0; i < blockCount; i++) blocks[i] = bits.readGamma() + (i === 0 ? 0 : 1);
          if (copied.length < refEnd - refStart) copied = new Int32Array(2 * (refEnd - refStart));
          let cursor = refStart;
          for (let i = 0; i < blockCount; i++) {
            const length = blocks[i]!;
            if (cursor + length > refEnd) throw mismatch(x, `copy blocks run past the referenced list`);
            if (i % 2 === 0) for (let e = cursor; e < cursor + length; e++) copied[copiedCount++] = targets[e]!;
            cursor += length;
          }
          if (blockCount % 2 === 0) for (let e = cursor; e < refEnd; e++) copied[copiedCount++] = targets[e]!;
          if (copiedCount > degree) throw mismatch(x, `copies ${copiedCount} successors but has outdegree ${degree}`);
        }
      }

      // Extra part: intervals, then residuals.
      const extra = degree - copiedCount;
      let spanCount = 0;
      let residualCount = 0;
      if (extra > 0) {
        if (minIntervalLength > 0) {
          const intervalCount = bits.readGamma();
          let previous = 0;
          for (let i = 0; i < intervalCount; i++) {
            const left = i === 0 ? x + natToInt(bits.readGamma()) : previous + bits.readGamma() + 1;
            const length = bits.readGamma() + minIntervalLength;
            if (spanCount + length > extra) throw mismatch(x, `intervals hold more successors than its outdegree ${degree}`);
            if (spans.length < spanCount + length) spans = grown(spans, 2 * (spanCount + length));
            for (let v = left; v < left + length; v++) spans[spanCount++] = v;
            previous = left + length;
          }
        }
        residualCount = extra - spanCount;
        if (residuals.length < residualCount) residuals = new Int32Array(2 * residualCount);
        let previous = 0;
        for (let i = 0; i < residualCount; i++) {
          previous = i === 0 ? x + natToInt(bits.readZeta(zetaK)) : previous + bits.readZeta(zetaK) + 1;
          residuals[i] = previous;
        }
      }

      // The three parts are each increasing: merge them into the row.
      let a = 0;
      let b = 0;
      let c = 0;
      for (let k = 0; k < degree; k++) {
        const va = a < copiedCount ? copied[a]! : Infinity;
        const vb = b < spanCount ? spans[b]! : Infinity;
        const vc = c < residualCount ? residuals[c]! : Infinity;
        let v: number;
        if (va <= vb && va <= vc) {
          v = va;
          a++;
        } else if (vb <= vc) {
          v = vb;
          b++;
        } else {
          v = vc;
          c++;
        }
        if (v < 0 || v >= n) throw mismatch(x, `successor ${v} outside 0..${n - 1}`);
        targets[m + k] = v;
      }
      m += degree;
    }
    rowStart[n] = m;
    checkOffset('the graph ends');
  } catch (error) {
    if (error instanceof BitStreamError) throw mismatch(x, error.message);
    throw error;
  }
  if (m !== arcs) throw mismatch(n - 1, `the file holds ${m} arcs but the properties announce ${arcs}`);
  // WebGraph pads the stream with zero bytes to a 64-bit boundary; anything else left is data.
  const used = Math.ceil(bits.position / 8);
  const trailing = graphBytes.subarray(used);
  if (trailing.length >= 8 || trailing.some((byte) => byte !== 0)) {
    throw mismatch(n - 1, `${trailing.length} bytes are left after the last of the ${n} nodes`);
  }
  return { offsets: rowStart, targets: m === targets.length ? targets : targets.slice(0, m), weights: null };
}

/** Reads a BVGraph (`path` = basename or any of its files) into a graph with identity labels. */
export async function readWebGraph(path: string): Promise<BuiltGraph> {
  const { nodes, rows } = await readWebGraphRows(path);
  return buildFromRows(nodes, rows, new IdentityLabels(nodes));
}

/** A BVGraph's successor lists as stored (4 bytes per link): what the compact form is written from. */
export async function readWebGraphRows(path: string): Promise<{ nodes: number; rows: Csr }> {
  const files = bvFiles(path);
  const propertiesText = await readFileOr(files.properties);
  const properties = bvPropertiesFrom(parseProperties(propertiesText.toString('utf8')), files.properties);
  const graphBytes = await readFileOr(files.graph);
  const hasOffsets = await fileExists(files.offsets);
  const offsetsBytes = hasOffsets ? await readFileOr(files.offsets) : undefined;
  await checkDigest(properties, 'graph', files.graph, graphBytes);
  if (offsetsBytes !== undefined) await checkDigest(properties, 'offsets', files.offsets, offsetsBytes);
  const rows = decodeBvGraph(
    graphBytes,
    properties,
    { graph: files.graph, properties: files.properties, ...(hasOffsets ? { offsets: files.offsets } : {}) },
    offsetsBytes,
  );
  return { nodes: properties.nodes, rows };
}

/** When .properties records the file's digest (files wga wrote), the bytes must have it. */
async function checkDigest(properties: BvProperties, which: keyof typeof BV_DIGEST_KEYS, path: string, bytes: Uint8Array): Promise<void> {
  const recorded = properties.raw.get(BV_DIGEST_KEYS[which])?.trim();
  if (recorded === undefined) return;
  await bodyDigestReady;
  // In slices: the hash copies its input into WebAssembly memory.
  const digest = new BodyDigest();
  for (let start = 0; start < bytes.length; start += 1 << 24) digest.update(bytes.subarray(start, start + (1 << 24)));
  const actual = digest.label();
  if (actual !== recorded) {
    throw new InputFormatError(path, undefined, `the file's digest is ${actual}, not the ${recorded} its .properties records: the file is damaged or from another graph`);
  }
}

async function readFileOr(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FileNotFoundError(path, code === 'ENOENT' ? 'no such file' : `cannot read: ${(error as Error).message}`);
  }
}
