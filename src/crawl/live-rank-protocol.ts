/**
 * Messages between the crawler and the live PageRank worker (live-rank.ts,
 * live-rank-worker.ts). Graph changes travel as one Int32Array of
 * operations, transferred without a copy:
 *   GROW total            pages 0 .. total - 1 exist
 *   SET u k t1 .. tk      page u's out-links are t1 .. tk (replacing any)
 *   ADD u k t1 .. tk      page u links to t1 .. tk too
 */
import type { OutListBatch } from '../store/out-lists.js';
import type { LiveLoopStart } from './live-rank-loop.js';

export const OP_GROW = 1;
export const OP_SET = 2;
export const OP_ADD = 3;

/**
 * SET operations for a batch of stored out-lists, page ids moved by `idShift` (a crawl's page id
 * is its store id - 1): one array, sent as it is (LiveRank.applyOps).
 */
export function setOpsOfOutLists(batch: OutListBatch, idShift: number): Int32Array<ArrayBuffer> {
  const { sources, ends, targets } = batch;
  const ops = new Int32Array(3 * sources.length + targets.length);
  let at = 0;
  for (let i = 0, start = 0; i < sources.length; i++) {
    const end = ends[i]!;
    ops[at++] = OP_SET;
    ops[at++] = sources[i]! + idShift;
    ops[at++] = end - start;
    for (let e = start; e < end; e++) ops[at++] = targets[e]! + idShift;
    start = end;
  }
  return ops;
}

export interface LiveWorkerOptions {
  damping: number;
  /** Least time between two published vectors, ms. */
  intervalMs: number;
  /** Share of one core the updates may use (LiveLoopOptions.share; 1: no bound). */
  share: number;
  /** L1 tolerance of the updates while crawling. */
  tolerance: number;
  /** Vectors while crawling guess the waiting pages' links from the links seen (the final one never does). */
  guessUnfetched: boolean;
  /** Publish the whole vector every time (the pagerank strategy), not only its best pages. */
  fullVectors: boolean;
  /** Pages the engine's per-page arrays are reserved for (the crawl's page capacity; 0: start small). */
  capacity: number;
}

/** What the worker starts with: its options, and the state built on the crawler's thread (or null). */
export interface LiveWorkerData {
  options: LiveWorkerOptions;
  from: LiveLoopStart | null;
  /** CPU the updates used on the crawler's thread before the hand-over, ms. */
  cpuMsBefore: number;
}

/** Best pages in every published vector (what progress lines, checkpoints and the GUI show). */
export const LIVE_VECTOR_TOP = 1000;

export type ToWorker = { type: 'changes'; ops: Int32Array } | { type: 'finish'; tolerance: number };

/** A published vector and what it cost so far. */
export interface LiveVector {
  type: 'scores';
  /** 1, 2, ...: one per published vector. */
  version: number;
  /** Pages the vector covers (ids 0 .. pages - 1). */
  pages: number;
  links: number;
  /**
   * PageRank estimate, sums to 1: in the final vector, and in every vector when the crawl asked for
   * them (fullVectors: the pagerank strategy orders its frontier by them); else empty (length 0).
   */
  scores: Float64Array;
  /** The LIVE_VECTOR_TOP best pages of the estimate, best first: [page id, score]. */
  top: Array<[number, number]>;
  /** False while changes received were not all worked in yet (an intermediate vector). */
  converged: boolean;
  /** The answer to 'finish': residual recomputed and solved to its tolerance. */
  final: boolean;
  /** An upper bound of the L1 error against the exact PageRank of the graph received (final vectors only; else NaN). */
  errorBound: number;
  /** Totals since the worker started. */
  pushes: number;
  edgeVisits: number;
  /** Time the worker spent applying changes and pushing, ms (wall time: includes time the thread waited for a core). */
  busyMs: number;
  /**
   * CPU time of the updates, ms: the worker thread's CPU clock since it started (10 ms resolution;
   * NaN off Linux), plus the busy time of the updates run on the crawler's thread before it started.
   */
  cpuMs: number;
  /** Time updates were held back by the share (beyond the interval), ms, and how many were, in the loop that published this. */
  heldMs: number;
  held: number;
  /** Bytes of the worker's typed arrays. */
  bytes: number;
}

export type FromWorker = LiveVector | { type: 'error'; message: string };
