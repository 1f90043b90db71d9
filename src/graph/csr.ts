/**
 * Kernels on compressed sparse rows: transpose, loop removal, row sorting and
 * duplicate merging. They work in place or into caller-provided arrays so the
 * builder can keep its peak memory near 12 bytes per edge.
 */
import {
  shareFloat64,
  shareInt32,
  shareUint32,
  sharedFloat64,
  sharedInt32,
  sharedUint32,
} from '../parallel/shared-memory.js';

/** Rows of a CSR: row v holds targets[offsets[v] .. offsets[v+1]). */
export interface Csr {
  offsets: Uint32Array;
  targets: Int32Array;
  /** One weight per entry of `targets`, or null for an unweighted graph. */
  weights: Float64Array | null;
}

/**
 * Allocates the arrays of a CSR with `rows` rows and `entries` entries, on
 * shared memory so that worker threads can use the graph as it is.
 */
export function allocateCsr(rows: number, entries: number, weighted: boolean): Csr {
  return {
    offsets: sharedUint32(rows + 1),
    targets: sharedInt32(entries),
    weights: weighted ? sharedFloat64(entries) : null,
  };
}

/**
 * Writes the transpose of `source` (n rows, targets in [0, n)) into `into`,
 * whose arrays must have the same sizes as the source's. Row u of the result
 * lists the v with u in row v, in increasing v: transposing sorts.
 */
export function transposeInto(n: number, source: Csr, into: Csr): void {
  const { offsets, targets, weights } = source;
  const tOffsets = into.offsets;
  const tTargets = into.targets;
  const tWeights = into.weights;
  tOffsets.fill(0);
  const entries = offsets[n]!;
  for (let e = 0; e < entries; e++) tOffsets[targets[e]! + 1]!++;
  for (let v = 0; v < n; v++) tOffsets[v + 1]! += tOffsets[v]!;
  // tOffsets[u] is used as the write cursor of row u, then shifted back.
  for (let v = 0; v < n; v++) {
    const end = offsets[v + 1]!;
    for (let e = offsets[v]!; e < end; e++) {
      const u = targets[e]!;
      const slot = tOffsets[u]!++;
      tTargets[slot] = v;
      if (tWeights !== null) tWeights[slot] = weights![e]!;
    }
  }
  for (let u = n; u > 0; u--) tOffsets[u] = tOffsets[u - 1]!;
  tOffsets[0] = 0;
}

export function transpose(n: number, source: Csr): Csr {
  const into = allocateCsr(n, source.offsets[n]!, source.weights !== null);
  transposeInto(n, source, into);
  return into;
}

/** Removes entries with target === row in place; returns how many were removed. */
export function dropSelfLoops(n: number, csr: Csr): number {
  const { offsets, targets, weights } = csr;
  let write = 0;
  let readStart = offsets[0]!;
  for (let v = 0; v < n; v++) {
    const readEnd = offsets[v + 1]!;
    offsets[v] = write;
    for (let e = readStart; e < readEnd; e++) {
      const t = targets[e]!;
      if (t === v) continue;
      targets[write] = t;
      if (weights !== null) weights[write] = weights[e]!;
      write++;
    }
    readStart = readEnd;
  }
  const removed = offsets[n]! - write;
  offsets[n] = write;
  return removed;
}

/** True when every row is strictly increasing (sorted, no duplicates). */
export function rowsStrictlyIncreasing(n: number, csr: Csr): boolean {
  const { offsets, targets } = csr;
  for (let v = 0; v < n; v++) {
    const end = offsets[v + 1]!;
    for (let e = offsets[v]! + 1; e < end; e++) {
      if (targets[e]! <= targets[e - 1]!) return false;
    }
  }
  return true;
}

/**
 * Sorts every row by a double transpose (linear time, stable) and merges
 * equal neighbours, adding their weights. Returns the number of entries merged
 * away. Works in place on `csr` using one scratch CSR of the same size.
 */
export function sortRowsAndMergeDuplicates(n: number, csr: Csr): number {
  const scratch = transpose(n, csr);
  transposeInto(n, scratch, csr);
  const { offsets, targets, weights } = csr;
  let write = 0;
  let readStart = offsets[0]!;
  for (let v = 0; v < n; v++) {
    const readEnd = offsets[v + 1]!;
    offsets[v] = write;
    let previous = -1;
    for (let e = readStart; e < readEnd; e++) {
      const t = targets[e]!;
      if (t === previous) {
        if (weights !== null) weights[write - 1]! += weights[e]!;
        continue;
      }
      targets[write] = t;
      if (weights !== null) weights[write] = weights[e]!;
      write++;
      previous = t;
    }
    readStart = readEnd;
  }
  const merged = offsets[n]! - write;
  offsets[n] = write;
  return merged;
}

/** The arrays at their used length (copied when entries were removed), on shared memory. */
export function shrinkToFit(n: number, csr: Csr): Csr {
  const used = csr.offsets[n]!;
  if (used === csr.targets.length) {
    return {
      offsets: shareUint32(csr.offsets),
      targets: shareInt32(csr.targets),
      weights: csr.weights === null ? null : shareFloat64(csr.weights),
    };
  }
  const fitted = allocateCsr(0, used, csr.weights !== null);
  fitted.targets.set(csr.targets.subarray(0, used));
  fitted.weights?.set(csr.weights!.subarray(0, used));
  return { offsets: shareUint32(csr.offsets), targets: fitted.targets, weights: fitted.weights };
}
