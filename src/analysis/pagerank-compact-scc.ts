/**
 * PageRank over the compact in-lists by Gauss-Seidel over strongly connected components in
 * topological order: the plain form's method (pagerank-scc.ts, after PRPACK) without the plain arrays.
 *
 * The system is the plain solver's: y = c P0^T y + v with the dangling rows of P0 left at zero and
 * v uniform, pi = y / ||y||_1 (the dangling pages' mass goes where the teleport goes, so no page
 * waits on the dangling total and each component depends only on the components before it).
 * - The components come from Tarjan's search over the in-lists themselves (compact-search.ts): the
 *   reversed graph has the same components, and its finishing order (sinks first) is the graph's
 *   topological order, so component ids ascending are the order to solve them in. No out-lists.
 * - A single page (most of a web graph's small components) is exact in one gather.
 * - A component of several pages is swept (Gauss-Seidel, its pages in id order) until a sweep
 *   changes it by at most tolerance * its mass, the plain solver's rule; those of at least
 *   PARALLEL_COMPONENT_PAGES pages by every thread, each on its range of the component's pages,
 *   all on one vector (asynchronous between the ranges, as pagerank-compact-gs.ts: the last digits
 *   may differ between two-thread runs, one thread is deterministic).
 * - Large components' sweeps decode a block of lists ahead of their gathers (as the power kernel's
 *   pullBlocked): the gathers of a block then wait on memory together. The values gathered are
 *   those of a page-by-page sweep, so this is still Gauss-Seidel.
 * Then pi = y / sum y is checked with one pass as a power step, ||pi G - pi||_1 <= tolerance, the
 * stopping rule of every solver here; when it is not met (a component stopped on a small change
 * that was not a small error), id-order sweeps (pagerank-compact-gs.ts) continue from pi.
 *
 * Memory beyond the in-lists and their per-page offsets: Tarjan's 12 bytes per page while it runs,
 * then the component (4) and the order (4) of every page, y and z (16), the out-degrees (4).
 */
import type { CompactLists } from '../graph/compact.js';
import { LONG_PHASE_TIMEOUT_MS, barrierWait } from '../parallel/barrier.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32 } from '../parallel/shared-memory.js';
import { compactScc } from './compact-search.js';
import { decodeBlock, decodeGaps, decodedBlock, listEnd, readHeader, splitBySamples, sumOfValues } from './compact-gather.js';
import { compactGaussSeidel } from './pagerank-compact-gs.js';
import { flowBalance } from './pagerank-scc.js';

/**
 * Bytes per page at the peak besides the in-lists, planned: the per-page offsets and out-degrees (8),
 * Tarjan's index, low link and component (12), then the order and the first position of every
 * component (8 at most), y, z and the internal out-degrees (20); 48 in all, Tarjan's arrays counted
 * until they are collected.
 */
export const COMPACT_SCC_PAGE_BYTES = 48;

/** Components of at least this many pages are swept by every thread with the block-decoding kernel. */
export const PARALLEL_COMPONENT_PAGES = 16_384;

export interface CompactSccPageRankData {
  segments: Uint8Array[];
  samples: Float64Array;
  offsets: Uint32Array;
  /** [segment bytes]. */
  layout: Float64Array;
  outDegree: Int32Array;
  /** Each page's component, ids in topological order. */
  component: Int32Array;
  /** The pages by component (ascending), id order inside. */
  order: Int32Array;
  /** Start and end positions in `order` of the components swept by every thread, in order. */
  large: Int32Array;
  y: Float64Array;
  /** y_u / d_u for pages with out-links, 0 for dangling ones. */
  z: Float64Array;
  /**
   * Per page of a large component: how many of its out-links stay in the component (counted from
   * the members' in-lists before the sweeps), for the flow balance.
   */
  internalOut: Int32Array;
  /** [damping, tolerance, maximum sweeps of a component]. */
  params: Float64Array;
  /** Per thread: change, mass, links gathered or retained mass, residual or inflow. */
  partials: Float64Array;
  /** Thread t's pages for the normalisation and the check: bounds[t] .. bounds[t + 1]. */
  bounds: Int32Array;
  /** [most sweeps of a component, links gathered, components stopped by the cap, residual]. */
  result: Float64Array;
}

export interface CompactSccPageRankRun {
  /** pi, summing to 1. */
  scores: Float64Array;
  /** Sweeps of the component that needed the most, plus the id-order sweeps after it if any. */
  sweeps: number;
  /** Links gathered by all sweeps and checks over the link count: the work in power iterations. */
  passes: number;
  residual: number;
  converged: boolean;
  components: number;
  largestComponent: number;
  threads: number;
  /** Seconds of Tarjan's search. */
  sccSeconds: number;
}

const PARTIALS = 4;

/**
 * Google's PageRank of compact in-lists (with per-page offsets) by Gauss-Seidel over strongly
 * connected components; scores sum to 1.
 */
export function compactSccPageRank(
  lists: CompactLists,
  outDegree: Int32Array,
  options: { damping: number; tolerance: number; maxIterations: number; threads?: number; onIteration?: (sweep: number, change: number) => void },
): CompactSccPageRankRun {
  const n = lists.nodeCount;
  const offsets = lists.offsets;
  if (offsets === null) throw new RangeError('compactSccPageRank: the in-lists need their per-page offsets');
  const threads = lists.linkCount < 200_000 || n < 2 * PARALLEL_COMPONENT_PAGES * (options.threads ?? 1) ? 1 : Math.max(1, options.threads ?? 1);
  if (threads > 1) warmUpWorkers(threads);
  const started = performance.now();
  // The dangling pages link nowhere, so nothing links to them in the reversed graph searched here:
  // components of their own, numbered last (solved last), their in-lists left unread by the search.
  const scc = compactScc(lists, { sources: outDegree });
  const sccSeconds = (performance.now() - started) / 1000;
  // The pages by component: a counting sort on the component ids (already topological).
  const count = scc.count;
  const first = new Int32Array(count + 1);
  for (let t = 0; t < count; t++) first[t + 1] = first[t]! + scc.sizes[t]!;
  const order = threads > 1 ? sharedInt32(n) : new Int32Array(n);
  const component = scc.component;
  for (let v = 0; v < n; v++) order[first[component[v]!]!++] = v;
  // first[t] is now the end of component t, its start that of t - 1.
  const large: number[] = [];
  let largest = 0;
  for (let t = 0; t < count; t++) {
    const size = scc.sizes[t]!;
    if (size > largest) largest = size;
    if (size >= PARALLEL_COMPONENT_PAGES) large.push(first[t]! - size, first[t]!);
  }
  const largeBounds = threads > 1 ? sharedInt32(large.length) : new Int32Array(large.length);
  largeBounds.set(large);
  const data: CompactSccPageRankData = {
    segments: lists.segments,
    samples: lists.samples,
    offsets,
    layout: sharedFloat64(1).fill(lists.segmentBytes),
    outDegree,
    component,
    order,
    large: largeBounds,
    y: sharedFloat64(n),
    z: sharedFloat64(n),
    internalOut: large.length === 0 ? new Int32Array(0) : threads > 1 ? sharedInt32(n) : new Int32Array(n),
    params: sharedFloat64(3),
    partials: sharedFloat64(PARTIALS * threads),
    bounds: splitBySamples(lists.samples, n, threads),
    result: sharedFloat64(4),
  };
  data.params.set([options.damping, options.tolerance, options.maxIterations]);
  if (n > 0) runParallel('pagerank-compact-scc', data, threads, (context) => compactSccThread(context, options.onIteration));
  const [sweeps, links, , residual] = data.result as unknown as [number, number, number, number];
  const m = Math.max(1, lists.linkCount);
  let run: CompactSccPageRankRun = {
    scores: data.y,
    sweeps,
    passes: links / m,
    residual,
    converged: residual <= options.tolerance,
    components: count,
    largestComponent: largest,
    threads,
    sccSeconds,
  };
  if (!run.converged && n > 0) {
    // Not met (a component's small change was not a small error): id-order sweeps from pi.
    const more = compactGaussSeidel(lists, outDegree, { ...options, maxIterations: Math.max(1, options.maxIterations - sweeps), threads, initial: data.y });
    run = { ...run, scores: more.scores, sweeps: sweeps + more.sweeps, passes: run.passes + more.sweeps + more.checks, residual: more.residual, converged: more.converged };
  }
  return run;
}

/** The global byte position of page v's list. */
function listAt(data: CompactSccPageRankData, v: number): number {
  return data.samples[v >>> 6]! + data.offsets[v]!;
}

/** The segment holding the list that `locate` found last. */
let locatedBytes: Uint8Array = new Uint8Array(0);

/** Page v's list: its segment in locatedBytes, its position in it returned. */
function locate(data: CompactSccPageRankData, v: number): number {
  const global = listAt(data, v);
  const { segments } = data;
  if (segments.length === 1) {
    locatedBytes = segments[0]!;
    return global;
  }
  const segmentBytes = data.layout[0]!;
  const segment = Math.floor(global / segmentBytes);
  locatedBytes = segments[segment]!;
  return global - segment * segmentBytes;
}

/**
 * One thread's share: thread 0 solves the small components up to the next large one while the
 * others wait; every thread sweeps its range of each large component; then the normalisation and
 * the check, each thread on its range of pages.
 */
export function compactSccThread(context: TaskContext<CompactSccPageRankData>, onIteration?: (sweep: number, change: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { large, partials, params } = data;
  const c = params[0]!;
  const tolerance = params[1]!;
  const maxSweeps = params[2]!;
  const n = data.order.length;
  const teleport = 1 / n;
  const stats = { sweeps: 0, links: 0, capped: 0 };
  let position = 0;
  for (let i = 0; i < large.length; i += 2) {
    const start = large[i]!;
    const end = large[i + 1]!;
    if (thread === 0) solveSmallComponents(data, position, start, c, teleport, tolerance, maxSweeps, stats);
    position = end;
    barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
    // This thread's range of the component, cut where the lists' bytes are shared equally.
    const from = splitPosition(data, start, end, thread, threads);
    const to = splitPosition(data, start, end, thread + 1, threads);
    const componentId = data.component[data.order[start]!]!;
    // The internal out-links per member (for the flow balance), counted from the lists that are
    // fewer: the members' own (internal sources counted up), or those of the pages after the
    // component (links out of it counted down from the out-degrees; for the giant component the few
    // pages downstream).
    const fromLater = n - end < end - start;
    let sweeps = 0;
    let balancing = true;
    let lastCorrection = Infinity;
    let constantMass = 0;
    for (;;) {
      const first = sweeps === 0;
      // The first sweep is a Jacobi step from zero inside the component: its mass is then exactly
      // the teleport's plus what flows in from the components before (the balance's constant).
      sweepBlocked(data, from, to, c, teleport, sweepOut, first);
      stats.links += sweepOut[2]!;
      sweepOut[2] = sweepOut[3]!;
      if (first) {
        // No thread writes z before every thread's Jacobi step has read it.
        barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
        settleContributions(data, from, to);
        if (fromLater) initialiseFromOutDegrees(data, from, to);
        else countLinksFrom(data, from, to, componentId, 1, threads > 1, stats);
        barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
        if (fromLater) countLinksFrom(data, end + Math.floor(((n - end) * thread) / threads), end + Math.floor(((n - end) * (thread + 1)) / threads), componentId, -1, threads > 1, stats);
        barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
      }
      // The mass kept inside: summed by the sweep as it wrote z, or, after the Jacobi step (z written after it), in a pass.
      if (first) sweepOut[2] = retainedMass(data, from, to);
      partials.set(sweepOut, PARTIALS * thread);
      barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
      let change = 0;
      let mass = 0;
      let retained = 0;
      for (let k = 0; k < threads; k++) {
        change += partials[PARTIALS * k]!;
        mass += partials[PARTIALS * k + 1]!;
        retained += partials[PARTIALS * k + 2]!;
      }
      if (first) constantMass = mass;
      sweeps++;
      if (mass > 0 && balancing) {
        // The plain solver's one-block aggregation: the mass its flow balance implies.
        const balance = flowBalance(constantMass, c, retained, mass, lastCorrection);
        balancing = balance.balancing;
        lastCorrection = balance.correction;
        change += Math.abs(balance.balanced - mass);
        mass = balance.balanced;
        if (balance.scale !== 1) rescale(data, from, to, balance.scale);
      }
      if (thread === 0 && sweeps > stats.sweeps) onIteration?.(sweeps, mass > 0 ? change / mass : 0);
      barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
      if (change <= tolerance * mass) break;
      if (sweeps >= maxSweeps) {
        stats.capped++;
        break;
      }
    }
    if (sweeps > stats.sweeps) stats.sweeps = sweeps;
  }
  if (thread === 0) solveSmallComponents(data, position, n, c, teleport, tolerance, maxSweeps, stats);
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  // pi = y / sum y, z = pi / d, and the dangling mass, each thread on its range of ids.
  const lo = data.bounds[thread]!;
  const hi = data.bounds[thread + 1]!;
  const { y, z, outDegree } = data;
  let total = 0;
  for (let v = lo; v < hi; v++) total += y[v]!;
  partials[PARTIALS * thread + 1] = total;
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  total = 0;
  for (let k = 0; k < threads; k++) total += partials[PARTIALS * k + 1]!;
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  let dangling = 0;
  for (let v = lo; v < hi; v++) {
    const pi = y[v]! / total;
    y[v] = pi;
    const d = outDegree[v]!;
    if (d > 0) z[v] = pi / d;
    else {
      z[v] = 0;
      dangling += pi;
    }
  }
  partials[PARTIALS * thread + 1] = dangling;
  partials[PARTIALS * thread + 2] = stats.links;
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  dangling = 0;
  let links = 0;
  for (let k = 0; k < threads; k++) {
    dangling += partials[PARTIALS * k + 1]!;
    links += partials[PARTIALS * k + 2]!;
  }
  partials[PARTIALS * thread + 3] = checkPass(data, lo, hi, c, (c * dangling + 1 - c) / n);
  barrierWait(barrier, threads, LONG_PHASE_TIMEOUT_MS);
  if (thread === 0) {
    let residual = 0;
    for (let k = 0; k < threads; k++) residual += partials[PARTIALS * k + 3]!;
    // The check gathers every link once more.
    data.result.set([stats.sweeps, links + linkCountOf(data), stats.capped, residual]);
  }
}

/** The links in the lists: the sum of the in-degrees read from the headers is not kept, so the out-degrees' sum. */
function linkCountOf(data: CompactSccPageRankData): number {
  let m = 0;
  for (let v = 0; v < data.outDegree.length; v++) m += data.outDegree[v]!;
  return m;
}

const sweepOut = new Float64Array(PARTIALS);

/** One list decoded at a time (grown for the longest list met; each worker has its own). */
const oneList = decodedBlock();

/**
 * The lists of the pages at positions [from, to): each in-link from a member of the component adds
 * `delta` to its source's internalOut (atomically when threads share the counts). With +1 over the
 * members' own lists it counts the links that stay inside; with -1 over the lists of the pages after
 * the component it takes the links that leave off the out-degrees. One decoding pass.
 */
function countLinksFrom(data: CompactSccPageRankData, from: number, to: number, componentId: number, delta: 1 | -1, shared: boolean, stats: { links: number }): void {
  const { order, component, internalOut } = data;
  for (let k = from; k < to; k++) {
    const v = order[k]!;
    const at = locate(data, v);
    decodeBlock(locatedBytes, at, v, v + 1, oneList);
    const degree = oneList.ends[0]!;
    stats.links += degree;
    const sources = oneList.sources;
    for (let i = 0; i < degree; i++) {
      const u = sources[i]!;
      if (component[u] !== componentId) continue;
      if (shared) Atomics.add(internalOut, u, delta);
      else internalOut[u]! += delta;
    }
  }
}

/** internalOut of the members at [from, to) set to their out-degrees (countLinksFrom takes the others off). */
function initialiseFromOutDegrees(data: CompactSccPageRankData, from: number, to: number): void {
  const { order, internalOut, outDegree } = data;
  for (let k = from; k < to; k++) {
    const v = order[k]!;
    internalOut[v] = outDegree[v]!;
  }
}

/** z = y / d for the members at [from, to) (after the first sweep, which left z at zero). */
function settleContributions(data: CompactSccPageRankData, from: number, to: number): void {
  const { order, y, z, outDegree } = data;
  for (let k = from; k < to; k++) {
    const v = order[k]!;
    const d = outDegree[v]!;
    z[v] = d > 0 ? y[v]! / d : 0;
  }
}

/** sum of internalOut_u * z_u over the members at [from, to): the mass the component keeps, times 1/c. */
function retainedMass(data: CompactSccPageRankData, from: number, to: number): number {
  const { order, z, internalOut } = data;
  let retained = 0;
  for (let k = from; k < to; k++) {
    const v = order[k]!;
    retained += internalOut[v]! * z[v]!;
  }
  return retained;
}

/** y and z of the members at [from, to) times `scale`. */
function rescale(data: CompactSccPageRankData, from: number, to: number, scale: number): void {
  const { order, y, z } = data;
  for (let k = from; k < to; k++) {
    const v = order[k]!;
    y[v]! *= scale;
    z[v]! *= scale;
  }
}

/** The position in [start, end) where thread `part` of `parts` begins: the lists' bytes shared equally. */
function splitPosition(data: CompactSccPageRankData, start: number, end: number, part: number, parts: number): number {
  if (part <= 0) return start;
  if (part >= parts) return end;
  const { order } = data;
  const low = listAt(data, order[start]!);
  const high = listAt(data, order[end - 1]!);
  const target = low + ((high - low) * part) / parts;
  // Members are in id order, so their lists' positions increase: the first at or past the target.
  let a = start;
  let b = end - 1;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (listAt(data, order[mid]!) < target) a = mid + 1;
    else b = mid;
  }
  return a;
}

/** The gather of page v's list: sum of z over its in-neighbours; its degree added to stats.links. */
function gather(data: CompactSccPageRankData, v: number, stats: { links: number }): number {
  const p = locate(data, v);
  const bytes = locatedBytes;
  const header = readHeader(bytes, p);
  stats.links += header >>> 1;
  return sumOfValues(bytes, listEnd, v, header, data.z);
}

/**
 * The components in positions [from, to) of the order, one after the other: a single page in one
 * gather, a larger one by sweeps until a sweep changes it by at most tolerance * its mass.
 */
function solveSmallComponents(
  data: CompactSccPageRankData,
  from: number,
  to: number,
  c: number,
  teleport: number,
  tolerance: number,
  maxSweeps: number,
  stats: { sweeps: number; links: number; capped: number },
): void {
  const { order, component, y, z, outDegree } = data;
  let k = from;
  while (k < to) {
    const t = component[order[k]!]!;
    let last = k + 1;
    while (last < to && component[order[last]!] === t) last++;
    if (last === k + 1) {
      const v = order[k]!;
      const value = c * gather(data, v, stats) + teleport;
      y[v] = value;
      const d = outDegree[v]!;
      z[v] = d > 0 ? value / d : 0;
      if (stats.sweeps < 1) stats.sweeps = 1;
    } else {
      let sweeps = 0;
      for (;;) {
        let change = 0;
        let mass = 0;
        for (let i = k; i < last; i++) {
          const v = order[i]!;
          const value = c * gather(data, v, stats) + teleport;
          change += Math.abs(value - y[v]!);
          mass += value;
          y[v] = value;
          const d = outDegree[v]!;
          z[v] = d > 0 ? value / d : 0;
        }
        sweeps++;
        if (change <= tolerance * mass) break;
        if (sweeps >= maxSweeps) {
          stats.capped++;
          break;
        }
      }
      if (sweeps > stats.sweeps) stats.sweeps = sweeps;
    }
    k = last;
  }
}

/** Sources decoded ahead of their gathers (one buffer per thread: each worker has its own module). */
const BLOCK_LINKS = 4096;
const blockSources = new Int32Array(BLOCK_LINKS);
const blockEnds = new Int32Array(BLOCK_LINKS);
const blockPages = new Int32Array(BLOCK_LINKS);

/**
 * One Gauss-Seidel sweep of the pages at positions [from, to) of the order: out = [sum |change|,
 * mass after, links gathered, the mass kept inside (internalOut times the new z)]. `jacobi`: z is left as it is (a Jacobi step; settleContributions
 * then writes it). A block of lists is decoded into blockSources, then each of its pages
 * gathers and takes its new value in turn (so a page sees the values its block's earlier pages just
 * took); a list longer than the buffer is decoded and gathered in pieces, a block of its own.
 */
function sweepBlocked(data: CompactSccPageRankData, from: number, to: number, c: number, teleport: number, out: Float64Array, jacobi: boolean): void {
  const { order, y, z, outDegree, internalOut } = data;
  const sources = blockSources;
  const ends = blockEnds;
  const pages = blockPages;
  let change = 0;
  let mass = 0;
  let links = 0;
  let retained = 0;
  let k = from;
  while (k < to) {
    let count = 0;
    let m = 0;
    let longPage = -1;
    let longSum = 0;
    while (k < to && count < BLOCK_LINKS) {
      const v = order[k]!;
      const at = locate(data, v);
      const bytes = locatedBytes;
      const header = readHeader(bytes, at);
      const degree = header >>> 1;
      if (m + degree > BLOCK_LINKS && count > 0) break; // the next block's first list
      k++;
      links += degree;
      if (degree === 0) {
        pages[count] = v;
        ends[count++] = m;
        continue;
      }
      const code = readHeader(bytes, listEnd);
      let p = listEnd;
      const source = (v + ((code >>> 1) ^ -(code & 1))) | 0;
      if (degree > BLOCK_LINKS) {
        // Longer than the buffer: decoded and gathered in pieces, alone.
        longPage = v;
        longSum = z[source]!;
        let s = source;
        for (let i = 1; i < degree; ) {
          const stop = Math.min(degree, i + BLOCK_LINKS);
          const piece = stop - i;
          p = decodeGaps(bytes, p, s, piece, header & 1, sources, 0);
          s = sources[piece - 1]!;
          for (let j = 0; j < piece; j++) longSum += z[sources[j]!]!;
          i = stop;
        }
        break;
      }
      sources[m] = source;
      decodeGaps(bytes, p, source, degree - 1, header & 1, sources, m + 1);
      m += degree;
      pages[count] = v;
      ends[count++] = m;
    }
    let at = 0;
    for (let i = 0; i < count; i++) {
      const v = pages[i]!;
      const stop = ends[i]!;
      let sum = 0;
      for (; at < stop; at++) sum += z[sources[at]!]!;
      const value = c * sum + teleport;
      change += Math.abs(value - y[v]!);
      mass += value;
      y[v] = value;
      if (jacobi) continue;
      const d = outDegree[v]!;
      if (d > 0) {
        const share = value / d;
        z[v] = share;
        retained += internalOut[v]! * share;
      } else z[v] = 0;
    }
    if (longPage >= 0) {
      const value = c * longSum + teleport;
      change += Math.abs(value - y[longPage]!);
      mass += value;
      y[longPage] = value;
      const d = outDegree[longPage]!;
      if (!jacobi) {
        const share = d > 0 ? value / d : 0;
        z[longPage] = share;
        retained += internalOut[longPage]! * share;
      }
    }
  }
  out[0] = change;
  out[1] = mass;
  out[2] = links;
  out[3] = retained;
}

/** sum over pages lo..hi of |c * sum z_u + constant - pi_v|, the lists read in page order. */
function checkPass(data: CompactSccPageRankData, lo: number, hi: number, c: number, constant: number): number {
  const { y, z, segments, samples } = data;
  const segmentBytes = data.layout[0]!;
  let residual = 0;
  for (let block = lo; block < hi; block += 64) {
    const global = samples[block >>> 6]!;
    const segment = Math.floor(global / segmentBytes);
    const bytes = segments[segment]!;
    let p = global - segment * segmentBytes;
    for (let v = block, last = Math.min(hi, block + 64); v < last; v++) {
      const header = readHeader(bytes, p);
      const value = c * sumOfValues(bytes, listEnd, v, header, z) + constant;
      p = listEnd;
      residual += Math.abs(value - y[v]!);
    }
  }
  return residual;
}
