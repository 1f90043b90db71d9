/**
 * Strongly connected components (Web Graph Analyzer paper, Definition 5).
 *
 * `stronglyConnectedComponents` finds all of them with Tarjan's algorithm,
 * written with explicit stacks so that no recursion limit applies (web graphs
 * have paths of hundreds of thousands of pages). `componentOf` is the paper's
 * Algorithm 3 for the component of one root page: the pages reachable from
 * the root intersected with the pages that reach it.
 */
import type { Graph } from '../graph/graph.js';
import { sharedInt32 } from '../parallel/shared-memory.js';

export interface SccResult {
  /** component[v] = id of v's component. Ids are in Tarjan's finishing order: sink components first. */
  component: Int32Array;
  count: number;
  /** sizes[c] = number of pages in component c. */
  sizes: Int32Array;
  /** Id of the largest component (the giant SCC); the smallest id among equals. */
  largestId: number;
  /** Size of the largest component (0 for an empty graph). */
  largest: number;
  /**
   * The pages in the order the depth-first search finished them, when asked
   * for ({finishOrder: true}). Restricted to one component it is a postorder
   * of a depth-first search of that component alone (the pages the search
   * visits in other components finish in between without changing the
   * relative order), so read backwards it puts most of the component's
   * links forward: the order Gauss-Seidel sweeps converge fastest in.
   */
  finishOrder?: Int32Array;
}

export interface SccOptions {
  /** Also return the pages in depth-first finishing order (one more integer per page). */
  finishOrder?: boolean;
}

export function stronglyConnectedComponents(graph: Graph, options: SccOptions = {}): SccResult {
  const n = graph.nodeCount;
  const finishOrder = options.finishOrder === true ? new Int32Array(n) : null;
  let finished = 0;
  const { outOffsets, outTargets } = graph;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  // On shared memory: the Gauss-Seidel solver's worker threads read it (pagerank-scc.ts).
  const component = sharedInt32(n).fill(-1);
  // Tarjan's stack of visited pages not yet assigned to a component.
  const stack = new Int32Array(n);
  let stackSize = 0;
  // The depth-first search's call stack: a page and the next out-edge to try.
  const callPage = new Int32Array(n);
  const callEdge = new Uint32Array(n);
  let depth = 0;
  let counter = 0;
  let count = 0;
  const sizes: number[] = [];

  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    index[root] = low[root] = counter++;
    stack[stackSize++] = root;
    callPage[0] = root;
    callEdge[0] = outOffsets[root]!;
    depth = 1;
    while (depth > 0) {
      const v = callPage[depth - 1]!;
      const e = callEdge[depth - 1]!;
      if (e < outOffsets[v + 1]!) {
        callEdge[depth - 1] = e + 1;
        const w = outTargets[e]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[stackSize++] = w;
          callPage[depth] = w;
          callEdge[depth] = outOffsets[w]!;
          depth++;
        } else if (component[w] === -1 && index[w]! < low[v]!) {
          // w is still on Tarjan's stack: same component as v, or an ancestor's.
          low[v] = index[w]!;
        }
        continue;
      }
      depth--;
      if (finishOrder !== null) finishOrder[finished++] = v;
      if (low[v] === index[v]) {
        let size = 0;
        let w: number;
        do {
          w = stack[--stackSize]!;
          component[w] = count;
          size++;
        } while (w !== v);
        sizes.push(size);
        count++;
      }
      if (depth > 0) {
        const parent = callPage[depth - 1]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
    }
  }
  const sizeArray = Int32Array.from(sizes);
  let largestId = -1;
  let largest = 0;
  for (let c = 0; c < count; c++) {
    if (sizeArray[c]! > largest) {
      largest = sizeArray[c]!;
      largestId = c;
    }
  }
  const result: SccResult = { component, count, sizes: sizeArray, largestId, largest };
  if (finishOrder !== null) result.finishOrder = finishOrder;
  return result;
}

/** Marks the pages reachable from `sources` along out-links ('out') or against them ('in'). */
export function reachable(graph: Graph, sources: ArrayLike<number>, direction: 'out' | 'in'): Uint8Array {
  const n = graph.nodeCount;
  const offsets = direction === 'out' ? graph.outOffsets : graph.inOffsets;
  const targets = direction === 'out' ? graph.outTargets : graph.inSources;
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    if (seen[s] === 0) {
      seen[s] = 1;
      queue[tail++] = s;
    }
  }
  while (head < tail) {
    const v = queue[head++]!;
    const end = offsets[v + 1]!;
    for (let e = offsets[v]!; e < end; e++) {
      const w = targets[e]!;
      if (seen[w] === 0) {
        seen[w] = 1;
        queue[tail++] = w;
      }
    }
  }
  return seen;
}

/**
 * The paper's Algorithm 3: the strongly connected component containing
 * `root` is S1 ∩ S2, S1 the pages reachable from the root and S2 the pages
 * from which the root is reachable. Returns the member ids in increasing order.
 */
export function componentOf(graph: Graph, root: number): Int32Array {
  const forward = reachable(graph, [root], 'out');
  const backward = reachable(graph, [root], 'in');
  const members: number[] = [];
  for (let v = 0; v < graph.nodeCount; v++) if (forward[v] === 1 && backward[v] === 1) members.push(v);
  return Int32Array.from(members);
}

/** Component sizes as [size, number of components of that size], by increasing size. */
export function componentSizeDistribution(result: SccResult): Array<[number, number]> {
  const counts = new Map<number, number>();
  for (let c = 0; c < result.count; c++) counts.set(result.sizes[c]!, (counts.get(result.sizes[c]!) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}
