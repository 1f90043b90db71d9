/**
 * PageRank by Gauss-Seidel sweeps over the compact in-lists: each page in turn takes
 *   x_v = c * sum over u -> v of x_u / d_u + (c * D + 1 - c) / n
 * with the values of the pages already swept in this sweep (their contributions z_u = x_u / d_u are
 * updated in place), D the dangling pages' mass as of the last sweep. That is the linear system
 * whose solution is Google's PageRank (the Web Graph Analyzer paper's Definition 4: summing it
 * gives sum x = 1), the system the plain form's Gauss-Seidel (pagerank-scc.ts) solves component by
 * component; here the pages go in id order, which keeps web graphs' locality, and no components
 * are computed (that would take the out-lists too).
 *
 * The stopping rule is every solver's: ||pi G - pi||_1 <= tolerance for pi = x / sum x, measured by
 * one pass like a power step's (without writing) once a sweep changes x by no more than the
 * tolerance; when it is not yet met the sweeps go on.
 *
 * Two threads sweep their own pages (ranges cut at sampled offsets, balanced by bytes) and read
 * the other's contributions as they are (asynchronous Gauss-Seidel, as traffic-compact.ts): the
 * fixed point and the stopping rule do not change, the sweep counts may by one or two between runs.
 * Memory: the lists, the out-degrees, x and z (16 bytes per page) against power iteration's 32.
 */
import type { CompactLists } from '../graph/compact.js';
import { SAMPLE } from '../graph/compact.js';
import { LONG_PHASE_TIMEOUT_MS, barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64 } from '../parallel/shared-memory.js';
import { listEnd as end, readHeader, splitBySamples, sumOfValues } from './compact-gather.js';

export interface CompactGaussSeidelData {
  segments: Uint8Array[];
  samples: Float64Array;
  /** [segment bytes]. */
  layout: Float64Array;
  outDegree: Int32Array;
  x: Float64Array;
  /** x_u / d_u for pages with out-links, 0 for dangling ones. */
  z: Float64Array;
  bounds: Int32Array;
  /** [damping, tolerance, maximum sweeps]. */
  params: Float64Array;
  /** Per thread: change, dangling mass, total mass, residual. */
  partials: Float64Array;
  /** [sweeps, residual, checks]. */
  result: Float64Array;
}

export interface CompactGaussSeidelRun {
  scores: Float64Array;
  sweeps: number;
  /** The passes that measured ||pi G - pi||_1. */
  checks: number;
  residual: number;
  converged: boolean;
  threads: number;
}

/** Google's PageRank by Gauss-Seidel sweeps over compact in-lists; the scores sum to 1. */
export function compactGaussSeidel(
  lists: CompactLists,
  outDegree: Int32Array,
  options: {
    damping: number;
    tolerance: number;
    maxIterations: number;
    threads?: number;
    onIteration?: (sweep: number, change: number) => void;
    /** The vector to start from (default uniform); its values are copied. */
    initial?: Float64Array;
  },
): CompactGaussSeidelRun {
  const n = lists.nodeCount;
  const threads = lists.linkCount < 200_000 || n < 2 * SAMPLE * (options.threads ?? 1) ? 1 : Math.max(1, options.threads ?? 1);
  if (threads > 1) warmUpWorkers(threads);
  const data: CompactGaussSeidelData = {
    segments: lists.segments,
    samples: lists.samples,
    layout: sharedFloat64(1).fill(lists.segmentBytes),
    outDegree,
    x: options.initial === undefined ? sharedFloat64(n).fill(1 / n) : copyShared(options.initial, n),
    z: sharedFloat64(n),
    bounds: splitBySamples(lists.samples, n, threads),
    params: sharedFloat64(3),
    partials: sharedFloat64(4 * threads),
    result: sharedFloat64(3),
  };
  data.params.set([options.damping, options.tolerance, options.maxIterations]);
  if (n > 0) runParallel('pagerank-compact-gs', data, threads, (context) => compactGaussSeidelThread(context, options.onIteration));
  const [sweeps, residual, checks] = data.result as unknown as [number, number, number];
  return { scores: data.x, sweeps, checks, residual, converged: residual <= options.tolerance, threads };
}

function copyShared(values: Float64Array, n: number): Float64Array {
  if (values.length !== n) throw new RangeError(`compactGaussSeidel: the initial vector has ${values.length} values for ${n} pages`);
  const x = sharedFloat64(n);
  x.set(values);
  return x;
}

/**
 * One thread's share: sweeps, the totals after each (a barrier), the check pass when the change is
 * small (a barrier), and at the end x divided by its total.
 */
export function compactGaussSeidelThread(context: TaskContext<CompactGaussSeidelData>, onIteration?: (sweep: number, change: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { x, z, outDegree, partials, params } = data;
  const n = outDegree.length;
  const c = params[0]!;
  const tolerance = params[1]!;
  const maxSweeps = params[2]!;
  const lo = data.bounds[thread]!;
  const hi = data.bounds[thread + 1]!;
  const segmentBytes = data.layout[0]!;
  // The thread's blocks: [first page, end page, segment, local start].
  const blocks: number[] = [];
  for (let v = lo; v < hi; v += SAMPLE) {
    const start = data.samples[v / SAMPLE]!;
    const segment = Math.floor(start / segmentBytes);
    blocks.push(v, Math.min(hi, v + SAMPLE), segment, start - segment * segmentBytes);
  }
  const totals = new Float64Array(4);
  const sum = (): void => {
    totals.fill(0);
    for (let k = 0; k < threads; k++) for (let i = 0; i < 4; i++) totals[i]! += partials[4 * k + i]!;
  };
  // The start: z from the uniform x, and the dangling mass.
  let dangling = 0;
  for (let v = lo; v < hi; v++) {
    const d = outDegree[v]!;
    if (d > 0) z[v] = x[v]! / d;
    else dangling += x[v]!;
  }
  partials[4 * thread + 1] = dangling;
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  sum();
  let danglingMass = totals[1]!;
  let total = 1;
  let sweeps = 0;
  let checks = 0;
  let residual = Infinity;
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  while (sweeps < maxSweeps) {
    const constant = (c * danglingMass + 1 - c) / n;
    sweep(data, blocks, c, constant, out);
    partials.set(out.subarray(0, 3), 4 * thread);
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    sum();
    sweeps++;
    const change = totals[0]!;
    danglingMass = totals[1]!;
    total = totals[2]!;
    if (thread === 0) onIteration?.(sweeps, change);
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    if (change > tolerance * total && sweeps < maxSweeps) continue;
    // The stopping rule: one pass measuring ||pi G - pi||_1 (as a power step, nothing written).
    partials[4 * thread + 3] = residualPass(data, blocks, c, (c * danglingMass + (1 - c) * total) / n);
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    residual = 0;
    for (let k = 0; k < threads; k++) residual += partials[4 * k + 3]!;
    residual /= total;
    checks++;
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    if (residual <= tolerance) break;
  }
  for (let v = lo; v < hi; v++) x[v]! /= total;
  if (thread === 0) data.result.set([sweeps, residual, checks]);
}

const out = new Float64Array(3);

/** One sweep of the thread's pages: out = [sum |change of x|, dangling mass, total mass] after it. */
function sweep(data: CompactGaussSeidelData, blocks: number[], c: number, constant: number, result: Float64Array): void {
  const { x, z, outDegree, segments } = data;
  let change = 0;
  let dangling = 0;
  let total = 0;
  for (let b = 0; b < blocks.length; b += 4) {
    const bytes = segments[blocks[b + 2]!]!;
    let p = blocks[b + 3]!;
    for (let v = blocks[b]!, last = blocks[b + 1]!; v < last; v++) {
      const header = readHeader(bytes, p);
      const value = c * sumOfValues(bytes, end, v, header, z) + constant;
      p = end;
      change += Math.abs(value - x[v]!);
      x[v] = value;
      total += value;
      const d = outDegree[v]!;
      if (d > 0) z[v] = value / d;
      else dangling += value;
    }
  }
  result[0] = change;
  result[1] = dangling;
  result[2] = total;
}

/** sum over the thread's pages of |c * sum z_u + constant - x_v|: the residual of x (not normalised). */
function residualPass(data: CompactGaussSeidelData, blocks: number[], c: number, constant: number): number {
  const { x, z, segments } = data;
  let residual = 0;
  for (let b = 0; b < blocks.length; b += 4) {
    const bytes = segments[blocks[b + 2]!]!;
    let p = blocks[b + 3]!;
    for (let v = blocks[b]!, last = blocks[b + 1]!; v < last; v++) {
      const header = readHeader(bytes, p);
      const value = c * sumOfValues(bytes, end, v, header, z) + constant;
      p = end;
      residual += Math.abs(value - x[v]!);
    }
  }
  return residual;
}
