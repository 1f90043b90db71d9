/**
 * Bow-tie decomposition of a graph around its giant strongly connected
 * component (Broder et al., "Graph structure in the Web", 2000): every page
 * is in exactly one part.
 * - core: the giant SCC;
 * - in: pages that reach the core (and are not in it);
 * - out: pages the core reaches;
 * - tubes: pages reached from IN that reach OUT without passing the core;
 * - tendrils: pages reached from IN that do not reach OUT (in-tendrils), and
 *   pages that reach OUT and are not reached from IN (out-tendrils);
 * - disconnected: everything else.
 */
import type { Graph } from '../graph/graph.js';
import { type SccResult, stronglyConnectedComponents } from './scc.js';

export const BowTiePart = {
  core: 0,
  in: 1,
  out: 2,
  tubes: 3,
  inTendrils: 4,
  outTendrils: 5,
  disconnected: 6,
} as const;

export type BowTiePartName = keyof typeof BowTiePart;
export const BOW_TIE_PARTS = Object.keys(BowTiePart) as BowTiePartName[];

export interface BowTieResult {
  /** part[v] = BowTiePart value of page v. */
  part: Uint8Array;
  sizes: Record<BowTiePartName, number>;
}

/** Breadth-first marking from `seeds` along out-links ('out') or in-links ('in'), only through pages allowed[v] = 1. */
function mark(graph: Graph, seeds: Int32Array, direction: 'out' | 'in', allowed: Uint8Array): Uint8Array {
  const n = graph.nodeCount;
  const offsets = direction === 'out' ? graph.outOffsets : graph.inOffsets;
  const targets = direction === 'out' ? graph.outTargets : graph.inSources;
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  let tail = 0;
  for (const s of seeds) {
    if (seen[s] === 0) {
      seen[s] = 1;
      queue[tail++] = s;
    }
  }
  for (let head = 0; head < tail; head++) {
    const v = queue[head]!;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const w = targets[e]!;
      if (seen[w] === 0 && allowed[w] === 1) {
        seen[w] = 1;
        queue[tail++] = w;
      }
    }
  }
  return seen;
}

function members(flags: Uint8Array, predicate: (v: number) => boolean): Int32Array {
  const result: number[] = [];
  for (let v = 0; v < flags.length; v++) if (predicate(v)) result.push(v);
  return Int32Array.from(result);
}

export function bowTie(graph: Graph, scc: SccResult = stronglyConnectedComponents(graph)): BowTieResult {
  const n = graph.nodeCount;
  const part = new Uint8Array(n).fill(BowTiePart.disconnected);
  const sizes = Object.fromEntries(BOW_TIE_PARTS.map((name) => [name, 0])) as Record<BowTiePartName, number>;
  if (n === 0) return { part, sizes };
  const everywhere = new Uint8Array(n).fill(1);
  const core = members(part, (v) => scc.component[v] === scc.largestId);
  const forward = mark(graph, core, 'out', everywhere);
  const backward = mark(graph, core, 'in', everywhere);
  // Pages outside core, IN and OUT: where tubes, tendrils and the disconnected are.
  const rest = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    if (scc.component[v] === scc.largestId) part[v] = BowTiePart.core;
    else if (backward[v] === 1) part[v] = BowTiePart.in;
    else if (forward[v] === 1) part[v] = BowTiePart.out;
    else rest[v] = 1;
  }
  // From IN forwards and from OUT backwards, staying among the rest (a path through the core would make a page IN or OUT).
  const fromIn = mark(graph, members(part, (v) => part[v] === BowTiePart.in), 'out', rest);
  const toOut = mark(graph, members(part, (v) => part[v] === BowTiePart.out), 'in', rest);
  for (let v = 0; v < n; v++) {
    if (rest[v] !== 1) continue;
    const a = fromIn[v] === 1;
    const b = toOut[v] === 1;
    part[v] = a && b ? BowTiePart.tubes : a ? BowTiePart.inTendrils : b ? BowTiePart.outTendrils : BowTiePart.disconnected;
  }
  for (let v = 0; v < n; v++) sizes[BOW_TIE_PARTS[part[v]!]!]++;
  return { part, sizes };
}
