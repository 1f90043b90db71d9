/**
 * Power iteration (the Web Graph Analyzer paper's Algorithm 1, as pagerank-power.ts) over the
 * compact in-lists of src/graph/compact.ts, decoding each page's gap-encoded in-list inside the
 * gather. The same iteration, the same stopping rule (||pi G - pi||_1 <= tolerance) and the same
 * order of summation as the plain kernel (in-lists sorted by source), so the vector is the plain
 * one's: what the compact form changes is memory, about a byte or two per link instead of four.
 * Uniform teleportation and dangling spread (Google's PageRank); threads own ranges of pages cut at
 * sampled offsets, balanced by encoded bytes.
 */
import { type CompactInLists, SAMPLE } from '../graph/compact.js';
import { PAGERANK_DEFAULTS, normalise } from './pagerank.js';
import { powerLoop } from './pagerank-power.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32 } from '../parallel/shared-memory.js';

/** The data of the compact kernel: powerLoop's, plus the encoded lists and the thread bounds. */
export interface CompactPowerData {
  bytes: Uint8Array;
  samples: Float64Array;
  /** 1 / outdegree, 0 for dangling pages. */
  share: Float64Array;
  x: Float64Array;
  y: Float64Array;
  zA: Float64Array;
  zB: Float64Array;
  /** Thread t pulls pages bounds[t] .. bounds[t+1] (multiples of SAMPLE but the last). */
  bounds: Int32Array;
  /** [damping, tolerance, maximum iterations]. */
  params: Float64Array;
  partials: Float64Array;
  /** [iterations, residual, 1 if the result is in y]. */
  result: Float64Array;
}

export interface CompactPowerRun {
  scores: Float64Array;
  iterations: number;
  residual: number;
}

/** Page ranges of about equal cost (encoded bytes plus 2 per page), cut at sampled pages. */
function splitBySamples(samples: Float64Array, n: number, threads: number): Int32Array {
  const bounds = threads > 1 ? sharedInt32(threads + 1) : new Int32Array(threads + 1);
  const blocks = samples.length - 1;
  const cost = (block: number): number => samples[block]! + 2 * Math.min(n, block * SAMPLE);
  const total = cost(blocks);
  let block = 0;
  for (let t = 1; t < threads; t++) {
    while (block < blocks && cost(block) < (total * t) / threads) block++;
    bounds[t] = Math.min(n, block * SAMPLE);
  }
  bounds[threads] = n;
  return bounds;
}

/**
 * PageRank by power iteration on compact in-lists, from the uniform vector. `share[u]` = 1 /
 * outdegree(u) (0 for dangling pages), on shared memory for threads > 1.
 */
export function compactPowerIteration(
  lists: CompactInLists,
  share: Float64Array,
  damping: number,
  tolerance: number,
  maxIterations: number,
  requestedThreads: number,
  onIteration?: (iteration: number, residual: number) => void,
): CompactPowerRun {
  const n = lists.nodeCount;
  if (share.length !== n) throw new RangeError(`share has ${share.length} entries for ${n} pages`);
  if (n === 0) return { scores: new Float64Array(0), iterations: 0, residual: 0 };
  const threads = lists.linkCount < 200_000 || n < 2 * SAMPLE * requestedThreads ? 1 : Math.max(1, requestedThreads);
  if (threads > 1) warmUpWorkers(threads);
  const alloc = threads > 1 ? sharedFloat64 : (length: number) => new Float64Array(length);
  const data: CompactPowerData = {
    bytes: lists.bytes,
    samples: lists.samples,
    share,
    x: alloc(n).fill(1 / n),
    y: alloc(n),
    zA: alloc(n),
    zB: alloc(n),
    bounds: splitBySamples(lists.samples, n, threads),
    params: alloc(3),
    partials: alloc(4 * threads),
    result: alloc(3),
  };
  data.params.set([damping, tolerance, maxIterations]);
  runParallel('pagerank-compact', data, threads, (context) => compactPowerThread(context, onIteration));
  return { scores: data.result[2] === 1 ? data.y : data.x, iterations: data.result[0]!, residual: data.result[1]! };
}

/** One thread's share of compactPowerIteration (also run by the worker threads): pagerank-power.ts's loop, the compact pull. */
export function compactPowerThread(context: TaskContext<CompactPowerData>, onIteration?: (iteration: number, residual: number) => void): void {
  const { data, thread } = context;
  const { bytes, samples, share, bounds, params } = data;
  const c = params[0]!;
  const n = share.length;
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  const start = lo < n ? samples[lo / SAMPLE]! : 0;
  powerLoop(context, lo, hi, (z, zNext, x, y, danglingMass) => pullCompact(lo, hi, start, bytes, share, z, zNext, x, y, c, (c * danglingMass) / n + (1 - c) / n), onIteration);
}

const moments = new Float64Array(2);

/**
 * Pages lo..hi, their lists from byte `start`: y = c * (pulled z) + constant, zNext = y * share;
 * returns [||y - x||_1, dangling mass of y]. The varints are decoded inline (a call per value
 * would cost more than the gather).
 */
function pullCompact(
  lo: number,
  hi: number,
  start: number,
  bytes: Uint8Array,
  share: Float64Array,
  z: Float64Array,
  zNext: Float64Array,
  x: Float64Array,
  y: Float64Array,
  c: number,
  constant: number,
): Float64Array {
  let change = 0;
  let danglingMass = 0;
  let p = start;
  for (let v = lo; v < hi; v++) {
    // Varints unrolled: nearly every value is one byte, the branch to the next byte rarely taken.
    let b = bytes[p++]!;
    let header = b & 0x7f;
    if (b > 0x7f) {
      b = bytes[p++]!;
      header |= (b & 0x7f) << 7;
      if (b > 0x7f) {
        b = bytes[p++]!;
        header |= (b & 0x7f) << 14;
        if (b > 0x7f) {
          b = bytes[p++]!;
          header |= (b & 0x7f) << 21;
          if (b > 0x7f) header |= bytes[p++]! << 28;
        }
      }
    }
    const degree = header >>> 1;
    let sum = 0;
    if (degree > 0) {
      b = bytes[p++]!;
      let code = b & 0x7f;
      if (b > 0x7f) {
        b = bytes[p++]!;
        code |= (b & 0x7f) << 7;
        if (b > 0x7f) {
          b = bytes[p++]!;
          code |= (b & 0x7f) << 14;
          if (b > 0x7f) {
            b = bytes[p++]!;
            code |= (b & 0x7f) << 21;
            if (b > 0x7f) code |= bytes[p++]! << 28;
          }
        }
      }
      let source = (v + (code & 1 ? -((code >>> 1) + 1) : code >>> 1)) | 0;
      sum = z[source]!;
      if (header & 1) {
        // Every gap in one byte: no branch per link.
        for (let k = 1; k < degree; k++) {
          source = (source + bytes[p++]! + 1) | 0;
          sum += z[source]!;
        }
      } else for (let k = 1; k < degree; k++) {
        b = bytes[p++]!;
        let gap = b;
        if (b > 0x7f) {
          gap &= 0x7f;
          b = bytes[p++]!;
          gap |= (b & 0x7f) << 7;
          if (b > 0x7f) {
            b = bytes[p++]!;
            gap |= (b & 0x7f) << 14;
            if (b > 0x7f) {
              b = bytes[p++]!;
              gap |= (b & 0x7f) << 21;
              if (b > 0x7f) gap |= bytes[p++]! << 28;
            }
          }
        }
        source = (source + gap + 1) | 0;
        sum += z[source]!;
      }
    }
    const value = c * sum + constant;
    y[v] = value;
    change += Math.abs(value - x[v]!);
    const s = share[v]!;
    zNext[v] = value * s;
    if (s === 0) danglingMass += value;
  }
  moments[0] = change;
  moments[1] = danglingMass;
  return moments;
}

/** The `pagerank` result of a compact graph: power iteration, scores normalised to sum 1 as the plain solver's. */
export function compactPageRank(
  lists: CompactInLists,
  share: Float64Array,
  options: { damping?: number; tolerance?: number; maxIterations?: number; threads?: number; onIteration?: (iteration: number, residual: number) => void } = {},
): { scores: Float64Array; iterations: number; residual: number; converged: boolean; damping: number; tolerance: number } {
  const damping = options.damping ?? PAGERANK_DEFAULTS.damping;
  const tolerance = options.tolerance ?? PAGERANK_DEFAULTS.tolerance;
  const run = compactPowerIteration(lists, share, damping, tolerance, options.maxIterations ?? PAGERANK_DEFAULTS.maxIterations, options.threads ?? 1, options.onIteration);
  normalise(run.scores);
  return { scores: run.scores, iterations: run.iterations, residual: run.residual, converged: run.residual <= tolerance, damping, tolerance };
}
