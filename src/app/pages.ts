/**
 * Questions about a store's pages and runs (the Web Graph Analyzer paper's GUI queries, its
 * Section 4.5): a page's detail with its links in and out, search by URL or by a neighbour's URL,
 * the best pages of a run, the runs themselves (list, delete, export), and two runs compared.
 */
import { kendallTau, meanRelativeError, spearman, topOverlap } from '../analysis/compare.js';
import { LIVE_STATE_TOP } from '../crawl/live-state.js';
import { ExitCode, InputFormatError, OptionError, WgaError } from '../errors.js';
import { STATUS_CLASSES, type StatusClass } from '../store/records.js';
import { liveTop } from './live-rank.js';
import { groupNodes } from '../graph/hosts.js';
import { CRAWL_STATE, type LinkRecord, type PageAudit, type PageRole, type RenderOutcome, type RunRecord, type Store } from '../store/store.js';
import { changeRate } from './changes.js';
import { refuseWhileCrawling } from './crawl-guard.js';

/** A page named by the user that the store does not have (HTTP: 404). */
export class PageNotFoundError extends WgaError {
  constructor(location: string, readonly url: string) {
    super(`${location}: no page '${printable(url)}' in the store`, ExitCode.usage);
  }
}

/** A run id the store does not have (HTTP: 404). */
export class RunNotFoundError extends WgaError {
  constructor(location: string, readonly run: number | string, hint = '') {
    super(`${location}: no stored ${typeof run === 'number' ? `run ${run}` : `'${printable(run)}' run`}${hint}`, ExitCode.usage);
  }
}

/** Control characters of crawled strings in messages would rewrite a terminal. */
function printable(text: string, max = 100): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/** The `page --json` contract (documented in the README). */
export interface PageJson {
  url: string;
  key: string;
  host: string;
  status: number | null;
  contentType: string | null;
  fetchedAt: string | null;
  title: string | null;
  inDegree: number;
  outDegree: number;
  /** Links as text: the URL, then "(redirect)", "(canonical)", "nofollow" when so. */
  inLinks: string[];
  outLinks: string[];
  /** Every stored score of the page: run id, method and value. */
  scores: Array<{ run: number; method: string; value: number }>;
  /** The store's page id. */
  id: number;
  /** Clicks from the crawl's seeds when first found, null for imported pages. */
  depth: number | null;
  size: number | null;
  /** Why the last fetch failed, if it did. */
  error: string | null;
  /** The same links as records (paged like inLinks and outLinks). */
  in: LinkRecord[];
  out: LinkRecord[];
  /** Which links are listed: [offset, offset + limit) of inTotal and outTotal. */
  links: { offset: number; limit: number | null; inTotal: number; outTotal: number };
  /** 'sitemap' for a sitemap the crawler read, else 'page'. */
  role: PageRole;
  /** Bytes of the last body on the wire (size is the decoded body's). */
  wireSize: number | null;
  etag: string | null;
  lastModified: string | null;
  /** Digest of the last 2xx body ('xxh64:HEX16'). */
  contentHash: string | null;
  /** Whether it was rendered in a browser (--render): null, 'settled', 'unsettled' or 'failed'. */
  rendered: RenderOutcome | null;
  /** Links to targets past --max-links-per-page that were not kept (0: none). */
  linksDropped: number;
  /** What the site audit reads of its last answer (docs/audit.md); null before store version 7. */
  audit: PageAudit | null;
  /** The page's visits, latest first (at most 20), and its estimated changes per day (null before two visits). */
  visits: Array<{ fetchedAt: string; status: number | null; changed: boolean | null; notModified: boolean; linksAdded: number; linksRemoved: number }>;
  changeRate: number | null;
}

/** A link as a line: the URL, then its kind, rel tokens and hreflang or lastmod unless it is a plain anchor. */
export function linkText(l: LinkRecord): string {
  const notes = [
    ...(l.kind === 'anchor' ? [] : [l.kind]),
    ...l.rel,
    ...(l.hreflang === null ? [] : [`hreflang=${l.hreflang}`]),
    ...(l.lastmod === null ? [] : [`lastmod=${new Date(l.lastmod).toISOString().slice(0, 10)}`]),
  ];
  return notes.length === 0 ? l.url : `${l.url} (${notes.join(', ')})`;
}

/** A page's detail; links paged by offset and limit (null: all). */
export async function pageDetail(store: Store, url: string, paging: { offset?: number; limit?: number | null } = {}): Promise<PageJson> {
  const page = await store.pageByUrl(url);
  if (page === null) throw new PageNotFoundError(store.location, url);
  const offset = paging.offset ?? 0;
  const limit = paging.limit ?? null;
  // Only the slice asked for is read: a hub of cnr-2000 has 18,000 links in.
  const slice = limit === null ? { offset } : { offset, limit };
  const [inPage, outPage, inTotal, outTotal, degrees, scores, visits, counted] = await Promise.all([
    store.links(page.id, 'in', slice),
    store.links(page.id, 'out', slice),
    store.linkCount(page.id, 'in'),
    store.linkCount(page.id, 'out'),
    store.degrees(page.id),
    store.scoresOf(page.id),
    store.visits(0, Number.MAX_SAFE_INTEGER, page.id),
    store.visitCounts([page.id]),
  ]);
  const history = counted[0];
  return {
    url: page.url,
    key: page.key,
    host: page.host,
    status: page.status,
    contentType: page.contentType,
    fetchedAt: page.fetchedAt === null ? null : new Date(page.fetchedAt).toISOString(),
    title: page.title,
    inDegree: degrees.inDegree,
    outDegree: degrees.outDegree,
    inLinks: inPage.map(linkText),
    outLinks: outPage.map(linkText),
    scores: scores.map((s) => ({ run: s.run, method: s.method, value: s.value })),
    id: page.id,
    depth: page.depth,
    size: page.size,
    error: page.error,
    in: inPage,
    out: outPage,
    links: { offset, limit, inTotal, outTotal },
    role: page.role,
    wireSize: page.wireSize,
    etag: page.etag,
    lastModified: page.lastModified,
    contentHash: page.contentHash,
    rendered: page.rendered,
    linksDropped: page.linksDropped,
    audit: page.audit,
    visits: visits
      .slice(-20)
      .reverse()
      .map((v) => ({ fetchedAt: new Date(v.fetchedAt).toISOString(), status: v.status, changed: v.changed, notModified: v.notModified, linksAdded: v.linksAdded, linksRemoved: v.linksRemoved })),
    changeRate: history === undefined ? null : changeRate(history.visits, history.changes, history.last - history.first),
  };
}

export const SEARCH_MODES = ['substring', 'prefix'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export const SEARCH_BY = ['url', 'linksTo', 'linkedFrom'] as const;
export type SearchBy = (typeof SEARCH_BY)[number];

/** The `search --json` contract. */
export interface SearchJson {
  query: string;
  mode: SearchMode;
  pages: Array<{ id: number; url: string; status: number | null; title: string | null }>;
}

/** Pages whose URL matches `text`, or that link to (linksTo) or are linked from (linkedFrom) such pages. */
export async function search(store: Store, text: string, request: { mode: SearchMode; by: SearchBy; limit: number }): Promise<SearchJson> {
  const { mode, limit } = request;
  const pages =
    request.by === 'linksTo'
      ? await store.searchByNeighbour(text, 'in', { mode, limit })
      : request.by === 'linkedFrom'
        ? await store.searchByNeighbour(text, 'out', { mode, limit })
        : await store.searchPages(text, { mode, limit });
  return { query: text, mode, pages: pages.map((p) => ({ id: p.id, url: p.url, status: p.status, title: p.title })) };
}

/** The `top --json` contract: a run's best pages, or the live OPIC estimates of a crawl. */
export type TopJson =
  | { run: RunRecord; top: Array<{ rank: number; url: string; score: number }> }
  | { run: null; live: true; top: Array<{ rank: number; url: string; score: number }> };

/**
 * The best pages of a run: run `run`, else the latest run of `method`. For OPIC without a run id,
 * the live estimates of the crawl in the store (current to its last checkpoint) when there is one.
 */
export async function topPages(store: Store, request: { method: string; run?: number | undefined; k: number }): Promise<TopJson> {
  if (request.method === 'opic' && request.run === undefined) {
    const live = await store.liveOpicTop(request.k);
    if (live !== null) return { run: null, live: true, top: live.map((t, i) => ({ rank: i + 1, url: t.page.url, score: t.value })) };
  }
  // The live PageRank of a running crawl: its last checkpoint's ranking (app/live-rank.ts); after the crawl, its 'live' run.
  if (request.method === 'live' && request.run === undefined && (await store.crawlState())[CRAWL_STATE.liveRank] !== undefined) {
    const live = await liveTop(store, { limit: Math.min(request.k, LIVE_STATE_TOP) });
    if (live.source === 'checkpoint') return { run: null, live: true, top: live.top.map((t) => ({ rank: t.rank, url: t.url, score: t.score })) };
  }
  const run = request.run === undefined ? await store.latestRun(request.method) : await findRun(store, request.run);
  if (run === null) {
    throw new RunNotFoundError(
      store.location,
      request.run ?? request.method,
      `; save one with: wga rank --db ${store.location} --method ${request.method} --save`,
    );
  }
  const top = await store.topPages(run.id, request.k);
  return { run, top: top.map((t, i) => ({ rank: i + 1, url: t.page.url, score: t.value })) };
}

/** Methods whose scores are a distribution over the pages (they sum to 1): a site's score is the sum of its pages'. */
const ADDITIVE_METHODS = new Set(['pagerank', 'montecarlo', 'opic', 'traffic', 'hotness', 'live']);

/** The `store top --level host|domain --json` contract. */
export interface TopSitesJson {
  run: RunRecord;
  level: 'host' | 'domain';
  /** 'sum': the site's pages' scores added (methods whose scores sum to 1); 'max': its best page's score. */
  aggregate: 'sum' | 'max';
  sites: number;
  top: Array<{ rank: number; name: string; score: number; pages: number; bestPage: string }>;
}

/**
 * The best hosts or domains by a stored run of pages: each site's pages' scores added for a
 * distribution (PageRank: the probability of being on the site), or its best page's score for the
 * others (harmonic centrality, HITS, coreness), with that best page.
 */
export async function topSites(
  store: Store,
  request: { method: string; run?: number | undefined; k: number; level: 'host' | 'domain'; reversedNames?: boolean },
): Promise<TopSitesJson> {
  const run = request.run === undefined ? await store.latestRun(request.method) : await findRun(store, request.run);
  if (run === null) {
    throw new RunNotFoundError(store.location, request.run ?? request.method, `; save one with: wga rank --db ${store.location} --method ${request.method} --save`);
  }
  const { graph, pageIds } = await store.loadGraph();
  const scores = await store.runScores(run.id, pageIds);
  const groups = groupNodes(graph, request.level, { source: store.location, ...(request.reversedNames === true ? { reversedNames: true } : {}) });
  const aggregate = ADDITIVE_METHODS.has(run.method) ? 'sum' : 'max';
  const value = new Float64Array(groups.names.length).fill(aggregate === 'sum' ? 0 : Number.NaN);
  const best = new Int32Array(groups.names.length).fill(-1);
  for (let v = 0; v < graph.nodeCount; v++) {
    const x = scores[v]!;
    if (Number.isNaN(x)) continue;
    const g = groups.groupOf[v]!;
    if (aggregate === 'sum') value[g]! += x;
    if (best[g] === -1 || x > scores[best[g]!]!) {
      best[g] = v;
      if (aggregate === 'max') value[g] = x;
    }
  }
  const order = Array.from({ length: value.length }, (_, g) => g)
    .filter((g) => best[g] !== -1)
    .sort((a, b) => value[b]! - value[a]! || a - b)
    .slice(0, request.k);
  return {
    run,
    level: request.level,
    aggregate,
    sites: groups.names.length,
    top: order.map((g, i) => ({ rank: i + 1, name: groups.names[g]!, score: value[g]!, pages: groups.members[g]!, bestPage: graph.labels.label(best[g]!) })),
  };
}

async function findRun(store: Store, id: number): Promise<RunRecord | null> {
  return (await store.runs()).find((r) => r.id === id) ?? null;
}

/** The `runs --json` contract: the stored runs, and whether live estimates exist (a crawl's OPIC). */
export interface RunsJson {
  runs: RunRecord[];
  live: Array<{ method: string; available: boolean }>;
}

export async function listRuns(store: Store): Promise<RunsJson> {
  const [runs, liveOpic] = await Promise.all([store.runs(), store.liveOpicTop(1)]);
  return { runs, live: [{ method: 'opic', available: liveOpic !== null }] };
}

export async function getRun(store: Store, id: number): Promise<RunRecord> {
  const run = await findRun(store, id);
  if (run === null) throw new RunNotFoundError(store.location, id);
  return run;
}

export async function deleteRun(store: Store, id: number, options: { force?: boolean } = {}): Promise<{ deleted: RunRecord }> {
  await refuseWhileCrawling(store, 'deleting a run', options);
  const run = await getRun(store, id);
  await store.deleteRun(id);
  return { deleted: run };
}

/** A run's scores by page URL, best first. */
export async function runScoresByUrl(store: Store, id: number): Promise<{ run: RunRecord; scores: Array<{ url: string; value: number }> }> {
  const run = await getRun(store, id);
  const rows = await store.topPages(id, Math.max(run.pages, 1));
  return { run, scores: rows.map((r) => ({ url: r.page.url, value: r.value })) };
}

/** A run's scores as a score file ("label<TAB>score" lines after '#' comments), as `rank --out` writes them. */
export async function runScoresTsv(store: Store, id: number): Promise<string> {
  const { run, scores } = await runScoresByUrl(store, id);
  const comment = `run ${run.id}: ${run.method} of ${store.location}, ${new Date(run.finishedAt).toISOString()}`.replace(/\n/g, ' ');
  const column = run.method === 'levels' ? 'level' : 'score';
  // Labels with a tab or a line break would break the file's lines: such URLs are not stored by
  // the crawler (normalised), but imported labels might carry them.
  // eslint-disable-next-line no-control-regex
  const lines = scores.map((s) => `${s.url.replace(/[\t\n\r]/g, ' ')}\t${s.value}`);
  return `# ${comment}\n# label\t${column}\n${lines.join('\n')}${lines.length > 0 ? '\n' : ''}`;
}

/** The `compare --json` contract (documented in the README). */
export interface CompareJson {
  reference: string;
  other: string;
  /** Pages in both (the comparison is over these). */
  pages: number;
  onlyInReference: number;
  onlyInOther: number;
  kendallTau: number;
  spearman: number;
  /** Share of the reference's top k found in the other's top k, for k = 10, 100, 1000. */
  topOverlap: Record<'10' | '100' | '1000', number>;
  /** The OPIC paper's mean of 100 |other - reference| / reference, in percent. */
  meanRelativeError: { all: number; top10Percent: number };
}

/** Compares two rankings given as label -> score maps (over the labels they share). */
export function compareScores(reference: Map<string, number>, other: Map<string, number>, names: { reference: string; other: string }): CompareJson {
  const a: number[] = [];
  const b: number[] = [];
  for (const [label, value] of reference) {
    const match = other.get(label);
    if (match !== undefined) {
      a.push(value);
      b.push(match);
    }
  }
  if (a.length < 2) {
    throw new InputFormatError(names.other, undefined, `shares ${a.length} page label(s) with ${names.reference}; nothing to compare`);
  }
  const x = Float64Array.from(a);
  const y = Float64Array.from(b);
  return {
    reference: names.reference,
    other: names.other,
    pages: x.length,
    onlyInReference: reference.size - x.length,
    onlyInOther: other.size - x.length,
    kendallTau: kendallTau(x, y),
    spearman: spearman(x, y),
    topOverlap: { '10': topOverlap(x, y, 10), '100': topOverlap(x, y, 100), '1000': topOverlap(x, y, 1000) },
    meanRelativeError: meanRelativeError(y, x),
  };
}

/** Compares two stored runs (`compare --db STORE A B`). */
export async function compareRuns(store: Store, referenceId: number, otherId: number): Promise<CompareJson> {
  const [reference, other] = await Promise.all([runScoresByUrl(store, referenceId), runScoresByUrl(store, otherId)]);
  const toMap = (scores: Array<{ url: string; value: number }>): Map<string, number> => new Map(scores.map((s) => [s.url, s.value]));
  return compareScores(toMap(reference.scores), toMap(other.scores), { reference: `run ${referenceId}`, other: `run ${otherId}` });
}

/** The `pages --json` contract: pages by answer, each with the pages linking to it (`--linkers`). */
export interface PagesJson {
  store: string;
  status: string[];
  total: number;
  offset: number;
  pages: Array<{ id: number; url: string; status: number | null; error: string | null; linkers?: { total: number; urls: string[] } }>;
}

/**
 * Pages by the class of their answer (2xx, 3xx, 4xx, 5xx, failed, excluded, frontier) or exact status
 * (404), comma-separated; with `linkers`, each with the pages linking to it (at most `linkersLimit`, and
 * their number): the broken pages of a site and where they are linked from.
 */
export async function pagesByStatus(
  store: Store,
  request: { status: string; linkers?: boolean; limit?: number; offset?: number; linkersLimit?: number },
): Promise<PagesJson> {
  const tokens = request.status.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
  if (tokens.length === 0) throw new OptionError('--status', 'expected answer classes or statuses, e.g. 4xx,5xx,failed or 404');
  const classes: StatusClass[] = [];
  const statuses: number[] = [];
  for (const token of tokens) {
    if (token in STATUS_CLASSES) classes.push(token as StatusClass);
    else if (/^[1-5]\d\d$/.test(token)) statuses.push(Number(token));
    else throw new OptionError('--status', `'${printable(token, 40)}' is not ${Object.keys(STATUS_CLASSES).join(', ')} or an HTTP status (e.g. 404)`);
  }
  const offset = request.offset ?? 0;
  const limit = request.limit ?? 100;
  const { pages, total } = await store.pagesByStatus(classes, statuses, { offset, limit });
  const rows: PagesJson['pages'] = [];
  for (const page of pages) {
    const row: PagesJson['pages'][number] = { id: page.id, url: page.url, status: page.status, error: page.error };
    if (request.linkers === true) {
      const [links, count] = await Promise.all([store.links(page.id, 'in', { limit: request.linkersLimit ?? 20 }), store.linkCount(page.id, 'in')]);
      row.linkers = { total: count, urls: links.map((l) => l.url) };
    }
    rows.push(row);
  }
  return { store: store.location, status: tokens, total, offset, pages: rows };
}
