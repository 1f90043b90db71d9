/**
 * Centralities the field ranks web graphs by besides PageRank (issue 28), exact, on the CSR arrays:
 * - harmonic centrality (Boldi and Vigna, "Axioms for Centrality", 2014): h(x) = sum over y != x of
 *   1 / d(y, x), distances *to* x, an unreachable y adding 0 (the one classic centrality satisfying
 *   their axioms); and closeness, 1 / sum of d(y, x) over the y that reach x (NaN when none does),
 *   as igraph's closeness(mode="in", normalized=False). One breadth-first search per page, backwards
 *   along in-links: O(n m), for graphs of up to some 10^5 links, and as HyperBall's reference;
 * - HITS (Kleinberg, 1999): authorities a = A^T h and hubs h = A a, by power iteration from uniform
 *   vectors, each normalised to sum 1 after every step, until the L1 change of both is below the
 *   tolerance (the principal singular vectors of A when the largest singular value is simple);
 * - coreness (k-cores, Batagelj and Zaversnik's O(m) bucket algorithm): the largest k such that the
 *   page belongs to a subgraph where every page has degree at least k, the degree being in + out
 *   ('all': the graph taken as undirected, a reciprocal pair counting twice, as igraph does), in, or
 *   out.
 */
import type { Graph } from '../graph/graph.js';
import { type TaskContext, runParallel } from '../parallel/pool.js';

export interface DistanceCentralities {
  harmonic: Float64Array;
  closeness: Float64Array;
  /** Pages that reach each page (itself excluded). */
  reached: Int32Array;
}

/** Exact harmonic centrality and closeness of every page (distances to it), on `threads` threads. */
export function distanceCentralities(graph: Graph, onProgress?: (done: number) => void, threads = 1): DistanceCentralities {
  const n = graph.nodeCount;
  const data: DistanceShared = {
    inOffsets: graph.inOffsets,
    inSources: graph.inSources,
    n,
    harmonic: new Float64Array(new SharedArrayBuffer(8 * n)),
    closeness: new Float64Array(new SharedArrayBuffer(8 * n)),
    reached: new Int32Array(new SharedArrayBuffer(4 * n)),
    next: new Int32Array(new SharedArrayBuffer(4)),
  };
  runParallel('distance-centralities', data, Math.max(1, Math.min(threads, n)), (context) => distanceCentralitiesThread(context, onProgress));
  return { harmonic: Float64Array.from(data.harmonic), closeness: Float64Array.from(data.closeness), reached: Int32Array.from(data.reached) };
}

/** What the threads of distanceCentralities share. */
export interface DistanceShared {
  inOffsets: Uint32Array;
  inSources: Int32Array;
  n: number;
  harmonic: Float64Array;
  closeness: Float64Array;
  reached: Int32Array;
  /** The next block of pages to search from, taken atomically (blocks of BLOCK pages: even shares whatever the degrees). */
  next: Int32Array;
}

const BLOCK = 64;

/** One thread: breadth-first searches backwards from blocks of pages until none is left. */
export function distanceCentralitiesThread(context: TaskContext<DistanceShared>, onProgress?: (done: number) => void): void {
  const { inOffsets, inSources, n, harmonic, closeness, reached, next } = context.data;
  // Visit marks by search (no clearing between searches), and one queue of pages.
  const seen = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let reported = 0;
  for (;;) {
    const start = Atomics.add(next, 0, BLOCK);
    if (start >= n) break;
    for (let x = start; x < Math.min(n, start + BLOCK); x++) {
      seen[x] = x;
      queue[0] = x;
      let head = 0;
      let tail = 1;
      let distance = 0;
      let levelEnd = 1;
      let inverse = 0;
      let total = 0;
      while (head < tail) {
        if (head === levelEnd) {
          distance++;
          levelEnd = tail;
        }
        const v = queue[head++]!;
        if (v !== x) {
          inverse += 1 / distance;
          total += distance;
        }
        for (let e = inOffsets[v]!, end = inOffsets[v + 1]!; e < end; e++) {
          const u = inSources[e]!;
          if (seen[u] !== x) {
            seen[u] = x;
            queue[tail++] = u;
          }
        }
      }
      harmonic[x] = inverse;
      reached[x] = tail - 1;
      closeness[x] = total === 0 ? Number.NaN : 1 / total;
    }
    if (onProgress !== undefined && start - reported >= 1024) {
      reported = start;
      onProgress(Math.min(n, start + BLOCK));
    }
  }
}

export interface HitsResult {
  authorities: Float64Array;
  hubs: Float64Array;
  iterations: number;
  /** L1 change of the authorities and hubs in the last iteration, summed. */
  residual: number;
  converged: boolean;
}

/** HITS by power iteration (see the top of the file). */
export function hits(graph: Graph, options: { tolerance?: number; maxIterations?: number; onIteration?: (iteration: number, residual: number) => void } = {}): HitsResult {
  const n = graph.nodeCount;
  const tolerance = options.tolerance ?? 1e-12;
  const maxIterations = options.maxIterations ?? 10_000;
  const { outOffsets, outTargets } = graph;
  let hubs = new Float64Array(n).fill(n === 0 ? 0 : 1 / n);
  let authorities = new Float64Array(n);
  let nextHubs = new Float64Array(n);
  let nextAuthorities = new Float64Array(n);
  let residual = Number.POSITIVE_INFINITY;
  let iterations = 0;
  let first = true;
  while (iterations < maxIterations) {
    iterations++;
    // a = A^T h: every link u -> v gives v u's hub score.
    nextAuthorities.fill(0);
    for (let u = 0; u < n; u++) {
      const h = hubs[u]!;
      if (h === 0) continue;
      for (let e = outOffsets[u]!, end = outOffsets[u + 1]!; e < end; e++) nextAuthorities[outTargets[e]!]! += h;
    }
    normaliseL1(nextAuthorities);
    // h = A a: every link u -> v gives u v's authority score.
    for (let u = 0; u < n; u++) {
      let sum = 0;
      for (let e = outOffsets[u]!, end = outOffsets[u + 1]!; e < end; e++) sum += nextAuthorities[outTargets[e]!]!;
      nextHubs[u] = sum;
    }
    normaliseL1(nextHubs);
    residual = l1Change(nextAuthorities, authorities) + l1Change(nextHubs, hubs);
    [authorities, nextAuthorities] = [nextAuthorities, authorities];
    [hubs, nextHubs] = [nextHubs, hubs];
    options.onIteration?.(iterations, residual);
    if (!first && residual < tolerance) return { authorities, hubs, iterations, residual, converged: true };
    first = false;
  }
  return { authorities, hubs, iterations, residual, converged: false };
}

function normaliseL1(vector: Float64Array): void {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]!;
  if (sum > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= sum;
}

function l1Change(a: Float64Array, b: Float64Array): number {
  let change = 0;
  for (let i = 0; i < a.length; i++) change += Math.abs(a[i]! - b[i]!);
  return change;
}

export type CorenessMode = 'all' | 'in' | 'out';
export const CORENESS_MODES: readonly CorenessMode[] = ['all', 'in', 'out'];

/** The coreness of every page (Batagelj-Zaversnik: pages taken in order of current degree, in buckets). */
export function coreness(graph: Graph, mode: CorenessMode = 'all'): Int32Array {
  const n = graph.nodeCount;
  const { outOffsets, outTargets, inOffsets, inSources } = graph;
  const degree = new Int32Array(n);
  let maxDegree = 0;
  for (let v = 0; v < n; v++) {
    const d = (mode === 'in' ? 0 : outOffsets[v + 1]! - outOffsets[v]!) + (mode === 'out' ? 0 : inOffsets[v + 1]! - inOffsets[v]!);
    degree[v] = d;
    if (d > maxDegree) maxDegree = d;
  }
  // Pages sorted by degree (counting sort), with where each degree's bucket starts and each page's position.
  const bucketStart = new Int32Array(maxDegree + 2);
  for (let v = 0; v < n; v++) bucketStart[degree[v]! + 1]!++;
  for (let d = 1; d <= maxDegree + 1; d++) bucketStart[d]! += bucketStart[d - 1]!;
  const order = new Int32Array(n);
  const position = new Int32Array(n);
  const fill = bucketStart.slice();
  for (let v = 0; v < n; v++) {
    position[v] = fill[degree[v]!]!++;
    order[position[v]!] = v;
  }
  // A neighbour w of v loses one degree when v is taken (if w's degree is still above v's): w moves to the front of its bucket, which shrinks by one.
  const lower = (w: number, v: number): void => {
    const dw = degree[w]!;
    if (dw <= degree[v]!) return;
    const first = bucketStart[dw]!;
    const u = order[first]!;
    if (u !== w) {
      order[position[w]!] = u;
      position[u] = position[w]!;
      order[first] = w;
      position[w] = first;
    }
    bucketStart[dw]!++;
    degree[w] = dw - 1;
  };
  for (let i = 0; i < n; i++) {
    const v = order[i]!;
    // Taking v lowers the degree its links gave: out-links count in their targets' in-degree, in-links in their sources' out-degree.
    if (mode !== 'out') for (let e = outOffsets[v]!, end = outOffsets[v + 1]!; e < end; e++) lower(outTargets[e]!, v);
    if (mode !== 'in') for (let e = inOffsets[v]!, end = inOffsets[v + 1]!; e < end; e++) lower(inSources[e]!, v);
  }
  return degree;
}
