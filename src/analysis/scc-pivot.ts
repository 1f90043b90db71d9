/**
 * Strongly connected components of a large web graph, the giant one first.
 *
 * Tarjan's depth-first search follows one link at a time, each step waiting
 * for the page it reads: on the 10^8-link benchmark graph it takes about 6 s
 * on one core. Web graphs have one giant component (the bow-tie's core: 89%
 * of the pages there, 34% on cnr-2000), and the paper's Algorithm 3 finds it
 * as the pages reachable from a pivot page that also reach it: two
 * breadth-first searches, whose loads are independent of each other, run
 * one per thread (forward and backward at once). Tarjan then numbers the
 * rest, in an order that keeps the ids topological (sinks first, as
 * `stronglyConnectedComponents` numbers them):
 * 1. the pages the pivot reaches outside its component (they link only among
 *    themselves: a link into the component would put them in it);
 * 2. the pivot's component;
 * 3. every other page, the pages of 1 and 2 counting as finished.
 * The components are the same sets as Tarjan's alone; only their ids and
 * order among unrelated components may differ.
 */
import type { Graph } from '../graph/graph.js';
import { type TaskContext, runParallel } from '../parallel/pool.js';
import { isShared, sharedInt32, sharedUint8 } from '../parallel/shared-memory.js';
import { type SccResult, TarjanSearch, markReachable, stronglyConnectedComponents } from './scc.js';

/** What the two searches share (all on shared memory). */
export interface PivotReachData {
  outOffsets: Uint32Array;
  outTargets: Int32Array;
  inOffsets: Uint32Array;
  inSources: Int32Array;
  pivot: number;
  /** forward[v] = 1: the pivot reaches v. */
  forward: Uint8Array;
  /** backward[v] = 1: v reaches the pivot (restricted to forward pages on one thread). */
  backward: Uint8Array;
  /** The searches' queues (n pages each), reused afterwards as Tarjan's index arrays. */
  forwardQueue: Int32Array;
  backwardQueue: Int32Array;
}

/**
 * The pivot: the page with the largest in-degree times out-degree, the
 * smallest id among equals (on cnr-2000 the largest in-degree or in+out
 * degree picks a page of an 18,233-page component; the product picks the
 * giant one). -1 when no page has both in- and out-links.
 */
export function choosePivot(graph: Graph): number {
  const { outOffsets, inOffsets } = graph;
  let pivot = -1;
  let best = 0;
  for (let v = 0; v < graph.nodeCount; v++) {
    const score = (outOffsets[v + 1]! - outOffsets[v]!) * (inOffsets[v + 1]! - inOffsets[v]!);
    if (score > best) {
      best = score;
      pivot = v;
    }
  }
  return pivot;
}

/** Thread 0 searches forward from the pivot, thread 1 backward (task 'scc-pivot-reach'). */
export function pivotReachThread(context: TaskContext<PivotReachData>): void {
  const d = context.data;
  if (context.thread === 0) markReachable(d.outOffsets, d.outTargets, [d.pivot], d.forward, null, d.forwardQueue);
  else if (context.thread === 1) markReachable(d.inOffsets, d.inSources, [d.pivot], d.backward, null, d.backwardQueue);
}

export interface PivotSccOptions {
  /** Threads for the two searches (at most 2 are used). */
  threads: number;
}

/**
 * From this many links the pivot's searches pay: on the 10^8-link benchmark
 * graph Tarjan alone took 5.8 s, the pivot's way 4.0 s on one thread and 2.5 s
 * on two; on cnr-2000 (3.1M links, in cache) both took 33-38 ms, and a worker
 * thread started for the searches would cost more than they do (measured
 * 2026-11-25).
 */
export const PIVOT_SCC_LINKS = 10_000_000;

/** The components by whichever way is faster for the graph's size (same sets; ids topological either way). */
export function componentsOfLargeGraph(graph: Graph, threads: number): SccResult {
  return graph.edgeCount >= PIVOT_SCC_LINKS
    ? stronglyConnectedComponentsAroundPivot(graph, { threads })
    : stronglyConnectedComponents(graph);
}

export function stronglyConnectedComponentsAroundPivot(graph: Graph, options: PivotSccOptions): SccResult {
  const n = graph.nodeCount;
  const pivot = choosePivot(graph);
  if (pivot === -1) return stronglyConnectedComponents(graph);
  const data: PivotReachData = {
    outOffsets: graph.outOffsets,
    outTargets: graph.outTargets,
    inOffsets: graph.inOffsets,
    inSources: graph.inSources,
    pivot,
    forward: sharedUint8(n),
    backward: sharedUint8(n),
    forwardQueue: sharedInt32(n),
    backwardQueue: sharedInt32(n),
  };
  const shared = [graph.outOffsets, graph.outTargets, graph.inOffsets, graph.inSources].every(isShared);
  if (options.threads >= 2 && shared) {
    runParallel('scc-pivot-reach', data, 2, pivotReachThread);
  } else {
    markReachable(data.outOffsets, data.outTargets, [pivot], data.forward, null, data.forwardQueue);
    markReachable(data.inOffsets, data.inSources, [pivot], data.backward, data.forward, data.backwardQueue);
  }
  const { forward, backward } = data;
  // Tarjan's indices take over the searches' queues: no more memory than Tarjan alone.
  const search = new TarjanSearch(graph, false, { index: data.forwardQueue, low: data.backwardQueue });
  const { index, component } = search;
  // The pivot's component: set aside (-2) so that step 1's searches treat it as finished.
  let size = 0;
  for (let v = 0; v < n; v++) {
    if (forward[v] === 1 && backward[v] === 1) {
      index[v] = 0;
      component[v] = -2;
      size++;
    }
  }
  for (let v = 0; v < n; v++) if (forward[v] === 1 && index[v] === -1) search.from(v);
  const pivotComponent = search.addComponent(size);
  for (let v = 0; v < n; v++) if (component[v] === -2) component[v] = pivotComponent;
  for (let v = 0; v < n; v++) if (index[v] === -1) search.from(v);
  return search.result();
}
