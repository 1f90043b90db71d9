/**
 * HyperBall (hyperball.ts has the method: Boldi and Vigna 2013) over the compact in-lists, with the
 * counters packed: six 5-bit registers per 32-bit word (registers hold runs of zeros plus one, at
 * most 31), 4 ceil(m / 6) bytes per counter instead of m. The registers, their unions and the
 * estimates are the plain kernel's (the same hashes, the same maximum per register, the same
 * estimate summed in register order), so the results are the same numbers.
 *
 * The maximum of six registers at once is broadword (Boldi and Vigna, section 5; Knuth, TAOCP 7.1.3):
 * with H the top bit of every 5-bit field, the fields where x < y are the top bits of
 * ((((x | H) - (y & ~H)) | (x ^ y)) ^ (x | ~y)) & H (no borrow crosses a field: (x | H)'s field is
 * at least 16, (y & ~H)'s at most 15); spread over their field by a multiplication, they choose y.
 *
 * Memory: the lists, two counter arrays (this iteration's and the next) or, in the external mode,
 * one: the next counters that grew are written to a file as they are computed, in page order, and
 * read back over the current ones once every thread has finished reading them (HyperBall's
 * external mode: the previous iteration's counters stay whole in memory, random reads; the new
 * ones go sequentially to disk; a counter that did not grow is the same in both and is not
 * written). Per page besides: the ball size and harmonic sum (16 bytes), two changed
 * bits, and the distance sum when closeness or Lin's index is wanted (8 bytes).
 *
 * The time goes to random reads (at Common Crawl's host-graph size, about 160 ns of a thread per
 * link, BENCHMARKS.md): each in-neighbour's changed mark, then its counter when it changed. So the
 * marks are bits (42 MB at 3.35 x 10^8 hosts, against 335 MB for a byte per page), and each block's
 * in-lists are decoded before its unions, so that the unions' loads are not held up behind the
 * decoding's branches (about 8% less time at a quarter of that size, BENCHMARKS.md).
 */
import { closeSync, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FileNotFoundError } from '../errors.js';
import { type CompactLists, SAMPLE } from '../graph/compact.js';
import { LONG_PHASE_TIMEOUT_MS, barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32 } from '../parallel/shared-memory.js';
import { decodeBlock, decodedBlock, splitBySamples } from './compact-gather.js';
import { type HyperBallResult, POWERS, hyperBallSalts, hyperLogLogEstimate, initialRegister, initialRho, iterationTotals } from './hyperball.js';

/** Registers per 32-bit word, and their width. */
const PER_WORD = 6;
const REGISTER_BITS = 5;
/** The top bit of each of the six fields. */
const HIGH = 0x21084210;

/** Words per counter of 2^log2m registers. */
export function counterWords(log2m: number): number {
  return Math.ceil(2 ** log2m / PER_WORD);
}

/**
 * Bytes per page besides the counters: ball size, harmonic sum, two changed bits, and the distance
 * sum when closeness or Lin's index is wanted (24.25 bytes, else 16.25: at Common Crawl's 3.35 x 10^8
 * hosts those 8 bytes are 2.7 GB, the difference between counters of 16 and of 32 registers).
 */
export function hyperBallPageBytes(distanceSums: boolean): number {
  return (distanceSums ? 24 : 16) + 2 / 8;
}

/** Changed marks of n pages, one bit each, in 32-bit words. */
function changedBits(n: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * Math.ceil(n / 32)));
}

export interface CompactHyperBallPlan {
  log2m: number;
  /** One counter array in memory, the next counters on disk. */
  external: boolean;
  /** Bytes of the counters held in memory. */
  counterBytes: number;
  /** The plan's bytes in all: lists, counters, per-page numbers. */
  totalBytes: number;
}

/**
 * The largest log2m (at most `maxLog2m`, 8 by default as the plain kernel's, at least 4) whose counters
 * fit the memory with the lists and the per-page numbers: both arrays in memory when they fit, else
 * one (external). null when not even log2m 4 fits with one array.
 */
export function planCompactHyperBall(n: number, listBytes: number, memoryBytes: number, log2m: number | null = null, distanceSums = true, maxLog2m = 8): CompactHyperBallPlan | null {
  const fixed = listBytes + hyperBallPageBytes(distanceSums) * n;
  for (let k = log2m ?? maxLog2m; k >= (log2m ?? 4); k--) {
    const counter = 4 * counterWords(k) * n;
    if (fixed + 2 * counter <= memoryBytes) return { log2m: k, external: false, counterBytes: 2 * counter, totalBytes: fixed + 2 * counter };
    if (fixed + counter <= memoryBytes) return { log2m: k, external: true, counterBytes: counter, totalBytes: fixed + counter };
  }
  return null;
}

export interface CompactHyperBallOptions {
  log2m: number;
  seed?: number;
  maxIterations?: number;
  threads?: number;
  /** A directory for the next counters (the external mode: one counter array in memory); null: both in memory. */
  spillDirectory?: string | null;
  /** Keep each page's sum of distances, for closeness and Lin's index (default true; without it they come back empty). */
  distanceSums?: boolean;
  onIteration?: (iteration: number, changed: number, pairs: number) => void;
}

/** What the threads share. */
export interface CompactHyperBallData {
  segments: Uint8Array[];
  samples: Float64Array;
  /** [segment bytes]. */
  layout: Float64Array;
  n: number;
  log2m: number;
  words: number;
  /** The counters of iterations of either parity; in the external mode one array, twice. */
  counters: readonly [Uint32Array, Uint32Array];
  /**
   * The descriptor of the file the next counters go to in the external mode, or -1. The file is
   * unlinked as soon as it is open: descriptors are the process's, so every thread writes and reads
   * it by position, and no end of the process (a signal, a crash) leaves it behind.
   */
  spillFd: number;
  /**
   * Which pages' counters changed in the iterations of either parity, a bit per page (page x: bit
   * x & 31 of word x >>> 5). The threads' ranges start at multiples of SAMPLE, so each word has one
   * writer.
   */
  changed: readonly [Int32Array, Int32Array];
  size: Float64Array;
  harmonic: Float64Array;
  distanceSum: Float64Array;
  stats: Float64Array;
  iterations: Int32Array;
  maxIterations: number;
  bounds: Int32Array;
}

export interface CompactHyperBallResult extends HyperBallResult {
  external: boolean;
  counterBytes: number;
}

/** HyperBall's estimates over compact in-lists (the plain kernel's numbers). */
export function compactHyperBall(lists: CompactLists, options: CompactHyperBallOptions): CompactHyperBallResult {
  const n = lists.nodeCount;
  const { log2m } = options;
  if (!(Number.isInteger(log2m) && log2m >= 4 && log2m <= 16)) throw new RangeError(`log2m must be an integer from 4 to 16, got ${log2m}`);
  const threads = n < 2 * SAMPLE * (options.threads ?? 1) ? 1 : Math.max(1, options.threads ?? 1);
  if (threads > 1) warmUpWorkers(threads);
  const m = 2 ** log2m;
  const words = counterWords(log2m);
  const external = options.spillDirectory !== undefined && options.spillDirectory !== null;
  const distanceSums = options.distanceSums !== false;
  const first = new Uint32Array(new SharedArrayBuffer(4 * words * n));
  const counters = [first, external ? first : new Uint32Array(new SharedArrayBuffer(4 * words * n))] as const;
  const [salt1, salt2] = hyperBallSalts(options.seed ?? 1);
  for (let x = 0; x < n; x++) {
    const register = initialRegister(x, log2m, salt1, salt2);
    first[x * words + Math.floor(register / PER_WORD)] = initialRho(x, salt1, salt2) << (REGISTER_BITS * (register % PER_WORD));
  }
  const size = sharedFloat64(n);
  let pairs = 0;
  for (let x = 0; x < n; x++) {
    size[x] = estimatePacked(first, x * words, m);
    pairs += size[x]!;
  }
  const changed = [changedBits(n).fill(-1), changedBits(n)] as const;
  let spillFd = -1;
  if (external) {
    const spillPath = join(options.spillDirectory!, `wga-hyperball-${process.pid}-${Date.now()}.counters`);
    try {
      spillFd = openSync(spillPath, 'w+', 0o600);
      unlinkSync(spillPath);
      ftruncateSync(spillFd, 4 * words * n);
    } catch (error) {
      if (spillFd >= 0) closeSync(spillFd);
      throw new FileNotFoundError(options.spillDirectory!, `cannot write HyperBall's counters there: ${(error as Error).message}`);
    }
  }
  const neighbourhood = [pairs];
  const data: CompactHyperBallData = {
    segments: lists.segments,
    samples: lists.samples,
    layout: sharedFloat64(1).fill(lists.segmentBytes),
    n,
    log2m,
    words,
    counters,
    spillFd,
    changed,
    size,
    harmonic: sharedFloat64(n),
    distanceSum: sharedFloat64(distanceSums ? n : 0),
    stats: sharedFloat64(2 * threads),
    iterations: sharedInt32(1),
    maxIterations: options.maxIterations ?? 1000,
    bounds: splitBySamples(lists.samples, n, threads, 4 * words),
  };
  try {
    if (n > 0) {
      runParallel('hyperball-compact', data, threads, (context) =>
        compactHyperBallThread(context, (t, changedCount, total) => {
          options.onIteration?.(t, changedCount, total);
          if (changedCount > 0) neighbourhood.push(total);
        }),
      );
    }
  } finally {
    if (spillFd >= 0) closeSync(spillFd);
  }
  // The counters are done with: closeness and Lin's index go over their bytes when they hold both
  // (at least 16 bytes per page: log2m 5 and up), reach over the ball sizes (no bytes more at the peak).
  const spare = counters[0].buffer as SharedArrayBuffer;
  const over = spare.byteLength >= 16 * n;
  const length = distanceSums ? n : 0;
  const closeness = over ? new Float64Array(spare, 0, length) : new Float64Array(length);
  const lin = over ? new Float64Array(spare, 8 * n, length) : new Float64Array(length);
  const reach = size;
  const { harmonic, distanceSum } = data;
  for (let x = 0; x < n; x++) {
    // Reach: growth past the page's own first estimate (its one register's, as hyperball.ts's `first`).
    const rho = initialRho(x, salt1, salt2);
    const r = size[x]! - hyperLogLogEstimate(m - 1 + POWERS[rho]!, m - 1, m);
    reach[x] = r;
    if (!distanceSums) continue;
    const total = distanceSum[x]!;
    closeness[x] = total > 0 ? 1 / total : Number.NaN;
    lin[x] = total > 0 ? (r * r) / total : Number.NaN;
  }
  const counterBytes = (external ? 1 : 2) * 4 * words * n;
  return {
    log2m,
    relativeStandardDeviation: 1.04 / Math.sqrt(m),
    iterations: data.iterations[0]!,
    harmonic,
    closeness,
    lin,
    reach,
    neighbourhood,
    memoryBytes: counterBytes + hyperBallPageBytes(distanceSums) * n + (over || !distanceSums ? 0 : 16 * n),
    external,
    counterBytes,
  };
}

/** HyperLogLog's estimate of the packed counter at words[base...] (registers summed in order, as the plain kernel). */
function estimatePacked(counters: Uint32Array, base: number, m: number): number {
  let sum = 0;
  let zeros = 0;
  let j = 0;
  for (let w = 0; j < m; w++) {
    const word = counters[base + w]!;
    for (let k = 0; k < PER_WORD && j < m; k++, j++) {
      const r = (word >>> (REGISTER_BITS * k)) & 31;
      sum += POWERS[r]!;
      if (r === 0) zeros++;
    }
  }
  return hyperLogLogEstimate(sum, zeros, m);
}

/** Words of the next counters a thread writes to the file at once in the external mode (1 MiB). */
const SPILL_WORDS = 1 << 18;

/**
 * One thread's share: every iteration its pages' new counters (the union of the counters of the
 * in-neighbours that changed), the estimates, the sums; a barrier after each iteration (and in the
 * external mode one more after the counters are read back).
 */
export function compactHyperBallThread(context: TaskContext<CompactHyperBallData>, report?: (iteration: number, changed: number, pairs: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { segments, samples, words, counters, changed, size, harmonic, distanceSum, stats } = data;
  const m = 2 ** data.log2m;
  const segmentBytes = data.layout[0]!;
  const lo = data.bounds[thread]!;
  const hi = data.bounds[thread + 1]!;
  const external = data.spillFd >= 0;
  const sums = distanceSum.length > 0;
  const fd = data.spillFd;
  const spill = external ? new Uint32Array(Math.max(words, SPILL_WORDS - (SPILL_WORDS % words))) : new Uint32Array(0);
  const counter = new Uint32Array(words);
  // The descriptor is the caller's (compactHyperBall closes it).
  for (let t = 1; t <= data.maxIterations; t++) {
    const current = counters[(t - 1) & 1];
    const next = counters[t & 1];
    const changedNow = changed[(t - 1) & 1];
    const changedNext = changed[t & 1];
    let changedHere = 0;
    let pairs = 0;
    // External: the counters that grew, in page order, in this thread's part of the file (from word lo * words).
    let spilled = 0;
    let written = 0;
    let bits = 0;
    for (let v = lo; v < hi; v += SAMPLE) {
      const start = samples[v / SAMPLE]!;
      const segment = Math.floor(start / segmentBytes);
      const blockEnd = Math.min(hi, v + SAMPLE);
      decodeBlock(segments[segment]!, start - segment * segmentBytes, v, blockEnd, block);
      const sources = block.sources;
      const ends = block.ends;
      let a = 0;
      for (let x = v; x < blockEnd; x++) {
        const base = x * words;
        for (let w = 0; w < words; w++) counter[w] = current[base + w]!;
        let touched = false;
        for (const stop = ends[x - v]!; a < stop; a++) {
          const y = sources[a]!;
          if (((changedNow[y >>> 5]! >>> (y & 31)) & 1) === 0) continue;
          touched = true;
          unionWith(current, y * words, counter, words);
        }
        let grew = false;
        if (touched) {
          for (let w = 0; w < words; w++) {
            if (counter[w] !== current[base + w]) {
              grew = true;
              break;
            }
          }
        }
        if (external) {
          // Only a counter that grew goes to the file: the others are the same in `current`.
          if (grew) {
            spill.set(counter, spilled);
            spilled += words;
            if (spilled === spill.length) {
              writeWords(fd, spill, spilled, lo * words + written);
              written += spilled;
              spilled = 0;
            }
          }
        } else next.set(counter, base);
        if (grew) {
          const estimate = estimatePacked(counter, 0, m);
          // Counters only grow; an estimate that would go down (noise) keeps the last (as hyperball.ts).
          const growth = Math.max(0, estimate - size[x]!);
          harmonic[x]! += growth / t;
          if (sums) distanceSum[x]! += growth * t;
          size[x] = Math.max(estimate, size[x]!);
          changedHere++;
          bits |= 1 << (x & 31);
        }
        // A word of marks is this thread's alone (its range starts at a multiple of SAMPLE).
        if ((x & 31) === 31 || x === hi - 1) {
          changedNext[x >>> 5] = bits;
          bits = 0;
        }
        pairs += size[x]!;
      }
    }
    if (external && spilled > 0) {
      writeWords(fd, spill, spilled, lo * words + written);
      written += spilled;
    }
    const { totalChanged, totalPairs } = iterationTotals(stats, barrier, thread, threads, changedHere, pairs, LONG_PHASE_TIMEOUT_MS);
    if (thread === 0) {
      data.iterations[0] = t;
      report?.(t, totalChanged, totalPairs);
    }
    // Every thread has read the stats (and, external, every counter of this iteration) before any overwrites them.
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    if (totalChanged === 0) break;
    if (external) {
      readGrown(fd, current, changedNext, lo, words, written, spill);
      barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    }
  }
}

function writeWords(fd: number, words: Uint32Array, count: number, firstWord: number): void {
  const bytes = new Uint8Array(words.buffer, words.byteOffset, 4 * count);
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, 4 * firstWord + done);
}

/**
 * The external mode's read-back of one thread's counters that grew (`count` words written from word
 * lo * words of the file, in page order): each over its page's counter in `into`, the pages found
 * by their changed marks. In the tail of a run only a few thousand counters of 3.35 x 10^8 change:
 * writing and reading the whole array each iteration was most of an iteration's time there.
 */
function readGrown(fd: number, into: Uint32Array, marks: Int32Array, lo: number, words: number, count: number, buffer: Uint32Array): void {
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let x = lo;
  for (let done = 0; done < count; ) {
    const take = Math.min(buffer.length, count - done);
    const position = 4 * (lo * words + done);
    for (let got = 0; got < 4 * take; ) {
      const read = readSync(fd, bytes, got, 4 * take - got, position + got);
      if (read <= 0) throw new Error(`HyperBall's counters file ended early, at byte ${position + got}`);
      got += read;
    }
    for (let i = 0; i < take; i += words) {
      while (((marks[x >>> 5]! >>> (x & 31)) & 1) === 0) x++;
      into.set(buffer.subarray(i, i + words), x * words);
      x++;
    }
    done += take;
  }
}

/** Each thread's block of in-lists, decoded before its unions (each worker has its own module). */
const block = decodedBlock();

/** The union into `counter` of the counter at current[other...] (the registers' maxima, six per word). */
function unionWith(current: Uint32Array, other: number, counter: Uint32Array, words: number): void {
  for (let w = 0; w < words; w++) {
    const p0 = counter[w]!;
    const q = current[other + w]!;
    if (p0 === q) continue;
    // The fields where p0 < q take q's register.
    const less = ((((p0 | HIGH) - (q & ~HIGH)) | (p0 ^ q)) ^ (p0 | ~q)) & HIGH;
    const mask = Math.imul(less >>> (REGISTER_BITS - 1), 31);
    counter[w] = (p0 & ~mask) | (q & mask);
  }
}
