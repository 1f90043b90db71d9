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

export interface LevelsOptions {
  /** Stop expanding after this many clicks; pages further away count as unreachable. */
  maxLevel?: number;
}

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
  const { outOffsets, outTargets } = graph;
  const level = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let tail = 0;
  for (let i = 0; i < roots.length; i++) {
    const r = roots[i]!;
    if (!(r >= 0 && r < n)) throw new OptionError('root', `page id ${r} is outside 0..${n - 1}`);
    if (level[r] === -1) {
      level[r] = 0;
      queue[tail++] = r;
    }
  }
  const histogram: number[] = tail > 0 ? [tail] : [];
  // Algorithm 4: S1 is queue[head, levelEnd), S2 is what it discovers.
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
