import { Graph } from './graph.js';
import type { Labels } from './labels.js';
import { EdgeBuffer } from './edge-buffer.js';
import { sharedFloat64, sharedInt32, sharedUint32 } from '../parallel/shared-memory.js';
import {
  type Csr,
  dropSelfLoops,
  rowsStrictlyIncreasing,
  shrinkToFit,
  sortRowsAndMergeDuplicates,
  transpose,
} from './csr.js';

/** How raw links become the edges of the graph. */
export interface BuildOptions {
  /**
   * Add the reverse of every link, so an undirected graph becomes the
   * symmetric directed graph other tools (igraph, networkx) rank.
   */
  symmetric?: boolean;
  /**
   * 'merge' (default, the web graph convention of the Web Graph Analyzer
   * paper, Section 2): parallel links are one unweighted edge.
   * 'count': parallel links are one edge whose weight is their number (or the
   * sum of their weights), as multigraph tools such as igraph count them.
   */
  duplicates?: 'merge' | 'count';
}

/** What building did to the raw links; raw = edges + selfLoopsDropped + duplicatesDropped. */
export interface BuildReport {
  /** Links as read (each counted twice when `symmetric`). */
  rawEdges: number;
  selfLoopsDropped: number;
  duplicatesDropped: number;
}

export interface BuiltGraph {
  graph: Graph;
  report: BuildReport;
}

/**
 * Builds the graph of `nodeCount` nodes from raw links whose endpoints are
 * already dense ids. The buffer's chunks are released as they are consumed.
 * Peak memory: the buffer (8 bytes/link) plus one 4-byte target per link.
 */
export function buildFromEdges(
  nodeCount: number,
  edges: EdgeBuffer,
  labels: Labels,
  options: BuildOptions = {},
): BuiltGraph {
  const symmetric = options.symmetric === true;
  const weighted = edges.weighted || options.duplicates === 'count';
  const n = nodeCount;
  const offsets = sharedUint32(n + 1);
  let selfLoops = 0;
  for (let i = 0; i < edges.chunkCount; i++) {
    const length = edges.chunkLength(i);
    const sources = edges.sources(i);
    const targets = edges.targets(i);
    for (let j = 0; j < length; j++) {
      const s = sources[j]!;
      const t = targets[j]!;
      if (s < 0 || s >= n || t < 0 || t >= n) {
        throw new RangeError(`buildFromEdges: endpoint out of range 0..${n - 1}: ${s} -> ${t}`);
      }
      if (s === t) {
        selfLoops++;
        continue;
      }
      offsets[s + 1]!++;
      if (symmetric) offsets[t + 1]!++;
    }
  }
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  const csr: Csr = {
    offsets,
    targets: sharedInt32(offsets[n]!),
    weights: weighted ? sharedFloat64(offsets[n]!) : null,
  };
  // offsets[v] serves as the write cursor of row v during the scatter.
  for (let i = 0; i < edges.chunkCount; i++) {
    const length = edges.chunkLength(i);
    const sources = edges.sources(i);
    const targets = edges.targets(i);
    const weights = edges.weights(i);
    for (let j = 0; j < length; j++) {
      const s = sources[j]!;
      const t = targets[j]!;
      if (s === t) continue;
      const w = weights === null ? 1 : weights[j]!;
      let slot = offsets[s]!++;
      csr.targets[slot] = t;
      if (csr.weights !== null) csr.weights[slot] = w;
      if (symmetric) {
        slot = offsets[t]!++;
        csr.targets[slot] = s;
        if (csr.weights !== null) csr.weights[slot] = w;
      }
    }
    edges.release(i);
  }
  for (let v = n; v > 0; v--) offsets[v] = offsets[v - 1]!;
  offsets[0] = 0;
  const rawEdges = edges.length * (symmetric ? 2 : 1);
  const built = buildFromRows(n, csr, labels, { selfLoopsRemoved: true });
  return {
    graph: built.graph,
    report: {
      rawEdges,
      selfLoopsDropped: selfLoops * (symmetric ? 2 : 1),
      duplicatesDropped: built.report.duplicatesDropped,
    },
  };
}

/**
 * Builds the graph from out-rows that may be unsorted and may hold self-links
 * and repeated targets (as decoded from a file). Takes ownership of `rows`.
 */
export function buildFromRows(
  n: number,
  rows: Csr,
  labels: Labels,
  known: { selfLoopsRemoved?: boolean; sorted?: boolean } = {},
): BuiltGraph {
  const rawEdges = rows.offsets[n]!;
  const selfLoopsDropped = known.selfLoopsRemoved === true ? 0 : dropSelfLoops(n, rows);
  let duplicatesDropped = 0;
  if (known.sorted !== true && !rowsStrictlyIncreasing(n, rows)) duplicatesDropped = sortRowsAndMergeDuplicates(n, rows);
  const out = shrinkToFit(n, rows);
  const inRows = transpose(n, out);
  const graph = new Graph(
    out.offsets,
    out.targets,
    inRows.offsets,
    inRows.targets,
    labels,
    out.weights,
    inRows.weights,
  );
  return { graph, report: { rawEdges, selfLoopsDropped, duplicatesDropped } };
}
