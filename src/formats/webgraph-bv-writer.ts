/**
 * WebGraph BVGraph writer: BASENAME.graph, BASENAME.offsets and
 * BASENAME.properties in version 0 with the default codes (gamma for
 * outdegrees, copy blocks, block counts, intervals and offsets; unary for
 * references; zeta_k for residuals), readable by webgraph-bv.ts and by LAW's
 * WebGraph.
 *
 * Compression follows Boldi and Vigna, "The WebGraph Framework I" (WWW 2004),
 * Section 3: each successor list is written either plainly or as a copy of
 * part of one of the `windowSize` previous lists (the reference chosen is the
 * one giving the fewest bits, as BVGraph.compress does), with reference chains
 * at most `maxRefCount` long so that random access stays cheap; what is not
 * copied is split into intervals of at least `minIntervalLength` consecutive
 * ids and residuals coded as gaps. LAW's defaults: window 7, max reference
 * count 3, minimum interval 4, zeta_3.
 *
 * The two bit streams are drained to their files every few thousand lists,
 * waiting for each file stream to accept them (backpressure).
 */
import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { AppContext } from '../app/context.js';
import { FileNotFoundError, OptionError } from '../errors.js';
import { BitCounter, BitWriter, type BitSink } from './bit-writer.js';
import { BV_DIGEST_KEYS, bvFiles } from './webgraph-bv.js';
import { BodyDigest, bodyDigestReady } from '../util/digest.js';

export interface BvWriteOptions {
  /** How many previous lists a list may copy from (0 = no references). Default 7. */
  windowSize?: number;
  /** Longest chain of references (a list copies from one that copies ...): at most this many. Default 3. */
  maxRefCount?: number;
  /** Shortest run of consecutive successors written as an interval (0 = no intervals). Default 4. */
  minIntervalLength?: number;
  /** The k of the zeta code of residuals. Default 3. */
  zetaK?: number;
}

/** Rows to write: row x is targets[offsets[x] .. offsets[x+1]), increasing, without duplicates. */
export interface BvRows {
  offsets: Uint32Array;
  targets: Int32Array;
}

export interface BvWriteReport {
  basename: string;
  files: string[];
  nodes: number;
  arcs: number;
  /** Bits of the .graph stream (before padding). */
  graphBits: number;
  bitsPerLink: number;
  bitsPerNode: number;
  copiedArcs: number;
  intervalisedArcs: number;
  residualArcs: number;
  /** Mean reference distance over all lists (0 for a list without one): LAW's avgdist. */
  averageDistance: number;
  /** Mean length of the reference chains over all lists: LAW's avgref. */
  averageReferenceChain: number;
  bytes: { graph: number; offsets: number; properties: number };
}

interface Parameters {
  windowSize: number;
  maxRefCount: number;
  minIntervalLength: number;
  zetaK: number;
}

function parameters(options: BvWriteOptions): Parameters {
  const check = (name: string, value: number | undefined, fallback: number, min: number, max: number): number => {
    const v = value ?? fallback;
    if (!Number.isInteger(v) || v < min || v > max) {
      throw new OptionError(name, `expected an integer from ${min} to ${max}, got ${String(value)}`);
    }
    return v;
  };
  const result = {
    windowSize: check('--window-size', options.windowSize, 7, 0, 64),
    maxRefCount: check('--max-ref-count', options.maxRefCount, 3, 0, 1 << 20),
    minIntervalLength: check('--min-interval-length', options.minIntervalLength, 4, 0, 1 << 20),
    zetaK: check('--zeta-k', options.zetaK, 3, 1, 20),
  };
  if (result.minIntervalLength === 1) throw new OptionError('--min-interval-length', 'must be 0 (no intervals) or at least 2');
  return result;
}

function int2nat(x: number): number {
  return x >= 0 ? 2 * x : -2 * x - 1;
}

/** Statistics gathered while writing (for the .properties file and the report). */
interface Tally {
  copiedArcs: number;
  intervalisedArcs: number;
  residualArcs: number;
  referenceSum: number;
  referenced: number;
  chainSum: number;
  bitsForOutdegrees: number;
  bitsForReferences: number;
  bitsForBlocks: number;
  bitsForIntervals: number;
  bitsForResiduals: number;
}

/** Encodes successor lists one at a time; holds only scratch arrays the size of the largest list. */
export class BvEncoder {
  readonly graph = new BitWriter();
  readonly offsets = new BitWriter(1 << 14);
  readonly tally: Tally = {
    copiedArcs: 0,
    intervalisedArcs: 0,
    residualArcs: 0,
    referenceSum: 0,
    referenced: 0,
    chainSum: 0,
    bitsForOutdegrees: 0,
    bitsForReferences: 0,
    bitsForBlocks: 0,
    bitsForIntervals: 0,
    bitsForResiduals: 0,
  };
  private readonly parameters: Parameters;
  private readonly refCount: Uint32Array;
  private readonly counter = new BitCounter();
  private lastOffset = 0;
  private blocks: Int32Array;
  private extras: Int32Array;
  private residuals: Int32Array;
  private intervalLeft: Int32Array;
  private intervalLength: Int32Array;

  constructor(
    private readonly rows: BvRows,
    readonly nodes: number,
    options: BvWriteOptions = {},
  ) {
    this.parameters = parameters(options);
    this.refCount = new Uint32Array(nodes);
    let maxDegree = 0;
    for (let x = 0; x < nodes; x++) maxDegree = Math.max(maxDegree, rows.offsets[x + 1]! - rows.offsets[x]!);
    this.blocks = new Int32Array(maxDegree + 2);
    this.extras = new Int32Array(maxDegree + 1);
    this.residuals = new Int32Array(maxDegree + 1);
    this.intervalLeft = new Int32Array(maxDegree + 1);
    this.intervalLength = new Int32Array(maxDegree + 1);
  }

  get settings(): Readonly<Parameters> {
    return this.parameters;
  }

  /** Writes list x (lists must be written in order 0, 1, ...). */
  encode(x: number): void {
    this.offsets.writeGamma(this.graph.position - this.lastOffset);
    this.lastOffset = this.graph.position;
    const { windowSize, maxRefCount } = this.parameters;
    const degree = this.rows.offsets[x + 1]! - this.rows.offsets[x]!;
    let best = 0;
    if (degree > 0 && windowSize > 0) {
      let bestBits = Infinity;
      const reach = Math.min(windowSize, x);
      for (let r = 0; r <= reach; r++) {
        if (r > 0 && this.refCount[x - r]! >= maxRefCount) continue;
        this.counter.bits = 0;
        this.writeList(x, r, this.counter, false);
        if (this.counter.bits < bestBits) {
          bestBits = this.counter.bits;
          best = r;
        }
      }
    }
    this.refCount[x] = best > 0 ? this.refCount[x - best]! + 1 : 0;
    this.tally.chainSum += this.refCount[x]!;
    this.writeList(x, best, this.graph, true);
  }

  /** Writes the end offset; call once after the last list. */
  finishOffsets(): void {
    this.offsets.writeGamma(this.graph.position - this.lastOffset);
  }

  /**
   * Writes list x with reference r (0 = none) to `sink`. With `real`, the
   * sink is the graph stream and the tally is updated part by part.
   */
  private writeList(x: number, r: number, sink: BitSink, real: boolean): void {
    const { windowSize, minIntervalLength, zetaK } = this.parameters;
    const { offsets, targets } = this.rows;
    const start = offsets[x]!;
    const end = offsets[x + 1]!;
    const degree = end - start;
    const graph = this.graph;
    const tally = this.tally;
    let mark = graph.position;
    const account = (part: Exclude<keyof Tally, 'copiedArcs' | 'intervalisedArcs' | 'residualArcs' | 'referenceSum' | 'referenced' | 'chainSum'>): void => {
      if (!real) return;
      tally[part] += graph.position - mark;
      mark = graph.position;
    };
    sink.writeGamma(degree);
    account('bitsForOutdegrees');
    if (degree === 0) return;

    // Reference and copy blocks: runs of the referenced list alternately copied and skipped, starting with a copy.
    let extraCount = 0;
    const extras = this.extras;
    if (windowSize > 0) sink.writeUnary(r);
    account('bitsForReferences');
    if (r > 0) {
      const refStart = offsets[x - r]!;
      const refEnd = offsets[x - r + 1]!;
      const blocks = this.blocks;
      let blockCount = 0;
      let copying = true;
      let run = 0;
      let i = start;
      let copied = 0;
      for (let e = refStart; e < refEnd; e++) {
        const v = targets[e]!;
        while (i < end && targets[i]! < v) extras[extraCount++] = targets[i++]!;
        const present = i < end && targets[i] === v;
        if (present) {
          i++;
          copied++;
        }
        if (present === copying) run++;
        else {
          blocks[blockCount++] = run;
          copying = !copying;
          run = 1;
        }
      }
      while (i < end) extras[extraCount++] = targets[i++]!;
      // The last run is implied by the parity of the block count.
      sink.writeGamma(blockCount);
      for (let b = 0; b < blockCount; b++) sink.writeGamma(b === 0 ? blocks[b]! : blocks[b]! - 1);
      account('bitsForBlocks');
      if (real) {
        tally.copiedArcs += copied;
        tally.referenceSum += r;
        tally.referenced++;
      }
    } else {
      for (let e = start; e < end; e++) extras[extraCount++] = targets[e]!;
    }
    if (extraCount === 0) return;

    // Intervals of at least minIntervalLength consecutive ids, then residuals as gaps.
    let residualCount = 0;
    const residuals = this.residuals;
    if (minIntervalLength > 0) {
      let intervalCount = 0;
      for (let i = 0; i < extraCount; ) {
        let j = i;
        while (j + 1 < extraCount && extras[j + 1] === extras[j]! + 1) j++;
        const length = j - i + 1;
        if (length >= minIntervalLength) {
          this.intervalLeft[intervalCount] = extras[i]!;
          this.intervalLength[intervalCount++] = length;
        } else {
          for (let k = i; k <= j; k++) residuals[residualCount++] = extras[k]!;
        }
        i = j + 1;
      }
      sink.writeGamma(intervalCount);
      let previousEnd = 0;
      for (let k = 0; k < intervalCount; k++) {
        const left = this.intervalLeft[k]!;
        const length = this.intervalLength[k]!;
        sink.writeGamma(k === 0 ? int2nat(left - x) : left - previousEnd - 1);
        sink.writeGamma(length - minIntervalLength);
        previousEnd = left + length;
      }
      if (real) tally.intervalisedArcs += extraCount - residualCount;
      account('bitsForIntervals');
    } else {
      residuals.set(extras.subarray(0, extraCount));
      residualCount = extraCount;
    }
    for (let k = 0; k < residualCount; k++) {
      sink.writeZeta(k === 0 ? int2nat(residuals[0]! - x) : residuals[k]! - residuals[k - 1]! - 1, zetaK);
    }
    if (real) tally.residualArcs += residualCount;
    account('bitsForResiduals');
  }
}

/** Checks that every row is increasing and within 0..n-1 (the format cannot hold anything else). */
function checkRows(rows: BvRows, n: number): void {
  if (rows.offsets.length !== n + 1) throw new RangeError(`BV writer: ${rows.offsets.length} offsets for ${n} nodes`);
  for (let x = 0; x < n; x++) {
    const end = rows.offsets[x + 1]!;
    let previous = -1;
    for (let e = rows.offsets[x]!; e < end; e++) {
      const v = rows.targets[e]!;
      if (v <= previous || v >= n) {
        throw new RangeError(`BV writer: row ${x} is not increasing within 0..${n - 1} (successor ${v} after ${previous})`);
      }
      previous = v;
    }
  }
}

async function drain(stream: WriteStream, bytes: Uint8Array): Promise<void> {
  if (bytes.length === 0) return;
  if (!stream.write(bytes)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

function propertiesText(report: BvWriteReport, encoder: BvEncoder, digests: { graph: string; offsets: string }): string {
  const t = encoder.tally;
  const s = encoder.settings;
  // Three decimals without trailing zeros, as LAW's files show them.
  const fixed = (value: number): string => (Number.isFinite(value) ? String(Number(value.toFixed(3))) : '0');
  const lines: Array<[string, string | number]> = [
    ['graphclass', 'it.unimi.dsi.webgraph.BVGraph'],
    ['version', 0],
    ['nodes', report.nodes],
    ['arcs', report.arcs],
    ['windowsize', s.windowSize],
    ['maxrefcount', s.maxRefCount],
    ['minintervallength', s.minIntervalLength],
    ['zetak', s.zetaK],
    ['compressionflags', ''],
    ['bitsperlink', fixed(report.bitsPerLink)],
    ['bitspernode', fixed(report.bitsPerNode)],
    ['avgref', fixed(report.averageReferenceChain)],
    ['avgdist', fixed(report.averageDistance)],
    ['copiedarcs', t.copiedArcs],
    ['intervalisedarcs', t.intervalisedArcs],
    ['residualarcs', t.residualArcs],
    ['bitsforoutdegrees', t.bitsForOutdegrees],
    ['bitsforreferences', t.bitsForReferences],
    ['bitsforblocks', t.bitsForBlocks],
    ['bitsforintervals', t.bitsForIntervals],
    ['bitsforresiduals', t.bitsForResiduals],
    // Keys of wga's own; WebGraph's readers ignore keys they do not know.
    [BV_DIGEST_KEYS.graph, digests.graph],
    [BV_DIGEST_KEYS.offsets, digests.offsets],
  ];
  return ['#BVGraph properties', '#written by wga', ...lines.map(([k, v]) => `${k}=${v}`), ''].join('\n');
}

/**
 * Writes rows (successor lists of n nodes) as a BVGraph at `path` (a basename
 * or any of its three file names). Self-links are kept as given.
 */
export async function writeWebGraph(
  path: string,
  n: number,
  rows: BvRows,
  options: BvWriteOptions = {},
  context: AppContext = {},
): Promise<BvWriteReport> {
  const files = bvFiles(path);
  const encoder = new BvEncoder(rows, n, options);
  checkRows(rows, n);
  // Each file is written as FILE.partial and the three renamed at the end, .properties last: a
  // writer killed or failing leaves no set that looks whole, and an older set as it was.
  const partial = (file: string): string => `${file}.partial`;
  const graphStream = createWriteStream(partial(files.graph));
  const offsetsStream = createWriteStream(partial(files.offsets));
  // Digests of the two files, kept in .properties (readWebGraph checks them): the format has no
  // checksum, and a bit flipped inside a code leaves a valid file of another graph.
  await bodyDigestReady;
  const graphDigest = new BodyDigest();
  const offsetsDigest = new BodyDigest();
  const send = (stream: WriteStream, digest: BodyDigest, bytes: Uint8Array): Promise<void> => {
    digest.update(bytes);
    return drain(stream, bytes);
  };
  const failures: Error[] = [];
  for (const stream of [graphStream, offsetsStream]) stream.on('error', (error) => failures.push(error));
  const batch = 1 << 14;
  try {
    for (let x = 0; x < n; x++) {
      encoder.encode(x);
      if ((x + 1) % batch === 0) {
        if (failures.length > 0) throw failures[0]!;
        context.signal?.throwIfAborted();
        await send(graphStream, graphDigest, encoder.graph.take());
        await send(offsetsStream, offsetsDigest, encoder.offsets.take());
        context.onProgress?.({ phase: 'bv', message: `${x + 1} of ${n} lists`, done: x + 1, total: n });
      }
    }
    encoder.finishOffsets();
    const graphBits = encoder.graph.position;
    await send(graphStream, graphDigest, encoder.graph.finish());
    await send(offsetsStream, offsetsDigest, encoder.offsets.finish());
    await close(graphStream);
    await close(offsetsStream);
    if (failures.length > 0) throw failures[0]!;
    const arcs = rows.offsets[n]! - rows.offsets[0]!;
    const t = encoder.tally;
    const report: BvWriteReport = {
      basename: files.basename,
      files: [files.graph, files.offsets, files.properties],
      nodes: n,
      arcs,
      graphBits,
      bitsPerLink: arcs === 0 ? 0 : graphBits / arcs,
      bitsPerNode: n === 0 ? 0 : graphBits / n,
      copiedArcs: t.copiedArcs,
      intervalisedArcs: t.intervalisedArcs,
      residualArcs: t.residualArcs,
      averageDistance: n === 0 ? 0 : t.referenceSum / n,
      averageReferenceChain: n === 0 ? 0 : t.chainSum / n,
      bytes: { graph: graphStream.bytesWritten, offsets: offsetsStream.bytesWritten, properties: 0 },
    };
    const text = propertiesText(report, encoder, { graph: graphDigest.label(), offsets: offsetsDigest.label() });
    const propertiesStream = createWriteStream(partial(files.properties));
    propertiesStream.on('error', (error) => failures.push(error));
    await drain(propertiesStream, Buffer.from(text, 'latin1'));
    await close(propertiesStream);
    if (failures.length > 0) throw failures[0]!;
    for (const file of [files.graph, files.offsets, files.properties]) renameSync(partial(file), file);
    report.bytes.properties = propertiesStream.bytesWritten;
    return report;
  } catch (error) {
    graphStream.destroy();
    offsetsStream.destroy();
    for (const file of [files.graph, files.offsets, files.properties]) rmSync(partial(file), { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E')) {
      const where = (error as NodeJS.ErrnoException).path ?? files.basename;
      throw new FileNotFoundError(where, `cannot write: ${(error as Error).message}`);
    }
    throw error;
  }
}
