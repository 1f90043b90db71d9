import type { Labels } from './labels.js';

/**
 * An immutable directed graph in compressed sparse row form, kept twice:
 * out-adjacency (successors of each page) and in-adjacency (predecessors).
 *
 * Successors of v are outTargets[outOffsets[v] .. outOffsets[v+1]), sorted,
 * without duplicates or self-links (the Web Graph Analyzer paper's Section 2:
 * several links from one page to another are one edge, links inside a page are
 * dropped). Predecessors are laid out the same way in inOffsets/inSources.
 *
 * Optional weights (outWeights[e] for the out-edge e, inWeights[e] for the
 * in-edge e) exist only when a graph was built with weights or with
 * duplicate links counted; the web graph of the papers is unweighted.
 *
 * Memory: 8 bytes per edge and 8 per node unweighted, plus the labels. The
 * builders put the arrays on SharedArrayBuffer, so worker threads share them.
 */
export class Graph {
  readonly nodeCount: number;
  readonly edgeCount: number;

  constructor(
    readonly outOffsets: Uint32Array,
    readonly outTargets: Int32Array,
    readonly inOffsets: Uint32Array,
    readonly inSources: Int32Array,
    readonly labels: Labels,
    readonly outWeights: Float64Array | null = null,
    readonly inWeights: Float64Array | null = null,
  ) {
    this.nodeCount = outOffsets.length - 1;
    this.edgeCount = outTargets.length;
  }

  outDegree(v: number): number {
    return this.outOffsets[v + 1]! - this.outOffsets[v]!;
  }

  inDegree(v: number): number {
    return this.inOffsets[v + 1]! - this.inOffsets[v]!;
  }

  /** A view (no copy) of v's successors in increasing id order. */
  successors(v: number): Int32Array {
    return this.outTargets.subarray(this.outOffsets[v]!, this.outOffsets[v + 1]!);
  }

  /** A view (no copy) of v's predecessors in increasing id order. */
  predecessors(v: number): Int32Array {
    return this.inSources.subarray(this.inOffsets[v]!, this.inOffsets[v + 1]!);
  }

  /** The same graph (arrays shared, not copied) with other labels. */
  withLabels(labels: Labels): Graph {
    if (labels.size !== this.nodeCount) {
      throw new RangeError(`withLabels: ${labels.size} labels for ${this.nodeCount} nodes`);
    }
    return new Graph(
      this.outOffsets,
      this.outTargets,
      this.inOffsets,
      this.inSources,
      labels,
      this.outWeights,
      this.inWeights,
    );
  }

  get weighted(): boolean {
    return this.outWeights !== null;
  }

  /** Bytes held by the adjacency arrays (labels excluded). */
  adjacencyBytes(): number {
    return (
      this.outOffsets.byteLength +
      this.outTargets.byteLength +
      this.inOffsets.byteLength +
      this.inSources.byteLength +
      (this.outWeights?.byteLength ?? 0) +
      (this.inWeights?.byteLength ?? 0)
    );
  }

  /** Bytes held by the whole graph, labels included. */
  memoryBytes(): number {
    return this.adjacencyBytes() + this.labels.memoryBytes();
  }
}
