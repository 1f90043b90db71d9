/**
 * PageRank by Gauss-Seidel over strongly connected components in topological
 * order, the approach of PRPACK (Gleich et al.), the solver behind igraph.
 *
 * With the dangling distribution equal to the teleport distribution v,
 * PageRank is the normalised solution of the linear system
 *     y = c P0^T y + v,   pi = y / ||y||_1,
 * where P0 is the hyperlink matrix with the dangling rows left at zero (the
 * Sherman-Morrison identity the NOTES cite for Monte Carlo). In that system a
 * page depends only on its predecessors, so once the strongly connected
 * components are taken in topological order each component can be solved
 * when its predecessors are final:
 * - a single page (most of a web graph: dangling pages, pages nobody links
 *   back to) is exact in one pass: y_j = v_j + c * sum_{i->j} y_i / d_i;
 * - a larger component iterates Gauss-Seidel sweeps on its own links, with
 *   the links from earlier components folded into a constant. After every
 *   sweep its total mass is set to the value its flow balance implies
 *   (one-block aggregation), which removes the slowest error mode of nearly
 *   closed components such as link farms.
 * A component stops when its last sweep changed it by at most
 * tolerance * (its mass); the sum over components bounds the residual of the
 * normalised vector by about c * tolerance. The result is then verified
 * with one product by the Google matrix, ||pi G - pi||_1 <= tolerance, the
 * same quantity power iteration stops on; more sweeps follow if it is not met.
 * Like power iteration, the solver returns that last product, pi G.
 *
 * Everything runs on the graph's own in-links, in the input's page ids: no
 * renumbered copy of the graph (which cost 4 bytes per link and, on the
 * 10^8-link benchmark graph, 4.6 of a 31 s solve). Links run only from earlier
 * components to later ones, so a component's sweep may sum all of its pages'
 * in-links: those from earlier components read final values.
 * - Small components copy their internal in-links into a local list once, so
 *   their many sweeps skip the links from outside.
 * - Large components (LARGE_COMPONENT_LINKS) are swept where they lie; from
 *   PARALLEL_COMPONENT_LINKS each thread sweeps its own range of the pages
 *   by Gauss-Seidel on its own view of the vector, which holds the other
 *   ranges as they were at the end of the last sweep (block Jacobi between
 *   the ranges); after each sweep the threads write their ranges into the
 *   other views between two barriers. The result depends on the number of
 *   threads, never on their timing (the store and export round trips compare
 *   vectors bit for bit). An asynchronous variant, all threads on one
 *   vector as in PRPACK's OpenMP loop, needed 3% less work on cnr-2000 but
 *   made the last digits vary from run to run (measured 2026-11-25).
 *
 * Inside a component pages are swept in the input's page order (id order),
 * which keeps the locality of the input's numbering (crawl order, host order,
 * BV order) for the gathers. Reverse depth-first finishing order
 * (SccResult.finishOrder, used when the caller's components carry it) points
 * more links forward but scatters the gathers: on the 10^8-link benchmark
 * graph a solve took 71.0 s in finishing order against 50.6 s in id order
 * (measured 2026-11-24, BENCHMARKS.md).
 */
import type { Graph } from '../graph/graph.js';
import { barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { shareFloat64, shareInt32, shareUint32, sharedFloat64, sharedInt32 } from '../parallel/shared-memory.js';
import { PARALLEL_POWER_LINKS, outShares, splitByLinks } from './pagerank-power.js';
import type { SccResult } from './scc.js';
import { componentsOfLargeGraph } from './scc-pivot.js';
import { type GaussSeidelFunctions, type GaussSeidelKernel, KernelMemory, MAX_KERNEL_BYTES, gaussSeidelKernel, gaussSeidelKernelModule } from './kernel-memory.js';

export interface SccSolverOptions {
  damping: number;
  tolerance: number;
  /** Cap on the sweeps of any one component (and on refinement rounds). */
  maxIterations: number;
  /** Normalised teleport distribution (also the dangling one), or null for uniform. */
  teleport: Float64Array | null;
  /** Components, when the caller has them already. */
  scc?: SccResult;
  /** Threads for the large components and the final check (this one included): 1 = sequential. The vector depends on it, never on timing. */
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
  /**
   * The large components' sweeps: 'wasm' (kernels/gauss-seidel.wat, on a copy of the in-links in
   * the kernel's memory), 'js', or 'auto' (the default: wasm up to WASM_KERNEL_LINKS links). Both
   * give the same bits.
   */
  kernel?: 'auto' | 'wasm' | 'js';
  /**
   * Extrapolate the large components' sweeps (ChangeTrend); default: up to WASM_KERNEL_LINKS links.
   * It costs 8 bytes per page, and on the 10^8-link benchmark graph it saved 3.5% of the work at
   * 1e-10 and none at 5e-12 while taking `wga rank` over 1.5 GB (measured 2026-11-25), so larger
   * graphs go without.
   */
  extrapolate?: boolean;
}

/**
 * Up to this many links the large components are swept by the WebAssembly kernel, which needs
 * the in-links copied into its memory (4 bytes per link, 4 per page). On cnr-2000 (3.1M links,
 * in cache) it sweeps a link in 0.77 ns where V8's code takes 1.37, its bounds checks gone
 * (measured 2026-11-25). Above, the copy would break the memory bound (1.5 GB at 10^8 links),
 * and gathers from memory dominate anyway: the sweeps run in JavaScript on the graph's own arrays.
 */
export const WASM_KERNEL_LINKS = 20_000_000;

export interface SccSolverResult {
  scores: Float64Array;
  /** Sweeps of the component that needed the most. */
  iterations: number;
  /** Links visited by all sweeps and checks divided by the number of links: the cost in power iterations. */
  equivalentIterations: number;
  /** ||pi G - pi||_1 of the vector before the returned one, pi G (as power iteration's last change). */
  residual: number;
  converged: boolean;
}

/**
 * Components whose pages have at least this many in-links are swept where they lie; smaller ones
 * copy their internal links into a local list once, which skips the links from outside in every
 * sweep (on cnr-2000 the in-place sweeps were faster from here up, measured 2026-11-25).
 */
export const LARGE_COMPONENT_LINKS = 20_000;

/** Components whose pages have at least this many in-links are swept by all threads (a worker's hand-off costs more below). */
export const PARALLEL_COMPONENT_LINKS = 200_000;


/** The pages listed by component in topological order (id order, or reverse finishing order, inside each). */
interface Members {
  /** order[k]: the page at position k. */
  order: Int32Array;
  /** componentStart[t] .. componentStart[t+1]: positions of the t-th component in topological order. */
  componentStart: Int32Array;
}

function membersByComponent(n: number, scc: SccResult, order: Int32Array): Members {
  const count = scc.count;
  const { component } = scc;
  // Tarjan numbers sinks first: topological position t = count - 1 - id.
  const componentStart = new Int32Array(count + 1);
  for (let v = 0; v < n; v++) componentStart[count - component[v]!]!++;
  for (let t = 0; t < count; t++) componentStart[t + 1]! += componentStart[t]!;
  if (scc.finishOrder !== undefined) {
    // Reverse depth-first finishing order inside each component (see the module comment).
    const { finishOrder } = scc;
    const last = componentStart.slice(1, count + 1);
    for (let f = 0; f < n; f++) {
      const v = finishOrder[f]!;
      order[--last[count - 1 - component[v]!]!] = v;
    }
  } else {
    const cursor = componentStart.slice(0, count);
    for (let v = 0; v < n; v++) order[cursor[count - 1 - component[v]!]!++] = v;
  }
  return { order, componentStart };
}

/** The arrays every part of the solve shares, indexed by page id (on shared memory). */
interface SolveState {
  c: number;
  /** Teleport distribution, empty for uniform (1/n each). */
  teleport: Float64Array;
  uniformValue: number;
  inOffsets: Uint32Array;
  inSources: Int32Array;
  outOffsets: Uint32Array;
  outTargets: Int32Array;
  component: Int32Array;
  order: Int32Array;
  /** 1 / out-degree, 0 for dangling pages. */
  share: Float64Array;
  /** Share of a page's out-links that stay in its component (set when its component is solved). */
  internalShare: Float64Array;
  y: Float64Array;
  /** z = y * share: what a page passes to each successor. */
  z: Float64Array;
  /** With the WebAssembly kernel: its memory (every array above but the out-links is in it), the other threads' views and the sweeps' moments. */
  kernel: { memory: KernelMemory; module: WebAssembly.Module; copies: Float64Array; moments: Float64Array; previous: Float64Array } | null;
}

function useWasmKernel(graph: Graph, options: SccSolverOptions, threads: number): boolean {
  const choice = options.kernel ?? 'auto';
  if (choice !== 'auto') return choice === 'wasm';
  return (
    graph.edgeCount >= LARGE_COMPONENT_LINKS &&
    graph.edgeCount <= WASM_KERNEL_LINKS &&
    kernelBytes(graph.nodeCount, graph.edgeCount, threads, options.teleport !== null) <= MAX_KERNEL_BYTES
  );
}

/** The kernel memory a solve takes: order, in-offsets, in-sources, components, 6 vectors, the other threads' views, the moments, the small components' local lists. */
function kernelBytes(n: number, m: number, threads: number, personalised: boolean): number {
  const b = KernelMemory.bytesFor;
  const lists = b(LARGE_COMPONENT_LINKS + 1, 4) + b(LARGE_COMPONENT_LINKS, 4) + b(LARGE_COMPONENT_LINKS, 8);
  return b(n, 4) + b(n + 1, 4) + b(m, 4) + b(n, 4) + (personalised ? b(n, 8) : 0) + 5 * b(n, 8) + b((threads - 1) * n, 8) + b(4 * threads, 8) + lists;
}

export function pagerankBySccGaussSeidel(graph: Graph, options: SccSolverOptions): SccSolverResult {
  const n = graph.nodeCount;
  const c = options.damping;
  const tolerance = options.tolerance;
  const threads = Math.max(1, Math.floor(options.threads));
  if (threads > 1) warmUpWorkers(threads);
  const scc = options.scc ?? componentsOfLargeGraph(graph, threads);
  const kernelMemory = useWasmKernel(graph, options, threads) ? new KernelMemory(kernelBytes(n, graph.edgeCount, threads, options.teleport !== null)) : null;
  const { order, componentStart } = membersByComponent(n, scc, kernelMemory?.int32(n) ?? sharedInt32(n));
  const inKernel = <T extends Float64Array | Int32Array | Uint32Array>(array: T, make: (count: number) => T): T => {
    const copy = make(array.length);
    copy.set(array);
    return copy;
  };
  const state: SolveState =
    kernelMemory === null
      ? {
          c,
          teleport: options.teleport === null ? new Float64Array(0) : shareFloat64(options.teleport),
          uniformValue: 1 / n,
          inOffsets: shareUint32(graph.inOffsets),
          inSources: shareInt32(graph.inSources),
          outOffsets: shareUint32(graph.outOffsets),
          outTargets: shareInt32(graph.outTargets),
          component: shareInt32(scc.component),
          order,
          share: outShares(graph),
          internalShare: sharedFloat64(n),
          y: sharedFloat64(n),
          z: sharedFloat64(n),
          kernel: null,
        }
      : {
          c,
          teleport: options.teleport === null ? new Float64Array(0) : inKernel(options.teleport, (k) => kernelMemory.float64(k)),
          uniformValue: 1 / n,
          inOffsets: inKernel(graph.inOffsets, (k) => kernelMemory.uint32(k)),
          inSources: inKernel(graph.inSources, (k) => kernelMemory.int32(k)),
          outOffsets: shareUint32(graph.outOffsets),
          outTargets: shareInt32(graph.outTargets),
          component: inKernel(scc.component, (k) => kernelMemory.int32(k)),
          order,
          share: inKernel(outShares(graph), (k) => kernelMemory.float64(k)),
          internalShare: kernelMemory.float64(n),
          y: kernelMemory.float64(n),
          z: kernelMemory.float64(n),
          kernel: {
            memory: kernelMemory,
            module: gaussSeidelKernelModule(),
            copies: kernelMemory.float64((threads - 1) * n),
            moments: kernelMemory.float64(4 * threads),
            previous: kernelMemory.float64(n),
          },
        };
  const { inOffsets, inSources, share, y, z, teleport, uniformValue } = state;
  const uniform = teleport.length === 0;
  // With the kernel: the small components' local lists in its memory, at their largest (a small
  // component has fewer than LARGE_COMPONENT_LINKS in-links, and at least one per page), and the
  // kernel's functions for this thread.
  const local = state.kernel === null ? new LocalLists() : LocalLists.fixed(state.kernel.memory, LARGE_COMPONENT_LINKS);
  const kernel = state.kernel === null ? null : gaussSeidelKernel({ module: state.kernel.module, memory: state.kernel.memory.memory });
  let large: LargeComponentData | null = null;
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
    if (e - s === 1 && kernel !== null) {
      // A run of single pages, each exact in one pull (their sources final), in the kernel.
      let last = t + 1;
      while (last < scc.count && componentStart[last + 1]! - componentStart[last]! === 1) last++;
      work += kernel.singles(order.byteOffset, inOffsets.byteOffset, inSources.byteOffset, share.byteOffset, teleport.byteOffset, y.byteOffset, z.byteOffset,
        s, componentStart[last]!, c, uniformValue, uniform ? 1 : 0);
      t = last - 1;
      continue;
    }
    if (e - s === 1) {
      // A single page: exact in one pass, its sources all final.
      const j = order[s]!;
      let sum = 0;
      const end = inOffsets[j + 1]!;
      const begin = inOffsets[j]!;
      for (let q = begin; q < end; q++) sum += z[inSources[q]!]!;
      const value = (uniform ? uniformValue : teleport[j]!) + c * sum;
      y[j] = value;
      z[j] = value * share[j]!;
      work += end - begin;
      continue;
    }
    let links = 0;
    for (let k = s; k < e; k++) {
      const j = order[k]!;
      links += inOffsets[j + 1]! - inOffsets[j]!;
    }
    const componentId = scc.count - 1 - t;
    let sweeps: number;
    if (links >= LARGE_COMPONENT_LINKS) {
      large ??= largeComponentData(state, threads, options.extrapolate ?? graph.edgeCount <= WASM_KERNEL_LINKS);
      const componentThreads = links >= PARALLEL_COMPONENT_LINKS ? threads : 1;
      sweeps = solveLargeComponent(large, s, e, componentId, componentThreads, tolerance, options.maxIterations, onSweep);
      work += sweeps * links + outLinks(state, s, e);
    } else {
      const solved = solveSmallComponent(state, local, kernel, s, e, links, componentId, tolerance, options.maxIterations, onSweep);
      sweeps = solved.sweeps;
      work += solved.work;
    }
    if (sweeps >= options.maxIterations) capped = true;
    if (sweeps > maxSweeps) maxSweeps = sweeps;
  }

  const checkThreads = graph.edgeCount < PARALLEL_POWER_LINKS || n < 2 * threads ? 1 : threads;
  const check = checkData(state, n, checkThreads);
  let residual = googleStep(check, checkThreads);
  work += graph.edgeCount;
  options.onIteration?.(maxSweeps, residual);
  // Refinement: whole-system Gauss-Seidel sweeps in topological order until the residual holds.
  let rounds = 0;
  while (residual > tolerance && rounds < options.maxIterations && !capped) {
    for (let k = 0; k < n; k++) {
      const j = order[k]!;
      let sum = 0;
      const end = inOffsets[j + 1]!;
      for (let q = inOffsets[j]!; q < end; q++) sum += z[inSources[q]!]!;
      const value = (uniform ? uniformValue : teleport[j]!) + c * sum;
      y[j] = value;
      z[j] = value * share[j]!;
    }
    rounds++;
    work += 2 * graph.edgeCount;
    residual = googleStep(check, checkThreads);
    options.onIteration?.(maxSweeps + rounds, residual);
  }
  // Return pi G, as power iteration returns its last iterate: one more contraction of the
  // error (by up to c in L1) for a product the check computed anyway.
  // Out of the kernel's memory, which the result would otherwise keep alive.
  const scores = state.kernel === null ? check.stepped : check.stepped.slice();
  let total = 0;
  for (let v = 0; v < n; v++) total += scores[v]!;
  for (let v = 0; v < n; v++) scores[v]! /= total;
  return {
    scores,
    iterations: maxSweeps + rounds,
    equivalentIterations: graph.edgeCount === 0 ? 0 : work / graph.edgeCount,
    residual,
    converged: residual <= tolerance,
  };
}

/** Out-links of the pages at positions s..e (the internal-share pass reads them once). */
function outLinks(state: SolveState, s: number, e: number): number {
  const { order, outOffsets } = state;
  let links = 0;
  for (let k = s; k < e; k++) {
    const j = order[k]!;
    links += outOffsets[j + 1]! - outOffsets[j]!;
  }
  return links;
}

/** The share of page j's out-links that stay in its component (for the flow balance). */
function shareKeptInside(
  j: number,
  componentId: number,
  outOffsets: Uint32Array,
  outTargets: Int32Array,
  component: Int32Array,
  share: Float64Array,
): number {
  let inside = 0;
  const end = outOffsets[j + 1]!;
  for (let r = outOffsets[j]!; r < end; r++) if (component[outTargets[r]!] === componentId) inside++;
  return inside * share[j]!;
}

// ---------------------------------------------------------------- small components

/** Reusable buffers for a small component's internal in-links, by local index. */
class LocalLists {
  offsets: Uint32Array = new Uint32Array(64);
  sources: Int32Array = new Int32Array(256);
  constant: Float64Array = new Float64Array(64);
  /** Allocated once in a kernel's memory: never grown. */
  private grows = true;

  /** Lists in `memory` for components of fewer than `links` in-links. */
  static fixed(memory: KernelMemory, links: number): LocalLists {
    const lists = new LocalLists();
    lists.offsets = memory.uint32(links + 1);
    lists.sources = memory.int32(links);
    lists.constant = memory.float64(links);
    lists.grows = false;
    return lists;
  }

  reserve(pages: number, links: number): void {
    if (!this.grows) {
      if (this.offsets.length < pages + 1 || this.sources.length < links) throw new Error(`internal error: a small component of ${pages} pages and ${links} in-links is over its lists`);
      return;
    }
    if (this.offsets.length < pages + 1) {
      this.offsets = new Uint32Array(2 * (pages + 1));
      this.constant = new Float64Array(2 * pages);
    }
    if (this.sources.length < links) this.sources = new Int32Array(2 * links);
  }
}

/**
 * Gauss-Seidel sweeps with mass balancing on the component at positions [s, e):
 * its internal in-links are copied into a local list once, the others folded into a constant.
 */
function solveSmallComponent(
  state: SolveState,
  local: LocalLists,
  kernel: GaussSeidelFunctions | null,
  s: number,
  e: number,
  /** In-links of the component's pages. */
  links: number,
  componentId: number,
  tolerance: number,
  maxSweeps: number,
  onSweep?: (sweep: number, relativeChange: number) => void,
): { sweeps: number; work: number } {
  const { c, order, inOffsets, inSources, outOffsets, outTargets, component, share, internalShare, y, z, teleport, uniformValue } = state;
  const uniform = teleport.length === 0;
  const size = e - s;
  local.reserve(size, links);
  const { offsets, sources, constant } = local;
  let work = links;
  let q = 0;
  let constantMass = 0;
  for (let k = 0; k < size; k++) {
    const j = order[s + k]!;
    offsets[k] = q;
    let outside = 0;
    const end = inOffsets[j + 1]!;
    for (let r = inOffsets[j]!; r < end; r++) {
      const u = inSources[r]!;
      if (component[u] === componentId) sources[q++] = u;
      else outside += z[u]!;
    }
    const value = (uniform ? uniformValue : teleport[j]!) + c * outside;
    constant[k] = value;
    constantMass += value;
    y[j] = value;
    z[j] = value * share[j]!;
    internalShare[j] = shareKeptInside(j, componentId, outOffsets, outTargets, component, share);
    work += outOffsets[j + 1]! - outOffsets[j]!;
  }
  offsets[size] = q;

  let sweeps = 0;
  let balancing = true;
  let lastCorrection = Infinity;
  while (sweeps < maxSweeps) {
    let change = 0;
    let mass = 0;
    let retained = 0;
    if (kernel !== null) {
      const moments = state.kernel!.moments;
      kernel.smallSweep(order.byteOffset, offsets.byteOffset, sources.byteOffset, constant.byteOffset, share.byteOffset, internalShare.byteOffset,
        y.byteOffset, z.byteOffset, moments.byteOffset, s, size, c);
      change = moments[0]!;
      mass = moments[1]!;
      retained = moments[2]!;
    } else {
      for (let k = 0; k < size; k++) {
        const j = order[s + k]!;
        let sum = 0;
        const end = offsets[k + 1]!;
        for (let r = offsets[k]!; r < end; r++) sum += z[sources[r]!]!;
        const value = constant[k]! + c * sum;
        change += Math.abs(value - y[j]!);
        y[j] = value;
        z[j] = value * share[j]!;
        mass += value;
        retained += internalShare[j]! * value;
      }
    }
    sweeps++;
    work += q;
    if (mass > 0 && balancing) {
      const balance = flowBalance(constantMass, c, retained, mass, lastCorrection);
      const { balanced, scale } = balance;
      balancing = balance.balancing;
      lastCorrection = balance.correction;
      change += Math.abs(balanced - mass);
      if (kernel !== null) kernel.handOff(order.byteOffset, y.byteOffset, z.byteOffset, 0, s, e, scale, 1, 0, 0, 0, 0, 0, 0);
      else {
        for (let k = s; k < e; k++) {
          const j = order[k]!;
          y[j]! *= scale;
          z[j]! *= scale;
        }
      }
      mass = balanced;
    }
    onSweep?.(sweeps, mass > 0 ? change / mass : 0);
    if (change <= tolerance * mass) break;
  }
  return { sweeps, work };
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
export function flowBalance(
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

// ---------------------------------------------------------------- large components

/** What the threads of a large component's solve share. */
export interface LargeComponentData {
  inOffsets: Uint32Array;
  inSources: Int32Array;
  outOffsets: Uint32Array;
  outTargets: Int32Array;
  component: Int32Array;
  order: Int32Array;
  share: Float64Array;
  internalShare: Float64Array;
  teleport: Float64Array;
  y: Float64Array;
  /** Thread 0's view of what each page passes on: the solve's z. */
  z: Float64Array;
  /** Threads 1.. each have their own view, n values apiece, one after the other (8 bytes per page per extra thread). */
  copies: Float64Array;
  /** The WebAssembly kernel and, in its memory, 4 moments per thread it writes; null: the sweeps in JavaScript. */
  kernel: GaussSeidelKernel | null;
  moments: Float64Array;
  /** y as the last sweep started (the extrapolation's difference), n values (in the kernel's memory with the kernel); empty: no extrapolation. */
  previous: Float64Array;
  /** Thread t sweeps positions bounds[t] .. bounds[t+1] (about equal numbers of in-links). */
  bounds: Int32Array;
  /** [damping, tolerance, maximum sweeps, component id, first position, end position, 1/n]. */
  params: Float64Array;
  /** Two slots (by sweep parity) of [change, mass, mass kept inside, inflow from outside + teleport] per thread. */
  partials: Float64Array;
  /** [sweeps]. */
  result: Int32Array;
}

function largeComponentData(state: SolveState, threads: number, extrapolate: boolean): LargeComponentData {
  const { inOffsets, inSources, outOffsets, outTargets, component, order, share, internalShare, teleport, y, z } = state;
  const params = sharedFloat64(7);
  params[0] = state.c;
  params[6] = state.uniformValue;
  return {
    inOffsets,
    inSources,
    outOffsets,
    outTargets,
    component,
    order,
    share,
    internalShare,
    teleport,
    y,
    z,
    // With the kernel, in its memory; else allocated by the first component swept on several threads.
    copies: state.kernel?.copies ?? new Float64Array(0),
    kernel: state.kernel === null ? null : { module: state.kernel.module, memory: state.kernel.memory.memory },
    moments: state.kernel?.moments ?? new Float64Array(0),
    previous: !extrapolate ? new Float64Array(0) : (state.kernel?.previous ?? sharedFloat64(state.z.length)),
    bounds: sharedInt32(threads + 1),
    params,
    partials: sharedFloat64(8 * threads),
    result: sharedInt32(1),
  };
}

function solveLargeComponent(
  data: LargeComponentData,
  s: number,
  e: number,
  componentId: number,
  threads: number,
  tolerance: number,
  maxSweeps: number,
  onSweep?: (sweep: number, relativeChange: number) => void,
): number {
  data.params.set([tolerance, maxSweeps, componentId, s, e], 1);
  if (threads > 1 && data.copies.length < (threads - 1) * data.z.length) data.copies = sharedFloat64((threads - 1) * data.z.length);
  // Ranges of about equal numbers of in-links (plus two per page, the per-page work).
  const { order, inOffsets, bounds } = data;
  let total = 0;
  for (let k = s; k < e; k++) total += inOffsets[order[k]! + 1]! - inOffsets[order[k]!]! + 2;
  bounds[0] = s;
  let k = s;
  let prefix = 0;
  for (let t = 1; t < threads; t++) {
    const target = (total * t) / threads;
    while (k < e && prefix < target) {
      prefix += inOffsets[order[k]! + 1]! - inOffsets[order[k]!]! + 2;
      k++;
    }
    bounds[t] = k;
  }
  bounds[threads] = e;
  // Thread 0 is this thread: it reports each sweep as it ends.
  runParallel('pagerank-component-sweeps', data, threads, (context) => sweepLargeComponent(context, onSweep));
  return data.result[0]!;
}

/**
 * When to extrapolate a large component's sweeps, and by how much. Once Gauss-Seidel settles into
 * its slowest mode the error shrinks by a steady ratio r per sweep, e_k ~ r^k v, and so does the
 * L1 change between sweeps; then the limit is about x_k + (x_k - x_{k-1}) r / (1 - r) (the power
 * extrapolation of Kamvar, Haveliwala, Manning and Golub 2003, "Extrapolation methods for
 * accelerating PageRank computations", on Gauss-Seidel's sweeps instead of power iterations).
 * It is applied when the ratio of successive changes has held within 1% for two sweeps, is at most
 * 0.95, and the change is still far (100x) above the stopping tolerance, where rounding does not
 * yet disturb the ratio; then the ratio must settle again before the next one. On cnr-2000 this
 * cut the work to 5e-12 from 48.9 to 41 power iterations' worth, with half the L1 error
 * (measured 2026-11-25).
 */
export class ChangeTrend {
  private lastChange = 0;
  private lastRatio = 0;
  private steady = 0;
  /** The change of the sweep an extrapolation followed (0: none pending). */
  private extrapolatedAt = 0;
  private off = false;

  /** After a sweep of relative change change/mass: the extrapolation factor r / (1 - r), or 0 for none. */
  extrapolation(change: number, mass: number, tolerance: number): number {
    if (this.extrapolatedAt > 0) {
      // The sweep after an extrapolation changed more than the one before it: the error was not in
      // one steady mode (an oscillating one, as the block Jacobi between threads' ranges can make).
      // Gauss-Seidel recovers from the worse start; no more extrapolation for this component.
      if (change > this.extrapolatedAt) this.off = true;
      this.extrapolatedAt = 0;
    }
    const ratio = this.lastChange > 0 ? change / this.lastChange : 0;
    this.steady = ratio > 0 && Math.abs(ratio - this.lastRatio) < 0.01 * ratio ? this.steady + 1 : 0;
    this.lastRatio = ratio;
    this.lastChange = change;
    if (this.off || this.steady < 2 || ratio > 0.95 || !(change > 100 * tolerance * mass)) return 0;
    this.steady = 0;
    this.extrapolatedAt = change;
    return ratio / (1 - ratio);
  }
}

/**
 * One thread's part of a large component's solve (also run by the worker
 * threads). Each thread sweeps its own range of the component's pages by
 * Gauss-Seidel, reading its own view of the vector: its range as it goes,
 * the other threads' ranges as they were at the end of the last sweep (block
 * Jacobi between the ranges). After each sweep and its mass balance every
 * thread writes its range into the other views, between two barriers, so
 * the result depends on the number of threads but never on their timing.
 * The first sweep also measures what flows in from earlier components (the
 * constant of the flow balance). Every thread adds the same partials in the
 * same order, so all take the same decisions.
 */
export function sweepLargeComponent(context: TaskContext<LargeComponentData>, onSweep?: (sweep: number, relativeChange: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { order, inOffsets, inSources, outOffsets, outTargets, component, share, internalShare, teleport, y, z, copies, previous, bounds, params, partials } = data;
  const n = z.length;
  const c = params[0]!;
  const tolerance = params[1]!;
  const maxSweeps = params[2]!;
  const componentId = params[3]!;
  const uniformValue = params[6]!;
  const uniform = teleport.length === 0;
  const extrapolating = previous.length > 0;
  const views = Array.from({ length: threads }, (_, t) => (t === 0 ? z : copies.subarray((t - 1) * n, t * n)));
  const own = views[thread]!;
  const others = views.filter((_, t) => t !== thread);
  const wasm = data.kernel === null ? null : gaussSeidelKernel(data.kernel);
  const sweep = wasm?.sweep ?? null;
  const ownMoments = data.moments.subarray(4 * thread, 4 * thread + 4);
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  let teleportMass = 0;
  for (let k = lo; k < hi; k++) {
    const j = order[k]!;
    const value = uniform ? uniformValue : teleport[j]!;
    teleportMass += value;
    y[j] = value;
    z[j] = value * share[j]!;
    if (extrapolating) previous[j] = value;
    internalShare[j] = shareKeptInside(j, componentId, outOffsets, outTargets, component, share);
  }
  partials[4 * thread + 3] = teleportMass;
  barrierWait(barrier, threads);
  // The other views start as a copy of the solve's z: earlier components' final values and this one's start.
  if (thread > 0) own.set(z);
  let constantMass = 0;
  for (let t = 0; t < threads; t++) constantMass += partials[4 * t + 3]!;
  barrierWait(barrier, threads);

  let balancing = true;
  let lastCorrection = Infinity;
  let sweeps = 0;
  const trend = extrapolating ? new ChangeTrend() : null;
  while (sweeps < maxSweeps) {
    const first = sweeps === 0;
    let m: Float64Array;
    if (sweep !== null) {
      // The same sweep in WebAssembly: the same operations in the same order (kernels/gauss-seidel.wat).
      sweep(order.byteOffset, inOffsets.byteOffset, inSources.byteOffset, share.byteOffset, internalShare.byteOffset, teleport.byteOffset,
        y.byteOffset, own.byteOffset, component.byteOffset, ownMoments.byteOffset, lo, hi, c, uniformValue, uniform ? 1 : 0, componentId, first ? 1 : 0);
      m = ownMoments;
    } else {
      m = first
        ? sweepRangeMeasuringInflow(lo, hi, c, componentId, order, inOffsets, inSources, component, share, internalShare, teleport, uniformValue, y, own)
        : sweepRange(lo, hi, c, order, inOffsets, inSources, share, internalShare, teleport, uniformValue, y, own);
    }
    const slot = (sweeps & 1) * 4 * threads;
    partials[slot + 4 * thread] = m[0]!;
    partials[slot + 4 * thread + 1] = m[1]!;
    partials[slot + 4 * thread + 2] = m[2]!;
    partials[slot + 4 * thread + 3] = m[3]!;
    barrierWait(barrier, threads);
    let change = 0;
    let mass = 0;
    let retained = 0;
    let inflow = 0;
    for (let t = 0; t < threads; t++) {
      change += partials[slot + 4 * t]!;
      mass += partials[slot + 4 * t + 1]!;
      retained += partials[slot + 4 * t + 2]!;
      inflow += partials[slot + 4 * t + 3]!;
    }
    if (first) constantMass += c * inflow;
    sweeps++;
    let scale = 1;
    if (mass > 0 && balancing) {
      const balance = flowBalance(constantMass, c, retained, mass, lastCorrection);
      scale = balance.scale;
      balancing = balance.balancing;
      lastCorrection = balance.correction;
      change += Math.abs(balance.balanced - mass);
      mass = balance.balanced;
    }
    // Every thread takes the same decision from the same totals.
    const factor = trend === null ? 0 : trend.extrapolation(change, mass, tolerance);
    // Rescale this thread's range (the balance), extrapolate it, keep it as the next sweep's start
    // and hand it to the other views (nobody sweeps until the barrier); no pass at all for one
    // thread without a balance or an extrapolation to keep up.
    const handOff = scale !== 1 || threads > 1 || extrapolating;
    if (handOff && wasm !== null) {
      // The same in the kernel: with the first hand-off (or alone), then copied to the others.
      const firstOther = others.length > 0 ? others[0]!.byteOffset : 0;
      wasm.handOff(order.byteOffset, y.byteOffset, own.byteOffset, firstOther, lo, hi, scale, 1, others.length > 0 ? 1 : 0,
        previous.byteOffset, share.byteOffset, factor, factor > 0 ? 1 : 0, extrapolating ? 1 : 0);
      for (let t = 1; t < others.length; t++) {
        wasm.handOff(order.byteOffset, y.byteOffset, own.byteOffset, others[t]!.byteOffset, lo, hi, scale, 0, 1, previous.byteOffset, share.byteOffset, 0, 0, 0);
      }
    } else if (handOff) {
      for (let k = lo; k < hi; k++) {
        const j = order[k]!;
        y[j]! *= scale;
        own[j]! *= scale;
        if (factor > 0) {
          const extrapolated = y[j]! + (y[j]! - previous[j]!) * factor;
          y[j] = extrapolated;
          own[j] = extrapolated * share[j]!;
        }
        if (extrapolating) previous[j] = y[j]!;
        const passed = own[j]!;
        for (let t = 0; t < others.length; t++) others[t]![j] = passed;
      }
    }
    if (threads > 1) barrierWait(barrier, threads);
    if (thread === 0) onSweep?.(sweeps, mass > 0 ? change / mass : 0);
    if (change <= tolerance * mass) break;
  }
  if (thread === 0) data.result[0] = sweeps;
}

const rangeMoments = new Float64Array(4);

/** One Gauss-Seidel pass over positions a..b reading and writing z; returns [L1 change, mass, mass kept inside the component, 0]. */
function sweepRange(
  a: number,
  b: number,
  c: number,
  order: Int32Array,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  share: Float64Array,
  internalShare: Float64Array,
  teleport: Float64Array,
  uniformValue: number,
  y: Float64Array,
  z: Float64Array,
): Float64Array {
  const uniform = teleport.length === 0;
  let change = 0;
  let mass = 0;
  let retained = 0;
  for (let k = a; k < b; k++) {
    const j = order[k]!;
    let sum = 0;
    const end = inOffsets[j + 1]!;
    for (let q = inOffsets[j]!; q < end; q++) sum += z[inSources[q]!]!;
    const value = (uniform ? uniformValue : teleport[j]!) + c * sum;
    change += Math.abs(value - y[j]!);
    y[j] = value;
    z[j] = value * share[j]!;
    mass += value;
    retained += internalShare[j]! * value;
  }
  rangeMoments[0] = change;
  rangeMoments[1] = mass;
  rangeMoments[2] = retained;
  rangeMoments[3] = 0;
  return rangeMoments;
}

/**
 * sweepRange that also sums what flows in from earlier components (their values are final): [.., .., .., inflow].
 * A second function rather than a flag, so that the plain sweep's inner loop has no per-link test
 * (the same reason as pullUniform and pullPersonalised in pagerank-power.ts).
 */
function sweepRangeMeasuringInflow(
  a: number,
  b: number,
  c: number,
  componentId: number,
  order: Int32Array,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  component: Int32Array,
  share: Float64Array,
  internalShare: Float64Array,
  teleport: Float64Array,
  uniformValue: number,
  y: Float64Array,
  z: Float64Array,
): Float64Array {
  const uniform = teleport.length === 0;
  let change = 0;
  let mass = 0;
  let retained = 0;
  let inflow = 0;
  for (let k = a; k < b; k++) {
    const j = order[k]!;
    let sum = 0;
    const end = inOffsets[j + 1]!;
    for (let q = inOffsets[j]!; q < end; q++) {
      const u = inSources[q]!;
      const passed = z[u]!;
      sum += passed;
      if (component[u] !== componentId) inflow += passed;
    }
    const value = (uniform ? uniformValue : teleport[j]!) + c * sum;
    change += Math.abs(value - y[j]!);
    y[j] = value;
    z[j] = value * share[j]!;
    mass += value;
    retained += internalShare[j]! * value;
  }
  rangeMoments[0] = change;
  rangeMoments[1] = mass;
  rangeMoments[2] = retained;
  rangeMoments[3] = inflow;
  return rangeMoments;
}

// ---------------------------------------------------------------- the check

/** The shared arrays of googleStep. */
export interface GoogleStepData {
  inOffsets: Uint32Array;
  inSources: Int32Array;
  share: Float64Array;
  teleport: Float64Array;
  y: Float64Array;
  z: Float64Array;
  /** pi G, with pi = y / ||y||_1. */
  stepped: Float64Array;
  bounds: Int32Array;
  /** [damping, 1/n]. */
  params: Float64Array;
  /** Per thread: [mass, dangling mass, residual]. */
  partials: Float64Array;
  /** [||pi G - pi||_1]. */
  result: Float64Array;
  /** The WebAssembly kernel (every array above but the small ones in its memory) and 4 moments per thread in it; null: JavaScript. */
  kernel: GaussSeidelKernel | null;
  moments: Float64Array;
}

function checkData(state: SolveState, n: number, threads: number): GoogleStepData {
  const { inOffsets, inSources, share, teleport, y, z } = state;
  const params = sharedFloat64(2);
  params.set([state.c, state.uniformValue]);
  return {
    inOffsets,
    inSources,
    share,
    teleport,
    y,
    z,
    // The internal shares are not needed once the components are solved: their buffer takes pi G.
    stepped: state.internalShare,
    bounds: splitByLinks(inOffsets, n, threads),
    params,
    partials: sharedFloat64(3 * threads),
    result: sharedFloat64(1),
    kernel: state.kernel === null ? null : { module: state.kernel.module, memory: state.kernel.memory.memory },
    moments: state.kernel?.moments ?? new Float64Array(0),
  };
}

/** Writes pi G into data.stepped for pi = y / ||y||_1 (z = y * share) and returns ||pi G - pi||_1. */
function googleStep(data: GoogleStepData, threads: number): number {
  runParallel('pagerank-google-step', data, threads, googleStepThread);
  return data.result[0]!;
}

/**
 * One thread's part of googleStep: the mass and dangling mass of y over its
 * pages, a barrier, then the pull over its pages' in-links:
 * (pi G)_v = c * sum_{u->v} z_u / ||y|| + (c * dangling share + 1 - c) * v_v.
 */
export function googleStepThread(context: TaskContext<GoogleStepData>): void {
  const { data, thread, threads, barrier } = context;
  const { inOffsets, inSources, share, teleport, y, z, stepped, bounds, params, partials } = data;
  const c = params[0]!;
  const uniformValue = params[1]!;
  const uniform = teleport.length === 0;
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  const wasm = data.kernel === null ? null : gaussSeidelKernel(data.kernel);
  const ownMoments = data.moments.subarray(4 * thread, 4 * thread + 4);
  let mass = 0;
  let dangling = 0;
  if (wasm !== null) {
    wasm.massAndDangling(y.byteOffset, share.byteOffset, ownMoments.byteOffset, lo, hi);
    mass = ownMoments[0]!;
    dangling = ownMoments[1]!;
  } else {
    for (let v = lo; v < hi; v++) {
      const value = y[v]!;
      mass += value;
      if (share[v] === 0) dangling += value;
    }
  }
  partials[3 * thread] = mass;
  partials[3 * thread + 1] = dangling;
  barrierWait(barrier, threads);
  mass = 0;
  dangling = 0;
  for (let t = 0; t < threads; t++) {
    mass += partials[3 * t]!;
    dangling += partials[3 * t + 1]!;
  }
  const scale = 1 / mass;
  const jump = (c * dangling) / mass + 1 - c;
  let residual = 0;
  if (wasm !== null) {
    // c * scale * sum is (c * scale) * sum: the kernel gets c * scale as one number, the same bits.
    wasm.googlePull(inOffsets.byteOffset, inSources.byteOffset, z.byteOffset, y.byteOffset, teleport.byteOffset, stepped.byteOffset, ownMoments.byteOffset,
      lo, hi, c * scale, jump, scale, uniformValue, uniform ? 1 : 0);
    residual = ownMoments[0]!;
  } else {
    let q = inOffsets[lo]!;
    for (let v = lo; v < hi; v++) {
      const end = inOffsets[v + 1]!;
      let sum = 0;
      for (; q < end; q++) sum += z[inSources[q]!]!;
      const value = c * scale * sum + jump * (uniform ? uniformValue : teleport[v]!);
      stepped[v] = value;
      residual += Math.abs(value - y[v]! * scale);
    }
  }
  partials[3 * thread + 2] = residual;
  barrierWait(barrier, threads);
  if (thread === 0) {
    residual = 0;
    for (let t = 0; t < threads; t++) residual += partials[3 * t + 2]!;
    data.result[0] = residual;
  }
}
