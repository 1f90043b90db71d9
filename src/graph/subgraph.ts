/**
 * Induced subgraphs: the pages a mask keeps and the links among them (the
 * Web Graph Analyzer paper's G^l of restricted PageRank, Section 3.3).
 */
import { type BuiltGraph, buildFromRows } from './builder.js';
import { allocateCsr } from './csr.js';
import type { Graph } from './graph.js';
import type { Labels } from './labels.js';

/** The labels of a subset of another graph's pages. */
export class SubsetLabels implements Labels {
  private byOriginal: Int32Array | null = null;
  constructor(
    readonly base: Labels,
    /** originalIds[i] = id in the base graph of page i of the subgraph. */
    readonly originalIds: Int32Array,
  ) {}
  get size(): number {
    return this.originalIds.length;
  }
  label(id: number): string {
    return this.base.label(this.originalIds[id]!);
  }
  id(label: string): number {
    const original = this.base.id(label);
    if (original < 0) return -1;
    if (this.byOriginal === null) {
      this.byOriginal = new Int32Array(this.base.size).fill(-1);
      this.originalIds.forEach((o, i) => (this.byOriginal![o] = i));
    }
    return this.byOriginal[original]!;
  }
  memoryBytes(): number {
    return this.originalIds.byteLength + (this.byOriginal?.byteLength ?? 0);
  }
}

export interface Subgraph extends BuiltGraph {
  /** originalIds[i] = id in the original graph of page i of the subgraph. */
  originalIds: Int32Array;
}

/** The subgraph of the pages with keep[v] = 1, ids in increasing original order. */
export function inducedSubgraph(graph: Graph, keep: Uint8Array): Subgraph {
  const n = graph.nodeCount;
  const newId = new Int32Array(n).fill(-1);
  let count = 0;
  for (let v = 0; v < n; v++) if (keep[v] === 1) newId[v] = count++;
  const originalIds = new Int32Array(count);
  for (let v = 0; v < n; v++) if (newId[v]! >= 0) originalIds[newId[v]!] = v;
  const { outOffsets, outTargets, outWeights } = graph;
  let links = 0;
  for (let i = 0; i < count; i++) {
    const v = originalIds[i]!;
    for (let e = outOffsets[v]!; e < outOffsets[v + 1]!; e++) if (newId[outTargets[e]!]! >= 0) links++;
  }
  const rows = allocateCsr(count, links, outWeights !== null);
  let k = 0;
  for (let i = 0; i < count; i++) {
    const v = originalIds[i]!;
    rows.offsets[i] = k;
    for (let e = outOffsets[v]!; e < outOffsets[v + 1]!; e++) {
      const w = newId[outTargets[e]!]!;
      if (w < 0) continue;
      rows.targets[k] = w;
      if (rows.weights !== null) rows.weights[k] = outWeights![e]!;
      k++;
    }
  }
  rows.offsets[count] = k;
  const built = buildFromRows(count, rows, new SubsetLabels(graph.labels, originalIds), { selfLoopsRemoved: true });
  return { ...built, originalIds };
}
