/**
 * Local characteristics (Web Graph Analyzer paper, Definitions 1 and 3): in-
 * and out-degrees (the number of distinct pages linking to / linked from a
 * page), their distributions, and dangling pages (no out-links).
 */
import type { Graph } from '../graph/graph.js';

/** [degree, number of pages with that degree] for every degree that occurs, increasing. */
export type DegreeDistribution = Array<[number, number]>;

export interface DegreeSummary {
  nodes: number;
  edges: number;
  /** Mean in-degree = mean out-degree = edges / nodes. */
  meanDegree: number;
  maxInDegree: number;
  maxOutDegree: number;
  /** Pages without out-links. */
  danglingNodes: number;
  /** Pages without in-links (no page links to them). */
  unreferencedNodes: number;
  /** Pages with neither. */
  isolatedNodes: number;
  inDistribution: DegreeDistribution;
  outDistribution: DegreeDistribution;
}

/** Degrees of all pages from CSR offsets: degree[v] = offsets[v+1] - offsets[v]. */
export function degreesFromOffsets(offsets: Uint32Array): Int32Array {
  const n = offsets.length - 1;
  // On shared memory: the threaded kernels (the compact PageRank's) read it.
  const degree = new Int32Array(new SharedArrayBuffer(4 * n));
  for (let v = 0; v < n; v++) degree[v] = offsets[v + 1]! - offsets[v]!;
  return degree;
}

export function outDegrees(graph: Graph): Int32Array {
  return degreesFromOffsets(graph.outOffsets);
}

export function inDegrees(graph: Graph): Int32Array {
  return degreesFromOffsets(graph.inOffsets);
}

export function degreeDistribution(degrees: Int32Array): DegreeDistribution {
  let max = 0;
  for (let i = 0; i < degrees.length; i++) if (degrees[i]! > max) max = degrees[i]!;
  const counts = new Float64Array(max + 1);
  for (let i = 0; i < degrees.length; i++) counts[degrees[i]!]!++;
  const result: DegreeDistribution = [];
  for (let d = 0; d <= max; d++) if (counts[d]! > 0) result.push([d, counts[d]!]);
  return result;
}

/** Ids of the dangling pages (Definition 3), increasing. */
export function danglingNodes(graph: Graph): Int32Array {
  const result: number[] = [];
  for (let v = 0; v < graph.nodeCount; v++) if (graph.outOffsets[v + 1] === graph.outOffsets[v]) result.push(v);
  return Int32Array.from(result);
}

export function countDangling(graph: Graph): number {
  let count = 0;
  const offsets = graph.outOffsets;
  for (let v = 0; v < graph.nodeCount; v++) if (offsets[v + 1] === offsets[v]) count++;
  return count;
}

export function degreeSummary(graph: Graph): DegreeSummary {
  return degreeSummaryOf(inDegrees(graph), outDegrees(graph), graph.edgeCount);
}

/** The summary from the degree arrays (a compact graph's come from its lists' headers). */
export function degreeSummaryOf(inDegree: Int32Array, outDegree: Int32Array, edges: number): DegreeSummary {
  const n = inDegree.length;
  let maxIn = 0;
  let maxOut = 0;
  let dangling = 0;
  let unreferenced = 0;
  let isolated = 0;
  for (let v = 0; v < n; v++) {
    const i = inDegree[v]!;
    const o = outDegree[v]!;
    if (i > maxIn) maxIn = i;
    if (o > maxOut) maxOut = o;
    if (o === 0) dangling++;
    if (i === 0) unreferenced++;
    if (i === 0 && o === 0) isolated++;
  }
  return {
    nodes: n,
    edges,
    meanDegree: n === 0 ? 0 : edges / n,
    maxInDegree: maxIn,
    maxOutDegree: maxOut,
    danglingNodes: dangling,
    unreferencedNodes: unreferenced,
    isolatedNodes: isolated,
    inDistribution: degreeDistribution(inDegree),
    outDistribution: degreeDistribution(outDegree),
  };
}
