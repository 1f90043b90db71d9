/**
 * Monte Carlo PageRank (montecarlo.ts: the Web Graph Analyzer paper's Algorithm 2, "MC complete
 * path stopping at dangling nodes") over compact out-lists with per-page offsets: each step decodes
 * the page's list header for its degree and then its neighbours up to the one drawn. The random
 * streams are montecarlo.ts's (one per block of START_BLOCK start pages, drawn in the same order),
 * so the visits, scores and standard deviations are the plain kernel's for the same seed, bit for
 * bit, on any number of threads.
 *
 * Memory beyond the lists: the sums over walks (24 bytes per page, 40 with two or more walks per
 * page) and a count (4 bytes per page) on each thread; the threads' sums are added into the first
 * thread's, not into a new array (montecarlo.ts adds them into a fresh one: 0 + a + b is a + b).
 */
import { type CompactLists, listBytes, listStart, readVarint, varintLength } from '../graph/compact.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64 } from '../parallel/shared-memory.js';
import { Random } from '../util/random.js';
import {
  type MonteCarloOptions,
  type MonteCarloResult,
  START_BLOCK,
  type VisitSums,
  VisitAccumulator,
  addVisitSums,
  allocateVisitSums,
  checkMonteCarloOptions,
  estimateFromSums,
  monteCarloThreads,
  streamSeed,
} from './montecarlo.js';

/** Bytes per page of one thread's sums and count (montecarlo.ts VisitSums, VisitAccumulator). */
export function monteCarloPageBytes(walksPerPage: number): number {
  return (walksPerPage > 1 ? 40 : 24) + 4 + (walksPerPage > 1 ? 8 : 0);
}

/** What the threads of compactMonteCarloPageRank share (task 'montecarlo-walks-compact'). */
export interface CompactWalkData {
  segments: Uint8Array[];
  samples: Float64Array;
  offsets: Uint32Array;
  /** [damping, walks per page, seed, pages, segment bytes]. */
  params: Float64Array;
  sums: VisitSums[];
}

/** One thread's walks: the blocks of start pages t, t + T, t + 2T, ... (montecarlo.ts simulateWalks). */
export function compactWalksThread(context: TaskContext<CompactWalkData>): void {
  const { data, thread, threads } = context;
  const { params } = data;
  const damping = params[0]!;
  const walksPerPage = params[1]!;
  const seed = params[2]!;
  const n = params[3]!;
  const lists: CompactLists = { nodeCount: n, linkCount: 0, segmentBytes: params[4]!, segments: data.segments, samples: data.samples, offsets: data.offsets };
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
          const bytes = listBytes(lists, page);
          const at = listStart(lists, page);
          const header = readVarint(bytes, at);
          const degree = header >>> 1;
          if (degree === 0 || random.next() >= damping) break;
          const chosen = degree === 1 ? 0 : random.nextInt(degree);
          // Neighbours 0..chosen: the first as a zig-zag difference from the page, then gaps minus 1.
          let p = at + varintLength(header);
          let w2 = 0;
          for (let k = 0; k <= chosen; k++) {
            let b = bytes[p++]!;
            let value = b & 0x7f;
            let shift = 7;
            while (b >= 0x80) {
              b = bytes[p++]!;
              value |= (b & 0x7f) << shift;
              shift += 7;
            }
            value >>>= 0;
            w2 = k === 0 ? page + ((value >>> 1) ^ -(value & 1)) : w2 + value + 1;
          }
          page = w2;
        }
        accumulator.addWalk(path, 0, length);
      }
      accumulator.endStratum();
    }
  }
}

/** Monte Carlo PageRank of every page over compact out-lists (they need their per-page offsets). */
export function compactMonteCarloPageRank(outLists: CompactLists, options: MonteCarloOptions = {}): MonteCarloResult {
  const { walksPerPage, damping, seed, threads: requested } = checkMonteCarloOptions(options);
  if (outLists.offsets === null) throw new RangeError('Monte Carlo over compact lists needs their per-page offsets');
  const n = outLists.nodeCount;
  const threads = monteCarloThreads(n, walksPerPage, requested);
  if (threads > 1) warmUpWorkers(threads);
  const data: CompactWalkData = {
    segments: outLists.segments,
    samples: outLists.samples,
    offsets: outLists.offsets,
    params: sharedFloat64(5),
    sums: allocateVisitSums(n, walksPerPage > 1, threads),
  };
  data.params.set([damping, walksPerPage, seed, n, outLists.segmentBytes]);
  runParallel('montecarlo-walks-compact', data, threads, compactWalksThread);
  const total = data.sums[0]!;
  for (let t = 1; t < threads; t++) addVisitSums(total, data.sums[t]!);
  return estimateFromSums(total, n * walksPerPage, walksPerPage, damping, seed);
}
