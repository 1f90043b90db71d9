/**
 * Page levels (Web Graph Analyzer paper, Definition 2 and Algorithm 4): the
 * minimal number of clicks from the nearest root page, by breadth-first
 * search along out-links from all roots at once.
 *
 * Convention: roots are at level 0 and a page one click away at level 1 (the
 * number of clicks). The paper's Algorithm 4 numbers roots 1; add one to
 * compare with it.
 */
import { OptionError } from '../errors.js';
import type { Graph } from '../graph/graph.js';
import { barrierWait } from '../parallel/barrier.js';
import { type TaskContext, defaultThreads, runParallel } from '../parallel/pool.js';
import { isShared, sharedInt32 } from '../parallel/shared-memory.js';

export interface LevelsOptions {
  /** Stop expanding after this many clicks; pages further away count as unreachable. */
  maxLevel?: number;
  /**
   * Threads for the search (this one included); default: the machine's cores from
   * PARALLEL_BFS_LINKS links on. The levels are the same whatever the number.
   */
  threads?: number;
}

/** From this many links the search runs on all threads (below, a worker's hand-off costs more than it saves). */
export const PARALLEL_BFS_LINKS = 2_000_000;

export interface LevelsResult {
  /** level[v] = clicks from the nearest root, or -1 when v is not reached. */
  level: Int32Array;
  /** histogram[k] = number of pages at exactly k clicks (histogram[0] = distinct roots). */
  histogram: number[];
  reached: number;
  unreachable: number;
  /** Largest level reached (-1 without roots). */
  maxLevel: number;
}

export function levels(graph: Graph, roots: ArrayLike<number>, options: LevelsOptions = {}): LevelsResult {
  const n = graph.nodeCount;
  const limit = options.maxLevel ?? Infinity;
  if (!(limit >= 0)) throw new OptionError('max-level', `must be a non-negative integer, got ${limit}`);
  if (options.threads !== undefined && !(Number.isInteger(options.threads) && options.threads >= 1)) {
    throw new OptionError('threads', `must be a positive integer, got ${options.threads}`);
  }
  const threads = options.threads ?? (graph.edgeCount >= PARALLEL_BFS_LINKS ? defaultThreads() : 1);
  const parallel = threads > 1 && isShared(graph.outOffsets) && isShared(graph.outTargets);
  const level = parallel ? sharedInt32(n).fill(-1) : new Int32Array(n).fill(-1);
  const queue = parallel ? sharedInt32(n) : new Int32Array(n);
  let tail = seedRoots(roots, level, queue);
  const histogram: number[] = tail > 0 ? [tail] : [];
  if (parallel) {
    const data: BfsData = {
      outOffsets: graph.outOffsets,
      outTargets: graph.outTargets,
      level,
      queue,
      state: sharedInt32(STATE_SLOTS),
    };
    data.state.set([0, tail, 0, Number.isFinite(limit) ? Math.min(limit, 2 ** 31 - 1) : 2 ** 31 - 1, tail]);
    // Thread 0 is this thread: it records each level's size.
    runParallel('levels-bfs', data, threads, (context) => bfsThread(context, (size) => histogram.push(size)));
    tail = data.state[TAIL]!;
    return { level, histogram, reached: tail, unreachable: n - tail, maxLevel: histogram.length - 1 };
  }
  // Algorithm 4: S1 is queue[head, levelEnd), S2 is what it discovers.
  const { outOffsets, outTargets } = graph;
  let head = 0;
  let depth = 0;
  while (head < tail && depth < limit) {
    const levelEnd = tail;
    depth++;
    while (head < levelEnd) {
      const v = queue[head++]!;
      const end = outOffsets[v + 1]!;
      for (let e = outOffsets[v]!; e < end; e++) {
        const w = outTargets[e]!;
        if (level[w] === -1) {
          level[w] = depth;
          queue[tail++] = w;
        }
      }
    }
    if (tail > levelEnd) histogram.push(tail - levelEnd);
  }
  return { level, histogram, reached: tail, unreachable: n - tail, maxLevel: histogram.length - 1 };
}

/** Puts the distinct roots at level 0, first in the queue; returns how many. */
export function seedRoots(roots: ArrayLike<number>, level: Int32Array, queue: Int32Array): number {
  const n = level.length;
  let tail = 0;
  for (let i = 0; i < roots.length; i++) {
    const r = roots[i]!;
    if (!(r >= 0 && r < n)) throw new OptionError('root', `page id ${r} is outside 0..${n - 1}`);
    if (level[r] === -1) {
      level[r] = 0;
      queue[tail++] = r;
    }
  }
  return tail;
}

/** state[]: the level being expanded is queue[HEAD, LEVEL_END); TAIL: where the next level's pages go. */
export const HEAD = 0;
export const LEVEL_END = 1;
export const DEPTH = 2;
export const LIMIT = 3;
export const TAIL = 4;
export const STATE_SLOTS = 5;
/** Pages a thread collects before reserving room for them in the queue. */
export const BATCH = 4096;

/** What the threads of a search share (task 'levels-bfs'). */
export interface BfsData {
  outOffsets: Uint32Array;
  outTargets: Int32Array;
  level: Int32Array;
  queue: Int32Array;
  state: Int32Array;
}

/**
 * One thread's part of a level-synchronous breadth-first search: each level's
 * pages are split among the threads in equal shares; a thread claims each page
 * it finds unvisited with a compare-and-swap on its level (so each page is
 * taken once, at its least distance) and appends what it claimed to the next
 * level in batches, each batch's room reserved with one atomic add. The order
 * of a level's pages in the queue depends on timing; the levels, their sizes
 * and the pages reached do not.
 */
export function bfsThread(context: TaskContext<BfsData>, onLevel?: (size: number) => void): void {
  const { outOffsets, outTargets, level } = context.data;
  levelLoop(context, (lo, hi, depth, batch, flush) => scanRows(lo, hi, depth, context.data.queue, outOffsets, outTargets, level, batch, flush), onLevel);
}

/**
 * Claims the unvisited successors of queue[lo..hi) for level `depth` into `batch`, calling `flush`
 * when it is full; returns how many it holds at the end. One per graph form (plain rows, compact
 * lists), each monomorphic: the loop over a page's links stays inside it.
 */
export type LevelScan = (lo: number, hi: number, depth: number, batch: Int32Array, flush: (found: number) => void) => number;

function scanRows(lo: number, hi: number, depth: number, queue: Int32Array, outOffsets: Uint32Array, outTargets: Int32Array, level: Int32Array, batch: Int32Array, flush: (found: number) => void): number {
  let found = 0;
  for (let i = lo; i < hi; i++) {
    const v = queue[i]!;
    const end = outOffsets[v + 1]!;
    for (let e = outOffsets[v]!; e < end; e++) {
      const w = outTargets[e]!;
      if (level[w] === -1 && Atomics.compareExchange(level, w, -1, depth) === -1) {
        batch[found++] = w;
        if (found === BATCH) {
          flush(found);
          found = 0;
        }
      }
    }
  }
  return found;
}

/** The level-synchronous loop of every thread of a search, whatever the graph's form (`scan`). */
export function levelLoop(context: TaskContext<{ queue: Int32Array; state: Int32Array }>, scan: LevelScan, onLevel?: (size: number) => void): void {
  const { data, thread, threads, barrier } = context;
  const { queue, state } = data;
  const batch = new Int32Array(BATCH);
  const limit = state[LIMIT]!;
  for (;;) {
    const head = state[HEAD]!;
    const levelEnd = state[LEVEL_END]!;
    const depth = state[DEPTH]! + 1;
    if (head >= levelEnd || depth > limit) break;
    const count = levelEnd - head;
    const lo = head + Math.floor((count * thread) / threads);
    const hi = head + Math.floor((count * (thread + 1)) / threads);
    const flush = (found: number): void => {
      const at = Atomics.add(state, TAIL, found);
      queue.set(found === BATCH ? batch : batch.subarray(0, found), at);
    };
    const found = scan(lo, hi, depth, batch, flush);
    if (found > 0) flush(found);
    barrierWait(barrier, threads);
    if (thread === 0) {
      const tail = Atomics.load(state, TAIL);
      if (tail > levelEnd) onLevel?.(tail - levelEnd);
      state[HEAD] = levelEnd;
      state[LEVEL_END] = tail;
      state[DEPTH] = depth;
    }
    barrierWait(barrier, threads);
  }
}
