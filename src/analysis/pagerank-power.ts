/**
 * Power iteration (the Web Graph Analyzer paper's Algorithm 1) on one or
 * more threads over shared memory. Each thread owns a contiguous range of
 * pages, split so that every range holds about the same number of in-links
 * (plus a little per page), and pulls over the in-links of its pages:
 *
 *   y_v = c * sum_{u -> v} z_u + c * (dangling mass) d_v + (1 - c) v_v,
 *   z_v = y_v / outdegree(v)   (what v passes to each successor next time).
 *
 * z is written in the same pass as y, into a second buffer, so an iteration
 * is one pass over the in-links and one barrier: after it every thread
 * reads the per-thread partial sums (the L1 change and the next dangling
 * mass) in thread order and takes the same decision. The partials alternate
 * between two slots by iteration parity, because a fast thread may write
 * the next iteration's before a slow one has read this one's.
 *
 * Every page's sum runs over its in-links in the same order whatever the
 * thread count, so the vector does not depend on the threads; only the
 * order in which the per-thread partials are added does (last bits of the
 * residual).
 */
import type { Graph } from '../graph/graph.js';
import { barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32 } from '../parallel/shared-memory.js';

/** share[u] = 1 / outdegree(u), 0 for dangling pages; on shared memory. */
export function outShares(graph: Graph): Float64Array {
  const n = graph.nodeCount;
  const { outOffsets } = graph;
  const share = sharedFloat64(n);
  for (let u = 0; u < n; u++) {
    const degree = outOffsets[u + 1]! - outOffsets[u]!;
    if (degree > 0) share[u] = 1 / degree;
  }
  return share;
}

/** Graphs with fewer in-links than this run on the calling thread only (a worker's hand-off costs more). */
export const PARALLEL_POWER_LINKS = 200_000;

export interface PowerKernelData {
  inOffsets: Uint32Array;
  inSources: Int32Array;
  /** 1 / outdegree, 0 for dangling pages. */
  share: Float64Array;
  /** The iterates: x is the start, and the result ends in x or y (see result[2]). */
  x: Float64Array;
  y: Float64Array;
  /** Contributions z = x * share, double-buffered. */
  zA: Float64Array;
  zB: Float64Array;
  /** Normalised teleport and dangling distributions, or empty for uniform. */
  teleport: Float64Array;
  dangling: Float64Array;
  /** Thread t pulls pages bounds[t] .. bounds[t+1]. */
  bounds: Int32Array;
  /** [damping, tolerance, maximum iterations]. */
  params: Float64Array;
  /** Two slots (by iteration parity) of [change, dangling mass] per thread. */
  partials: Float64Array;
  /** [iterations, residual, 1 if the result is in y else 0]. */
  result: Float64Array;
}

export interface PowerRun {
  scores: Float64Array;
  iterations: number;
  residual: number;
}

/**
 * Runs power iteration from `start` (a normalised vector, not modified)
 * until the L1 change is at most `tolerance` or `maxIterations` ran.
 * `teleport`/`dangling` null = uniform. The graph's arrays should be on
 * shared memory (the builders put them there) for threads > 1.
 */
export function runPowerIteration(
  inOffsets: Uint32Array,
  inSources: Int32Array,
  share: Float64Array,
  start: Float64Array,
  damping: number,
  tolerance: number,
  maxIterations: number,
  teleport: Float64Array | null,
  dangling: Float64Array | null,
  requestedThreads: number,
  onIteration?: (iteration: number, residual: number) => void,
): PowerRun {
  const n = share.length;
  const links = inOffsets[n]! - inOffsets[0]!;
  const threads = links < PARALLEL_POWER_LINKS || n < 2 * requestedThreads ? 1 : Math.max(1, requestedThreads);
  if (threads > 1) warmUpWorkers(threads);
  const alloc = threads > 1 ? sharedFloat64 : (length: number) => new Float64Array(length);
  const x = alloc(n);
  x.set(start);
  const personal = teleport !== null || dangling !== null;
  const data: PowerKernelData = {
    inOffsets,
    inSources,
    share,
    x,
    y: alloc(n),
    zA: alloc(n),
    zB: alloc(n),
    teleport: shared(personal ? teleport ?? uniform(n) : new Float64Array(0), threads),
    dangling: shared(personal ? dangling ?? teleport ?? uniform(n) : new Float64Array(0), threads),
    bounds: splitByLinks(inOffsets, n, threads),
    params: alloc(3),
    partials: alloc(4 * threads),
    result: alloc(3),
  };
  data.params.set([damping, tolerance, maxIterations]);
  // Thread 0 is this thread: it reports each iteration as it ends.
  runParallel('pagerank-power', data, threads, (context) => powerIterationThread(context, onIteration));
  const iterations = data.result[0]!;
  return {
    scores: data.result[2] === 1 ? data.y : data.x,
    iterations,
    residual: data.result[1]!,
  };
}

function uniform(n: number): Float64Array {
  return new Float64Array(n).fill(1 / n);
}

function shared(array: Float64Array, threads: number): Float64Array {
  if (threads <= 1 || array.buffer instanceof SharedArrayBuffer) return array;
  const copy = sharedFloat64(array.length);
  copy.set(array);
  return copy;
}

/**
 * Page ranges of about equal cost, a page costing its in-links plus 2 (the
 * per-page work of an iteration, in units of one gathered link).
 */
export function splitByLinks(inOffsets: Uint32Array, n: number, threads: number): Int32Array {
  const bounds = threads > 1 ? sharedInt32(threads + 1) : new Int32Array(threads + 1);
  const base = inOffsets[0]!;
  const total = inOffsets[n]! - base + 2 * n;
  let v = 0;
  for (let t = 1; t < threads; t++) {
    const target = (total * t) / threads;
    // Binary search for the first page whose cost prefix reaches the target.
    let lo = v;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (inOffsets[mid]! - base + 2 * mid < target) lo = mid + 1;
      else hi = mid;
    }
    v = lo;
    bounds[t] = v;
  }
  bounds[threads] = n;
  return bounds;
}

/** One thread's share of runPowerIteration (also run by the worker threads). */
export function powerIterationThread(
  context: TaskContext<PowerKernelData>,
  onIteration?: (iteration: number, residual: number) => void,
): void {
  const { data, thread } = context;
  const { inOffsets, inSources, share, bounds, params, teleport, dangling } = data;
  const c = params[0]!;
  const n = share.length;
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  const jump = 1 - c;
  const pull: PowerPull =
    teleport.length === 0
      ? (z, zNext, x, y, danglingMass) => pullUniform(lo, hi, inOffsets, inSources, share, z, zNext, x, y, c, (c * danglingMass) / n + jump / n)
      : (z, zNext, x, y, danglingMass) => pullPersonalised(lo, hi, inOffsets, inSources, share, z, zNext, x, y, c, c * danglingMass, jump, teleport, dangling);
  powerLoop(context, lo, hi, pull, onIteration);
}

/**
 * One pull over a thread's pages: y from the contributions z (and the dangling mass of the last
 * iterate), zNext = y * share; returns [||y - x||_1, dangling mass of y].
 */
export type PowerPull = (z: Float64Array, zNext: Float64Array, x: Float64Array, y: Float64Array, danglingMass: number) => Float64Array;

/** What the iteration loop needs of a power kernel's shared data (the plain and the compact kernels'). */
export interface PowerLoopData {
  /** 1 / outdegree (the plain kernel's; the compact one passes its own start to powerLoop). */
  share: Float64Array;
  x: Float64Array;
  y: Float64Array;
  zA: Float64Array;
  zB: Float64Array;
  params: Float64Array;
  partials: Float64Array;
  result: Float64Array;
}

/**
 * The iterations of one thread over its pages lo..hi, whatever the in-lists' form: the starting
 * contributions, then `pull` per iteration, one barrier after it, the per-thread partials read in
 * thread order (every thread takes the same decision), the buffers swapped; thread 0 reports each
 * iteration and writes the result.
 */
export function powerLoop(
  context: TaskContext<PowerLoopData>,
  lo: number,
  hi: number,
  pull: PowerPull,
  onIteration?: (iteration: number, residual: number) => void,
  initial: (x: Float64Array, z: Float64Array) => number = (x, z) => startContributions(lo, hi, context.data.share, x, z),
): void {
  const { data, thread, threads, barrier } = context;
  const { params, partials, result } = data;
  const tolerance = params[1]!;
  const maxIterations = params[2]!;
  let x = data.x;
  let y = data.y;
  let z = data.zA;
  let zNext = data.zB;

  // The starting contributions and dangling mass.
  let danglingMass = initial(x, z);
  partials[2 * thread + 1] = danglingMass;
  barrierWait(barrier, threads);
  danglingMass = 0;
  for (let t = 0; t < threads; t++) danglingMass += partials[2 * t + 1]!;

  let iterations = 0;
  let residual = Infinity;
  while (iterations < maxIterations) {
    const slot = ((iterations + 1) & 1) * 2 * threads;
    const moments = pull(z, zNext, x, y, danglingMass);
    partials[slot + 2 * thread] = moments[0]!;
    partials[slot + 2 * thread + 1] = moments[1]!;
    barrierWait(barrier, threads);
    residual = 0;
    danglingMass = 0;
    for (let t = 0; t < threads; t++) {
      residual += partials[slot + 2 * t]!;
      danglingMass += partials[slot + 2 * t + 1]!;
    }
    iterations++;
    if (thread === 0) onIteration?.(iterations, residual);
    const swap = x;
    x = y;
    y = swap;
    const swapZ = z;
    z = zNext;
    zNext = swapZ;
    if (residual <= tolerance) break;
  }
  if (thread === 0) {
    result[0] = iterations;
    result[1] = residual;
    result[2] = x === data.y ? 1 : 0;
  }
}

/** z = x * share over pages lo..hi; returns the dangling mass of x there. */
function startContributions(lo: number, hi: number, share: Float64Array, x: Float64Array, z: Float64Array): number {
  let danglingMass = 0;
  for (let v = lo; v < hi; v++) {
    const s = share[v]!;
    z[v] = x[v]! * s;
    if (s === 0) danglingMass += x[v]!;
  }
  return danglingMass;
}

// The two pulls are separate monomorphic functions so that V8 optimises
// each once; a per-page branch on the teleport kind would slow the hot loop.
const moments = new Float64Array(2);

/** Pages lo..hi: y = c * (pulled z) + constant, zNext = y * share; returns [||y - x||_1, dangling mass of y]. */
function pullUniform(
  lo: number,
  hi: number,
  inOffsets: Uint32Array,
  inSources: Int32Array,
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
  let e = inOffsets[lo]!;
  for (let v = lo; v < hi; v++) {
    const end = inOffsets[v + 1]!;
    let sum = 0;
    for (; e < end; e++) sum += z[inSources[e]!]!;
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

/** As pullUniform with y = c * (pulled z) + spread * dangling + jump * teleport. */
function pullPersonalised(
  lo: number,
  hi: number,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  share: Float64Array,
  z: Float64Array,
  zNext: Float64Array,
  x: Float64Array,
  y: Float64Array,
  c: number,
  spread: number,
  jump: number,
  teleport: Float64Array,
  dangling: Float64Array,
): Float64Array {
  let change = 0;
  let danglingMass = 0;
  let e = inOffsets[lo]!;
  for (let v = lo; v < hi; v++) {
    const end = inOffsets[v + 1]!;
    let sum = 0;
    for (; e < end; e++) sum += z[inSources[e]!]!;
    const value = c * sum + spread * dangling[v]! + jump * teleport[v]!;
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

/**
 * The memory-bound floor of a pull: one gather z[inSources[e]] per link
 * and nothing else (no per-page work, no writes but one sum per thread).
 * bench/pagerank-kernels.ts times it over a graph's own in-link array to
 * tell how close the PageRank kernels come to what the memory allows.
 */
export interface GatherData {
  inOffsets: Uint32Array;
  inSources: Int32Array;
  z: Float64Array;
  bounds: Int32Array;
  /** [repetitions]. */
  params: Float64Array;
  /** One sum per thread (kept so the loop is not optimised away). */
  sums: Float64Array;
}

export function gatherThread(context: TaskContext<GatherData>): void {
  const { data, thread } = context;
  const { inOffsets, inSources, z, bounds, params, sums } = data;
  const from = inOffsets[bounds[thread]!]!;
  const to = inOffsets[bounds[thread + 1]!]!;
  let total = 0;
  for (let r = 0; r < params[0]!; r++) {
    let sum = 0;
    for (let e = from; e < to; e++) sum += z[inSources[e]!]!;
    total += sum;
  }
  sums[thread] = total;
}
