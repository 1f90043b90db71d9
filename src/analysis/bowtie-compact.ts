/**
 * The bow-tie around the giant strongly connected component (bowtie.ts, Broder et al. 2000) over
 * compact lists with per-page offsets, one direction at a time: the forward search from the core
 * (out-lists), the backward searches from the core and from OUT (in-lists), then the forward search
 * from IN (out-lists again). The caller hands each direction's lists when asked and may drop them
 * after, so the peak holds one direction's lists, never both: at Common Crawl's size that is the
 * difference between 8 and 16 GB. The parts are bowTie's for the same components, page for page.
 * Memory beyond the lists and the components: 7 bytes per page (the parts, two marks, the queue).
 */
import { type CompactLists, listBytes, listStart, readVarint, varintLength } from '../graph/compact.js';
import { BOW_TIE_PARTS, BowTiePart, type BowTiePartName, type BowTieResult } from './bowtie.js';
import type { SccResult } from './scc.js';

/**
 * Breadth-first marking along compact lists: from the pages v with seed(v), through pages allowed
 * (allowed === null: every page); seen[v] = 1 for each page reached (seeds included). `queue` is
 * scratch of nodeCount entries.
 */
export function compactMark(lists: CompactLists, seed: (v: number) => boolean, allowed: Uint8Array | null, seen: Uint8Array, queue: Int32Array): number {
  const n = lists.nodeCount;
  if (lists.offsets === null) throw new RangeError('a search over compact lists needs their per-page offsets');
  seen.fill(0);
  let tail = 0;
  for (let v = 0; v < n; v++) {
    if (seed(v)) {
      seen[v] = 1;
      queue[tail++] = v;
    }
  }
  for (let head = 0; head < tail; head++) {
    const v = queue[head]!;
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
      if (seen[w] === 0 && (allowed === null || allowed[w] === 1)) {
        seen[w] = 1;
        queue[tail++] = w;
      }
    }
  }
  return tail;
}

/** The lists of one direction, when the decomposition needs them (read from a file, or at hand). */
export type ListsOf = (direction: 'out' | 'in') => CompactLists;

export function compactBowTie(scc: SccResult, listsOf: ListsOf): BowTieResult {
  const n = scc.component.length;
  const part = new Uint8Array(n).fill(BowTiePart.disconnected);
  const sizes = Object.fromEntries(BOW_TIE_PARTS.map((name) => [name, 0])) as Record<BowTiePartName, number>;
  if (n === 0) return { part, sizes };
  const { component, largestId } = scc;
  const queue = new Int32Array(n);
  const a = new Uint8Array(n);
  const b = new Uint8Array(n);
  const inCore = (v: number): boolean => component[v] === largestId;
  // OUT: what the core reaches; IN: what reaches the core (the lists of each direction in turn).
  compactMark(listsOf('out'), inCore, null, a, queue);
  compactMark(listsOf('in'), inCore, null, b, queue);
  // `a` becomes the rest: pages outside the core, IN and OUT, where tubes and tendrils are.
  for (let v = 0; v < n; v++) {
    if (inCore(v)) part[v] = BowTiePart.core;
    else if (b[v] === 1) part[v] = BowTiePart.in;
    else if (a[v] === 1) part[v] = BowTiePart.out;
    a[v] = part[v] === BowTiePart.disconnected ? 1 : 0;
  }
  const rest = a;
  // Backwards from OUT, then forwards from IN, staying among the rest (a path through the core would
  // make a page IN or OUT). The marks of the first go into the parts before `b` is reused.
  compactMark(listsOf('in'), (v) => part[v] === BowTiePart.out, rest, b, queue);
  for (let v = 0; v < n; v++) if (rest[v] === 1 && b[v] === 1) part[v] = BowTiePart.outTendrils;
  compactMark(listsOf('out'), (v) => part[v] === BowTiePart.in, rest, b, queue);
  for (let v = 0; v < n; v++) {
    if (rest[v] !== 1 || b[v] !== 1) continue;
    // Reached from IN: a tube when it also reaches OUT, else an in-tendril.
    part[v] = part[v] === BowTiePart.outTendrils ? BowTiePart.tubes : BowTiePart.inTendrils;
  }
  for (let v = 0; v < n; v++) sizes[BOW_TIE_PARTS[part[v]!]!]++;
  return { part, sizes };
}
