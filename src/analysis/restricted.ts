/**
 * Restricted PageRank (Web Graph Analyzer paper, Section 3.3): the PageRank
 * of G^l = { u : lvl(u) <= l }, the pages at most l clicks from the roots,
 * with the links among them. The paper notes that pages deep in a site are
 * few and poorly linked, so the first levels already give a good
 * approximation at a fraction of the cost. Links leaving G^l are dropped, so
 * a page whose links all leave it is dangling in G^l.
 */
import { inducedSubgraph } from '../graph/subgraph.js';
import type { Graph } from '../graph/graph.js';
import { levels } from './levels.js';
import { type PageRankOptions, type PageRankResult, pagerank } from './pagerank.js';

export interface RestrictedPageRankResult {
  /** PageRank of the subgraph, indexed like `pages`. */
  rank: PageRankResult;
  /** pages[i] = id in the whole graph of the i-th page of G^l. */
  pages: Int32Array;
  /** Links of G^l. */
  edges: number;
  maxLevel: number;
}

export function restrictedPageRank(
  graph: Graph,
  roots: ArrayLike<number>,
  maxLevel: number,
  options: PageRankOptions = {},
): RestrictedPageRankResult {
  const { level } = levels(graph, roots, { maxLevel });
  const keep = new Uint8Array(graph.nodeCount);
  for (let v = 0; v < graph.nodeCount; v++) if (level[v]! >= 0) keep[v] = 1;
  const sub = inducedSubgraph(graph, keep);
  const { scc: _unused, teleport, dangling, initial, ...rest } = options;
  const subset = (vector: Float64Array | null | undefined): Float64Array | null | undefined =>
    vector == null ? vector : Float64Array.from(sub.originalIds, (v) => vector[v]!);
  const rank = pagerank(sub.graph, {
    ...rest,
    teleport: subset(teleport) ?? null,
    dangling: subset(dangling) ?? null,
    initial: subset(initial) ?? null,
  });
  return { rank, pages: sub.originalIds, edges: sub.graph.edgeCount, maxLevel };
}
