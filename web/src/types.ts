/**
 * The API's JSON documents as the GUI reads them (/work/helpers/api-contract.md; the analyses'
 * documents are the CLI's --json contracts, README "JSON contracts").
 */
// Types only, erased by esbuild: src/crawl/counters.ts has no imports, so nothing of Node comes in.
import type { CrawlCounters } from '../../src/crawl/counters.js';
import type { ChangesJson } from '../../src/app/changes-json.js';

export interface Info {
  mode: 'store';
  store: string;
  kind: 'sqlite' | 'postgres';
  version: string;
  counts: { pages: number; links: number; fetched: number; failed: number; excluded: number; frontier: number; runs: number };
  crawl: { running: boolean; owner: 'server' | 'other' | null };
  graphReady: boolean;
}

export interface Stats {
  file: string;
  format: string;
  nodes: number;
  edges: number;
  danglingNodes: number;
  scc: { count: number; largest: number };
  unreferencedNodes?: number;
  isolatedNodes?: number;
  meanDegree?: number;
  maxInDegree?: number;
  maxOutDegree?: number;
  fetched?: number;
  failed?: number;
  excluded?: number;
  frontier?: number;
}

/** The crawl's counters: the crawler's own declaration. */
export type { CrawlCounters };

export interface CrawlReport extends CrawlCounters {
  stoppedBy: string;
  seconds: number;
  fetches: number;
  runs: number[];
  opicTime: number;
  totalCash: number;
  top?: Array<{ rank: number; url: string; importance: number; status: number | null }>;
}

export interface CrawlStatus {
  running: boolean;
  owner: 'server' | 'other' | null;
  startedAt: number | null;
  updatedAt: number;
  counters: CrawlCounters | null;
  pagesPerSecond: number;
  fetches: number;
  elapsedMs: number | null;
  opic: { time: number; errorFactor: number } | null;
  top: Array<{ url: string; importance: number }>;
  /** The live PageRank's best pages (docs/http-api.md); null without one. */
  live: { pages: number; ageMs: number; final: boolean; top: Array<{ url: string; importance: number }> } | null;
  settings: Record<string, unknown> | null;
  report: CrawlReport | null;
  error: { code: string; message: string } | null;
  /** When no crawl runs: the latest session's pages fetched over time (from the store's visits). */
  history?: { startedAt: number; seconds: number[]; requests: number[] } | null;
}

export interface RankTop {
  rank: number;
  label: string;
  score: number;
  stdDev?: number;
  relativeError?: number;
}

export interface RankResult {
  method: string;
  solver: string;
  nodes: number;
  edges: number;
  damping?: number;
  tolerance?: number;
  iterations: number;
  equivalentIterations?: number;
  residual: number;
  converged?: boolean;
  restricted?: { roots: string[]; maxLevel: number | null; nodes: number; edges: number } | null;
  montecarlo?: { walksPerPage: number; seed: number; walks: number; totalVisits: number } | null;
  opic?: { strategy: string; reads: number; time: number; errorFactor: number } | null;
  top: RankTop[];
  timings?: Record<string, number>;
  run: number | null;
}

export interface Job<R = unknown> {
  id: string;
  kind: 'rank' | 'import';
  state: 'running' | 'done' | 'failed' | 'cancelled';
  startedAt: number;
  finishedAt: number | null;
  request: Record<string, unknown>;
  progress: ProgressEvent | null;
  residuals: Array<[number, number]>;
  result: R | null;
  error: { code: string; message: string; parameter?: string } | null;
}

export interface ProgressEvent {
  phase: string;
  message: string;
  done?: number;
  total?: number;
  data?: { iteration?: number; residual?: number } & Record<string, unknown>;
}

export interface RunInfo {
  id: number;
  method: string;
  parameters?: Record<string, unknown>;
  startedAt: number;
  finishedAt: number | null;
  iterations: number | null;
  residual: number | null;
  converged: boolean | null;
  pages: number;
}

export interface RunList {
  runs: RunInfo[];
  live: { method: string; available: boolean };
}

export interface RunTop {
  run: RunInfo | null;
  live?: boolean;
  top: Array<{ rank: number; url: string; score: number }>;
}

export interface CompareResult {
  reference: string;
  other: string;
  pages: number;
  onlyInReference?: number;
  onlyInOther?: number;
  kendallTau: number;
  spearman: number;
  topOverlap: Record<string, number>;
  meanRelativeError?: { all: number; top10Percent: number };
}

export interface LinkRecord {
  url: string;
  kind: string;
  nofollow: boolean;
  /** rel tokens: nofollow, ugc, sponsored; 'script': only the rendered page has the link. */
  rel: string[];
  hreflang: string | null;
  /** A sitemap entry's lastmod, ms since the epoch. */
  lastmod: number | null;
}

export interface Visit {
  fetchedAt: string;
  status: number | null;
  changed: boolean | null;
  notModified: boolean;
  linksAdded: number;
  linksRemoved: number;
}

/** GET /api/changes: `wga changes --json`. */
export type Changes = ChangesJson;

export interface PageDetail {
  id: number;
  url: string;
  key?: string;
  host?: string;
  status: number | null;
  contentType?: string | null;
  fetchedAt: string | null;
  title: string | null;
  depth: number | null;
  size?: number | null;
  error?: string | null;
  inDegree: number;
  outDegree: number;
  inLinks: string[];
  outLinks: string[];
  in: LinkRecord[];
  out: LinkRecord[];
  links: { offset: number; limit: number; inTotal: number; outTotal: number };
  scores: Array<{ run: number; method: string; value: number }>;
  role?: 'page' | 'sitemap';
  wireSize?: number | null;
  etag?: string | null;
  lastModified?: string | null;
  contentHash?: string | null;
  /** Rendered in a browser while crawling (--render): null when read as served. */
  rendered?: 'settled' | 'unsettled' | 'failed' | null;
  /** Links to targets past --max-links-per-page that were not kept. */
  linksDropped?: number;
  visits?: Visit[];
  changeRate?: number | null;
}

/** GET /api/pages: `wga pages --json`. */
export interface PagesByStatus {
  store: string;
  status: string[];
  total: number;
  offset: number;
  pages: Array<{ id: number; url: string; status: number | null; error: string | null; linkers?: { total: number; urls: string[] } }>;
}

export interface SearchResult {
  query: string;
  mode: string;
  pages: Array<{ id: number; url: string; status: number | null; title: string | null }>;
}

/** The bow-tie's parts (src/analysis/bowtie.ts BOW_TIE_PARTS); they partition the pages. */
export interface BowTie {
  core: number;
  in: number;
  out: number;
  tubes: number;
  inTendrils: number;
  outTendrils: number;
  disconnected: number;
}

export interface SccResult {
  nodes: number;
  count: number;
  largest: number;
  root: { label: string; size: number; inLargest: boolean } | null;
  largestSizes: number[];
  sizeDistribution: Array<[number, number]>;
  bowTie: BowTie;
}

export interface LevelsResult {
  roots: string[];
  reached: number;
  unreachable: number;
  histogram: number[];
  maxLevel: number;
  page?: { url: string; level: number | null };
}

export interface DegreesResult {
  nodes: number;
  edges: number;
  meanDegree: number;
  maxInDegree: number;
  maxOutDegree: number;
  danglingNodes: number;
  unreferencedNodes: number;
  inDistribution: Array<[number, number]>;
  outDistribution: Array<[number, number]>;
  topIn: Array<{ label: string; degree: number }>;
  topOut: Array<{ label: string; degree: number }>;
}

export interface TreePage {
  id: number;
  url: string;
  title: string | null;
  status: number | null;
  depth: number;
  parent: number | null;
  importance: number | null;
}

export interface CrawlTree {
  roots: number[];
  nodes: TreePage[];
  total: number;
  sampled: boolean;
  importance: { run: number | null; method: string | null };
}

export interface Neighbourhood {
  center: number;
  nodes: Array<{ id: number; url: string; title: string | null; status: number | null; distance: number; inDegree: number; outDegree: number }>;
  edges: Array<[number, number]>;
  truncated: boolean;
}

export interface DirectoryNode {
  name: string;
  pages: number;
  children?: DirectoryNode[];
}

export interface DirectoryTree extends DirectoryNode {
  truncated: boolean;
}

/** One page a check found, with its evidence (docs/audit.md). */
export interface AuditFinding {
  url: string;
  [evidence: string]: unknown;
}

/** GET /api/audit. */
export interface AuditReport {
  store: string;
  pages: number;
  links: number;
  checks: Array<{ id: string; title: string; count: number; pages: AuditFinding[]; unavailable?: string }>;
  seconds: number;
}

/** GET /api/pages-table. */
export interface PagesTableAnswer {
  columns: string[];
  runs: { pagerank: number | null; opic: number | null };
  total: number;
  offset: number;
  rows: Array<Record<string, string | number | null>>;
  ms: number;
}

/** The distance distribution (`wga distances`, a store's `/api/distances`, a graph file's saved one). */
export interface Distances {
  method: 'exact' | 'hyperball';
  log2m: number | null;
  runs: number;
  distribution: number[];
  averageDistance: number;
  effectiveDiameter: number;
  connectedPairs: number;
  jackknife: { averageDistance: { estimate: number; standardError: number }; effectiveDiameter: { estimate: number; standardError: number } } | null;
}

/** `/api/info` of `wga serve --graph G.wgc` (src/app/compact-graph.ts CompactInfoJson). */
export interface GraphFileInfo {
  mode: 'graph';
  version: string;
  file: string;
  nodes: number;
  links: number;
  names: boolean;
  lists: { in: boolean; out: boolean };
  rankings: Array<{ method: string; iterations: number; residual: number; listed: number }>;
  distances: boolean;
}

/** A graph file's `/api/top`: the best pages of a saved ranking. */
export interface GraphFileTop {
  method: string;
  nodes: number;
  top: Array<{ rank: number; id: number; label: string; score: number }>;
}

/** A graph file's `/api/page`: one page's degrees, first neighbours and saved scores. */
export interface GraphFilePage {
  id: number;
  label: string;
  inDegree: number;
  outDegree: number;
  inLinks: string[];
  outLinks: string[];
  scores: Array<{ method: string; value: number }>;
}
