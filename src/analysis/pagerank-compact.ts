/**
 * Power iteration (the Web Graph Analyzer paper's Algorithm 1, as pagerank-power.ts) over the
 * compact in-lists of src/graph/compact.ts, decoding each page's gap-encoded in-list inside the
 * gather. The same iteration, the same stopping rule (||pi G - pi||_1 <= tolerance) and the same
 * order of summation as the plain kernel (in-lists sorted by source), so the vector is the plain
 * one's: what the compact form changes is memory, about a byte or two per link instead of four.
 * Uniform teleportation and dangling spread (Google's PageRank); threads own ranges of pages cut at
 * sampled offsets, balanced by encoded bytes.
 */
import { type CompactLists, SAMPLE, transposeDegrees } from '../graph/compact.js';
import { PAGERANK_DEFAULTS, normalise } from './pagerank.js';
import { powerLoop } from './pagerank-power.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32 } from '../parallel/shared-memory.js';

/** The data of the compact kernel: powerLoop's, plus the encoded lists and the thread bounds. */
export interface CompactPowerData {
  segments: Uint8Array[];
  /** [segment bytes]. */
  layout: Float64Array;
  samples: Float64Array;
  /** Empty: the compact kernel divides by the out-degree instead (4 bytes per page, not 8). */
  share: Float64Array;
  /** Out-degree of every page, 0 for dangling pages. */
  outDegree: Int32Array;
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
 * PageRank by power iteration on compact in-lists, from the uniform vector. `outDegree[u]` is u's
 * out-degree (compactOutDegrees computes it from the in-lists), on shared memory for threads > 1.
 * Memory: the lists, the degrees and four vectors (36 bytes per page).
 */
export function compactPowerIteration(
  lists: CompactLists,
  outDegree: Int32Array,
  damping: number,
  tolerance: number,
  maxIterations: number,
  requestedThreads: number,
  onIteration?: (iteration: number, residual: number) => void,
): CompactPowerRun {
  const n = lists.nodeCount;
  if (outDegree.length !== n) throw new RangeError(`outDegree has ${outDegree.length} entries for ${n} pages`);
  if (n === 0) return { scores: new Float64Array(0), iterations: 0, residual: 0 };
  const threads = lists.linkCount < 200_000 || n < 2 * SAMPLE * requestedThreads ? 1 : Math.max(1, requestedThreads);
  if (threads > 1) warmUpWorkers(threads);
  const alloc = threads > 1 ? sharedFloat64 : (length: number) => new Float64Array(length);
  const data: CompactPowerData = {
    segments: lists.segments,
    layout: alloc(1).fill(lists.segmentBytes),
    samples: lists.samples,
    share: new Float64Array(0),
    outDegree,
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

/** Every page's out-degree, counted from compact in-lists (one pass; on shared memory). */
export function compactOutDegrees(inLists: CompactLists): Int32Array {
  return transposeDegrees(inLists);
}

/** One thread's share of compactPowerIteration (also run by the worker threads): pagerank-power.ts's loop, the compact pull. */
export function compactPowerThread(context: TaskContext<CompactPowerData>, onIteration?: (iteration: number, residual: number) => void): void {
  const { data, thread } = context;
  const { segments, samples, outDegree, bounds, params } = data;
  const segmentBytes = data.layout[0]!;
  const c = params[0]!;
  const n = outDegree.length;
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  // The thread's pages in pieces that each lie in one segment: [first page, end page, segment, local start].
  const pieces: number[][] = [];
  for (let v = lo; v < hi; ) {
    const start = samples[v / SAMPLE]!;
    const segment = Math.floor(start / segmentBytes);
    let end = v;
    while (end < hi && Math.floor(samples[end / SAMPLE]! / segmentBytes) === segment) end = Math.min(hi, end + SAMPLE);
    pieces.push([v, end, segment, start - segment * segmentBytes]);
    v = end;
  }
  const total = new Float64Array(2);
  powerLoop(
    context,
    lo,
    hi,
    (z, zNext, x, y, danglingMass) => {
      const constant = (c * danglingMass) / n + (1 - c) / n;
      total[0] = 0;
      total[1] = 0;
      for (const [first, end, segment, start] of pieces) {
        const moments = pullCompact(first!, end!, start!, segments[segment!]!, outDegree, z, zNext, x, y, c, constant);
        total[0] += moments[0]!;
        total[1] += moments[1]!;
      }
      return total;
    },
    onIteration,
    (x, z) => {
      let danglingMass = 0;
      for (let v = lo; v < hi; v++) {
        const d = outDegree[v]!;
        z[v] = d > 0 ? x[v]! / d : 0;
        if (d === 0) danglingMass += x[v]!;
      }
      return danglingMass;
    },
  );
}

const moments = new Float64Array(2);

/**
 * Pages lo..hi, their lists from byte `start`: y = c * (pulled z) + constant, zNext = y / outdegree;
 * returns [||y - x||_1, dangling mass of y]. The varints are decoded inline (a call per value
 * would cost more than the gather).
 */
function pullCompact(
  lo: number,
  hi: number,
  start: number,
  bytes: Uint8Array,
  outDegree: Int32Array,
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
    const d = outDegree[v]!;
    if (d > 0) zNext[v] = value / d;
    else {
      zNext[v] = 0;
      danglingMass += value;
    }
  }
  moments[0] = change;
  moments[1] = danglingMass;
  return moments;
}

/** The `pagerank` result of a compact graph: power iteration, scores normalised to sum 1 as the plain solver's. */
export function compactPageRank(
  lists: CompactLists,
  outDegree: Int32Array,
  options: { damping?: number; tolerance?: number; maxIterations?: number; threads?: number; onIteration?: (iteration: number, residual: number) => void } = {},
): { scores: Float64Array; iterations: number; residual: number; converged: boolean; damping: number; tolerance: number } {
  const damping = options.damping ?? PAGERANK_DEFAULTS.damping;
  const tolerance = options.tolerance ?? PAGERANK_DEFAULTS.tolerance;
  const run = compactPowerIteration(lists, outDegree, damping, tolerance, options.maxIterations ?? PAGERANK_DEFAULTS.maxIterations, options.threads ?? 1, options.onIteration);
  normalise(run.scores);
  return { scores: run.scores, iterations: run.iterations, residual: run.residual, converged: run.residual <= tolerance, damping, tolerance };
}
