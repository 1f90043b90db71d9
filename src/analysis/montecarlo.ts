/**
 * Monte Carlo PageRank: the Web Graph Analyzer paper's Algorithm 2, "MC
 * complete path stopping at dangling nodes" (Avrachenkov et al.; estimator
 * and accuracy in ../shared/papers/NOTES.md, section 2).
 *
 * m walks start at every page. At each step a walk stops with probability
 * 1 - c, or when it is at a dangling page; otherwise it follows a uniformly
 * chosen out-link. Every visit counts, the start and the last page
 * included, and pi_j = visits_j / (total visits): normalised by the visits,
 * not by n * m, this is PageRank with dangling mass spread uniformly.
 *
 * Accuracy: walks from different start pages are independent, and the
 * estimate is a ratio R_j = V_j / V of sums over walks (V_j = sum_w X_wj, the
 * visits of walk w to j; V = sum_w L_w, the walks' lengths). Its variance is
 * estimated by linearisation, sum_w (X_wj - R_j L_w)^2 / V^2, taken within
 * each start page's m walks when m >= 2 (stratified sampling: each page is a
 * stratum) and over all walks when m = 1, where it is slightly conservative
 * because it also counts the differences between start pages. This is the
 * sampling error the NOTES' accuracy formula m >= 3.84 (1-c)(2 z_jj - 1) /
 * (eps^2 n pi_j) describes.
 *
 * Walks run in parallel on worker threads over the shared graph. Their
 * random numbers come from one seeded stream per block of start pages, so
 * results depend on the seed and not on the number of threads. Walks can be
 * kept (paths) so that after the graph changes only the walks that reached a
 * changed page are continued on the new graph (MonteCarloWalks.update).
 */
import { OptionError } from '../errors.js';
import type { Graph } from '../graph/graph.js';
import { type TaskContext, defaultThreads, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64 } from '../parallel/shared-memory.js';
import { Random } from '../util/random.js';

export interface MonteCarloOptions {
  /** m, walks started at every page: 1. */
  walksPerPage?: number;
  /** c, the probability of continuing a walk: 0.85. */
  damping?: number;
  seed?: number;
  /** Threads (the calling one included): the machine's cores. */
  threads?: number;
}

export const MONTE_CARLO_DEFAULTS = { walksPerPage: 1, damping: 0.85, seed: 1 } as const;

export interface MonteCarloResult {
  /** pi_j = visits_j / total visits. */
  scores: Float64Array;
  /** Estimated standard deviation of each score (NaN for pages no walk reached). */
  standardDeviations: Float64Array;
  /** V_j: visits to each page. */
  visits: Float64Array;
  totalVisits: number;
  walks: number;
  walksPerPage: number;
  damping: number;
  seed: number;
}

/** Start pages are cut into blocks of this size, each with its own random stream. */
export const START_BLOCK = 4096;

export function checkMonteCarloOptions(options: MonteCarloOptions): Required<MonteCarloOptions> {
  const walksPerPage = options.walksPerPage ?? MONTE_CARLO_DEFAULTS.walksPerPage;
  const damping = options.damping ?? MONTE_CARLO_DEFAULTS.damping;
  const seed = options.seed ?? MONTE_CARLO_DEFAULTS.seed;
  const threads = options.threads ?? defaultThreads();
  if (!(Number.isInteger(walksPerPage) && walksPerPage >= 1 && walksPerPage <= 1_000_000)) {
    throw new OptionError('walks', `must be an integer from 1 to 1000000, got ${walksPerPage}`);
  }
  if (!(damping >= 0 && damping < 1)) throw new OptionError('damping', `must be in [0, 1), got ${damping}`);
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new OptionError('seed', `must be an integer from 0 to 4294967295, got ${seed}`);
  }
  if (!(Number.isInteger(threads) && threads >= 1)) throw new OptionError('threads', `must be a positive integer, got ${threads}`);
  return { walksPerPage, damping, seed, threads };
}

/** The seed of the random stream of one block of start pages (or of one update round's walk). */
export function streamSeed(seed: number, stream: number): number {
  // A splitmix-style mix so that neighbouring streams are unrelated.
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Continues one walk that is at page `v` (already counted) on the graph,
 * appending the pages it goes on to visit to `visit`. Returns the last page.
 */
export function continueWalk(
  v: number,
  outOffsets: Uint32Array,
  outTargets: Int32Array,
  damping: number,
  random: Random,
  visit: (page: number) => void,
): number {
  let page = v;
  for (;;) {
    const begin = outOffsets[page]!;
    const degree = outOffsets[page + 1]! - begin;
    if (degree === 0 || random.next() >= damping) return page;
    page = outTargets[begin + (degree === 1 ? 0 : random.nextInt(degree))]!;
    visit(page);
  }
}

/**
 * Sums over walks that the estimate and its variance need, per page j:
 * visits V = sum X, and sum X^2, sum X L over walks; with m >= 2 also, per
 * start page, (sum of its walks' X)^2 and (sum X)(sum L) (the strata).
 * Global sums of L^2 and of (stratum L)^2 are in `totals`.
 */
export interface VisitSums {
  visits: Float64Array;
  squares: Float64Array;
  cross: Float64Array;
  stratumSquares: Float64Array | null;
  stratumCross: Float64Array | null;
  /** [sum of L^2, sum over strata of (sum L)^2]. */
  totals: Float64Array;
}

/** Accumulates VisitSums walk by walk; `walkCount` and `stratumSum` are scratch of n entries. */
export class VisitAccumulator {
  private readonly walkCount: Int32Array;
  private readonly stratumSum: Float64Array | null;
  private readonly stratumPages: number[] = [];
  private stratumLength = 0;

  constructor(readonly sums: VisitSums) {
    const n = sums.visits.length;
    this.walkCount = new Int32Array(n);
    this.stratumSum = sums.stratumSquares === null ? null : new Float64Array(n);
  }

  /** Adds one walk, given as its pages path[0 .. length). */
  addWalk(path: ArrayLike<number>, begin: number, end: number): void {
    const { visits, squares, cross, totals } = this.sums;
    const count = this.walkCount;
    const length = end - begin;
    for (let k = begin; k < end; k++) count[path[k]!]!++;
    for (let k = begin; k < end; k++) {
      const page = path[k]!;
      const x = count[page]!;
      if (x === 0) continue;
      count[page] = 0;
      visits[page]! += x;
      squares[page]! += x * x;
      cross[page]! += x * length;
      if (this.stratumSum !== null) {
        if (this.stratumSum[page] === 0) this.stratumPages.push(page);
        this.stratumSum[page]! += x;
      }
    }
    totals[0]! += length * length;
    this.stratumLength += length;
  }

  /** Closes the walks of one start page (a stratum). */
  endStratum(): void {
    const { stratumSquares, stratumCross, totals } = this.sums;
    const sum = this.stratumSum;
    if (sum !== null && stratumSquares !== null && stratumCross !== null) {
      for (const page of this.stratumPages) {
        const x = sum[page]!;
        stratumSquares[page]! += x * x;
        stratumCross[page]! += x * this.stratumLength;
        sum[page] = 0;
      }
      this.stratumPages.length = 0;
    }
    totals[1]! += this.stratumLength * this.stratumLength;
    this.stratumLength = 0;
  }
}

/** VisitSums for n pages, on shared memory, `copies` of them end to end (one per thread). */
export function allocateVisitSums(n: number, stratified: boolean, copies = 1): VisitSums[] {
  const block = (length: number): Float64Array => sharedFloat64(length * copies);
  const visits = block(n);
  const squares = block(n);
  const cross = block(n);
  const stratumSquares = stratified ? block(n) : null;
  const stratumCross = stratified ? block(n) : null;
  const totals = block(2);
  return Array.from({ length: copies }, (_, t) => ({
    visits: visits.subarray(t * n, (t + 1) * n),
    squares: squares.subarray(t * n, (t + 1) * n),
    cross: cross.subarray(t * n, (t + 1) * n),
    stratumSquares: stratumSquares === null ? null : stratumSquares.subarray(t * n, (t + 1) * n),
    stratumCross: stratumCross === null ? null : stratumCross.subarray(t * n, (t + 1) * n),
    totals: totals.subarray(2 * t, 2 * t + 2),
  }));
}

/** Shared data of a parallel Monte Carlo run. */
export interface WalkData {
  outOffsets: Uint32Array;
  outTargets: Int32Array;
  /** [damping, walks per page, seed, pages]. */
  params: Float64Array;
  /** One VisitSums per thread. */
  sums: VisitSums[];
}

/** One thread's share of the walks: the blocks of start pages t, t + T, t + 2T, ... */
export function simulateWalks(context: TaskContext<WalkData>): void {
  const { data, thread, threads } = context;
  const { outOffsets, outTargets, params } = data;
  const damping = params[0]!;
  const walksPerPage = params[1]!;
  const seed = params[2]!;
  const n = params[3]!;
  const accumulator = new VisitAccumulator(data.sums[thread]!);
  let path = new Int32Array(64);
  const blocks = Math.ceil(n / START_BLOCK);
  for (let block = thread; block < blocks; block += threads) {
    const random = new Random(streamSeed(seed, block));
    const end = Math.min(n, (block + 1) * START_BLOCK);
    for (let start = block * START_BLOCK; start < end; start++) {
      for (let w = 0; w < walksPerPage; w++) {
        let length = 0;
        let page = start;
        for (;;) {
          if (length === path.length) {
            const longer = new Int32Array(2 * length);
            longer.set(path);
            path = longer;
          }
          path[length++] = page;
          const begin = outOffsets[page]!;
          const degree = outOffsets[page + 1]! - begin;
          if (degree === 0 || random.next() >= damping) break;
          page = outTargets[begin + (degree === 1 ? 0 : random.nextInt(degree))]!;
        }
        accumulator.addWalk(path, 0, length);
      }
      accumulator.endStratum();
    }
  }
}

/** The threads a run uses: they pay off only when there are enough walks to share (one block of start pages each at least). */
export function monteCarloThreads(n: number, walksPerPage: number, requested: number): number {
  return n * walksPerPage < 200_000 ? 1 : Math.min(requested, Math.max(1, Math.ceil(n / START_BLOCK)));
}

/** Monte Carlo PageRank of every page (Algorithm 2). */
export function monteCarloPageRank(graph: Graph, options: MonteCarloOptions = {}): MonteCarloResult {
  const { walksPerPage, damping, seed, threads: requested } = checkMonteCarloOptions(options);
  const n = graph.nodeCount;
  const threads = monteCarloThreads(n, walksPerPage, requested);
  if (threads > 1) warmUpWorkers(threads);
  const data: WalkData = {
    outOffsets: graph.outOffsets,
    outTargets: graph.outTargets,
    params: sharedFloat64(4),
    sums: allocateVisitSums(n, walksPerPage > 1, threads),
  };
  data.params.set([damping, walksPerPage, seed, n]);
  runParallel('montecarlo-walks', data, threads, simulateWalks);
  const total = allocateVisitSums(n, walksPerPage > 1)[0]!;
  for (const part of data.sums) addVisitSums(total, part);
  return estimateFromSums(total, n * walksPerPage, walksPerPage, damping, seed);
}

export function addVisitSums(into: VisitSums, part: VisitSums): void {
  const add = (a: Float64Array | null, b: Float64Array | null): void => {
    if (a === null || b === null) return;
    for (let j = 0; j < a.length; j++) a[j]! += b[j]!;
  };
  add(into.visits, part.visits);
  add(into.squares, part.squares);
  add(into.cross, part.cross);
  add(into.stratumSquares, part.stratumSquares);
  add(into.stratumCross, part.stratumCross);
  add(into.totals, part.totals);
}

/** Scores and their standard deviations from the sums over walks (see the header). */
export function estimateFromSums(
  sums: VisitSums,
  walks: number,
  walksPerPage: number,
  damping: number,
  seed: number,
): MonteCarloResult {
  const { visits, squares, cross, stratumSquares, stratumCross, totals } = sums;
  const n = visits.length;
  let totalVisits = 0;
  for (let j = 0; j < n; j++) totalVisits += visits[j]!;
  const scores = new Float64Array(n);
  const standardDeviations = new Float64Array(n);
  const m = walksPerPage;
  for (let j = 0; j < n; j++) {
    if (visits[j] === 0 || totalVisits === 0) {
      standardDeviations[j] = Number.NaN;
      continue;
    }
    const r = visits[j]! / totalVisits;
    scores[j] = r;
    // sum_w (X - r L)^2, then (stratified) minus each stratum's (sum X - r sum L)^2 / m.
    let variance = squares[j]! - 2 * r * cross[j]! + r * r * totals[0]!;
    if (m > 1 && stratumSquares !== null && stratumCross !== null) {
      const between = stratumSquares[j]! - 2 * r * stratumCross[j]! + r * r * totals[1]!;
      variance = (m / (m - 1)) * (variance - between / m);
    }
    standardDeviations[j] = Math.sqrt(Math.max(0, variance)) / totalVisits;
  }
  return { scores, standardDeviations, visits, totalVisits, walks, walksPerPage, damping, seed };
}
