/**
 * Searches over compact out-lists (src/graph/compact.ts, with per-page offsets): page levels by
 * breadth-first search (the Web Graph Analyzer paper's Algorithm 4, as levels.ts) and strongly
 * connected components by Tarjan's algorithm (as scc.ts's TarjanSearch, with explicit stacks). Each
 * decodes a page's gap-encoded list where the plain search reads a CSR row, in the same order, so
 * levels are the plain ones and the components the same sets with the same ids as
 * `stronglyConnectedComponents` of the plain graph.
 * The search for levels runs on every core (levels.ts's loop); Tarjan's is sequential.
 * Memory beyond the lists: levels 8 bytes per page (level and queue); Tarjan 12 bytes per page
 * (index, low, component) and its stacks, 20 bytes per page on them (a depth-first search rarely
 * holds more than a fraction of the pages).
 */
import { OptionError } from '../errors.js';
import { type CompactLists, listBytes, listStart, readVarint, varintLength } from '../graph/compact.js';
import { BATCH, type LevelsResult, PARALLEL_BFS_LINKS, STATE_SLOTS, TAIL, levelLoop, seedRoots } from './levels.js';
import { type TaskContext, defaultThreads, runParallel } from '../parallel/pool.js';
import { sharedInt32 } from '../parallel/shared-memory.js';
import { type SccResult, sccResult } from './scc.js';

function requireOffsets(lists: CompactLists): Uint32Array {
  if (lists.offsets === null) throw new RangeError('a search over compact lists needs their per-page offsets');
  return lists.offsets;
}

/** What the threads of a compact search share (task 'levels-bfs-compact'). */
export interface CompactBfsData {
  segments: Uint8Array[];
  samples: Float64Array;
  offsets: Uint32Array;
  /** [segment bytes]. */
  layout: Float64Array;
  level: Int32Array;
  queue: Int32Array;
  state: Int32Array;
}

/**
 * Levels from the roots along compact out-lists: the plain `levels` result, by levels.ts's
 * level-synchronous search (each level's pages split among the threads, each page claimed once)
 * with the lists decoded where the plain search reads its rows.
 */
export function compactLevels(outLists: CompactLists, roots: ArrayLike<number>, options: { maxLevel?: number; threads?: number } = {}): LevelsResult {
  const n = outLists.nodeCount;
  const offsets = requireOffsets(outLists);
  const limit = options.maxLevel ?? Infinity;
  if (!(limit >= 0)) throw new OptionError('max-level', `must be a non-negative integer, got ${limit}`);
  const threads = options.threads ?? (outLists.linkCount >= PARALLEL_BFS_LINKS ? defaultThreads() : 1);
  const level = sharedInt32(n).fill(-1);
  const queue = sharedInt32(n);
  let tail = seedRoots(roots, level, queue);
  const histogram: number[] = tail > 0 ? [tail] : [];
  const data: CompactBfsData = { segments: outLists.segments, samples: outLists.samples, offsets, layout: new Float64Array(new SharedArrayBuffer(8)).fill(outLists.segmentBytes), level, queue, state: sharedInt32(STATE_SLOTS) };
  data.state.set([0, tail, 0, Number.isFinite(limit) ? Math.min(limit, 2 ** 31 - 1) : 2 ** 31 - 1, tail]);
  runParallel('levels-bfs-compact', data, threads, (context) => compactBfsThread(context, (size) => histogram.push(size)));
  tail = data.state[TAIL]!;
  return { level, histogram, reached: tail, unreachable: n - tail, maxLevel: histogram.length - 1 };
}

/** One thread of compactLevels (also run by the worker threads). */
export function compactBfsThread(context: TaskContext<CompactBfsData>, onLevel?: (size: number) => void): void {
  const { segments, samples, offsets, layout, level, queue } = context.data;
  // The lists as the worker received their parts.
  const lists: CompactLists = { nodeCount: level.length, linkCount: 0, segmentBytes: layout[0]!, segments, samples, offsets };
  levelLoop(context, (lo, hi, depth, batch, flush) => scanCompact(lo, hi, depth, queue, lists, level, batch, flush), onLevel);
}

function scanCompact(
  lo: number,
  hi: number,
  depth: number,
  queue: Int32Array,
  lists: CompactLists,
  level: Int32Array,
  batch: Int32Array,
  flush: (found: number) => void,
): number {
  let found = 0;
  for (let i = lo; i < hi; i++) {
    const v = queue[i]!;
    const bytes = listBytes(lists, v);
    const at = listStart(lists, v);
    const header = readVarint(bytes, at);
    let p = at + varintLength(header);
    const degree = header >>> 1;
    let w = 0;
    for (let k = 0; k < degree; k++) {
      let b = bytes[p++]!;
      let value = b & 0x7f;
      let shift = 7;
      while (b >= 0x80) {
        b = bytes[p++]!;
        value |= (b & 0x7f) << shift;
        shift += 7;
      }
      value >>>= 0;
      w = k === 0 ? v + ((value >>> 1) ^ -(value & 1)) : w + value + 1;
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

/** A copy of `array` twice as long. */
function grown<T extends Int32Array | Uint32Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(2 * array.length);
  bigger.set(array);
  return bigger;
}

/** Tarjan's index of a page whose component is assigned (Pearce's trick: no read of the component array per link). */
const FINISHED = 0x7fffffff;

/**
 * Tarjan's strongly connected components over compact out-lists, roots in page order: the sets and
 * ids of `stronglyConnectedComponents` (ids in finishing order, sinks first). The call stack keeps,
 * per page being searched, where its list's decoding stands: byte position, neighbours left, the
 * last neighbour read.
 */
export function compactScc(outLists: CompactLists, options: { sources?: Int32Array } = {}): SccResult {
  const n = outLists.nodeCount;
  // Pages that nothing in the searched graph links to (sources[v] === 0: their degree the other way)
  // are components of their own that no search reaches: left out of the search and numbered after
  // every other component, which keeps the ids a reverse topological order (their lists unread).
  const sources = options.sources;
  requireOffsets(outLists);
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const component = new Int32Array(new SharedArrayBuffer(4 * n)).fill(-1);
  const initial = Math.min(Math.max(n, 1), 1 << 16);
  let stack = new Int32Array(initial);
  let callPage = new Int32Array(initial);
  let callAt = new Uint32Array(initial);
  let callLeft = new Int32Array(initial);
  let callLast = new Int32Array(initial);
  // Component sizes in a typed array: a host graph has hundreds of millions of components, more than
  // a JavaScript array holds.
  let sizes = new Int32Array(initial);
  let counter = 0;
  let count = 0;
  let stackSize = 0;
  let depth = 0;
  /** Enters page w: numbered, on Tarjan's stack, and on the call stack with its list's decoding at the start. */
  const enter = (w: number): Uint8Array => {
    if (stackSize === stack.length) stack = grown(stack);
    if (depth === callPage.length) {
      callPage = grown(callPage);
      callAt = grown(callAt);
      callLeft = grown(callLeft);
      callLast = grown(callLast);
    }
    index[w] = low[w] = counter++;
    stack[stackSize++] = w;
    const bytes = listBytes(outLists, w);
    const at = listStart(outLists, w);
    const header = readVarint(bytes, at);
    callPage[depth] = w;
    callAt[depth] = at + varintLength(header);
    callLeft[depth] = header >>> 1;
    callLast[depth] = -1;
    depth++;
    return bytes;
  };
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1 || (sources !== undefined && sources[root] === 0)) continue;
    let bytes = enter(root);
    while (depth > 0) {
      const top = depth - 1;
      const v = callPage[top]!;
      if (callLeft[top]! > 0) {
        // The next neighbour of v.
        let p = callAt[top]!;
        let b = bytes[p++]!;
        let value = b & 0x7f;
        let shift = 7;
        while (b >= 0x80) {
          b = bytes[p++]!;
          value |= (b & 0x7f) << shift;
          shift += 7;
        }
        value >>>= 0;
        const last = callLast[top]!;
        const w = last === -1 ? v + ((value >>> 1) ^ -(value & 1)) : last + value + 1;
        callAt[top] = p;
        callLeft[top]!--;
        callLast[top] = w;
        // One random read per link: a page whose component is done has index FINISHED, above every low link.
        const seen = index[w]!;
        if (seen === -1) bytes = enter(w);
        else if (seen < low[v]!) {
          // w is still on Tarjan's stack: same component as v, or an ancestor's.
          low[v] = seen;
        }
        continue;
      }
      depth--;
      if (low[v] === index[v]) {
        let size = 0;
        let w: number;
        do {
          w = stack[--stackSize]!;
          component[w] = count;
          index[w] = FINISHED;
          size++;
        } while (w !== v);
        if (count === sizes.length) sizes = grown(sizes);
        sizes[count++] = size;
      }
      if (depth > 0) {
        const parent = callPage[depth - 1]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
        bytes = listBytes(outLists, parent);
      }
    }
  }
  if (sources !== undefined) {
    for (let v = 0; v < n; v++) {
      if (sources[v] !== 0) continue;
      component[v] = count;
      if (count === sizes.length) sizes = grown(sizes);
      sizes[count++] = 1;
    }
  }
  return sccResult(component, count, sizes.slice(0, count));
}
