/**
 * The store: pages, links, analysis runs and their scores in a real
 * database, as the Web Graph Analyzer paper keeps the web graph in a DBMS
 * (its Section 4.2: tables "pages" and "links", indexed, plus auxiliary
 * tables). Two implementations behind this one interface: SQLite (a file,
 * embedded, the default) and PostgreSQL (a server, for several crawlers).
 * Every value from outside reaches SQL as a parameter, never in the text.
 */
import type { OutListBatch } from './out-lists.js';
import type { OpicGlobalState, OpicPageState } from '../analysis/opic.js';
import type { Graph } from '../graph/graph.js';
import { ExitCode, WgaError } from '../errors.js';
import type { StatusClass } from './records.js';

/**
 * What a link is, by where it was found: `anchor` (<a href>), `area` (<area href>), `frame` and
 * `iframe` (their src), `refresh` (<meta http-equiv=refresh>), `redirect` (a 3xx answer),
 * `canonical` (<link rel=canonical>), `alternate` (<link rel=alternate hreflang>) and `sitemap`
 * (a sitemap's entry, or a sitemap index's).
 */
export type LinkKind = 'anchor' | 'redirect' | 'canonical' | 'area' | 'frame' | 'iframe' | 'refresh' | 'alternate' | 'sitemap';
export const LINK_KINDS: readonly LinkKind[] = ['anchor', 'area', 'frame', 'iframe', 'refresh', 'redirect', 'canonical', 'alternate', 'sitemap'];
/**
 * The links of the web graph: what a reader follows from a page to another (a click, a frame
 * shown, a refresh or a redirect taken). OPIC's cash, the live PageRank and, by default, every
 * analysis of a store use these; canonical, alternate and sitemap links are kept beside them.
 */
export const GRAPH_LINK_KINDS: readonly LinkKind[] = ['anchor', 'area', 'frame', 'iframe', 'refresh', 'redirect'];

/** rel tokens kept with a link, as bits of its `rel` (rel="nofollow ugc sponsored"). */
export const REL_BITS = { nofollow: 1, ugc: 2, sponsored: 4, script: 8 } as const;
export type RelToken = keyof typeof REL_BITS;
/**
 * 'script' is no rel token of HTML: wga's mark on a link only the rendered page has (its scripts wrote
 * it, the HTML as served lacks it; docs/rendering.md), kept with the rel bits so that analyses can leave
 * such links out (`--links -script`) as they leave out nofollow ones.
 */
export const REL_TOKENS: readonly RelToken[] = ['nofollow', 'ugc', 'sponsored', 'script'];

/** How a page was rendered in a browser (--render), when it was. */
export type RenderOutcome = 'settled' | 'unsettled' | 'failed';
export const RENDER_OUTCOMES: readonly RenderOutcome[] = ['settled', 'unsettled', 'failed'];

/** The rel tokens of a bit set. */
export function relTokens(rel: number): RelToken[] {
  return REL_TOKENS.filter((token) => (rel & REL_BITS[token]) !== 0);
}

/** Which stored links make a graph: these kinds, without the links carrying any rel bit of `withoutRel`. */
export interface LinkFilter {
  kinds: readonly LinkKind[];
  /** rel bits (REL_BITS) whose links are left out: REL_BITS.nofollow for PageRank without nofollow links. */
  withoutRel?: number;
}

/** A LinkFilter from a list of kinds or a filter (undefined: the graph's kinds, every rel). */
export function linkFilterOf(filter: readonly LinkKind[] | LinkFilter | undefined): Required<LinkFilter> {
  if (filter === undefined) return { kinds: GRAPH_LINK_KINDS, withoutRel: 0 };
  if (Array.isArray(filter)) return { kinds: filter as readonly LinkKind[], withoutRel: 0 };
  const f = filter as LinkFilter;
  return { kinds: f.kinds, withoutRel: f.withoutRel ?? 0 };
}

/** What a page is for the crawler: a page of the site, or a sitemap (read as one, not as HTML). */
export type PageRole = 'page' | 'sitemap';
export const PAGE_ROLES: readonly PageRole[] = ['page', 'sitemap'];

export interface PageRecord {
  id: number;
  url: string;
  /** Normalised URL: the page's identity in the store. */
  key: string;
  host: string;
  /** HTTP status of the last fetch, or null if never fetched. */
  status: number | null;
  contentType: string | null;
  /** Time of the last fetch, milliseconds since the epoch. */
  fetchedAt: number | null;
  size: number | null;
  title: string | null;
  /** Why the last fetch failed, if it did. */
  error: string | null;
  /** Clicks from the crawl's seeds when first found. */
  depth: number | null;
  /** Bytes received on the wire (compressed or not); `size` is the decoded body's. */
  wireSize: number | null;
  /** The validators of the last 2xx answer, sent back in conditional requests. */
  etag: string | null;
  lastModified: string | null;
  /** Digest of the last 2xx body as decoded ('xxh64:' and 16 hexadecimal digits). */
  contentHash: string | null;
  role: PageRole;
  /**
   * null: read as served (not rendered). 'settled': rendered in a browser, which went quiet (network
   * and DOM); 'unsettled': rendered, its links read when the render time ran out; 'failed': the
   * browser could not render it (its HTML's links stand).
   */
  rendered: RenderOutcome | null;
  /** Links to targets past --max-links-per-page that were not kept (0: none). */
  linksDropped: number;
  /** What a site audit reads of its last answer (store version 7 on); null when none was recorded. */
  audit: PageAudit | null;
}

/**
 * What a site audit reads of an answer (analysis/audit.ts): its response time, and of an HTML page
 * its meta description, h1 headings, robots directives, word count and text fingerprint.
 */
export interface PageAudit {
  description: string | null;
  h1: string | null;
  /** null: not an HTML page read. */
  h1Count: number | null;
  /** ROBOTS_NOINDEX | ROBOTS_NOFOLLOW (fetcher.ts), from meta robots and X-Robots-Tag; null: not read. */
  robots: number | null;
  words: number | null;
  /** 64-bit SimHash of the visible text, 16 hexadecimal digits (text-fingerprint.ts). */
  simhash: string | null;
  /** Milliseconds from the request to its body read. */
  responseMs: number | null;
}

export interface LinkRecord {
  url: string;
  kind: LinkKind;
  nofollow: boolean;
  /** rel tokens of the link (nofollow, ugc, sponsored). */
  rel: RelToken[];
  /** hreflang of an alternate link. */
  hreflang: string | null;
  /** lastmod of a sitemap entry, milliseconds since the epoch. */
  lastmod: number | null;
}

export interface NewLink {
  source: number;
  target: number;
  kind: LinkKind;
  nofollow: boolean;
  /** rel bits (REL_BITS); absent: nofollow's bit alone. */
  rel?: number;
  hreflang?: string | null;
  lastmod?: number | null;
}

/** The rel bits of a link: its own, or the nofollow flag's. */
export function relOf(link: { nofollow: boolean; rel?: number }): number {
  return link.rel ?? (link.nofollow ? REL_BITS.nofollow : 0);
}

export interface FetchRecord {
  status: number | null;
  contentType: string | null;
  fetchedAt: number;
  /** Bytes of the body as decoded (as received when it was not compressed). */
  size: number | null;
  title: string | null;
  error: string | null;
  /** Bytes of the body on the wire (compressed), when a body was read. */
  wireSize?: number | null;
  /** Digest of the decoded body of a 2xx answer ('xxh64:HEX16'). */
  contentHash?: string | null;
  etag?: string | null;
  lastModified?: string | null;
  /** A 304 answer to a conditional request: the page is as stored (its answer and links stand). */
  notModified?: boolean;
  /** How it was rendered (--render), or null/absent when it was read as served. */
  rendered?: RenderOutcome | null;
  /** Links to targets past --max-links-per-page that were not kept. */
  linksDropped?: number;
  /** What a site audit reads of the answer. */
  audit?: PageAudit | null;
}

/** One fetch of a page, as its visit history keeps it (`wga changes`). */
export interface VisitRecord {
  page: number;
  fetchedAt: number;
  status: number | null;
  error: string | null;
  contentHash: string | null;
  /** null on a page's first visit; else whether its body differs from the visit before (304: false). */
  changed: boolean | null;
  notModified: boolean;
  linksAdded: number;
  linksRemoved: number;
}

/** A link that appeared or disappeared when its page was read again. */
export interface LinkChangeRecord {
  at: number;
  source: string;
  target: string;
  kind: LinkKind;
  added: boolean;
}

export interface RunRecord {
  id: number;
  method: string;
  parameters: Record<string, unknown>;
  startedAt: number;
  finishedAt: number;
  iterations: number | null;
  residual: number | null;
  converged: boolean | null;
  /** Pages scored. */
  pages: number;
}

export type NewRun = Omit<RunRecord, 'id' | 'pages'>;

/**
 * The pages a run scores, by position: their store ids, or `length` consecutive ids from `first`
 * (a crawl's pages: no array of ids, 8 bytes a page at the crawl's end, issue 38).
 */
export type RunPages = Float64Array | { readonly first: number; readonly length: number };

/** A run's scores by position: an array, or a function giving each in turn (no array of them all). */
export type RunScores = ArrayLike<number> | ((position: number) => number);

/** The store id of a run's page at a position. */
export function runPageId(pages: RunPages): (position: number) => number {
  if (pages instanceof Float64Array) return (position) => pages[position]!;
  const first = pages.first;
  return (position) => first + position;
}

/** A run's score at a position. */
export function runScore(scores: RunScores): (position: number) => number {
  return typeof scores === 'function' ? scores : (position) => scores[position]!;
}

export interface StoreCounts {
  pages: number;
  links: number;
  /** Pages fetched with a 2xx HTML answer (or no Content-Type). */
  fetched: number;
  /** Pages whose fetch failed: an HTTP status of 400 or more, or an error (exclusions aside). */
  failed: number;
  /** Pages a rule kept the crawler from fetching (robots.txt, refused address): errors starting "excluded:". */
  excluded: number;
  /** Pages known and never fetched: no status and no error. */
  frontier: number;
  runs: number;
  /** Pages that linked to more targets than --max-links-per-page (the links past it not kept). */
  overLinkCap: number;
}

/** A page a crawl found, as first stored. */
export interface CrawlPage {
  id: number;
  url: string;
  key: string;
  host: string;
  depth: number;
  focus: boolean;
  /** 'sitemap' for a sitemap (absent: a page). */
  role?: PageRole;
}

/** What a crawl checkpoint writes, in one transaction (see crawl/checkpoint.ts). */
export interface CrawlBatch {
  /** New pages, with their OPIC state at the checkpoint. */
  pages: Array<CrawlPage & { opic: OpicPageState; windowHistory: number }>;
  /** `first`: the page's first fetch (no answer stored before it: nothing to compare it with). */
  fetches: Array<{ id: number; fetchSeq: number | null; record: FetchRecord; first?: boolean }>;
  /** Pages fetched again: their stored links are replaced by this batch's. */
  replaceLinksOf: number[];
  links: NewLink[];
  /** OPIC state of known pages that changed. */
  opic: Array<{ id: number; state: OpicPageState; windowHistory: number }>;
  /** Stored pages found by a shorter path since (--max-depth): their new depth. */
  depths?: Array<{ id: number; depth: number }>;
  /** crawl_state entries to set. */
  state: Record<string, string>;
  /** Origins whose /sitemap.xml was tried since the last batch, with the status it answered (null: no answer). */
  sitemapProbes?: SitemapProbe[];
}

/** A try of an origin's /sitemap.xml (robots.txt named no sitemap). */
export interface SitemapProbe {
  origin: string;
  status: number | null;
  probedAt: number;
}

/** A page of a stored crawl, with what resuming needs. */
export interface StoredCrawlPage extends CrawlPage {
  status: number | null;
  contentType: string | null;
  error: string | null;
  fetchSeq: number | null;
  opic: OpicPageState;
  windowHistory: number;
  etag: string | null;
  lastModified: string | null;
}

export interface StoredCrawl {
  /** Pages in id order. */
  pages: StoredCrawlPage[];
  /** Redirect links (source, target). */
  redirects: Array<[number, number]>;
  state: Record<string, string>;
  /** Origins whose /sitemap.xml the crawl has tried. */
  sitemapProbes: string[];
}

/** A stored crawl without its pages (crawlPageBatches gives them). */
export interface CrawlSummary {
  pages: number;
  /** URLs of the pages at depth 0. */
  seeds: string[];
  redirects: Array<[number, number]>;
  state: Record<string, string>;
  sitemapProbes: string[];
}

/** Who is crawling into a store: one crawler at a time writes a crawl's state. */
export interface CrawlLock {
  owner: string;
  hostname: string;
  pid: number;
  /** Last checkpoint time, milliseconds since the epoch. */
  heartbeat: number;
  /** When the crawl (session) holding it started, ms since the epoch. */
  startedAt?: number;
}

export interface ImportReport {
  pagesAdded: number;
  linksAdded: number;
  seconds: number;
}

/** A slice of a page's links: `limit` of them (all when absent) from the `offset`th. */
export interface LinkPaging {
  offset?: number;
  limit?: number;
}

export interface SearchOptions {
  mode?: 'substring' | 'prefix';
  limit?: number;
}

/** The graph as loaded from the store, with the store's page id of every graph page. */
export interface StoredGraph {
  graph: Graph;
  /** pageIds[v] = store id of graph page v (labels are the URLs). */
  pageIds: Float64Array;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Where the store is, for messages (a path or a URL without password). */
  readonly location: string;

  close(): Promise<void>;

  /** Adds a graph's pages (labels as URLs) and links in one transaction: all or nothing. */
  /** `onProgress` hears the links written so far now and then, with the share of the graph's links. */
  importGraph(graph: Graph, kind?: LinkKind, onProgress?: LoadProgress): Promise<ImportReport>;
  /** The pages and the links of the given kinds (and rel) as a graph (default: GRAPH_LINK_KINDS, every rel). */
  /** `onProgress` hears the links read so far now and then (and the share of the pages' links read, when known). */
  loadGraph(filter?: readonly LinkKind[] | LinkFilter, onProgress?: LoadProgress): Promise<StoredGraph>;

  /** Every page with its columns, in id order, a batch at a time (for exports). */
  pageBatches(batchSize?: number): AsyncIterable<PageRecord[]>;
  /** Every stored link with its kind and nofollow flag, in (source, target, kind) order, a batch at a time. */
  linkBatches(batchSize?: number): AsyncIterable<NewLink[]>;

  /** Ids of these URLs' pages, adding the missing ones (`keys` are their normalised forms; `roles` of the added ones, default 'page'). */
  addPages(urls: readonly string[], keys: readonly string[], depth?: number | null, roles?: readonly PageRole[]): Promise<number[]>;
  recordFetch(page: number, fetch: FetchRecord): Promise<void>;
  addLinks(links: readonly NewLink[]): Promise<number>;

  counts(): Promise<StoreCounts>;
  /** The crawl's other counts: redirects (3xx), other answers (2xx not HTML, 1xx, 304) and hosts (distinct). */
  crawlCounts(): Promise<{ redirects: number; other: number; hosts: number }>;
  pageByUrl(url: string): Promise<PageRecord | null>;
  pageById(id: number): Promise<PageRecord | null>;
  searchPages(text: string, options?: SearchOptions): Promise<PageRecord[]>;
  /** Pages linking to (direction 'in') or linked from ('out') pages whose URL contains `text`. */
  searchByNeighbour(text: string, direction: 'in' | 'out', options?: SearchOptions): Promise<PageRecord[]>;
  /** A page's links in or out (ordered by the other page's URL, then kind); `paging` takes a slice of them. */
  links(page: number, direction: 'in' | 'out', paging?: LinkPaging): Promise<LinkRecord[]>;
  /** How many links `links` lists (without paging). */
  linkCount(page: number, direction: 'in' | 'out'): Promise<number>;
  degrees(page: number): Promise<{ inDegree: number; outDegree: number }>;

  /** Stores a run and its scores (the score at position v for the page at position v); returns the run id. */
  saveRun(run: NewRun, pages: RunPages, scores: RunScores): Promise<number>;
  runs(): Promise<RunRecord[]>;
  /** The latest run of a method, or null. */
  latestRun(method: string): Promise<RunRecord | null>;
  /** Every stored score of a page: the run's method and id with the value. */
  scoresOf(page: number): Promise<Array<{ run: number; method: string; value: number }>>;
  topPages(run: number, limit: number): Promise<Array<{ page: PageRecord; value: number }>>;
  /** A run's scores lined up with pageIds (as loadGraph gives them); NaN for a page the run has no score of. */
  runScores(run: number, pageIds: Float64Array): Promise<Float64Array>;

  /** Deletes a run and its scores; false when there is no such run. */
  deleteRun(run: number): Promise<boolean>;

  /** Deletes every page, link, run and score (the paper's "delete the data and start again"). */
  reset(): Promise<void>;

  /** Writes a crawl checkpoint: all of it or, if anything fails, none of it. */
  writeCrawlBatch(batch: CrawlBatch): Promise<void>;
  /** Everything a crawl needs to resume, pages included (small stores, tests; a crawl streams them). */
  loadCrawl(): Promise<StoredCrawl>;
  /** What resuming a crawl needs before its pages. */
  crawlSummary(): Promise<CrawlSummary>;
  /** The crawl's pages in id order, `batchSize` at a time: a resume holds one batch of them as objects. */
  crawlPageBatches(batchSize?: number): AsyncIterable<StoredCrawlPage[]>;
  /**
   * The out-lists of the links of `kinds`, in source order, packed (out-lists.ts): what a resumed
   * crawl's live PageRank needs, without the URLs or a graph. Parallel links are one, self-links left out.
   */
  crawlOutLists(kinds: readonly LinkKind[]): AsyncIterable<OutListBatch>;
  crawlState(): Promise<Record<string, string>>;
  /**
   * Takes the crawl lock when nobody holds it or `canTake(holder)` says the holder is gone;
   * returns null on success, else the lock that is held.
   */
  takeCrawlLock(lock: CrawlLock, canTake: (holder: CrawlLock) => boolean): Promise<CrawlLock | null>;
  releaseCrawlLock(owner: string): Promise<void>;
  /** The current OPIC importance of the best pages of the crawl in the store, or null if none is. */
  liveOpicTop(limit: number): Promise<Array<{ page: PageRecord; value: number }> | null>;

  /** Pages whose answer is in these classes or exact statuses, in id order: `limit` of them from `offset`, and how many there are. */
  pagesByStatus(classes: readonly StatusClass[], statuses: readonly number[], paging: { offset: number; limit: number }): Promise<{ pages: PageRecord[]; total: number }>;
  /** The instances of a shared crawl (PostgreSQL) that checkpointed in the last `withinMs`; SQLite: none. */
  liveSharedInstances(withinMs: number): Promise<Array<{ hostname: string; pid: number; startedAt: number }>>;
  /** Visits with fetchedAt in [from, to) (every page's, or one page's), in time order. */
  visits(from: number, to: number, page?: number): Promise<VisitRecord[]>;
  /** The last visit of each page before `time`, for the pages visited in [time, to). */
  visitsBefore(time: number, to: number): Promise<VisitRecord[]>;
  /** Links added or removed by re-reads in [from, to), in time order, at most `limit`. */
  linkChanges(from: number, to: number, limit: number): Promise<LinkChangeRecord[]>;
  /** Per page: visits and visits that found a change, over the whole history (for change rates). */
  visitCounts(pages?: readonly number[]): Promise<Array<{ page: number; visits: number; changes: number; first: number; last: number }>>;
}

/** crawl_state keys. */
/** Links read so far while a store's graph loads; `share` in [0, 1] when the store can tell. */
export type LoadProgress = (links: number, share: number | null) => void;

export const CRAWL_STATE = {
  opic: 'opic',
  settings: 'settings',
  progress: 'progress',
  lock: 'lock',
  recentRates: 'recent_rates',
  /** Adaptive OPIC's Interpolation window T (G-time). */
  window: 'opic_window',
  /**
   * '1' once window_history holds Adaptive OPIC's rates R = H / T (checkpoints since 2026-11-28);
   * before, it held H relative to the window of its checkpoint, divided by opic_window on resume.
   */
  windowRates: 'opic_window_rates',
  /** The live PageRank's best pages at the checkpoint (crawl/live-state.ts). */
  liveRank: 'live_rank',
  /** The crawl's sessions: a JSON array of { started, finished } times (finished null while one runs). */
  sessions: 'sessions',
  /**
   * Changed by every write outside a crawl (import, reset, a run saved or deleted), in its
   * transaction: with the crawl's progress, what tells a server that another process changed the store.
   */
  dataVersion: 'data_version',
} as const;

/** A value for CRAWL_STATE.dataVersion no earlier write has used. */
export function newDataVersion(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** OPIC's global state as crawl_state stores it. */
export function parseOpicState(text: string | undefined): OpicGlobalState | null {
  if (text === undefined) return null;
  return JSON.parse(text) as OpicGlobalState;
}

/** Lines up (page, value) rows with pageIds: NaN where a page has no row. */
export function alignScores(rows: Iterable<{ page: number; value: number }>, pageIds: Float64Array): Float64Array {
  const index = new Map<number, number>();
  for (let v = 0; v < pageIds.length; v++) index.set(pageIds[v]!, v);
  const scores = new Float64Array(pageIds.length).fill(Number.NaN);
  for (const { page, value } of rows) {
    const v = index.get(Number(page));
    if (v !== undefined) scores[v] = value;
  }
  return scores;
}

/** A store that cannot be opened, reached or used, or that is not ours: names where. */
export class StoreError extends WgaError {
  constructor(location: string, problem: string) {
    super(`${location}: ${problem}`, ExitCode.input);
  }
}
