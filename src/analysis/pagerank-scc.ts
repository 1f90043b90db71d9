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
 *   links are accelerated by Anderson mixing instead, and the largest are
 *   split between threads (solveLargeComponent).
 * A component stops when its last sweep changed it by at most
 * tolerance * (its mass); the sum over components bounds the residual of the
 * normalised vector by about c * tolerance. The result is then verified
 * with one product by the Google matrix, ||pi G - pi||_1 <= tolerance, the
 * same quantity power iteration stops on; more sweeps follow if it is not met.
 */
import type { Graph } from '../graph/graph.js';
import { barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32, sharedUint32 } from '../parallel/shared-memory.js';
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
  onIteration?: (iteration: number, residual: number) => void;
}

export interface SccSolverResult {
  scores: Float64Array;
  /** Sweeps of the component that needed the most. */
  iterations: number;
  /** Links visited by all sweeps divided by the number of links: the cost in power iterations. */
  equivalentIterations: number;
  /** ||pi G - pi||_1 of the returned vector. */
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
  const cursor = componentStart.slice(0, count);
  for (let v = 0; v < n; v++) {
    const k = cursor[count - 1 - component[v]!]!++;
    order[k] = v;
    position[v] = k;
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
      ? allocateBlocks(n, scc.largest, threads, { inOffsets, inSources, firstInternal, share, constant, y, z })
      : null;
  let maxSweeps = 0;
  let work = 0;
  let capped = false;

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
        ? solveLargeComponent(s, e, links >= PARALLEL_COMPONENT_LINKS ? threads : 1, blocks!, c, tolerance, options.maxIterations)
        : solveComponent(s, e, c, tolerance, options.maxIterations, constantMass, inOffsets, inSources, firstInternal, share, internalShare, constant, y, z);
    if (sweeps >= options.maxIterations) capped = true;
    if (sweeps > maxSweeps) maxSweeps = sweeps;
    work += sweeps * (inOffsets[e]! - inOffsets[s]!);
  }
  work += graph.edgeCount;

  const scores = new Float64Array(n);
  let residual = normaliseAndMeasure(graph, c, options.teleport, order, y, scores);
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
    residual = normaliseAndMeasure(graph, c, options.teleport, order, y, scores);
    options.onIteration?.(maxSweeps + rounds, residual);
  }
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
): number {
  let sweeps = 0;
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
    if (mass > 0) {
      // Flow balance of the component: mass = constantMass + c * (mass kept inside).
      const balanced = constantMass / (1 - (c * retained) / mass);
      const scale = balanced / mass;
      change += Math.abs(balanced - mass);
      for (let j = s; j < e; j++) {
        y[j]! *= scale;
        z[j] = y[j]! * share[j]!;
      }
      mass = balanced;
    }
    if (change <= tolerance * mass) break;
  }
  return sweeps;
}

/** Components with at least this many links get the Anderson-accelerated block solver. */
export const LARGE_COMPONENT_LINKS = 20_000;

/** Components with at least this many links are split between threads. */
export const PARALLEL_COMPONENT_LINKS = 200_000;

/** Anderson acceleration keeps this many previous steps. */
export const ANDERSON_DEPTH = 5;

/**
 * The shared arrays of a large component's solve. Arrays of length n are
 * indexed by position; the Anderson history (length `room` each) by
 * position - s, the component's first position.
 */
export interface ComponentBlocks {
  /** Thread t sweeps positions bounds[t] .. bounds[t+1]. */
  bounds: Int32Array;
  /** [damping, tolerance, maximum sweeps, first position s, Anderson depth]. */
  params: Float64Array;
  inOffsets: Uint32Array;
  inSources: Int32Array;
  firstInternal: Uint32Array;
  /** In-links of j from its own thread's block: ownStart[j] .. ownEnd[j]. */
  ownStart: Uint32Array;
  ownEnd: Uint32Array;
  share: Float64Array;
  constant: Float64Array;
  y: Float64Array;
  z: Float64Array;
  /** z as of the end of the previous sweep: what a thread reads of the other blocks. */
  snapshot: Float64Array;
  /** Anderson: the last input x, its step f = G(x) - x, and the differences of the last `depth` inputs and steps. */
  input: Float64Array;
  previousInput: Float64Array;
  previousStep: Float64Array;
  step: Float64Array;
  inputDifferences: Float64Array;
  stepDifferences: Float64Array;
  /** Per thread: partial sums (change, mass, then the dot products of one iteration). */
  partials: Float64Array;
  sweeps: Int32Array;
}

/** Values per thread in `partials`: change, mass, new-difference dots (depth), step dots (depth). */
function partialsPerThread(depth: number): number {
  return 2 + 2 * depth;
}

function allocateBlocks(
  n: number,
  room: number,
  threads: number,
  arrays: Pick<ComponentBlocks, 'inOffsets' | 'inSources' | 'firstInternal' | 'share' | 'constant' | 'y' | 'z'>,
): ComponentBlocks {
  return {
    ...arrays,
    bounds: sharedInt32(threads + 1),
    params: sharedFloat64(5),
    ownStart: sharedUint32(n),
    ownEnd: sharedUint32(n),
    snapshot: sharedFloat64(threads > 1 ? n : 0),
    input: sharedFloat64(room),
    previousInput: sharedFloat64(room),
    previousStep: sharedFloat64(room),
    step: sharedFloat64(room),
    inputDifferences: sharedFloat64(ANDERSON_DEPTH * room),
    stepDifferences: sharedFloat64(ANDERSON_DEPTH * room),
    partials: sharedFloat64(threads * partialsPerThread(ANDERSON_DEPTH)),
    sweeps: sharedInt32(1),
  };
}

/**
 * Solves component [s, e) with one block per thread (equal numbers of
 * links): Gauss-Seidel inside a block, the previous sweep's values across
 * blocks, and Anderson acceleration of the sweeps (the new iterate is the
 * combination of the last few that best cancels their steps in least
 * squares; on this linear problem it cuts the sweeps of cnr-2000's giant
 * component from about 65 to 40). Deterministic: every thread sums the same
 * partials in the same order and solves the same small system.
 */
function solveLargeComponent(
  s: number,
  e: number,
  threads: number,
  data: ComponentBlocks,
  c: number,
  tolerance: number,
  maxSweeps: number,
): number {
  const { bounds, inOffsets, inSources, firstInternal, ownStart, ownEnd, z, snapshot } = data;
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
  if (threads > 1) snapshot.set(z.subarray(s, e), s);
  data.params.set([c, tolerance, maxSweeps, s, ANDERSON_DEPTH]);
  runParallel('pagerank-component-blocks', data, threads, sweepComponentBlocks);
  return data.sweeps[0]!;
}

/** One thread's part of solveLargeComponent (also run by the worker threads). */
export function sweepComponentBlocks(context: TaskContext<ComponentBlocks>): void {
  const { data, thread, threads, barrier } = context;
  const { bounds, params, inOffsets, inSources, firstInternal, ownStart, ownEnd, share, constant, y, z, snapshot } = data;
  const { input, previousInput, previousStep, step, inputDifferences, stepDifferences, partials } = data;
  const c = params[0]!;
  const tolerance = params[1]!;
  const maxSweeps = params[2]!;
  const base = params[3]!;
  const depth = params[4]!;
  const room = input.length;
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  const width = partialsPerThread(depth);
  const mine = thread * width;
  const read = threads > 1 ? snapshot : z;
  // The Gram matrix of the step differences, kept by every thread alike.
  const gram = new Float64Array(depth * depth);
  let stored = 0;
  let newest = -1;
  let sweeps = 0;
  while (sweeps < maxSweeps) {
    // x = the current iterate; y becomes G(x), one block Gauss-Seidel sweep.
    let change = 0;
    let mass = 0;
    for (let j = lo; j < hi; j++) {
      const x = y[j]!;
      input[j - base] = x;
      let sum = 0;
      const a = ownStart[j]!;
      const b = ownEnd[j]!;
      const end = inOffsets[j + 1]!;
      for (let q = firstInternal[j]!; q < a; q++) sum += read[inSources[q]!]!;
      for (let q = a; q < b; q++) sum += z[inSources[q]!]!;
      for (let q = b; q < end; q++) sum += read[inSources[q]!]!;
      const value = constant[j]! + c * sum;
      step[j - base] = value - x;
      change += Math.abs(value - x);
      y[j] = value;
      z[j] = value * share[j]!;
      mass += value;
    }
    sweeps++;
    // New differences (after the first sweep) and the dot products Anderson needs.
    if (sweeps > 1) {
      newest = (newest + 1) % depth;
      if (stored < depth) stored++;
      const slot = newest * room;
      for (let j = lo; j < hi; j++) {
        const k = j - base;
        inputDifferences[slot + k] = input[k]! - previousInput[k]!;
        stepDifferences[slot + k] = step[k]! - previousStep[k]!;
      }
    }
    partials[mine] = change;
    partials[mine + 1] = mass;
    for (let a = 0; a < stored; a++) {
      const other = a * room;
      const fresh = newest * room;
      let withNew = 0;
      let withStep = 0;
      for (let j = lo; j < hi; j++) {
        const k = j - base;
        const d = stepDifferences[other + k]!;
        withNew += d * stepDifferences[fresh + k]!;
        withStep += d * step[k]!;
      }
      partials[mine + 2 + a] = withNew;
      partials[mine + 2 + depth + a] = withStep;
    }
    for (let j = lo; j < hi; j++) {
      previousInput[j - base] = input[j - base]!;
      previousStep[j - base] = step[j - base]!;
    }
    barrierWait(barrier, threads);
    let totalChange = 0;
    let totalMass = 0;
    const rhs = new Float64Array(stored);
    for (let t = 0; t < threads; t++) {
      totalChange += partials[t * width]!;
      totalMass += partials[t * width + 1]!;
      for (let a = 0; a < stored; a++) {
        rhs[a]! += partials[t * width + 2 + depth + a]!;
      }
    }
    if (stored > 0) {
      for (let a = 0; a < stored; a++) {
        let dot = 0;
        for (let t = 0; t < threads; t++) dot += partials[t * width + 2 + a]!;
        gram[a * depth + newest] = dot;
        gram[newest * depth + a] = dot;
      }
    }
    barrierWait(barrier, threads);
    const converged = totalChange <= tolerance * totalMass;
    if (!converged && stored > 0) {
      const gamma = solveSmall(gram, depth, rhs, stored);
      if (gamma !== null) {
        // x_new = x + f - sum gamma_a (dx_a + df_a), and G(x) was x + f.
        for (let j = lo; j < hi; j++) {
          const k = j - base;
          let value = input[k]! + step[k]!;
          for (let a = 0; a < stored; a++) {
            value -= gamma[a]! * (inputDifferences[a * room + k]! + stepDifferences[a * room + k]!);
          }
          y[j] = value;
          z[j] = value * share[j]!;
        }
      }
    }
    if (threads > 1) {
      snapshot.set(z.subarray(lo, hi), lo);
      barrierWait(barrier, threads);
    }
    if (converged) break;
  }
  if (thread === 0) data.sweeps[0] = sweeps;
}

/** Solves the stored x stored part of `gram` (row stride `depth`) for `rhs`, regularised; null if singular. */
function solveSmall(gram: Float64Array, depth: number, rhs: Float64Array, stored: number): Float64Array | null {
  const m = stored;
  const a = new Float64Array(m * (m + 1));
  let trace = 0;
  for (let i = 0; i < m; i++) trace += gram[i * depth + i]!;
  if (!(trace > 0)) return null;
  for (let i = 0; i < m; i++) {
    for (let k = 0; k < m; k++) a[i * (m + 1) + k] = gram[i * depth + k]! + (i === k ? 1e-12 * trace : 0);
    a[i * (m + 1) + m] = rhs[i]!;
  }
  for (let col = 0; col < m; col++) {
    let pivot = col;
    for (let i = col + 1; i < m; i++) if (Math.abs(a[i * (m + 1) + col]!) > Math.abs(a[pivot * (m + 1) + col]!)) pivot = i;
    if (a[pivot * (m + 1) + col] === 0) return null;
    if (pivot !== col) {
      for (let k = 0; k <= m; k++) {
        const t = a[col * (m + 1) + k]!;
        a[col * (m + 1) + k] = a[pivot * (m + 1) + k]!;
        a[pivot * (m + 1) + k] = t;
      }
    }
    for (let i = col + 1; i < m; i++) {
      const f = a[i * (m + 1) + col]! / a[col * (m + 1) + col]!;
      for (let k = col; k <= m; k++) a[i * (m + 1) + k]! -= f * a[col * (m + 1) + k]!;
    }
  }
  const x = new Float64Array(m);
  for (let i = m - 1; i >= 0; i--) {
    let sum = a[i * (m + 1) + m]!;
    for (let k = i + 1; k < m; k++) sum -= a[i * (m + 1) + k]! * x[k]!;
    x[i] = sum / a[i * (m + 1) + i]!;
  }
  return x.every(Number.isFinite) ? x : null;
}

/**
 * Writes pi = y / ||y||_1 back in original ids into `scores` and returns
 * ||pi G - pi||_1, computed with one pull over the original graph.
 */
function normaliseAndMeasure(
  graph: Graph,
  c: number,
  teleport: Float64Array | null,
  order: Int32Array,
  y: Float64Array,
  scores: Float64Array,
): number {
  const n = graph.nodeCount;
  let total = 0;
  for (let k = 0; k < n; k++) total += y[k]!;
  for (let k = 0; k < n; k++) scores[order[k]!] = y[k]! / total;
  const { outOffsets, inOffsets, inSources } = graph;
  const passed = new Float64Array(n);
  let dangling = 0;
  for (let u = 0; u < n; u++) {
    const degree = outOffsets[u + 1]! - outOffsets[u]!;
    if (degree === 0) dangling += scores[u]!;
    else passed[u] = scores[u]! / degree;
  }
  // Dangling mass goes where teleports go (the condition for the linear system above).
  const jump = c * dangling + (1 - c);
  let residual = 0;
  for (let v = 0; v < n; v++) {
    let sum = 0;
    const end = inOffsets[v + 1]!;
    for (let e = inOffsets[v]!; e < end; e++) sum += passed[inSources[e]!]!;
    const next = c * sum + jump * (teleport === null ? 1 / n : teleport[v]!);
    residual += Math.abs(next - scores[v]!);
  }
  return residual;
}
