/**
 * PageRank by Gauss-Seidel over strongly connected components in topological
 * order, the approach of PRPACK (Gleich et al.), the solver behind igraph.
 *
 * With the dangling distribution equal to the teleport distribution v,
 * PageRank is the normalised solution of the linear system
 *     y = c P0^T y + v,   pi = y / ||y||_1,
 * where P0 is the hyperlink matrix with the dangling rows left at zero (the
 * Sherman-Morrison identity the NOTES cite for Monte Carlo). In that system a
 * page depends only on its predecessors, so after numbering the strongly
 * connected components in topological order each component can be solved
 * once its predecessors are final:
 * - a single page (most of a web graph: dangling pages, pages nobody links
 *   back to) is exact in one pass: y_j = v_j + c * sum_{i->j} y_i / d_i;
 * - a larger component iterates Gauss-Seidel sweeps on its own links, with
 *   the links from earlier components folded into a constant. After every
 *   sweep of a small component its total mass is set to the value its flow
 *   balance implies (one-block aggregation), which removes the slowest error
 *   mode of nearly closed components such as link farms; components with many
 *   links get plain sweeps, the largest split between threads
 *   (solveLargeComponent).
 * A component stops when its last sweep changed it by at most
 * tolerance * (its mass); the sum over components bounds the residual of the
 * normalised vector by about c * tolerance. The result is then verified
 * with one product by the Google matrix, ||pi G - pi||_1 <= tolerance, the
 * same quantity power iteration stops on; more sweeps follow if it is not met.
 * Like power iteration, the solver returns that last product, pi G.
 *
 * Inside a component pages are swept in the input's page order (id order),
 * which keeps the locality of the input's numbering (crawl order, host order,
 * BV order) for the gathers. Reverse depth-first finishing order
 * (SccResult.finishOrder, used when the caller's components carry it) points
 * more links forward, but scatters the gathers: on the 10^8-link benchmark
 * graph a solve took 71.0 s in finishing order against 50.6 s in id order, at
 * 23.5 and 22.6 power iterations' worth of work; on cnr-2000 (2 threads) 46.6
 * against 42.4 at 1e-10, 59.0 against 52.2 at 1e-12 (measured 2026-11-24,
 * BENCHMARKS.md).
 */
import type { Graph } from '../graph/graph.js';
import { barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32, sharedUint32 } from '../parallel/shared-memory.js';
import { outShares, runPowerIteration } from './pagerank-power.js';
import { type SccResult, stronglyConnectedComponents } from './scc.js';

export interface SccSolverOptions {
  damping: number;
  tolerance: number;
  /** Cap on the sweeps of any one component (and on refinement rounds). */
  maxIterations: number;
  /** Normalised teleport distribution (also the dangling one), or null for uniform. */
  teleport: Float64Array | null;
  /** Components, when the caller has them already. */
  scc?: SccResult;
  /** Threads for the large components (this one included): 1 = sequential. */
  threads: number;
  /**
   * Called as the solve goes: during the sweeps of the components, each
   * sweep that goes beyond the most any component has needed so far reports
   * (that sweep number, the component's relative L1 change), the quantity its stopping test compares to the
   * tolerance; then (iterations, ||pi G - pi||_1) after the solve and after
   * every refinement round. The last call gives the result's iterations
   * and residual.
   */
  onIteration?: (iteration: number, residual: number) => void;
}

export interface SccSolverResult {
  scores: Float64Array;
  /** Sweeps of the component that needed the most. */
  iterations: number;
  /** Links visited by all sweeps divided by the number of links: the cost in power iterations. */
  equivalentIterations: number;
  /** ||pi G - pi||_1 of the vector before the returned one, pi G (as power iteration's last change). */
  residual: number;
  converged: boolean;
}

/** Pages renumbered so that every component is a contiguous range, in topological order. */
interface Ordered {
  /** order[k] = old id of the page at position k. */
  order: Int32Array;
  /** componentStart[t] .. componentStart[t+1]: positions of the t-th component in topological order. */
  componentStart: Int32Array;
  /** In-links in positions, each list increasing (links from earlier components first). */
  inOffsets: Uint32Array;
  inSources: Int32Array;
  /** 1 / out-degree of the page at each position, 0 for dangling pages. */
  share: Float64Array;
}

function orderByComponents(graph: Graph, scc: SccResult): Ordered {
  const n = graph.nodeCount;
  const count = scc.count;
  const { component } = scc;
  // Tarjan numbers sinks first: topological position t = count - 1 - id.
  const componentStart = new Int32Array(count + 1);
  for (let v = 0; v < n; v++) componentStart[count - component[v]!]!++;
  for (let t = 0; t < count; t++) componentStart[t + 1]! += componentStart[t]!;
  const order = new Int32Array(n);
  const position = new Int32Array(n);
  if (scc.finishOrder !== undefined) {
    // Inside a component, reverse depth-first finishing order (when the caller's components carry
    // it): most links then point from an earlier position to a later one, so a sweep already uses
    // this sweep's values for them (cnr-2000, one thread, 1e-10: 5% fewer links visited than in id
    // order; with two threads and on the 10^8-link graph id order visits fewer and runs faster).
    const { finishOrder } = scc;
    const last = componentStart.slice(1, count + 1);
    for (let f = 0; f < n; f++) {
      const v = finishOrder[f]!;
      const k = --last[count - 1 - component[v]!]!;
      order[k] = v;
      position[v] = k;
    }
  } else {
    const cursor = componentStart.slice(0, count);
    for (let v = 0; v < n; v++) {
      const k = cursor[count - 1 - component[v]!]!++;
      order[k] = v;
      position[v] = k;
    }
  }
  const { outOffsets, outTargets, inOffsets: oldInOffsets } = graph;
  const inOffsets = sharedUint32(n + 1);
  for (let k = 0; k < n; k++) {
    const v = order[k]!;
    inOffsets[k + 1] = inOffsets[k]! + (oldInOffsets[v + 1]! - oldInOffsets[v]!);
  }
  const inSources = sharedInt32(graph.edgeCount);
  const fill = inOffsets.slice(0, n);
  const share = sharedFloat64(n);
  // Visiting sources in increasing position writes every in-list in increasing order.
  for (let i = 0; i < n; i++) {
    const u = order[i]!;
    const end = outOffsets[u + 1]!;
    const begin = outOffsets[u]!;
    if (end > begin) share[i] = 1 / (end - begin);
    for (let e = begin; e < end; e++) inSources[fill[position[outTargets[e]!]!]!++] = i;
  }
  return { order, componentStart, inOffsets, inSources, share };
}

export function pagerankBySccGaussSeidel(graph: Graph, options: SccSolverOptions): SccSolverResult {
  const n = graph.nodeCount;
  const c = options.damping;
  const tolerance = options.tolerance;
  if (options.threads > 1) warmUpWorkers(options.threads);
  // Id order inside components (no finishing order recorded): see the module comment.
  const scc = options.scc ?? stronglyConnectedComponents(graph);
  const { order, componentStart, inOffsets, inSources, share } = orderByComponents(graph, scc);
  const teleport = new Float64Array(n);
  if (options.teleport === null) teleport.fill(1 / n);
  else for (let k = 0; k < n; k++) teleport[k] = options.teleport[order[k]!]!;

  const threads = Math.max(1, Math.floor(options.threads));
  const y = sharedFloat64(n);
  /** z = y * share: what a page passes to each successor. */
  const z = sharedFloat64(n);
  const constant = sharedFloat64(n);
  /** internalShare[i]: share of i's out-links that stay in its component. */
  const internalShare = sharedFloat64(n);
  /** First in-link of each page that comes from its own component. */
  const firstInternal = sharedUint32(n);
  let largestLinks = 0;
  for (let t = 0; t < scc.count; t++) {
    const links = inOffsets[componentStart[t + 1]!]! - inOffsets[componentStart[t]!]!;
    if (componentStart[t + 1]! - componentStart[t]! > 1 && links > largestLinks) largestLinks = links;
  }
  const blocks: ComponentBlocks | null =
    largestLinks >= LARGE_COMPONENT_LINKS
      ? allocateBlocks(n, threads, { inOffsets, inSources, firstInternal, share, internalShare, constant, y, z })
      : null;
  let maxSweeps = 0;
  let work = 0;
  let capped = false;
  // Live progress: sweeps numbered past the most reported so far, so the curve's x only grows.
  let reported = 0;
  const onIteration = options.onIteration;
  const onSweep =
    onIteration === undefined
      ? undefined
      : (sweep: number, relativeChange: number): void => {
          if (sweep <= reported) return;
          reported = sweep;
          onIteration(sweep, relativeChange);
        };

  for (let t = 0; t < scc.count; t++) {
    const s = componentStart[t]!;
    const e = componentStart[t + 1]!;
    if (e - s === 1) {
      let sum = 0;
      const end = inOffsets[s + 1]!;
      for (let q = inOffsets[s]!; q < end; q++) sum += z[inSources[q]!]!;
      const value = teleport[s]! + c * sum;
      y[s] = value;
      z[s] = value * share[s]!;
      continue;
    }
    // Links from earlier components are final: fold them into constant[j].
    let constantMass = 0;
    for (let j = s; j < e; j++) {
      let q = inOffsets[j]!;
      const end = inOffsets[j + 1]!;
      let sum = 0;
      for (; q < end && inSources[q]! < s; q++) sum += z[inSources[q]!]!;
      firstInternal[j] = q;
      for (let r = q; r < end; r++) internalShare[inSources[r]!]! += share[inSources[r]!]!;
      const value = teleport[j]! + c * sum;
      constant[j] = value;
      constantMass += value;
      y[j] = value;
      z[j] = value * share[j]!;
    }
    const links = inOffsets[e]! - inOffsets[s]!;
    const sweeps =
      links >= LARGE_COMPONENT_LINKS
        ? solveLargeComponent(s, e, links >= PARALLEL_COMPONENT_LINKS ? threads : 1, blocks!, c, tolerance, options.maxIterations, constantMass, onSweep)
        : solveComponent(s, e, c, tolerance, options.maxIterations, constantMass, inOffsets, inSources, firstInternal, share, internalShare, constant, y, z, onSweep);
    if (sweeps >= options.maxIterations) capped = true;
    if (sweeps > maxSweeps) maxSweeps = sweeps;
    work += sweeps * (inOffsets[e]! - inOffsets[s]!);
  }
  work += graph.edgeCount;

  const scores = new Float64Array(n);
  const originalShare = outShares(graph);
  let measured = normaliseAndStep(graph, c, options.teleport, order, y, scores, originalShare, threads);
  let residual = measured.residual;
  options.onIteration?.(maxSweeps, residual);
  // Refinement: whole-system Gauss-Seidel sweeps in topological order until the residual holds.
  let rounds = 0;
  while (residual > tolerance && rounds < options.maxIterations && !capped) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      const end = inOffsets[j + 1]!;
      for (let q = inOffsets[j]!; q < end; q++) sum += z[inSources[q]!]!;
      const value = teleport[j]! + c * sum;
      y[j] = value;
      z[j] = value * share[j]!;
    }
    rounds++;
    work += 2 * graph.edgeCount;
    measured = normaliseAndStep(graph, c, options.teleport, order, y, scores, originalShare, threads);
    residual = measured.residual;
    options.onIteration?.(maxSweeps + rounds, residual);
  }
  // Return pi G, as power iteration returns its last iterate: one more contraction of the
  // error (by up to c in L1) for a product the check computed anyway.
  const { stepped } = measured;
  let total = 0;
  for (let v = 0; v < n; v++) total += stepped[v]!;
  for (let v = 0; v < n; v++) scores[v] = stepped[v]! / total;
  return {
    scores,
    iterations: maxSweeps + rounds,
    equivalentIterations: graph.edgeCount === 0 ? 0 : work / graph.edgeCount,
    residual,
    converged: residual <= tolerance,
  };
}

/** Gauss-Seidel sweeps with mass balancing on positions [s, e); returns the number of sweeps. */
function solveComponent(
  s: number,
  e: number,
  c: number,
  tolerance: number,
  maxSweeps: number,
  constantMass: number,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  firstInternal: Uint32Array,
  share: Float64Array,
  internalShare: Float64Array,
  constant: Float64Array,
  y: Float64Array,
  z: Float64Array,
  onSweep?: (sweep: number, relativeChange: number) => void,
): number {
  let sweeps = 0;
  let balancing = true;
  let lastCorrection = Infinity;
  while (sweeps < maxSweeps) {
    let change = 0;
    let mass = 0;
    let retained = 0;
    for (let j = s; j < e; j++) {
      let sum = 0;
      const end = inOffsets[j + 1]!;
      for (let q = firstInternal[j]!; q < end; q++) sum += z[inSources[q]!]!;
      const value = constant[j]! + c * sum;
      change += Math.abs(value - y[j]!);
      y[j] = value;
      z[j] = value * share[j]!;
      mass += value;
      retained += internalShare[j]! * value;
    }
    sweeps++;
    if (mass > 0 && balancing) {
      const balance = flowBalance(constantMass, c, retained, mass, lastCorrection);
      const { balanced, scale } = balance;
      balancing = balance.balancing;
      lastCorrection = balance.correction;
      change += Math.abs(balanced - mass);
      for (let j = s; j < e; j++) {
        y[j]! *= scale;
        z[j] = y[j]! * share[j]!;
      }
      mass = balanced;
    }
    onSweep?.(sweeps, mass > 0 ? change / mass : 0);
    if (change <= tolerance * mass) break;
  }
  return sweeps;
}

/**
 * A mass-balance correction (relative) below this that stopped shrinking is taken for rounding
 * noise of the component's sums, and the balance is switched off (web-1e6's giant component of
 * 9M pages settles into a cycle near 4e-12 otherwise); larger ones may grow at first.
 */
const BALANCE_NOISE = 1e-9;

/**
 * The flow balance of a component after a sweep: its mass must equal constantMass (what flows in
 * from outside and the teleport) + c * (the mass its pages keep inside it), so the sweep's values
 * are scaled to that balanced mass. A correction that no longer shrinks, below BALANCE_NOISE, is
 * rounding noise of the sums (a floor near 4e-12 of the mass on a component of 9M pages): the caller
 * stops balancing then and does plain sweeps.
 */
function flowBalance(
  constantMass: number,
  c: number,
  retained: number,
  mass: number,
  lastCorrection: number,
): { balanced: number; scale: number; correction: number; balancing: boolean } {
  const balanced = constantMass / (1 - (c * retained) / mass);
  const scale = balanced / mass;
  const correction = Math.abs(scale - 1);
  return { balanced, scale, correction, balancing: !(correction >= lastCorrection && correction < BALANCE_NOISE) };
}

/** Components with at least this many links get the block solver (solveLargeComponent). */
export const LARGE_COMPONENT_LINKS = 20_000;

/** Components with at least this many links are split between threads. */
export const PARALLEL_COMPONENT_LINKS = 200_000;

/**
 * The shared arrays of a large component's solve, indexed by position.
 */
export interface ComponentBlocks {
  /** Thread t sweeps positions bounds[t] .. bounds[t+1]. */
  bounds: Int32Array;
  /** [damping, tolerance, maximum sweeps, the component's constant mass]. */
  params: Float64Array;
  inOffsets: Uint32Array;
  inSources: Int32Array;
  firstInternal: Uint32Array;
  /** In-links of j from its own thread's block: ownStart[j] .. ownEnd[j]. */
  ownStart: Uint32Array;
  ownEnd: Uint32Array;
  share: Float64Array;
  /** Share of each page's out-links that stay in its component (for the mass balance). */
  internalShare: Float64Array;
  constant: Float64Array;
  y: Float64Array;
  z: Float64Array;
  /**
   * z as of the end of the previous sweep (what a thread reads of the other
   * blocks), double-buffered: a sweep reads one and writes the other.
   */
  snapshotA: Float64Array;
  snapshotB: Float64Array;
  /** Two slots (by sweep parity) of [change, mass, mass kept inside] per thread. */
  partials: Float64Array;
  sweeps: Int32Array;
}

function allocateBlocks(
  n: number,
  threads: number,
  arrays: Pick<ComponentBlocks, 'inOffsets' | 'inSources' | 'firstInternal' | 'share' | 'internalShare' | 'constant' | 'y' | 'z'>,
): ComponentBlocks {
  return {
    ...arrays,
    bounds: sharedInt32(threads + 1),
    params: sharedFloat64(4),
    ownStart: sharedUint32(n),
    ownEnd: sharedUint32(n),
    snapshotA: sharedFloat64(threads > 1 ? n : 0),
    snapshotB: sharedFloat64(threads > 1 ? n : 0),
    partials: sharedFloat64(6 * threads),
    sweeps: sharedInt32(1),
  };
}

/**
 * Solves component [s, e) with one block per thread (equal numbers of
 * links): Gauss-Seidel inside a block, the previous sweep's values across
 * blocks (block Jacobi between threads), one barrier per sweep.
 * Deterministic: every thread sums the same partials in the same order.
 *
 * Plain Gauss-Seidel: on cnr-2000's giant component (112,023 pages, 1.6M
 * links) Anderson acceleration cut the sweeps from 65 to 39 but its
 * bookkeeping (ten vector passes per sweep) made each sweep cost 2.3x a
 * plain one, which is as cheap per link as a power iteration
 * (docs/pagerank-performance.md). The one-block aggregation of the small
 * components costs one pass over the pages, not the links, and pays here
 * too: after each sweep the component's mass is set to what its flow
 * balance implies (cnr-2000, one thread, to 3e-12: 46.9 instead of 54.0
 * power iterations' work, L1 error 2.6e-12 instead of 5.0e-12).
 */
function solveLargeComponent(
  s: number,
  e: number,
  threads: number,
  data: ComponentBlocks,
  c: number,
  tolerance: number,
  maxSweeps: number,
  constantMass: number,
  onSweep?: (sweep: number, relativeChange: number) => void,
): number {
  const { bounds, inOffsets, inSources, firstInternal, ownStart, ownEnd, z, snapshotA } = data;
  const first = inOffsets[s]!;
  const links = inOffsets[e]! - first;
  bounds[0] = s;
  let j = s;
  for (let t = 1; t < threads; t++) {
    const target = first + (links * t) / threads;
    while (j < e && inOffsets[j]! < target) j++;
    bounds[t] = j;
  }
  bounds[threads] = e;
  for (let t = 0; t < threads; t++) {
    const lo = bounds[t]!;
    const hi = bounds[t + 1]!;
    for (let k = lo; k < hi; k++) {
      const end = inOffsets[k + 1]!;
      let q = firstInternal[k]!;
      while (q < end && inSources[q]! < lo) q++;
      ownStart[k] = q;
      while (q < end && inSources[q]! < hi) q++;
      ownEnd[k] = q;
    }
  }
  if (threads > 1) snapshotA.set(z.subarray(s, e), s);
  data.params.set([c, tolerance, maxSweeps, constantMass]);
  // Thread 0 is this thread: it reports each sweep as it ends.
  runParallel('pagerank-component-blocks', data, threads, (context) => sweepComponentBlocks(context, onSweep));
  return data.sweeps[0]!;
}

/** One thread's part of solveLargeComponent (also run by the worker threads). */
export function sweepComponentBlocks(context: TaskContext<ComponentBlocks>, onSweep?: (sweep: number, relativeChange: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { bounds, params, inOffsets, inSources, firstInternal, ownStart, ownEnd, share, internalShare, constant, y, z, partials } = data;
  const c = params[0]!;
  const tolerance = params[1]!;
  const maxSweeps = params[2]!;
  const constantMass = params[3]!;
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  // One thread reads and writes z only; several read the other blocks from the last sweep's snapshot.
  let read = threads > 1 ? data.snapshotA : z;
  let write = threads > 1 ? data.snapshotB : z;
  // The snapshot holds the other blocks before the last mass balance: their sums are scaled on reading.
  let readScale = 1;
  let balancing = true;
  let lastCorrection = Infinity;
  let sweeps = 0;
  while (sweeps < maxSweeps) {
    const slot = (sweeps & 1) * 3 * threads;
    const moments = sweepBlock(lo, hi, c, inOffsets, inSources, firstInternal, ownStart, ownEnd, share, internalShare, constant, y, z, read, write, readScale);
    partials[slot + 3 * thread] = moments[0]!;
    partials[slot + 3 * thread + 1] = moments[1]!;
    partials[slot + 3 * thread + 2] = moments[2]!;
    barrierWait(barrier, threads);
    let change = 0;
    let mass = 0;
    let retained = 0;
    for (let t = 0; t < threads; t++) {
      change += partials[slot + 3 * t]!;
      mass += partials[slot + 3 * t + 1]!;
      retained += partials[slot + 3 * t + 2]!;
    }
    sweeps++;
    const swap = read;
    read = write;
    write = swap;
    readScale = 1;
    if (mass > 0 && balancing) {
      const balance = flowBalance(constantMass, c, retained, mass, lastCorrection);
      const { balanced, scale } = balance;
      balancing = balance.balancing;
      lastCorrection = balance.correction;
      change += Math.abs(balanced - mass);
      // Each thread scales its own block; the other blocks' snapshot is scaled as it is read.
      for (let j = lo; j < hi; j++) {
        y[j]! *= scale;
        z[j]! *= scale;
      }
      readScale = scale;
      mass = balanced;
    }
    if (thread === 0) onSweep?.(sweeps, mass > 0 ? change / mass : 0);
    if (change <= tolerance * mass) break;
  }
  if (thread === 0) data.sweeps[0] = sweeps;
}

const blockMoments = new Float64Array(3);

/**
 * One Gauss-Seidel sweep of positions lo..hi; returns [L1 change, mass, mass
 * kept inside the component]. Links from other blocks read `read`, scaled by
 * readScale.
 */
function sweepBlock(
  lo: number,
  hi: number,
  c: number,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  firstInternal: Uint32Array,
  ownStart: Uint32Array,
  ownEnd: Uint32Array,
  share: Float64Array,
  internalShare: Float64Array,
  constant: Float64Array,
  y: Float64Array,
  z: Float64Array,
  read: Float64Array,
  write: Float64Array,
  readScale: number,
): Float64Array {
  let change = 0;
  let mass = 0;
  let retained = 0;
  for (let j = lo; j < hi; j++) {
    let other = 0;
    let own = 0;
    const a = ownStart[j]!;
    const b = ownEnd[j]!;
    const end = inOffsets[j + 1]!;
    for (let q = firstInternal[j]!; q < a; q++) other += read[inSources[q]!]!;
    for (let q = a; q < b; q++) own += z[inSources[q]!]!;
    for (let q = b; q < end; q++) other += read[inSources[q]!]!;
    const value = constant[j]! + c * (own + readScale * other);
    change += Math.abs(value - y[j]!);
    y[j] = value;
    const passed = value * share[j]!;
    z[j] = passed;
    write[j] = passed;
    mass += value;
    retained += internalShare[j]! * value;
  }
  blockMoments[0] = change;
  blockMoments[1] = mass;
  blockMoments[2] = retained;
  return blockMoments;
}

/**
 * Writes pi = y / ||y||_1 back in original ids into `scores`, takes one
 * power-iteration step from it (a pull over the original graph) and returns
 * the step's result pi G and ||pi G - pi||_1.
 */
function normaliseAndStep(
  graph: Graph,
  c: number,
  teleport: Float64Array | null,
  order: Int32Array,
  y: Float64Array,
  scores: Float64Array,
  originalShare: Float64Array,
  threads: number,
): { stepped: Float64Array; residual: number } {
  const n = graph.nodeCount;
  let total = 0;
  for (let k = 0; k < n; k++) total += y[k]!;
  for (let k = 0; k < n; k++) scores[order[k]!] = y[k]! / total;
  // Dangling mass goes where teleports go (the condition for the linear system above).
  const step = runPowerIteration(graph.inOffsets, graph.inSources, originalShare, scores, c, 0, 1, teleport, null, threads);
  return { stepped: step.scores, residual: step.residual };
}
