/**
 * HyperBall (Boldi and Vigna, "In-Core Computation of Geometric Centralities with HyperBall",
 * 2013; HyperANF before it): for every page x a HyperLogLog counter of the ball of pages within
 * t links *of reaching* x, B(x, t) = {y : d(y, x) <= t}, grown one step per iteration along
 * in-links, B(x, t + 1) = B(x, t) U (union over links y -> x of B(y, t)), until no counter changes.
 * The counters' sizes give, for every page, the pages at each distance to it, hence
 * - harmonic centrality: sum over t of (|B(x, t)| - |B(x, t - 1)|) / t,
 * - closeness: 1 / sum over t of t (|B(x, t)| - |B(x, t - 1)|) (as the exact one: igraph's,
 *   over the pages that reach x), and Lin's index r^2 / that sum, r = |B(x, infinity)| - 1,
 * - reach: |B(x, infinity)| - 1,
 * and for the graph the neighbourhood function N(t) = sum over x of |B(x, t)| (pairs within
 * distance t, each page with itself included), the distance distribution, the average distance
 * and the effective diameter (the 90th percentile, interpolated as HyperANF does).
 *
 * Counters: m = 2^log2m registers per page, one byte each (values up to 33), four registers
 * handled per 32-bit word by a broadword maximum (registers below 128, so each byte's top bit is
 * free for the comparison). A page's counter is its own hash at first; the estimate is
 * HyperLogLog's (Flajolet et al. 2007) with its small-range correction (linear counting). The
 * relative standard deviation of one estimate is about 1.04 / sqrt(m).
 * Memory: 2 n m bytes (this iteration's counters and the next), plus 3 doubles and a byte per page.
 */
import type { Graph } from '../graph/graph.js';
import { fmix32 } from '../util/fmix.js';
import { barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel } from '../parallel/pool.js';

export interface HyperBallOptions {
  /** log2 of the registers per counter, 4 to 16 (null: the largest that fits `memoryBytes`, at most 8). */
  log2m?: number | null;
  /** Budget for the counters when log2m is chosen (default: 4 GB). */
  memoryBytes?: number;
  /** Seed of the hash functions. */
  seed?: number;
  /** Stop after this many iterations even if counters still change (default: 1,000). */
  maxIterations?: number;
  onIteration?: (iteration: number, changed: number, pairs: number) => void;
  /** Threads (this one included): 1. */
  threads?: number;
}

export interface HyperBallResult {
  log2m: number;
  /** The relative standard deviation of one counter's estimate: 1.04 / sqrt(m). */
  relativeStandardDeviation: number;
  iterations: number;
  harmonic: Float64Array;
  /** igraph's closeness (1 / sum of distances from the pages that reach x); NaN when none does. */
  closeness: Float64Array;
  /** Lin's index: reach^2 / sum of distances; NaN when no page reaches x. */
  lin: Float64Array;
  /** Estimated pages that reach x (x excluded). */
  reach: Float64Array;
  /** N(t), t = 0, 1, ...: estimated pairs (y, x) with d(y, x) <= t (N(0) = the pages). */
  neighbourhood: number[];
  memoryBytes: number;
}

const REGISTER_BITS_HIGH = 0x80808080;

/** log2m for n pages within a memory budget (two byte arrays of n 2^log2m). */
export function hyperBallLog2m(n: number, memoryBytes = 4 * 1024 ** 3): number {
  let log2m = 8;
  while (log2m > 4 && 2 * n * 2 ** log2m > memoryBytes) log2m--;
  return log2m;
}

/** The salts of the two hash functions of the page id, drawn from the seed. */
export function hyperBallSalts(seed: number): [number, number] {
  return [fmix32(Math.imul(seed, 0x9e3779b1) ^ 0x632be5ab), fmix32(Math.imul(seed + 0x7f4a7c15, 0x85ebca77) ^ 0x1b873593)];
}

/** The register page x's own hash falls in. */
export function initialRegister(x: number, log2m: number, salt1: number, salt2: number): number {
  return fmix32(Math.imul(x ^ salt1, 0x9e3779b1) + salt2) >>> (32 - log2m);
}

/**
 * The run of zeros of page x's second hash, plus 1, at most MAX_RHO: 31 fits the 5-bit registers of
 * the packed counters (hyperball-compact.ts), and a longer run has probability 2^-31 per page.
 */
export function initialRho(x: number, salt1: number, salt2: number): number {
  return Math.min(MAX_RHO, Math.clz32(fmix32(Math.imul(x ^ salt2, 0xcc9e2d51) + salt1)) + 1);
}

export const MAX_RHO = 31;

/** HyperLogLog's alpha_m. */
export function alpha(m: number): number {
  if (m === 16) return 0.673;
  if (m === 32) return 0.697;
  if (m === 64) return 0.709;
  return 0.7213 / (1 + 1.079 / m);
}

export function hyperBall(graph: Graph, options: HyperBallOptions = {}): HyperBallResult {
  const n = graph.nodeCount;
  const log2m = options.log2m ?? hyperBallLog2m(n, options.memoryBytes);
  if (!(Number.isInteger(log2m) && log2m >= 4 && log2m <= 16)) throw new RangeError(`log2m must be an integer from 4 to 16, got ${log2m}`);
  const threads = Math.max(1, Math.min(options.threads ?? 1, n === 0 ? 1 : n));
  const m = 2 ** log2m;
  const words = m / 4;
  // Two hash functions of the page id, one for the register and one for the run of zeros, each a
  // multiply and a finaliser with its own salt drawn from the seed. (A first version XORed a small
  // seed into the id: that only permutes the ids 0..n-1 among themselves, so every seed hashed the
  // graph alike, and register and zeros came from related hashes: over 200 seeds a counter of 10^5
  // pages erred by 1.16 times the stated deviation; these two give 1.04.)
  const [salt1, salt2] = hyperBallSalts(options.seed ?? 1);
  // Shared with the worker threads: the counters of two iterations, which changed, and the per-page sums.
  const registers = [new Uint32Array(new SharedArrayBuffer(n * m)), new Uint32Array(new SharedArrayBuffer(n * m))] as const;
  const changed = [new Uint8Array(new SharedArrayBuffer(n)), new Uint8Array(new SharedArrayBuffer(n))] as const;
  const size = new Float64Array(new SharedArrayBuffer(8 * n));
  const harmonic = new Float64Array(new SharedArrayBuffer(8 * n));
  const distanceSum = new Float64Array(new SharedArrayBuffer(8 * n));
  // Every page's counter holds the page itself.
  const bytes = new Uint8Array(registers[0].buffer);
  for (let x = 0; x < n; x++) bytes[x * m + initialRegister(x, log2m, salt1, salt2)] = initialRho(x, salt1, salt2);
  changed[0].fill(1);
  const first = new Float64Array(n);
  let pairs = 0;
  for (let x = 0; x < n; x++) {
    size[x] = estimateCounter(registers[0], x, m);
    first[x] = size[x]!;
    pairs += size[x]!;
  }
  const neighbourhood = [pairs];
  const data: HyperBallShared = {
    inOffsets: graph.inOffsets,
    inSources: graph.inSources,
    n,
    log2m,
    words,
    registers,
    changed,
    size,
    harmonic,
    distanceSum,
    stats: new Float64Array(new SharedArrayBuffer(16 * threads)),
    iterations: new Int32Array(new SharedArrayBuffer(4)),
    maxIterations: options.maxIterations ?? 1000,
  };
  runParallel('hyperball', data, threads, (context) =>
    hyperBallThread(context, (t, changedCount, total) => {
      options.onIteration?.(t, changedCount, total);
      if (changedCount > 0) neighbourhood.push(total);
    }),
  );
  const iterations = data.iterations[0]!;
  const closeness = new Float64Array(n);
  const lin = new Float64Array(n);
  const reach = new Float64Array(n);
  for (let x = 0; x < n; x++) {
    // Reach: growth past the page's own first estimate (about 1).
    const r = size[x]! - first[x]!;
    reach[x] = r;
    const total = distanceSum[x]!;
    closeness[x] = total > 0 ? 1 / total : Number.NaN;
    lin[x] = total > 0 ? (r * r) / total : Number.NaN;
  }
  return {
    log2m,
    relativeStandardDeviation: 1.04 / Math.sqrt(m),
    iterations,
    harmonic: Float64Array.from(harmonic),
    closeness,
    lin,
    reach,
    neighbourhood,
    memoryBytes: 2 * n * m + n * (3 * 8 + 2) + 3 * n * 8,
  };
}

/** What HyperBall's threads share. */
export interface HyperBallShared {
  inOffsets: Uint32Array;
  inSources: Int32Array;
  n: number;
  log2m: number;
  words: number;
  /** The counters as of iterations of either parity. */
  registers: readonly [Uint32Array, Uint32Array];
  /** Which counters changed, by the parity of the iteration that changed them. */
  changed: readonly [Uint8Array, Uint8Array];
  size: Float64Array;
  harmonic: Float64Array;
  distanceSum: Float64Array;
  /** Per thread: counters changed and pairs summed in the iteration. */
  stats: Float64Array;
  /** Iterations done (written by thread 0). */
  iterations: Int32Array;
  maxIterations: number;
}

/** HyperLogLog's estimate of page x's counter, with the small-range correction. */
function estimateCounter(registers: Uint32Array, x: number, m: number): number {
  const bytes = new Uint8Array(registers.buffer, x * m, m);
  let sum = 0;
  let zeros = 0;
  for (let j = 0; j < m; j++) {
    const r = bytes[j]!;
    sum += POWERS[r]!;
    if (r === 0) zeros++;
  }
  return hyperLogLogEstimate(sum, zeros, m);
}

/** HyperLogLog's estimate from the sum of 2^-register and the zero registers, with the small-range correction. */
export function hyperLogLogEstimate(sum: number, zeros: number, m: number): number {
  const raw = (alpha(m) * m * m) / sum;
  return raw <= 2.5 * m && zeros > 0 ? m * Math.log(m / zeros) : raw;
}

export const POWERS = Float64Array.from({ length: 64 }, (_, k) => 2 ** -k);

/**
 * One thread's share of HyperBall: the pages [n t / T, n (t + 1) / T), every iteration, the
 * threads meeting at a barrier after each (every thread reads every other's counters of the last
 * iteration, and all stop together when none changed). `report` (thread 0) hears each iteration.
 */
export function hyperBallThread(context: TaskContext<HyperBallShared>, report?: (iteration: number, changed: number, pairs: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { inOffsets, inSources, n, words, registers, changed, size, harmonic, distanceSum, stats } = data;
  const m = 2 ** data.log2m;
  const lo = Math.floor((n * thread) / threads);
  const hi = Math.floor((n * (thread + 1)) / threads);
  for (let t = 1; t <= data.maxIterations; t++) {
    const current = registers[(t - 1) & 1];
    const next = registers[t & 1];
    const changedNow = changed[(t - 1) & 1];
    const changedNext = changed[t & 1];
    let changedHere = 0;
    let pairs = 0;
    for (let x = lo; x < hi; x++) {
      const base = x * words;
      for (let w = 0; w < words; w++) next[base + w] = current[base + w]!;
      let touched = false;
      for (let e = inOffsets[x]!, end = inOffsets[x + 1]!; e < end; e++) {
        const y = inSources[e]!;
        if (changedNow[y] === 0) continue;
        touched = true;
        const other = y * words;
        // Broadword maximum of four registers: a byte's top bit of ((p | H) - q) & H says p >= q.
        for (let w = 0; w < words; w++) {
          const p = next[base + w]!;
          const q = current[other + w]!;
          if (p === q) continue;
          const ge = ((p | REGISTER_BITS_HIGH) - q) & REGISTER_BITS_HIGH;
          const mask = Math.imul(ge >>> 7, 0xff);
          next[base + w] = (p & mask) | (q & ~mask);
        }
      }
      let grew = false;
      if (touched) {
        for (let w = 0; w < words; w++) {
          if (next[base + w] !== current[base + w]) {
            grew = true;
            break;
          }
        }
      }
      if (grew) {
        const estimate = estimateCounter(next, x, m);
        // Counters only grow; an estimate that would go down (noise) keeps the last.
        const growth = Math.max(0, estimate - size[x]!);
        harmonic[x]! += growth / t;
        distanceSum[x]! += growth * t;
        size[x] = Math.max(estimate, size[x]!);
        changedHere++;
        changedNext[x] = 1;
      } else changedNext[x] = 0;
      pairs += size[x]!;
    }
    const { totalChanged, totalPairs } = iterationTotals(stats, barrier, thread, threads, changedHere, pairs);
    if (thread === 0) {
      data.iterations[0] = t;
      report?.(t, totalChanged, totalPairs);
    }
    // Every thread has read the stats before any overwrites them.
    barrierWait(barrier, threads);
    if (totalChanged === 0) break;
  }
}

export interface DistanceStatistics {
  /** N(t) for t = 0, 1, ... */
  neighbourhood: number[];
  /** Share of the connected pairs (y != x, y reaches x) at each distance t = 1, 2, ... (index t - 1). */
  distribution: number[];
  /** Mean distance over connected pairs. */
  averageDistance: number;
  /** The distance within which 90% of the connected pairs lie, interpolated between integers. */
  effectiveDiameter: number;
  /** Connected pairs (y != x). */
  connectedPairs: number;
}

/** The distance statistics of a neighbourhood function (exact or estimated). */
export function distanceStatistics(neighbourhood: readonly number[], quantile = 0.9): DistanceStatistics {
  const n0 = neighbourhood[0] ?? 0;
  const last = neighbourhood[neighbourhood.length - 1] ?? 0;
  const connectedPairs = last - n0;
  const distribution: number[] = [];
  let weighted = 0;
  for (let t = 1; t < neighbourhood.length; t++) {
    const atT = Math.max(0, neighbourhood[t]! - neighbourhood[t - 1]!);
    distribution.push(connectedPairs > 0 ? atT / connectedPairs : 0);
    weighted += t * atT;
  }
  const averageDistance = connectedPairs > 0 ? weighted / connectedPairs : 0;
  // The effective diameter: the smallest t with N(t) - N(0) >= q (N(inf) - N(0)), interpolated linearly between t - 1 and t.
  let effectiveDiameter = 0;
  const target = quantile * connectedPairs;
  for (let t = 1; t < neighbourhood.length; t++) {
    const below = neighbourhood[t - 1]! - n0;
    const upTo = neighbourhood[t]! - n0;
    if (upTo >= target) {
      effectiveDiameter = upTo === below ? t : t - 1 + (target - below) / (upTo - below);
      break;
    }
  }
  return { neighbourhood: [...neighbourhood], distribution, averageDistance, effectiveDiameter, connectedPairs };
}

/** The exact neighbourhood function, by one breadth-first search per page (for small graphs and tests). */
export function exactNeighbourhood(graph: Graph): number[] {
  const n = graph.nodeCount;
  const { outOffsets, outTargets } = graph;
  const counts: number[] = [];
  const seen = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  for (let x = 0; x < n; x++) {
    seen[x] = x;
    queue[0] = x;
    let head = 0;
    let tail = 1;
    let distance = 0;
    let levelEnd = 1;
    while (head < tail) {
      if (head === levelEnd) {
        distance++;
        levelEnd = tail;
      }
      const v = queue[head++]!;
      counts[distance] = (counts[distance] ?? 0) + 1;
      for (let e = outOffsets[v]!, end = outOffsets[v + 1]!; e < end; e++) {
        const u = outTargets[e]!;
        if (seen[u] !== x) {
          seen[u] = x;
          queue[tail++] = u;
        }
      }
    }
  }
  const neighbourhood: number[] = [];
  let total = 0;
  for (const c of counts) neighbourhood.push((total += c ?? 0));
  return neighbourhood;
}

/**
 * The end of a HyperBall iteration on every thread (this kernel and the compact one): posts this
 * thread's changed counters and pair count in `stats`, waits for the others, and returns the sums.
 */
export function iterationTotals(stats: Float64Array, barrier: Int32Array, thread: number, threads: number, changed: number, pairs: number, timeoutMs?: number): { totalChanged: number; totalPairs: number } {
  stats[2 * thread] = changed;
  stats[2 * thread + 1] = pairs;
  barrierWait(barrier, threads, timeoutMs);
  let totalChanged = 0;
  let totalPairs = 0;
  for (let i = 0; i < threads; i++) {
    totalChanged += stats[2 * i]!;
    totalPairs += stats[2 * i + 1]!;
  }
  return { totalChanged, totalPairs };
}
