/**
 * TrafficRank and HOTness (Tomlin 2003; NOTES section 4; traffic.ts has the model and the plain
 * solver) over the compact graph: each page's in-list and out-list decoded in page order inside the
 * sweep (a block of lists ahead of its gathers), never the plain arrays. The same balancing (a_j = sqrt((s sum_{i->j} a_i + t) / (s sum_{j->k}
 * 1/a_k + t)), the artificial node's scale, a_A = 1 after every sweep) and the same Anderson mixing of
 * the sweeps in log space, so the fixed point and the stopping rule (max_j |in_j - out_j| / in_j
 * below the tolerance) are the plain solver's. Without priors or known hits (those need the plain
 * form). What changes is memory:
 * - 1/a_k is divided out as it is gathered instead of kept (IEEE division gives the bits the plain
 *   solver stores, so only the rescale's rounding differs);
 * - Anderson mixing keeps no iterate: with f_k the sweep's step in log space and b = dx + df its
 *   history, the mixed scale is the swept one times e^(-ln a_A - sum gamma b_j) (the iterate before
 *   the sweep cancels), and the next dx is f_k - sum gamma b_j. Per page that leaves the step, the
 *   previous step, the pending dx and five slots each of df and dx + df: 13 numbers;
 * - those numbers may be float32 (`history`). They only propose the next iterate; whether it
 *   balances is judged by the sweep on the float64 scales, so the answer's accuracy is the
 *   tolerance's either way (measured: bench/traffic-compact.ts).
 * Memory: the in- and out-lists, 8 bytes per page for the scales, 13 x 8 or 13 x 4 for Anderson's
 * history, over which the result is written at the end (8 bytes per page for it without Anderson).
 *
 * Threads own ranges of pages cut at sampled offsets (balanced by the bytes of both lists) and sweep
 * them Gauss-Seidel, reading the other threads' scales as they are at that moment (asynchronous
 * relaxation, as parallel Gauss-Seidel PageRank solvers do): the fixed point is the same, the sweep
 * counts and the last digits vary from run to run on two threads; one thread is deterministic.
 * The sums the threads share (the totals, Anderson's dot products) are added in thread order, so
 * every thread takes the same decisions.
 */
import { OptionError } from '../errors.js';
import { type CompactLists, SAMPLE } from '../graph/compact.js';
import { LONG_PHASE_TIMEOUT_MS, barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64 } from '../parallel/shared-memory.js';
import { TRAFFIC_DEFAULTS, expNearZero, logRatio, solveRegularised } from './traffic.js';
import { decodeBlock, decodedBlock, listEnd as end, readHeader, splitBySamples, sumOfInverses, sumOfValues } from './compact-gather.js';

/** Anderson's depth: the plain solver's. */
const DEPTH = 5;
/** Per page: the step, the previous step, the pending dx, DEPTH slots of df and of dx + df. */
export const HISTORY_VECTORS = 3 + 2 * DEPTH;

export type CompactTrafficSweep = 'anderson' | 'gauss-seidel';
export type HistoryWidth = 'float64' | 'float32';

export interface CompactTrafficOptions {
  alpha?: number;
  tolerance?: number;
  maxSweeps?: number;
  sweep?: CompactTrafficSweep;
  /** Anderson's history in float64 (default) or float32 (half the memory). */
  history?: HistoryWidth;
  threads?: number;
  onSweep?: (sweep: number, violation: number) => void;
}

export interface CompactTrafficResult {
  /** Traffic through each page, normalised to sum 1. */
  trafficRank: Float64Array;
  /** a_j with a_A = 1. */
  hotness: Float64Array;
  mu: number;
  nu: number;
  entropy: number;
  realFlow: number;
  artificialFlow: number;
  sweeps: number;
  violation: number;
  converged: boolean;
  alpha: number;
  threads: number;
  history: HistoryWidth | null;
  /** Bytes held besides the lists: the scales, the history, the result. */
  bytes: { scales: number; history: number; result: number };
}

/** The bytes a solve holds besides the lists (for planning before it starts). */
export function compactTrafficBytes(n: number, sweep: CompactTrafficSweep, history: HistoryWidth): { scales: number; history: number; result: number } {
  // With Anderson the result is written over the history's first vectors (no bytes of its own).
  return { scales: 8 * n, history: sweep === 'anderson' ? HISTORY_VECTORS * (history === 'float32' ? 4 : 8) * n : 0, result: sweep === 'anderson' ? 0 : 8 * n };
}

type HistoryArray = Float64Array | Float32Array;

/** What the threads share. */
export interface CompactTrafficData {
  inSegments: Uint8Array[];
  inSamples: Float64Array;
  outSegments: Uint8Array[];
  outSamples: Float64Array;
  /** [in-lists' segment bytes, out-lists' segment bytes]. */
  layout: Float64Array;
  /** a_j: the scales, HOTness at the end. */
  value: Float64Array;
  /**
   * Anderson only (empty for Gauss-Seidel): the history, 13 vectors of `historyWidth` bytes per page
   * (historyViews), the traffic written over its first 8 n bytes at the end. The threads make their
   * views themselves: a view's byte offset past 2^31 does not survive the copy to a worker thread
   * (V8 writes it as 32 bits: "Unable to deserialize cloned data", and the worker never starts;
   * measured with Node 20 at Tomlin's size, a 9 GB history).
   */
  history: SharedArrayBuffer;
  historyWidth: number;
  /** The traffic through each page, without Anderson (with it: over the history). */
  traffic: Float64Array;
  /** Thread t sweeps pages bounds[t] .. bounds[t + 1]. */
  bounds: Int32Array;
  /** [alpha, tolerance, maximum sweeps, anderson (1) or not]. */
  params: Float64Array;
  /** Per thread, PARTIALS numbers. */
  partials: Float64Array;
  /** [sweeps, violation, diverged, s, t, realFlow, artificialIn, artificialOut, entropy's weighted sum, total traffic]. */
  result: Float64Array;
}

const PARTIALS = 2 * DEPTH + 2;

/**
 * TrafficRank and HOTness of a compact graph from its in-lists and out-lists (the two directions of
 * one graph: out-lists transposed from the in-lists).
 */
export function compactTrafficRank(inLists: CompactLists, outLists: CompactLists, options: CompactTrafficOptions = {}): CompactTrafficResult {
  const alpha = options.alpha ?? TRAFFIC_DEFAULTS.alpha;
  const tolerance = options.tolerance ?? TRAFFIC_DEFAULTS.tolerance;
  const maxSweeps = options.maxSweeps ?? TRAFFIC_DEFAULTS.maxSweeps;
  const sweep = options.sweep ?? 'anderson';
  const history = options.history ?? 'float64';
  if (!(alpha > 0 && alpha < 1)) throw new OptionError('alpha', `must be in (0, 1), got ${alpha}`);
  if (!(tolerance > 0)) throw new OptionError('tolerance', `must be positive, got ${tolerance}`);
  if (!(Number.isInteger(maxSweeps) && maxSweeps >= 1)) throw new OptionError('max-sweeps', `must be a positive integer, got ${maxSweeps}`);
  if (sweep !== 'anderson' && sweep !== 'gauss-seidel') throw new OptionError('sweep', `a compact graph is balanced by anderson or gauss-seidel sweeps, not '${String(sweep)}'`);
  if (history !== 'float64' && history !== 'float32') throw new OptionError('history', `expected float64 or float32, got '${String(history)}'`);
  const n = inLists.nodeCount;
  if (outLists.nodeCount !== n || outLists.linkCount !== inLists.linkCount) throw new RangeError('compactTrafficRank: the in-lists and out-lists are not of one graph');
  const threads = inLists.linkCount < 200_000 || n < 2 * SAMPLE * (options.threads ?? 1) ? 1 : Math.max(1, options.threads ?? 1);
  if (threads > 1) warmUpWorkers(threads);
  const anderson = sweep === 'anderson';
  // The history in one buffer (13 vectors); the traffic, written once the history is done with, over
  // its first 8 n bytes (one vector fewer at the peak: 1.4 GB at Tomlin's 1.73 x 10^8 pages).
  const width = history === 'float32' ? 4 : 8;
  const historyBuffer = new SharedArrayBuffer(anderson ? HISTORY_VECTORS * width * n : 0);
  const data: CompactTrafficData = {
    inSegments: inLists.segments,
    inSamples: inLists.samples,
    outSegments: outLists.segments,
    outSamples: outLists.samples,
    layout: sharedFloat64(2),
    value: sharedFloat64(n).fill(1),
    history: historyBuffer,
    historyWidth: width,
    traffic: anderson ? new Float64Array(0) : sharedFloat64(n),
    bounds: splitBySamples([inLists.samples, outLists.samples], n, threads, 4),
    params: sharedFloat64(4),
    partials: sharedFloat64(PARTIALS * threads),
    result: sharedFloat64(10),
  };
  data.layout.set([inLists.segmentBytes, outLists.segmentBytes]);
  data.params.set([alpha, tolerance, maxSweeps, anderson ? 1 : 0]);
  if (n > 0) runParallel('traffic-compact', data, threads, (context) => compactTrafficThread(context, options.onSweep));
  const [sweeps, violation, diverged, s, t, realFlow, artificialIn, artificialOut, weighted] = data.result as unknown as number[];
  const bytes = compactTrafficBytes(n, sweep, history);
  if (diverged === 1 || n === 0) {
    return {
      trafficRank: new Float64Array(n).fill(Number.NaN),
      hotness: new Float64Array(n).fill(Number.NaN),
      mu: Number.NaN,
      nu: Number.NaN,
      entropy: Number.NaN,
      realFlow: Number.NaN,
      artificialFlow: Number.NaN,
      sweeps: sweeps!,
      violation: n === 0 ? 0 : Infinity,
      converged: n === 0,
      alpha,
      threads,
      history: anderson ? history : null,
      bytes,
    };
  }
  const logS = Math.log(s!);
  const logT = Math.log(t!);
  const artificialFlow = artificialIn! + artificialOut!;
  // traffic.ts's finish(): -sum p ln p = -ln s * real - ln t * artificial - sum_j ln a_j (out_j - in_j).
  const entropy = -logS * realFlow! - logT * artificialFlow - weighted!;
  return {
    trafficRank: anderson ? new Float64Array(historyBuffer, 0, n) : data.traffic,
    hotness: data.value,
    mu: 1 + logS,
    nu: 1 + logT,
    entropy,
    realFlow: realFlow!,
    artificialFlow,
    sweeps: sweeps!,
    violation: violation!,
    converged: violation! < tolerance,
    alpha,
    threads,
    history: anderson ? history : null,
    bytes,
  };
}

/** Anderson's history as views of its buffer. */
interface HistoryViews {
  /** This sweep's raw step ln(new / old), the previous step, the pending dx. */
  step: HistoryArray;
  previousStep: HistoryArray;
  pendingDx: HistoryArray;
  df: HistoryArray[];
  both: HistoryArray[];
}

function historyViews(data: CompactTrafficData, n: number): HistoryViews {
  const { history, historyWidth } = data;
  const at = (k: number): HistoryArray =>
    history.byteLength === 0 ? new Float64Array(0) : historyWidth === 4 ? new Float32Array(history, 4 * k * n, n) : new Float64Array(history, 8 * k * n, n);
  return {
    step: at(0),
    previousStep: at(1),
    pendingDx: at(2),
    df: Array.from({ length: DEPTH }, (_, k) => at(3 + k)),
    both: Array.from({ length: DEPTH }, (_, k) => at(3 + DEPTH + k)),
  };
}

/** The blocks of pages lo..hi, for a kernel: [first page, end page, in segment, in start, out segment, out start]. */
function blocksOf(data: CompactTrafficData, lo: number, hi: number): number[] {
  const inBytes = data.layout[0]!;
  const outBytes = data.layout[1]!;
  const blocks: number[] = [];
  for (let v = lo; v < hi; v += SAMPLE) {
    const block = v / SAMPLE;
    const inStart = data.inSamples[block]!;
    const outStart = data.outSamples[block]!;
    const inSegment = Math.floor(inStart / inBytes);
    const outSegment = Math.floor(outStart / outBytes);
    blocks.push(v, Math.min(hi, v + SAMPLE), inSegment, inStart - inSegment * inBytes, outSegment, outStart - outSegment * outBytes);
  }
  return blocks;
}

/**
 * One thread's share: sweeps over its pages until the violation is below the tolerance, Anderson's
 * mixing after each, then the flows. Three barriers per sweep: after the sweep (the totals), after
 * the dot products (Anderson's), after the new scales are written.
 */
export function compactTrafficThread(context: TaskContext<CompactTrafficData>, onSweep?: (sweep: number, violation: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { value, params, partials, result } = data;
  const n = value.length;
  const views = historyViews(data, n);
  const lo = data.bounds[thread]!;
  const hi = data.bounds[thread + 1]!;
  const blocks = blocksOf(data, lo, hi);
  const alpha = params[0]!;
  const tolerance = params[1]!;
  const maxSweeps = params[2]!;
  const anderson = params[3] === 1;
  const mine = PARTIALS * thread;
  const totals = new Float64Array(PARTIALS);
  const sum = (count: number): void => {
    totals.fill(0);
    for (let k = 0; k < threads; k++) for (let i = 0; i < count; i++) totals[i]! += partials[PARTIALS * k + i]!;
  };
  // Anderson's state, the same on every thread: the scalars' coordinates (ln s, ln t), the Gram matrix.
  const scalarStep = new Float64Array(2);
  const scalarPrevious = new Float64Array(2);
  const scalarDx = new Float64Array(2);
  const scalarDf = Array.from({ length: DEPTH }, () => new Float64Array(2));
  const scalarBoth = Array.from({ length: DEPTH }, () => new Float64Array(2));
  const gram = new Float64Array(DEPTH * DEPTH);
  const gamma = new Float64Array(DEPTH);
  let stored = 0;
  let newest = -1;
  let started = false;
  let s = 1;
  let t = 1;
  let sweeps = 0;
  let violation = Infinity;
  let diverged = false;
  while (sweeps < maxSweeps) {
    sweepRange(data, views.step, blocks, s, t, anderson, out);
    partials.set(out, mine);
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    sum(4);
    let worst = 0;
    for (let k = 0; k < threads; k++) worst = Math.max(worst, partials[PARTIALS * k]!);
    const sumSource = totals[1]!;
    const sumInverse = totals[2]!;
    const real = totals[3]!;
    const artificial = Math.sqrt(sumSource / sumInverse);
    const artificialGap = Math.abs(t * sumSource - t * sumInverse) / (t * sumSource);
    if (artificialGap > worst) worst = artificialGap;
    sweeps++;
    violation = worst;
    if (thread === 0) onSweep?.(sweeps, violation);
    if (!Number.isFinite(violation) || !Number.isFinite(artificial) || artificial === 0) {
      diverged = true;
      break;
    }
    // Every thread has read the partials before any writes them again.
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    const converged = violation < tolerance;
    const nextS = alpha / real;
    const nextT = (1 - alpha) / (sumSource / artificial + sumInverse * artificial);
    if (converged || !anderson) {
      rescaleRange(value, lo, hi, artificial);
      s = nextS;
      t = nextT;
      barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
      if (converged) break;
      continue;
    }
    // Anderson (traffic.ts's AndersonMixer, without the iterate): f = raw step - ln a_A for the pages,
    // ln(next) - ln(this) for s and t.
    const logScale = Math.log(artificial);
    scalarStep[0] = Math.log(nextS) - Math.log(s);
    scalarStep[1] = Math.log(nextT) - Math.log(t);
    let slot = -1;
    if (started) {
      newest = (newest + 1) % DEPTH;
      if (stored < DEPTH) stored++;
      slot = newest;
      for (let i = 0; i < 2; i++) {
        scalarDf[slot]![i] = scalarStep[i]! - scalarPrevious[i]!;
        scalarBoth[slot]![i] = scalarDx[i]! + scalarDf[slot]![i]!;
      }
    }
    // The differences into the new slot, the step kept as the previous one, and the slot's dot products.
    historyRange(views, lo, hi, logScale, slot, out);
    scalarPrevious.set(scalarStep);
    let solution: Float64Array | null = null;
    if (stored > 0) {
      if (thread === 0) {
        // The scalars' coordinates come after the pages', as in the plain solver.
        for (let a = 0; a < DEPTH; a++) {
          out[2 * a]! += scalarDf[a]![0]! * scalarDf[slot]![0]! + scalarDf[a]![1]! * scalarDf[slot]![1]!;
          out[2 * a + 1]! += scalarDf[a]![0]! * scalarStep[0]! + scalarDf[a]![1]! * scalarStep[1]!;
        }
      }
      partials.set(out.subarray(0, 2 * DEPTH), mine);
      barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
      sum(2 * DEPTH);
      const rhs = new Float64Array(stored);
      for (let a = 0; a < stored; a++) {
        gram[a * DEPTH + slot] = totals[2 * a]!;
        gram[slot * DEPTH + a] = totals[2 * a]!;
        rhs[a] = totals[2 * a + 1]!;
      }
      solution = solveRegularised(gram, DEPTH, rhs, stored);
      barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    }
    started = true;
    gamma.fill(0);
    if (solution !== null) gamma.set(solution);
    // The mixed scales (gamma all 0 without a solution: the plain rescale), and the pending dx.
    mixRange(value, views, lo, hi, artificial, gamma);
    let correctionS = 0;
    let correctionT = 0;
    for (let a = 0; a < DEPTH; a++) {
      correctionS += gamma[a]! * scalarBoth[a]![0]!;
      correctionT += gamma[a]! * scalarBoth[a]![1]!;
    }
    scalarDx[0] = scalarStep[0]! - correctionS;
    scalarDx[1] = scalarStep[1]! - correctionT;
    s *= Math.exp(scalarDx[0]!);
    t *= Math.exp(scalarDx[1]!);
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  }
  if (diverged) {
    if (thread === 0) result.set([sweeps, Infinity, 1]);
    return;
  }
  // The final scales' link sums give s and t (both totals exactly), then every flow (traffic.ts's end),
  // with Anderson written over the history's first 8 n bytes.
  const traffic = anderson ? new Float64Array(data.history, 0, n) : data.traffic;
  outSumsRange(data, blocks, out);
  partials.set(out.subarray(0, 2), mine);
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  sum(2);
  s = alpha / totals[0]!;
  t = (1 - alpha) / totals[1]!;
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  flowsRange(data, traffic, blocks, s, t, out);
  partials.set(out.subarray(0, 6), mine);
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  sum(6);
  let worst = 0;
  for (let k = 0; k < threads; k++) worst = Math.max(worst, partials[PARTIALS * k]!);
  const [, total, realFlow, artificialIn, artificialOut, weighted] = totals as unknown as number[];
  const artificialGap = Math.abs(artificialIn! - artificialOut!) / artificialIn!;
  if (artificialGap > worst || Number.isNaN(artificialGap)) worst = artificialGap;
  for (let v = lo; v < hi; v++) traffic[v]! /= total!;
  if (thread === 0) result.set([sweeps, worst, 0, s, t, realFlow!, artificialIn!, artificialOut!, weighted!, total!]);
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
}

/** Each thread's partial sums (a module's array: every worker has its own). */
const out = new Float64Array(PARTIALS);

function rescaleRange(value: Float64Array, lo: number, hi: number, artificial: number): void {
  for (let j = lo; j < hi; j++) value[j]! /= artificial;
}

/**
 * One Gauss-Seidel sweep over the thread's blocks (traffic.ts's plainSweep): each page's in-sum and
 * out-sum, its conservation gap before the update, its new scale; with Anderson its raw step
 * ln(new / old). out = [largest gap, sum a_j, sum 1/a_j, sum a_j * out-sum_j].
 */
/** Each thread's blocks decoded ahead (each worker has its own module). */
const inBlock = decodedBlock();
const outBlock = decodedBlock();

function sweepRange(data: CompactTrafficData, step: HistoryArray, blocks: number[], s: number, t: number, anderson: boolean, result: Float64Array): void {
  const { value, inSegments, outSegments } = data;
  let worst = 0;
  let sumSource = 0;
  let sumInverse = 0;
  let real = 0;
  for (let b = 0; b < blocks.length; b += 6) {
    const first = blocks[b]!;
    const last = blocks[b + 1]!;
    const inBytes = inSegments[blocks[b + 2]!]!;
    const outBytes = outSegments[blocks[b + 4]!]!;
    // Both directions' lists of the block decoded first, then gathered page after page (each page
    // still sees the scales its block's earlier pages just took: the same Gauss-Seidel sweep).
    decodeBlock(inBytes, blocks[b + 3]!, first, last, inBlock);
    decodeBlock(outBytes, blocks[b + 5]!, first, last, outBlock);
    const inSources = inBlock.sources;
    const inEnds = inBlock.ends;
    const outSources = outBlock.sources;
    const outEnds = outBlock.ends;
    let a = 0;
    let o = 0;
    for (let j = first; j < last; j++) {
      let inSum = 0;
      for (const stop = inEnds[j - first]!; a < stop; a++) inSum += value[inSources[a]!]!;
      let outSum = 0;
      for (const stop = outEnds[j - first]!; o < stop; o++) outSum += 1 / value[outSources[o]!]!;
      const numerator = s * inSum + t;
      const denominator = s * outSum + t;
      const old = value[j]!;
      const inFlow = numerator / old;
      const outFlow = denominator * old;
      const gap = Math.abs(inFlow - outFlow) / inFlow;
      if (gap > worst) worst = gap;
      const next = Math.sqrt(numerator / denominator);
      if (anderson) step[j] = logRatio(next, old);
      value[j] = next;
      sumSource += next;
      sumInverse += 1 / next;
      real += next * outSum;
    }
  }
  result[0] = worst;
  result[1] = sumSource;
  result[2] = sumInverse;
  result[3] = real;
}

/**
 * Anderson's history over pages lo..hi: f = step - ln a_A; into `slot` (when >= 0) df = f - previous
 * f and dx + df; the previous step becomes f; out[2a], out[2a + 1] = df_a . df_slot and df_a . f.
 */
function historyRange(views: HistoryViews, lo: number, hi: number, logScale: number, slot: number, result: Float64Array): void {
  const { step, previousStep, pendingDx, df, both } = views;
  result.fill(0);
  if (slot < 0) {
    for (let j = lo; j < hi; j++) previousStep[j] = step[j]! - logScale;
    return;
  }
  const dfSlot = df[slot]!;
  const bothSlot = both[slot]!;
  for (let j = lo; j < hi; j++) {
    const f = step[j]! - logScale;
    const difference = f - previousStep[j]!;
    dfSlot[j] = difference;
    bothSlot[j] = pendingDx[j]! + difference;
    previousStep[j] = f;
  }
  // The dots of the five slots (an unfilled slot holds zeros) in one pass, against the new df and f.
  const [d0, d1, d2, d3, d4] = df as [HistoryArray, HistoryArray, HistoryArray, HistoryArray, HistoryArray];
  let g0 = 0;
  let g1 = 0;
  let g2 = 0;
  let g3 = 0;
  let g4 = 0;
  let r0 = 0;
  let r1 = 0;
  let r2 = 0;
  let r3 = 0;
  let r4 = 0;
  for (let j = lo; j < hi; j++) {
    const y = dfSlot[j]!;
    const f = previousStep[j]!;
    const x0 = d0[j]!;
    const x1 = d1[j]!;
    const x2 = d2[j]!;
    const x3 = d3[j]!;
    const x4 = d4[j]!;
    g0 += x0 * y;
    r0 += x0 * f;
    g1 += x1 * y;
    r1 += x1 * f;
    g2 += x2 * y;
    r2 += x2 * f;
    g3 += x3 * y;
    r3 += x3 * f;
    g4 += x4 * y;
    r4 += x4 * f;
  }
  result.set([g0, r0, g1, r1, g2, r2, g3, r3, g4, r4]);
}

/**
 * The mixed scales over pages lo..hi: a_j = swept a_j / a_A * e^(-sum gamma_a b_a,j), and the pending
 * dx = f - sum gamma_a b_a,j (gamma all zero: the plain rescale, dx = f).
 */
function mixRange(value: Float64Array, views: HistoryViews, lo: number, hi: number, artificial: number, gamma: Float64Array): void {
  const { previousStep, pendingDx, both } = views;
  const [b0, b1, b2, b3, b4] = both as [HistoryArray, HistoryArray, HistoryArray, HistoryArray, HistoryArray];
  const [c0, c1, c2, c3, c4] = gamma as unknown as [number, number, number, number, number];
  for (let j = lo; j < hi; j++) {
    const correction = c0 * b0[j]! + c1 * b1[j]! + c2 * b2[j]! + c3 * b3[j]! + c4 * b4[j]!;
    value[j] = (value[j]! / artificial) * expNearZero(-correction);
    pendingDx[j] = previousStep[j]! - correction;
  }
}

/** out = [sum a_j * out-sum_j, sum (a_j + 1/a_j)] over the thread's pages. */
function outSumsRange(data: CompactTrafficData, blocks: number[], result: Float64Array): void {
  const { value, outSegments } = data;
  let real = 0;
  let artificial = 0;
  for (let b = 0; b < blocks.length; b += 6) {
    const outBytes = outSegments[blocks[b + 4]!]!;
    let q = blocks[b + 5]!;
    for (let j = blocks[b]!; j < blocks[b + 1]!; j++) {
      const header = readHeader(outBytes, q);
      const outSum = sumOfInverses(outBytes, end, j, header, value);
      q = end;
      const a = value[j]!;
      real += a * outSum;
      artificial += a + 1 / a;
    }
  }
  result[0] = real;
  result[1] = artificial;
}

/**
 * Every page's flows with the final s and t (traffic.ts's finish): traffic[j] = in_j; out = [largest
 * gap, total in, real flow, artificial in, artificial out, sum ln a_j (out_j - in_j)].
 */
function flowsRange(data: CompactTrafficData, traffic: Float64Array, blocks: number[], s: number, t: number, result: Float64Array): void {
  const { value, inSegments, outSegments } = data;
  let worst = 0;
  let total = 0;
  let realFlow = 0;
  let artificialIn = 0;
  let artificialOut = 0;
  let weighted = 0;
  for (let b = 0; b < blocks.length; b += 6) {
    const inBytes = inSegments[blocks[b + 2]!]!;
    const outBytes = outSegments[blocks[b + 4]!]!;
    let p = blocks[b + 3]!;
    let q = blocks[b + 5]!;
    for (let j = blocks[b]!; j < blocks[b + 1]!; j++) {
      const inHeader = readHeader(inBytes, p);
      const inSum = sumOfValues(inBytes, end, j, inHeader, value);
      p = end;
      const outHeader = readHeader(outBytes, q);
      const outSum = sumOfInverses(outBytes, end, j, outHeader, value);
      q = end;
      const a = value[j]!;
      const into = (s * inSum + t) / a;
      const from = (s * outSum + t) * a;
      traffic[j] = into;
      total += into;
      const gap = Math.abs(into - from) / into;
      if (gap > worst) worst = gap;
      realFlow += s * outSum * a;
      artificialIn += t * a;
      artificialOut += t / a;
      weighted += Math.log(a) * (from - into);
    }
  }
  result[0] = worst;
  result[1] = total;
  result[2] = realFlow;
  result[3] = artificialIn;
  result[4] = artificialOut;
  result[5] = weighted;
}
