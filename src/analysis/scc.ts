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
import { KernelMemory, MAX_KERNEL_BYTES, sccKernel } from './kernel-memory.js';

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
  /** 'wasm': the search as WebAssembly (kernels/scc.wat); 'js'; 'auto' (the default): wasm up to WASM_SCC_LINKS links, without finishOrder. The same ids either way. */
  kernel?: 'auto' | 'wasm' | 'js';
}

/**
 * Up to this many links Tarjan's search runs as WebAssembly, on a copy of the out-links in its
 * memory (4 bytes per link, 32 per page, for the search's time only): the same search without
 * V8's bounds checks, and compiled before it starts rather than while it runs (on cnr-2000 in a
 * fresh process: see pagerank-performance.md). Above, the copy would cost the memory big graphs
 * need, and the components of graphs that big come from the pivot's searches (scc-pivot.ts).
 */
export const WASM_SCC_LINKS = 20_000_000;

export function stronglyConnectedComponents(graph: Graph, options: SccOptions = {}): SccResult {
  const kernel = options.kernel ?? 'auto';
  if (options.finishOrder === true && kernel === 'wasm') throw new Error('the WebAssembly search does not record the finishing order');
  if (
    kernel === 'wasm' ||
    (kernel === 'auto' && options.finishOrder !== true && graph.edgeCount > 0 && graph.edgeCount <= WASM_SCC_LINKS && tarjanKernelBytes(graph) <= MAX_KERNEL_BYTES)
  ) {
    return tarjanInKernel(graph);
  }
  const search = new TarjanSearch(graph, options.finishOrder === true);
  for (let root = 0; root < graph.nodeCount; root++) if (search.index[root] === -1) search.from(root);
  return search.result();
}

/**
 * Tarjan's algorithm with explicit stacks, one depth-first search at a time
 * (`from`), so that a caller can assign some components itself first: a page
 * whose component is already set (any value but -1) and whose index is set
 * is treated as finished, which is right when no page still to search is
 * reachable from it.
 */
export class TarjanSearch {
  readonly index: Int32Array;
  readonly component: Int32Array;
  private readonly low: Int32Array;
  private stack: Int32Array;
  private callPage: Int32Array;
  private callEdge: Uint32Array;
  private readonly finishOrder: Int32Array | null;
  private finished = 0;
  private counter = 0;
  count = 0;
  readonly sizes: number[] = [];

  constructor(
    private readonly graph: Graph,
    withFinishOrder: boolean,
    /** Two n-page integer arrays to reuse for the indices (the pivot's search queues, pass done with). */
    reuse?: { index: Int32Array; low: Int32Array },
  ) {
    const n = graph.nodeCount;
    this.finishOrder = withFinishOrder ? new Int32Array(n) : null;
    this.index = reuse === undefined ? new Int32Array(n) : reuse.index;
    this.index.fill(-1);
    this.low = reuse === undefined ? new Int32Array(n) : reuse.low;
    // On shared memory: the Gauss-Seidel solver's worker threads read it (pagerank-scc.ts).
    this.component = sharedInt32(n).fill(-1);
    // The stacks grow as needed: a search rarely goes deep, and where the pivot's component
    // is set aside first they hold only the rest (at most n pages each).
    const initial = Math.min(n, 1 << 16);
    // Tarjan's stack of visited pages not yet assigned to a component.
    this.stack = new Int32Array(initial);
    // The depth-first search's call stack: a page and the next out-edge to try.
    this.callPage = new Int32Array(initial);
    this.callEdge = new Uint32Array(initial);
  }

  /** Numbers the next component `size` pages the caller assigned itself. */
  addComponent(size: number): number {
    this.sizes.push(size);
    return this.count++;
  }

  /** The depth-first search from `root` (not visited yet): numbers every component it finishes. */
  from(root: number): void {
    const { outOffsets, outTargets } = this.graph;
    const { index, low, component, finishOrder, sizes } = this;
    let { stack, callPage, callEdge, counter, count, finished } = this;
    let stackSize = 0;
    index[root] = low[root] = counter++;
    stack[stackSize++] = root;
    callPage[0] = root;
    callEdge[0] = outOffsets[root]!;
    let depth = 1;
    while (depth > 0) {
      const v = callPage[depth - 1]!;
      const e = callEdge[depth - 1]!;
      if (e < outOffsets[v + 1]!) {
        callEdge[depth - 1] = e + 1;
        const w = outTargets[e]!;
        if (index[w] === -1) {
          if (stackSize === stack.length) stack = this.stack = grown(stack);
          if (depth === callPage.length) {
            callPage = this.callPage = grown(callPage);
            callEdge = this.callEdge = grown(callEdge);
          }
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
    this.counter = counter;
    this.count = count;
    this.finished = finished;
  }

  result(): SccResult {
    const result = sccResult(this.component, this.count, Int32Array.from(this.sizes));
    if (this.finishOrder !== null) result.finishOrder = this.finishOrder;
    return result;
  }
}

/** The result of a search that numbered `count` components of these sizes (the largest found here). */
export function sccResult(component: Int32Array, count: number, sizes: Int32Array): SccResult {
  let largestId = -1;
  let largest = 0;
  for (let c = 0; c < count; c++) {
    if (sizes[c]! > largest) {
      largest = sizes[c]!;
      largestId = c;
    }
  }
  return { component, count, sizes, largestId, largest };
}

/** Tarjan's search as WebAssembly (kernels/scc.wat) on a copy of the out-links: the same components and ids as TarjanSearch. */
function tarjanKernelBytes(graph: Graph): number {
  const bytes = KernelMemory.bytesFor;
  return bytes(graph.nodeCount + 1, 4) + bytes(graph.edgeCount, 4) + 7 * bytes(graph.nodeCount, 4);
}

function tarjanInKernel(graph: Graph): SccResult {
  const n = graph.nodeCount;
  const m = graph.edgeCount;
  const memory = new KernelMemory(tarjanKernelBytes(graph));
  const outOffsets = memory.uint32(n + 1);
  outOffsets.set(graph.outOffsets);
  const outTargets = memory.int32(m);
  outTargets.set(graph.outTargets);
  const index = memory.int32(n).fill(-1);
  const low = memory.int32(n);
  const found = memory.int32(n).fill(-1);
  const stack = memory.int32(n);
  const callPage = memory.int32(n);
  const callEdge = memory.int32(n);
  const sizes = memory.int32(n);
  const tarjan = sccKernel(memory);
  const count = tarjan(outOffsets.byteOffset, outTargets.byteOffset, index.byteOffset, low.byteOffset, found.byteOffset, stack.byteOffset,
    callPage.byteOffset, callEdge.byteOffset, sizes.byteOffset, n);
  // Out of the kernel's memory, which is dropped: the components on shared memory, as TarjanSearch gives them.
  const component = sharedInt32(n);
  component.set(found);
  return sccResult(component, count, sizes.slice(0, count));
}

/** A copy of `array` twice as long. */
function grown<T extends Int32Array | Uint32Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(2 * array.length);
  bigger.set(array);
  return bigger;
}

/** Marks the pages reachable from `sources` along out-links ('out') or against them ('in'). */
export function reachable(graph: Graph, sources: ArrayLike<number>, direction: 'out' | 'in'): Uint8Array {
  const n = graph.nodeCount;
  const offsets = direction === 'out' ? graph.outOffsets : graph.inOffsets;
  const targets = direction === 'out' ? graph.outTargets : graph.inSources;
  const seen = new Uint8Array(n);
  markReachable(offsets, targets, sources, seen, null, new Int32Array(n));
  return seen;
}

/**
 * Breadth-first search from `sources` over the rows offsets/targets, setting
 * seen[v] = 1 for each page reached (pages already marked are not entered);
 * only through pages with within[v] = 1 when `within` is given. `queue` holds
 * up to n pages (the caller's, so that it may live on shared memory and be
 * reused: scc-pivot.ts).
 */
export function markReachable(
  offsets: Uint32Array,
  targets: Int32Array,
  sources: ArrayLike<number>,
  seen: Uint8Array,
  within: Uint8Array | null,
  queue: Int32Array,
): void {
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
      if (seen[w] === 0 && (within === null || within[w] === 1)) {
        seen[w] = 1;
        queue[tail++] = w;
      }
    }
  }
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
