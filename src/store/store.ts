/**
 * The store: pages, links, analysis runs and their scores in a real
 * database, as the Web Graph Analyzer paper keeps the web graph in a DBMS
 * (its Section 4.2: tables "pages" and "links", indexed, plus auxiliary
 * tables). Two implementations behind this one interface: SQLite (a file,
 * embedded, the default) and PostgreSQL (a server, for several crawlers).
 * Every value from outside reaches SQL as a parameter, never in the text.
 */
import type { Graph } from '../graph/graph.js';

export type LinkKind = 'anchor' | 'redirect' | 'canonical';
export const LINK_KINDS: readonly LinkKind[] = ['anchor', 'redirect', 'canonical'];

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
}

export interface LinkRecord {
  url: string;
  kind: LinkKind;
  nofollow: boolean;
}

export interface NewLink {
  source: number;
  target: number;
  kind: LinkKind;
  nofollow: boolean;
}

export interface FetchRecord {
  status: number | null;
  contentType: string | null;
  fetchedAt: number;
  size: number | null;
  title: string | null;
  error: string | null;
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

export interface StoreCounts {
  pages: number;
  links: number;
  /** Pages fetched with a 2xx answer. */
  fetched: number;
  /** Pages whose fetch failed (error or status >= 400). */
  failed: number;
  runs: number;
}

export interface ImportReport {
  pagesAdded: number;
  linksAdded: number;
  seconds: number;
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
  importGraph(graph: Graph, kind?: LinkKind): Promise<ImportReport>;
  /** The pages and the links of the given kinds as a graph (default: anchors and redirects). */
  loadGraph(kinds?: readonly LinkKind[]): Promise<StoredGraph>;

  /** Ids of these URLs' pages, adding the missing ones (`keys` are their normalised forms). */
  addPages(urls: readonly string[], keys: readonly string[], depth?: number | null): Promise<number[]>;
  recordFetch(page: number, fetch: FetchRecord): Promise<void>;
  addLinks(links: readonly NewLink[]): Promise<number>;

  counts(): Promise<StoreCounts>;
  pageByUrl(url: string): Promise<PageRecord | null>;
  pageById(id: number): Promise<PageRecord | null>;
  searchPages(text: string, options?: SearchOptions): Promise<PageRecord[]>;
  /** Pages linking to (direction 'in') or linked from ('out') pages whose URL contains `text`. */
  searchByNeighbour(text: string, direction: 'in' | 'out', options?: SearchOptions): Promise<PageRecord[]>;
  links(page: number, direction: 'in' | 'out'): Promise<LinkRecord[]>;
  degrees(page: number): Promise<{ inDegree: number; outDegree: number }>;

  /** Stores a run and its scores (scores[v] for store page pageIds[v]); returns the run id. */
  saveRun(run: NewRun, pageIds: Float64Array, scores: ArrayLike<number>): Promise<number>;
  runs(): Promise<RunRecord[]>;
  /** The latest run of a method, or null. */
  latestRun(method: string): Promise<RunRecord | null>;
  /** Every stored score of a page: the run's method and id with the value. */
  scoresOf(page: number): Promise<Array<{ run: number; method: string; value: number }>>;
  topPages(run: number, limit: number): Promise<Array<{ page: PageRecord; value: number }>>;

  /** Deletes every page, link, run and score (the paper's "delete the data and start again"). */
  reset(): Promise<void>;
}
