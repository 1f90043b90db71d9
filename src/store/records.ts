/** Conversions shared by the store implementations: labels to keys, rows to records. */
import { hostOf, resolveUrl } from '../crawl/url.js';
import { InputFormatError } from '../errors.js';
import { LINK_KIND_NAMES, PAGE_ROLE_CODES, RENDER_CODES } from './schema.js';
import { type FetchRecord, type LinkKind, type PageAudit, type LinkRecord, type PageRecord, type PageRole, PAGE_ROLES, RENDER_OUTCOMES, type RenderOutcome, type RunRecord, type StoredCrawlPage, type VisitRecord, relTokens } from './store.js';

/** Refuses URLs no database text column can hold (PostgreSQL rejects NUL characters). */
export function checkStorableUrl(url: string, where: string): void {
  if (url.includes('\u0000')) {
    throw new InputFormatError(where, undefined, `the URL '${url.replace(/\u0000/g, '\\0').slice(0, 100)}' contains a NUL character`);
  }
}

/** The stored key and host of a page label: the normalised URL when it is one, else the label itself. */
export function keyOfLabel(label: string): { key: string; host: string } {
  // Numeric or other non-URL labels: no parse (a failed URL parse throws, which is slow).
  if (!label.includes(':')) return { key: label, host: '' };
  const resolved = resolveUrl(label);
  if (resolved.ok) return { key: resolved.key, host: resolved.url.hostname };
  return { key: label, host: hostOf(label) };
}

export interface PageRow {
  id: number | string;
  url: string;
  url_key: string;
  host: string;
  status: number | null;
  content_type: string | null;
  fetched_at: number | null;
  size: number | string | null;
  title: string | null;
  fetch_error: string | null;
  depth: number | null;
  wire_size: number | string | null;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  role: number;
  rendered: number | null;
  links_dropped: number | null;
  description?: string | null;
  h1?: string | null;
  h1_count?: number | null;
  robots?: number | null;
  words?: number | null;
  simhash?: string | null;
  response_ms?: number | null;
}

/** The audit columns (schema version 7), in the order auditValues gives them. */
export const AUDIT_COLUMNS = ['description', 'h1', 'h1_count', 'robots', 'words', 'simhash', 'response_ms'] as const;

/** The stored values of a record's audit fields, in AUDIT_COLUMNS order (nulls without them). */
export function auditValues(audit: PageAudit | null | undefined): [string | null, string | null, number | null, number | null, number | null, string | null, number | null] {
  if (audit === null || audit === undefined) return [null, null, null, null, null, null, null];
  return [audit.description, audit.h1, audit.h1Count, audit.robots, audit.words, audit.simhash, audit.responseMs === null ? null : Math.round(audit.responseMs * 10) / 10];
}

function auditOfRow(row: PageRow): PageAudit | null {
  if ((row.h1_count ?? null) === null && (row.response_ms ?? null) === null && (row.robots ?? null) === null) return null;
  const n = (v: number | string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    description: row.description ?? null, h1: row.h1 ?? null, h1Count: n(row.h1_count), robots: n(row.robots), words: n(row.words), simhash: row.simhash ?? null, responseMs: n(row.response_ms),
  };
}

export const PAGE_COLUMNS = 'id, url, url_key, host, status, content_type, fetched_at, size, title, fetch_error, depth, wire_size, etag, last_modified, content_hash, role, rendered, links_dropped, description, h1, h1_count, robots, words, simhash, response_ms';

export function roleOf(code: number): PageRole {
  return PAGE_ROLES[Number(code)] ?? 'page';
}

/** The stored count of links past --max-links-per-page: null when none were dropped (most pages). */
export function droppedCode(dropped: number | undefined): number | null {
  return dropped === undefined || dropped === 0 ? null : dropped;
}

/** The stored code of a render outcome (schema.ts RENDER_CODES), null when not rendered. */
export function renderCode(outcome: RenderOutcome | null | undefined): number | null {
  return outcome === null || outcome === undefined ? null : RENDER_CODES[outcome];
}

export function roleCode(role: PageRole | undefined): number {
  return PAGE_ROLE_CODES[role ?? 'page'];
}

export function pageFromRow(row: PageRow): PageRecord {
  return {
    id: Number(row.id),
    url: row.url,
    key: row.url_key,
    host: row.host,
    status: row.status,
    contentType: row.content_type,
    fetchedAt: row.fetched_at === null ? null : Number(row.fetched_at),
    size: row.size === null ? null : Number(row.size),
    title: row.title,
    error: row.fetch_error,
    depth: row.depth,
    wireSize: row.wire_size === null ? null : Number(row.wire_size),
    etag: row.etag,
    lastModified: row.last_modified,
    contentHash: row.content_hash,
    role: roleOf(row.role),
    rendered: row.rendered === null || row.rendered === undefined ? null : (RENDER_OUTCOMES[Number(row.rendered) - 1] ?? null),
    linksDropped: row.links_dropped === null || row.links_dropped === undefined ? 0 : Number(row.links_dropped),
    audit: auditOfRow(row),
  };
}

export interface LinkRow {
  url: string;
  kind: number;
  nofollow: number | boolean;
  rel: number;
  hreflang: string | null;
  lastmod: number | null;
}

/** The link columns linkFromRow reads, with `l` the links table's alias. */
export const LINK_ROW_COLUMNS = 'l.kind AS kind, l.nofollow AS nofollow, l.rel AS rel, l.hreflang AS hreflang, l.lastmod AS lastmod';

export function linkFromRow(row: LinkRow): LinkRecord {
  return {
    url: row.url,
    kind: LINK_KIND_NAMES[row.kind] ?? 'anchor',
    nofollow: row.nofollow === true || row.nofollow === 1,
    rel: relTokens(Number(row.rel)),
    hreflang: row.hreflang,
    lastmod: row.lastmod === null ? null : Number(row.lastmod),
  };
}

export interface VisitRow {
  page: number | string;
  fetched_at: number;
  status: number | null;
  fetch_error: string | null;
  content_hash: string | null;
  changed: number | boolean | null;
  not_modified: number | boolean;
  links_added: number;
  links_removed: number;
}

export const VISIT_COLUMNS = 'page, fetched_at, status, fetch_error, content_hash, changed, not_modified, links_added, links_removed';

export function visitFromRow(row: VisitRow): VisitRecord {
  return {
    page: Number(row.page),
    fetchedAt: Number(row.fetched_at),
    status: row.status,
    error: row.fetch_error,
    contentHash: row.content_hash,
    changed: row.changed === null ? null : row.changed === true || row.changed === 1,
    notModified: row.not_modified === true || row.not_modified === 1,
    linksAdded: Number(row.links_added),
    linksRemoved: Number(row.links_removed),
  };
}

/** A link's identity in a page's link set: target and kind. */
export const linkSetKey = (target: number, kind: number): string => `${target} ${kind}`;

/** What changed between a page's links before and after a re-read: the (target, kind) pairs added and removed. */
export function diffLinkSets(before: ReadonlyArray<[number, number]>, after: ReadonlyArray<[number, number]>): { added: Array<[number, number]>; removed: Array<[number, number]> } {
  const old = new Set(before.map(([t, k]) => linkSetKey(t, k)));
  const now = new Set(after.map(([t, k]) => linkSetKey(t, k)));
  return {
    added: after.filter(([t, k]) => !old.has(linkSetKey(t, k))),
    removed: before.filter(([t, k]) => !now.has(linkSetKey(t, k))),
  };
}

export interface RunRow {
  id: number | string;
  method: string;
  parameters: string | Record<string, unknown>;
  started_at: number;
  finished_at: number;
  iterations: number | null;
  residual: number | null;
  converged: number | boolean | null;
  pages: number;
}

export function runFromRow(row: RunRow): RunRecord {
  return {
    id: Number(row.id),
    method: row.method,
    parameters: typeof row.parameters === 'string' ? (JSON.parse(row.parameters) as Record<string, unknown>) : row.parameters,
    startedAt: Number(row.started_at),
    finishedAt: Number(row.finished_at),
    iterations: row.iterations === null ? null : Number(row.iterations),
    residual: row.residual === null ? null : Number(row.residual),
    converged: row.converged === null ? null : row.converged === true || row.converged === 1,
    pages: Number(row.pages),
  };
}

export function kindCodes(kinds: readonly LinkKind[]): number[] {
  return kinds.map((kind) => LINK_KIND_NAMES.indexOf(kind));
}

/** Columns a crawl reads back to resume, in this order (see crawlPageFromRow). */
export const CRAWL_PAGE_COLUMNS =
  'id, url, url_key, host, depth, focus, status, content_type, fetch_error, fetch_seq, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role, etag, last_modified';

export type CrawlPageRow = [
  number | string, string, string, string, number | null, number | boolean, number | null, string | null, string | null, number | string | null,
  number, number, number, number, number, number, number, number, number, string | null, string | null,
];

export function crawlPageFromRow(row: CrawlPageRow): StoredCrawlPage {
  const [id, url, key, host, depth, focus, status, contentType, error, fetchSeq, cash, history, lastRead, reads, seenAll, seenUnread, seenFocus, windowHistory, role, etag, lastModified] = row;
  const isFocus = focus === true || focus === 1;
  return {
    id: Number(id),
    url,
    key,
    host,
    depth: depth ?? 0,
    focus: isFocus,
    status,
    contentType,
    error,
    fetchSeq: fetchSeq === null ? null : Number(fetchSeq),
    opic: { cash, history, lastRead, reads: Number(reads), seenAll, seenUnread, seenFocus, focus: isFocus },
    windowHistory,
    role: roleOf(role),
    etag,
    lastModified,
  };
}

/**
 * OPIC's importance estimate (H + C) / (G + 1) computed in SQL from the raw
 * columns a crawl checkpoints: C is the stored cash plus what the virtual
 * page's pools owe the page since it last settled (analysis/opic.ts, cashOf).
 * `p(name)` gives the placeholder of the global values all, unread, focused, clock.
 */
export function liveOpicExpression(p: (name: 'all' | 'unread' | 'focused' | 'clock') => string): string {
  return `(history + cash + (${p('all')} - seen_all) + CASE WHEN reads = 0 THEN ${p('unread')} - seen_unread ELSE 0 END
    + CASE WHEN focus THEN ${p('focused')} - seen_focus ELSE 0 END) / (${p('clock')} + 1)`;
}

/** Counts of a store's pages by what their fetch gave (see StoreCounts). */
export const COUNT_CONDITIONS = {
  fetched: "status >= 200 AND status < 300 AND fetch_error IS NULL AND (content_type IS NULL OR content_type IN ('text/html', 'application/xhtml+xml'))",
  failed: "status >= 400 OR (fetch_error IS NOT NULL AND fetch_error NOT LIKE 'excluded:%')",
  excluded: "status IS NULL AND fetch_error LIKE 'excluded:%'",
  frontier: 'status IS NULL AND fetch_error IS NULL',
  redirects: 'status >= 300 AND status < 400 AND fetch_error IS NULL',
  /** 2xx not HTML, 1xx, 304: what a crawl counts as other. */
  other: "fetch_error IS NULL AND ((status >= 200 AND status < 300 AND content_type IS NOT NULL AND content_type NOT IN ('text/html', 'application/xhtml+xml')) OR status < 200 OR status = 304)",
} as const;

/** What a page's row held before a fetch is recorded over it. */
export interface PriorAnswer {
  status: number | null;
  fetch_error: string | null;
  content_hash: string | null;
}

/**
 * A fetch as a visit: a 304 changed nothing; a 2xx body with a digest changed the page when the
 * digest stored before differs; otherwise (a first visit, an error, no digest) it is not known.
 */
export function visitOf(r: FetchRecord, prior: PriorAnswer | undefined): Omit<VisitRecord, 'page' | 'linksAdded' | 'linksRemoved'> {
  const priorHash = prior?.content_hash ?? null;
  const hash = r.notModified === true ? priorHash : (r.contentHash ?? null);
  let changed: boolean | null = null;
  if (r.notModified === true) changed = false;
  else if (hash !== null && priorHash !== null) changed = hash !== priorHash;
  return { fetchedAt: r.fetchedAt, status: r.status, error: r.error, contentHash: hash, changed, notModified: r.notModified === true };
}

/** The answer classes `pages --status` takes, besides exact statuses (404): the SQL of each (no text from outside). */
export const STATUS_CLASSES = {
  '2xx': 'status >= 200 AND status < 300',
  '3xx': 'status >= 300 AND status < 400',
  '4xx': 'status >= 400 AND status < 500',
  '5xx': 'status >= 500 AND status < 600',
  // No answer, or one that could not be used (a body too large, an unknown encoding, a redirect loop).
  failed: "(status IS NULL OR status < 400) AND fetch_error IS NOT NULL AND fetch_error NOT LIKE 'excluded:%'",
  excluded: COUNT_CONDITIONS.excluded,
  frontier: COUNT_CONDITIONS.frontier,
} as const;
export type StatusClass = keyof typeof STATUS_CLASSES;

/** A WHERE condition for pages of these classes or exact statuses (integers, checked by the caller). */
export function statusCondition(classes: readonly StatusClass[], statuses: readonly number[]): string {
  const parts = classes.map((c) => `(${STATUS_CLASSES[c]})`);
  if (statuses.length > 0) parts.push(`status IN (${statuses.map((n) => String(Math.trunc(n))).join(', ')})`);
  return parts.length === 0 ? 'TRUE' : parts.join(' OR ');
}
