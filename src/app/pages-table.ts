/**
 * The table of every page of a store, as an SEO analyst sorts and filters it (the GUI's Pages view,
 * `GET /api/pages-table`): status, indexability, title and its length, description, h1, words,
 * depth, links in and out, PageRank and OPIC (the latest saved runs), response time, size,
 * canonical, rendered. Read once into columns (loadPagesTable); each request sorts and filters
 * those in memory (queryPagesTable), which takes tens of milliseconds at 10^5 pages where an SQL
 * query would count every page's links again.
 */
import { OptionError } from '../errors.js';
import { GRAPH_LINK_KINDS, type Store } from '../store/store.js';

export const PAGE_TABLE_COLUMNS = [
  'url', 'status', 'indexable', 'title', 'titleLength', 'description', 'h1', 'h1Count', 'words', 'depth', 'inLinks', 'outLinks', 'pagerank', 'opic',
  'responseMs', 'size', 'canonical', 'rendered',
] as const;
export type PageTableColumn = (typeof PAGE_TABLE_COLUMNS)[number];

const NUMERIC = new Set<PageTableColumn>(['status', 'titleLength', 'h1Count', 'words', 'depth', 'inLinks', 'outLinks', 'pagerank', 'opic', 'responseMs', 'size']);

export type PageTableRow = Record<PageTableColumn, string | number | null>;

export interface PagesTable {
  rows: PageTableRow[];
  /** Row orders computed so far, by "column asc|desc" (a table is read once, then sorted many times). */
  orders?: Map<string, Int32Array>;
  /** The runs the score columns come from (null: none saved). */
  runs: { pagerank: number | null; opic: number | null };
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** Reads every page, the links' counts and the latest PageRank and OPIC runs into rows. */
export async function loadPagesTable(store: Store): Promise<PagesTable> {
  const rows: PageTableRow[] = [];
  const indexOf = new Map<number, number>();
  const ids: number[] = [];
  let noindex: boolean[] = [];
  for await (const batch of store.pageBatches()) {
    for (const p of batch) {
      indexOf.set(p.id, rows.length);
      ids.push(p.id);
      const html = p.role === 'page' && p.error === null && p.status !== null && p.status >= 200 && p.status < 300 && (p.contentType === null || HTML_TYPES.has(p.contentType));
      noindex.push(((p.audit?.robots ?? 0) & 1) !== 0);
      rows.push({
        url: p.url,
        status: p.status,
        indexable: html ? 'yes' : p.status === null ? (p.error === null ? 'not fetched' : 'no: failed') : p.role === 'sitemap' ? 'no: sitemap' : `no: ${p.status}`,
        title: p.title,
        titleLength: p.title === null ? null : p.title.length,
        description: p.audit?.description ?? null,
        h1: p.audit?.h1 ?? null,
        h1Count: p.audit?.h1Count ?? null,
        words: p.audit?.words ?? null,
        depth: p.depth,
        inLinks: 0,
        outLinks: 0,
        pagerank: null,
        opic: null,
        responseMs: p.audit?.responseMs === null || p.audit?.responseMs === undefined ? null : Math.round(p.audit.responseMs),
        size: p.size,
        canonical: null,
        rendered: p.rendered,
      });
    }
  }
  const graphKinds = new Set<string>(GRAPH_LINK_KINDS);
  for await (const batch of store.linkBatches()) {
    for (const link of batch) {
      const s = indexOf.get(link.source);
      const t = indexOf.get(link.target);
      if (s === undefined || t === undefined) continue;
      if (link.kind === 'canonical') {
        if (s !== t) rows[s]!.canonical = rows[t]!.url;
        continue;
      }
      if (!graphKinds.has(link.kind) || s === t) continue;
      rows[s]!.outLinks = (rows[s]!.outLinks as number) + 1;
      rows[t]!.inLinks = (rows[t]!.inLinks as number) + 1;
    }
  }
  rows.forEach((row, i) => {
    if (row.indexable !== 'yes') return;
    if (noindex[i]) row.indexable = 'no: noindex';
    else if (row.canonical !== null) row.indexable = 'no: canonicalised';
  });
  noindex = [];
  const runs: PagesTable['runs'] = { pagerank: null, opic: null };
  const pageIds = Float64Array.from(ids);
  for (const method of ['pagerank', 'opic'] as const) {
    const run = await store.latestRun(method);
    if (run === null) continue;
    runs[method] = run.id;
    const scores = await store.runScores(run.id, pageIds);
    scores.forEach((value, i) => {
      if (!Number.isNaN(value)) rows[i]![method] = value;
    });
  }
  return { rows, runs };
}

export interface PagesTableQuery {
  sort: PageTableColumn;
  descending: boolean;
  /** Column to filter text: a substring (text columns) or a number test (`>10`, `<=3`, `200`, `4xx`, `10..20`). */
  filters: Partial<Record<PageTableColumn, string>>;
  offset: number;
  limit: number;
}

/** A filter as a test of a cell; bad syntax is an OptionError naming `filter.COLUMN`. */
function filterTest(column: PageTableColumn, text: string): (value: string | number | null) => boolean {
  const wanted = text.trim();
  if (!NUMERIC.has(column)) {
    const needle = wanted.toLowerCase();
    if (needle === '-') return (value) => value === null || value === '';
    return (value) => value !== null && String(value).toLowerCase().includes(needle);
  }
  if (wanted === '-') return (value) => value === null;
  const klass = /^([1-5])xx$/i.exec(wanted);
  if (klass !== null) {
    const from = Number(klass[1]) * 100;
    return (value) => typeof value === 'number' && value >= from && value < from + 100;
  }
  const range = /^(-?[\d.]+)\s*\.\.\s*(-?[\d.]+)$/.exec(wanted);
  if (range !== null) return (value) => typeof value === 'number' && value >= Number(range[1]) && value <= Number(range[2]);
  const compare = /^(>=|<=|>|<|=)?\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)$/i.exec(wanted);
  if (compare === null) throw new OptionError(`filter.${column}`, `expected a number, a test (>10, <=3), a range (10..20), a class (4xx) or - (empty), got '${wanted.slice(0, 40)}'`);
  const n = Number(compare[2]);
  switch (compare[1]) {
    case '>':
      return (value) => typeof value === 'number' && value > n;
    case '>=':
      return (value) => typeof value === 'number' && value >= n;
    case '<':
      return (value) => typeof value === 'number' && value < n;
    case '<=':
      return (value) => typeof value === 'number' && value <= n;
    default:
      return (value) => value === n;
  }
}

/** The rows' order by a column (empty cells last either way), computed once per table and column. */
function orderOf(table: PagesTable, column: PageTableColumn, descending: boolean): Int32Array {
  table.orders ??= new Map();
  const key = `${column} ${descending ? 'desc' : 'asc'}`;
  const known = table.orders.get(key);
  if (known !== undefined) return known;
  const rows = table.rows;
  const order = Int32Array.from({ length: rows.length }, (_, i) => i);
  const sign = descending ? -1 : 1;
  if (NUMERIC.has(column)) {
    // Empty cells sort after every number, whichever the direction.
    const keys = Float64Array.from(rows, (row) => (row[column] === null ? Number.NaN : sign * (row[column] as number)));
    order.sort((a, b) => {
      const x = keys[a]!;
      const y = keys[b]!;
      if (x !== x || y !== y) return x !== x ? (y !== y ? a - b : 1) : -1;
      return x - y || a - b;
    });
  } else {
    const keys = rows.map((row) => (row[column] === null ? null : String(row[column])));
    order.sort((a, b) => {
      const x = keys[a]!;
      const y = keys[b]!;
      if (x === null || y === null) return x === y ? a - b : x === null ? 1 : -1;
      return sign * (x < y ? -1 : x > y ? 1 : 0) || a - b;
    });
  }
  table.orders.set(key, order);
  return order;
}

/** The rows matching every filter, sorted (empty cells last either way), then the page asked. */
export function queryPagesTable(table: PagesTable, query: PagesTableQuery): { total: number; rows: PageTableRow[] } {
  const tests = Object.entries(query.filters)
    .filter(([, text]) => text !== undefined && text.trim() !== '')
    .map(([column, text]) => [column as PageTableColumn, filterTest(column as PageTableColumn, text!)] as const);
  const order = orderOf(table, query.sort, query.descending);
  const end = query.offset + query.limit;
  if (tests.length === 0) {
    const rows: PageTableRow[] = [];
    for (let k = query.offset; k < Math.min(end, order.length); k++) rows.push(table.rows[order[k]!]!);
    return { total: order.length, rows };
  }
  const rows: PageTableRow[] = [];
  let total = 0;
  for (let k = 0; k < order.length; k++) {
    const row = table.rows[order[k]!]!;
    if (!tests.every(([column, test]) => test(row[column]))) continue;
    if (total >= query.offset && total < end) rows.push(row);
    total++;
  }
  return { total, rows };
}

/** A column named by a request (sort, filter.COLUMN). */
export function pageTableColumn(name: string, text: string): PageTableColumn {
  if (!(PAGE_TABLE_COLUMNS as readonly string[]).includes(text)) throw new OptionError(name, `expected a column among ${PAGE_TABLE_COLUMNS.join(', ')}, got '${text.slice(0, 40)}'`);
  return text as PageTableColumn;
}
