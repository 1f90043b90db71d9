/**
 * Pages: the table of every page of the store (GET /api/pages-table), sorted and filtered on the
 * server, 100 rows at a time. A header sorts by its column (again: the other way); the box under
 * it filters it (text: contains; numbers: 200, >10, <=3, 10..20, 4xx; - for empty). The state is
 * in the address bar (`/pages?sort=inLinks&order=desc&filter.status=4xx&offset=100`), so a view
 * can be bookmarked; CSV exports every row the filters keep, in this order.
 */
import { api, apiUrl } from '../api.js';
import { type Child, formatCount, formatScore, h, notice, pageLink, replace, routeLink } from '../dom.js';
import { navigate } from '../router.js';
import { statusBadge } from '../status.js';
import type { PagesTableAnswer } from '../types.js';

const PAGE = 100;
const LABELS: Record<string, string> = {
  url: 'page', status: 'status', indexable: 'indexable', title: 'title', titleLength: 'title len.', description: 'description', h1: 'h1', h1Count: 'h1s',
  words: 'words', depth: 'depth', inLinks: 'links in', outLinks: 'links out', pagerank: 'PageRank', opic: 'OPIC', responseMs: 'ms', size: 'bytes',
  canonical: 'canonical', rendered: 'rendered',
};
const NUMERIC = new Set(['status', 'titleLength', 'h1Count', 'words', 'depth', 'inLinks', 'outLinks', 'pagerank', 'opic', 'responseMs', 'size']);

function cell(column: string, value: string | number | null): Child {
  if (value === null) return '';
  if (column === 'url' || column === 'canonical') return pageLink(String(value));
  if (column === 'status') return statusBadge(value as number);
  if (column === 'pagerank' || column === 'opic') return formatScore(value as number);
  if (typeof value === 'number') return formatCount(value);
  const text = String(value);
  return text.length > 80 ? h('span', { title: text }, `${text.slice(0, 77)}…`) : text;
}

export async function pagesTableView(root: HTMLElement, query: URLSearchParams): Promise<void> {
  const params: Record<string, string> = {};
  for (const [name, value] of query) params[name] = value;
  const sort = params.sort ?? 'url';
  const order = params.order === 'desc' ? 'desc' : 'asc';
  const offset = Math.max(0, Number(params.offset ?? 0) || 0);
  const go = (changes: Record<string, string | null>): void => {
    const next = { ...params, ...changes };
    const kept = Object.entries(next).filter((entry): entry is [string, string] => entry[1] !== null && entry[1] !== '');
    navigate(`/pages?${new URLSearchParams(kept).toString()}`);
  };
  const box = h('div', { class: 'panel', 'data-pages-table': '' }, h('p', { class: 'muted' }, 'Reading the pages…'));
  root.append(
    h('h1', undefined, 'Pages'),
    h('p', { class: 'muted' }, 'Every page of the store. Click a header to sort; type in the box under it and press Enter to filter (text: contains; numbers: 200, >10, <=3, 10..20, 4xx; - for empty). ', routeLink('/search', {}, 'Search by URL or by neighbour'), '.'),
    box,
  );
  let answer: PagesTableAnswer;
  try {
    answer = await api.get<PagesTableAnswer>('/api/pages-table', { ...params, limit: PAGE, offset });
  } catch (error) {
    replace(box, notice('error', error instanceof Error ? error.message : String(error)));
    return;
  }
  const heads = answer.columns.map((column) => {
    const active = column === sort;
    const th = h('th', { class: NUMERIC.has(column) ? 'num sortable' : 'sortable', 'data-sort': column, 'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : null }, LABELS[column] ?? column, active ? (order === 'asc' ? ' ▲' : ' ▼') : '');
    th.addEventListener('click', () => go({ sort: column, order: active && order === 'asc' ? 'desc' : active ? 'asc' : NUMERIC.has(column) ? 'desc' : 'asc', offset: null }));
    return th;
  });
  const filters = answer.columns.map((column) => {
    const input = h('input', { type: 'text', name: `filter.${column}`, value: params[`filter.${column}`] ?? '', 'aria-label': `filter ${LABELS[column] ?? column}`, spellcheck: 'false' });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') go({ [`filter.${column}`]: input.value.trim(), offset: null });
    });
    return h('th', undefined, input);
  });
  const body = h('tbody');
  for (const row of answer.rows) body.appendChild(h('tr', undefined, ...answer.columns.map((column) => h('td', { class: NUMERIC.has(column) ? 'num' : null }, cell(column, row[column] ?? null)))));
  const csv = h('a', { class: 'button-link', download: 'wga-pages.csv', 'data-pages-csv': '' }, 'Export CSV');
  const exported: Record<string, string> = { ...params, format: 'csv' };
  delete exported.offset;
  csv.href = apiUrl('/api/pages-table', exported);
  const prev = h('button', { type: 'button', class: 'secondary', disabled: offset === 0 }, '← previous');
  const next = h('button', { type: 'button', class: 'secondary', disabled: offset + PAGE >= answer.total }, 'next →');
  prev.addEventListener('click', () => go({ offset: String(Math.max(0, offset - PAGE)) }));
  next.addEventListener('click', () => go({ offset: String(offset + PAGE) }));
  const last = Math.min(answer.total, offset + answer.rows.length);
  replace(
    box,
    h('div', { class: 'row table-bar' }, h('span', { 'data-pages-total': String(answer.total) }, answer.total === 0 ? 'No page matches.' : `${formatCount(offset + 1)}–${formatCount(last)} of ${formatCount(answer.total)} pages (${answer.ms.toFixed(0)} ms)`), prev, next, csv),
    h('div', { class: 'table-scroll' }, h('table', { class: 'data pages-table' }, h('thead', undefined, h('tr', undefined, ...heads), h('tr', { class: 'filters' }, ...filters)), body)),
  );
}
