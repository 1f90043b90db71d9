/**
 * Crawl ordering, replayed: how early each strategy fetches the important
 * pages, and how good each running importance estimate is, during the first
 * pass over a graph (Cho, Garcia-Molina and Page 1998, "Efficient crawling
 * through URL ordering"; Baeza-Yates, Castillo, Marin and Rodriguez 2005,
 * "Crawling a country"; Cho and Schonfeld 2007, "RankMass crawler").
 *
 * The replay is the crawler without the network: one host, one fetch at a
 * time, the crawler's own Frontier (frontier.ts) choosing the next page,
 * OPIC (opic.ts) reading every fetched page as the crawler does, and the live
 * PageRank (incremental-pagerank.ts) updated every `updateEvery` fetches, as
 * the crawler's worker is about once a second. Fetching a page reveals its
 * out-links in the graph; pages are numbered in the order they are found.
 * The first pass ends when every page reachable from the seeds is fetched;
 * the final graph is the subgraph of those pages, and the reference is its
 * exact PageRank (pagerank(), damping 0.85).
 *
 * At each mark (a share of the pass's fetches) it reports, per strategy:
 * - RankMass: the share of the final PageRank held by the pages fetched;
 * - how many of the final top 10 and top 100 pages are fetched;
 * - Kendall's tau-b, over the pages known at the mark, of OPIC's estimate
 *   and of the live PageRank against the final PageRank. At a mark the live
 *   vector is brought up to date first (in a crawl it lags by at most one
 *   update interval). Scores are compared to 9 significant digits, so that
 *   pages of equal final PageRank (leaves of the same parent) count as ties
 *   rather than in the order of rounding noise. The same tau is also given
 *   over the pages fetched and over the pages known but not fetched, apart:
 *   early in a pass most known pages are unfetched, and the two estimates
 *   fare differently on the two kinds (docs/live-importance.md).
 * Two more estimates are scored at each mark, for comparison: the PageRank
 * of the known graph with the waiting pages dangling (the live estimate
 * without its guess of their links), and the "seen-links oracle": every
 * fetched page at its final PageRank, every waiting page at the teleport
 * plus what flows to it, in the final PageRank, through the links seen so
 * far. No crawler has the final PageRank of the pages it fetched; the oracle
 * is what the links seen can tell about the waiting pages at best without a
 * guess of the links not seen yet, and shows where a lead of OPIC's comes
 * from those (docs/live-importance.md).
 */
import { kendallTau } from '../analysis/compare.js';
import { IncrementalPageRank } from '../analysis/incremental-pagerank.js';
import { Opic } from '../analysis/opic.js';
import { pagerank } from '../analysis/pagerank.js';
import { type CrawlStrategy, Frontier } from '../crawl/frontier.js';
import { OptionError } from '../errors.js';
import type { Graph } from '../graph/graph.js';
import { inducedSubgraph } from '../graph/subgraph.js';

export type UnfetchedConvention = 'links-seen' | 'dangling' | 'seeds';
export const UNFETCHED_CONVENTIONS: readonly UnfetchedConvention[] = ['links-seen', 'dangling', 'seeds'];

export const ORDERING_STRATEGIES: readonly CrawlStrategy[] = ['bfs', 'random', 'greedy', 'pagerank'];
export const ORDERING_MARKS: readonly number[] = [0.01, 0.05, 0.1, 0.25, 0.5, 1];

export interface OrderingOptions {
  /** Pages the crawl starts from (ids of `graph`). */
  seeds: number[];
  strategies?: readonly CrawlStrategy[];
  /** Shares of the first pass: 1, 5, 10, 25, 50, 100%. */
  marks?: readonly number[];
  /** Fetches between two live PageRank updates: the pass's pages / 500 (at least 1). */
  updateEvery?: number;
  damping?: number;
  /** L1 tolerance of each live update (INCREMENTAL_PAGERANK_DEFAULTS.tolerance). */
  liveTolerance?: number;
  /** Seed of the random strategy. */
  seed?: number;
  /**
   * How the live PageRank treats a page known but not fetched yet: 'links-seen' (the crawler's:
   * its unseen links guessed from the links seen, IncrementalPageRank's guessUnfetched),
   * 'dangling' (its mass spread like the teleport) or 'seeds' (a variant kept for comparison: its
   * mass goes to the seeds, as if its unseen links led back to where the crawl started). Pages
   * fetched keep their own links, so the end of the pass is the same.
   */
  unfetched?: UnfetchedConvention;
  onProgress?: (message: string) => void;
}

export interface OrderingMark {
  strategy: CrawlStrategy;
  /** Share of the pass, 0..1. */
  mark: number;
  fetched: number;
  known: number;
  rankMass: number;
  top10: number;
  top100: number;
  tauOpic: number;
  tauLive: number;
  /** The same over the pages fetched only, and over the known pages not fetched only (NaN: fewer than 2 pages). */
  tauOpicFetched: number;
  tauLiveFetched: number;
  tauOpicUnfetched: number;
  tauLiveUnfetched: number;
  /** Tau of the PageRank of the known graph, waiting pages dangling (NaN with unfetched 'seeds'). */
  tauDangling: number;
  /** Tau of the seen-links oracle (see the header). */
  tauOracle: number;
}

export interface OrderingResult {
  /** Pages of the first pass (reachable from the seeds) and their links. */
  pages: number;
  links: number;
  updateEvery: number;
  damping: number;
  marks: OrderingMark[];
  /** Live PageRank cost over the pass, per strategy: pushes and links followed, in all. */
  cost: Array<{ strategy: CrawlStrategy; pushes: number; edgeVisits: number; updates: number }>;
  seconds: number;
}

/** Scores to 9 significant digits (see the header). */
function rounded(values: ArrayLike<number>): Float64Array {
  return Float64Array.from({ length: values.length }, (_, i) => Number(values[i]!.toPrecision(9)));
}

/** Kendall's tau-b of a and b over the indices i < known with pick(i). */
function tauOver(a: ArrayLike<number>, b: ArrayLike<number>, known: number, pick: (i: number) => boolean): number {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < known; i++) {
    if (!pick(i)) continue;
    x.push(a[i]!);
    y.push(b[i]!);
  }
  return x.length < 2 ? Number.NaN : kendallTau(Float64Array.from(x), Float64Array.from(y));
}

/** The pages reachable from the seeds. */
function reachable(graph: Graph, seeds: readonly number[]): Uint8Array {
  const keep = new Uint8Array(graph.nodeCount);
  const queue: number[] = [];
  for (const s of seeds) {
    if (!(Number.isInteger(s) && s >= 0 && s < graph.nodeCount)) throw new OptionError('seed', `page ${s} is not in the graph of ${graph.nodeCount} pages`);
    if (keep[s] === 0) {
      keep[s] = 1;
      queue.push(s);
    }
  }
  for (let head = 0; head < queue.length; head++) {
    for (const t of graph.successors(queue[head]!)) {
      if (keep[t] === 0) {
        keep[t] = 1;
        queue.push(t);
      }
    }
  }
  return keep;
}

/** Replays the first pass over `graph` from `seeds` with each strategy. */
export function runOrderingExperiment(graph: Graph, options: OrderingOptions): OrderingResult {
  const started = performance.now();
  const damping = options.damping ?? 0.85;
  const strategies = options.strategies ?? ORDERING_STRATEGIES;
  const marks = [...(options.marks ?? ORDERING_MARKS)].sort((a, b) => a - b);
  const progress = options.onProgress ?? ((): void => undefined);
  const keep = reachable(graph, options.seeds);
  const sub = inducedSubgraph(graph, keep);
  const final = sub.graph;
  const n = final.nodeCount;
  const seeds = options.seeds.map((s) => {
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sub.originalIds[mid]! < s) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  });
  const updateEvery = options.updateEvery ?? Math.max(1, Math.round(n / 500));
  progress(`final PageRank of ${n} pages, ${final.edgeCount} links`);
  const reference = pagerank(final, { damping, tolerance: 1e-12 }).scores;
  const referenceRounded = rounded(reference);
  const byRank = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => reference[b]! - reference[a]! || a - b);
  const isTop = new Uint8Array(n);
  for (let i = 0; i < Math.min(100, n); i++) isTop[byRank[i]!] = i < 10 ? 10 : 100;

  const results: OrderingMark[] = [];
  const cost: OrderingResult['cost'] = [];
  for (const strategy of strategies) {
    progress(`replaying ${strategy}`);
    const opic = new Opic({ damping, reselectRead: false, seed: options.seed ?? 1 });
    const frontier = new Frontier(opic, { strategy, seed: options.seed ?? 1, damping });
    const unfetched = options.unfetched ?? 'links-seen';
    const live = new IncrementalPageRank(damping, { guessUnfetched: unfetched === 'links-seen' });
    /** Crawl id <-> page of the final graph, in the order pages are found. */
    const nodeOf = new Int32Array(n);
    const idOf = new Int32Array(n).fill(-1);
    const isFetched = new Uint8Array(n);
    let known = 0;
    const discover = (node: number): number => {
      if (idOf[node]! >= 0) return idOf[node]!;
      const id = opic.addPage(false, 0);
      idOf[node] = id;
      nodeOf[id] = node;
      known++;
      live.growTo(known);
      if (towardSeeds !== null) live.setLinks(id, towardSeeds);
      frontier.add(id, 0);
      return id;
    };
    let towardSeeds: number[] | null = null;
    const seedIds = seeds.map(discover);
    if (unfetched === 'seeds') towardSeeds = seedIds;
    opic.distributeInitialCash(seedIds);
    frontier.setHostEnabled(0, true);
    let fetched = 0;
    let rankMass = 0;
    let top10 = 0;
    let top100 = 0;
    let updates = 0;
    let markIndex = 0;
    const out: number[] = [];
    /** Out-links of the pages fetched so far, by crawl id. */
    const linksOf: Int32Array[] = [];
    while (markIndex < marks.length) {
      const id = frontier.take(() => 0);
      if (id < 0) break;
      const node = nodeOf[id]!;
      out.length = 0;
      for (const t of final.successors(node)) if (t !== node) out.push(discover(t));
      opic.read(id, out);
      live.setLinks(id, out);
      linksOf[id] = Int32Array.from(out);
      isFetched[id] = 1;
      frontier.fetched(id, out);
      fetched++;
      rankMass += reference[node]!;
      if (isTop[node] === 10) top10++;
      if (isTop[node] !== 0) top100++;
      if (fetched % updateEvery === 0) {
        live.solve(options.liveTolerance);
        frontier.liveVector(live.scores(), known);
        updates++;
      }
      while (markIndex < marks.length && fetched >= Math.ceil(marks[markIndex]! * n)) {
        // From the definition first: the waiting pages' scores are stored in single precision, and
        // what a page carried in when it was fetched stays in its residual until recomputed.
        live.refreshResidual();
        live.solve(1e-9);
        const opicEstimates = opic.estimates();
        const liveScores = live.scores();
        const truth = Float64Array.from({ length: known }, (_, i) => referenceRounded[nodeOf[i]!]!);
        const opicRounded = rounded(opicEstimates.subarray(0, known));
        const liveRounded = rounded(liveScores);
        const wasFetched = (i: number): boolean => isFetched[i] === 1;
        const notFetched = (i: number): boolean => isFetched[i] === 0;
        results.push({
          strategy,
          mark: marks[markIndex]!,
          fetched,
          known,
          rankMass,
          top10,
          top100,
          tauOpic: kendallTau(opicRounded, truth),
          tauLive: kendallTau(liveRounded, truth),
          tauOpicFetched: tauOver(opicRounded, truth, known, wasFetched),
          tauLiveFetched: tauOver(liveRounded, truth, known, wasFetched),
          tauOpicUnfetched: tauOver(opicRounded, truth, known, notFetched),
          tauLiveUnfetched: tauOver(liveRounded, truth, known, notFetched),
          tauDangling: unfetched === 'seeds' ? Number.NaN : kendallTau(rounded(live.exactScores()), truth),
          tauOracle: kendallTau(rounded(seenLinksOracle(known, nodeOf, linksOf, isFetched, reference, damping)), truth),
        });
        markIndex++;
      }
    }
    if (fetched !== n) throw new Error(`internal error: ${strategy} fetched ${fetched} of ${n} reachable pages`);
    cost.push({ strategy, pushes: live.totalPushes, edgeVisits: live.totalEdgeVisits, updates });
  }
  return { pages: n, links: final.edgeCount, updateEvery, damping, marks: results, cost, seconds: (performance.now() - started) / 1000 };
}

/**
 * The seen-links oracle over the pages known at a mark (see the header): fetched pages at their final
 * PageRank, waiting ones at (1 - c) / n plus c x(u) / k_u from each fetched page u linking to them.
 */
function seenLinksOracle(known: number, nodeOf: Int32Array, linksOf: Int32Array[], isFetched: Uint8Array, reference: Float64Array, damping: number): Float64Array {
  const estimate = new Float64Array(known).fill((1 - damping) / reference.length);
  for (let u = 0; u < known; u++) {
    if (isFetched[u] !== 1) continue;
    const links = linksOf[u]!;
    const share = (damping * reference[nodeOf[u]!]!) / links.length;
    for (const t of links) if (isFetched[t] !== 1) estimate[t]! += share;
  }
  for (let u = 0; u < known; u++) if (isFetched[u] === 1) estimate[u] = reference[nodeOf[u]!]!;
  return estimate;
}
