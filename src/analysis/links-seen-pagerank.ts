/**
 * PageRank of a partly crawled graph in which the unseen links of a page
 * known but not fetched yet are guessed from the links seen so far: its mass
 * goes to each known page in proportion to the number of fetched pages that
 * link to it (the empirical in-link distribution of the fetched pages).
 *
 * Why a guess at all: with a uniform teleport, spreading an unfetched page's
 * mass uniformly, dropping it, or holding it (OPIC's cash) give the same
 * ranking (docs/live-importance.md); what ranks an unfetched page early in a
 * pass is the links of pages not fetched yet, which no estimate sees. Links
 * that appear on many fetched pages (a site's template: Home, Up, the table
 * of contents) are the ones most likely to be on the unfetched pages too.
 * Once every page is fetched this is the PageRank of the graph (nothing is
 * guessed). This is the definition, solved from scratch by power iteration:
 * the crawler's live estimate keeps the same vector incrementally
 * (IncrementalPageRank with guessUnfetched, tested against this one).
 *
 * Transition of a page u: fetched with k > 0 links: 1/k to each; fetched with
 * none (dangling): uniform; not fetched: d(v) = in_fetched(v) / L, where
 * in_fetched(v) counts the fetched pages linking to v and L is the number of
 * links of fetched pages (uniform while L = 0). x = c P^T x + (1 - c) / n.
 */
export interface LinksSeenGraph {
  /** Known pages: 0 .. known - 1. */
  known: number;
  /** Out-links of page u (fetched pages; unfetched ones have none listed): targets[offsets[u] .. offsets[u+1]), distinct, no self-link. */
  offsets: Uint32Array;
  targets: Int32Array;
  fetched: Uint8Array;
}

export function linksSeenPageRank(graph: LinksSeenGraph, damping = 0.85, tolerance = 1e-12, maxIterations = 1000): { scores: Float64Array; iterations: number } {
  const { known: n, offsets, targets, fetched } = graph;
  const guess = new Float64Array(n);
  let seenLinks = 0;
  for (let u = 0; u < n; u++) {
    if (fetched[u] !== 1) continue;
    for (let e = offsets[u]!; e < offsets[u + 1]!; e++) guess[targets[e]!]!++;
    seenLinks += offsets[u + 1]! - offsets[u]!;
  }
  if (seenLinks > 0) for (let v = 0; v < n; v++) guess[v]! /= seenLinks;
  let x = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    next.fill(0);
    let uniform = 0;
    let unfetched = 0;
    for (let u = 0; u < n; u++) {
      const start = offsets[u]!;
      const end = offsets[u + 1]!;
      if (fetched[u] !== 1) unfetched += x[u]!;
      else if (end === start) uniform += x[u]!;
      else {
        const share = x[u]! / (end - start);
        for (let e = start; e < end; e++) next[targets[e]!]! += share;
      }
    }
    if (seenLinks === 0) {
      uniform += unfetched;
      unfetched = 0;
    }
    let change = 0;
    for (let v = 0; v < n; v++) {
      const value = damping * (next[v]! + uniform / n + unfetched * guess[v]!) + (1 - damping) / n;
      change += Math.abs(value - x[v]!);
      next[v] = value;
    }
    [x, next] = [next, x];
    if (change < tolerance) break;
  }
  return { scores: x, iterations };
}
