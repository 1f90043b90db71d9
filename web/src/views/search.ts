/**
 * Pages: find pages by URL (substring or prefix) or by a neighbour (pages linking to, or linked
 * from, a URL). The query is in the address bar (`/search?q=TEXT&mode=...`), so a search can be
 * bookmarked and loads directly.
 */
import { api } from '../api.js';
import { formatCount, h, notice, pageLink, replace, table } from '../dom.js';
import { navigate } from '../router.js';
import { statusBadge } from '../status.js';
import type { PagesByStatus, SearchResult } from '../types.js';

const MODES: Array<[string, string]> = [
  ['substring', 'URL contains'],
  ['prefix', 'URL starts with'],
  ['linksTo', 'pages linking to URL'],
  ['linkedFrom', 'pages linked from URL'],
  ['status', 'pages answered (e.g. 4xx,5xx,failed)'],
];

export async function searchView(root: HTMLElement, query: URLSearchParams): Promise<void> {
  const q = query.get('q') ?? '';
  const mode = MODES.some(([m]) => m === query.get('mode')) ? query.get('mode')! : 'substring';
  const limit = Math.min(1000, Math.max(1, Number(query.get('limit') ?? 100) || 100));
  const input = h('input', { type: 'search', name: 'q', placeholder: 'part of a URL, e.g. /docs/ or example.org', value: q, autofocus: true, spellcheck: 'false' });
  const select = h('select', { name: 'mode' });
  for (const [value, text] of MODES) select.appendChild(h('option', { value, selected: value === mode }, text));
  const form = h('form', { class: 'panel row search-form', role: 'search' }, select, input, h('button', { type: 'submit' }, 'Search'));
  input.style.flex = '1';
  input.style.width = 'auto';
  select.style.width = 'auto';
  const results = h('div', { class: 'panel', 'data-search-results': '' });
  root.append(h('h1', undefined, 'Pages'), form, results);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    navigate(`/search?${new URLSearchParams(select.value === 'substring' ? { q: text } : { q: text, mode: select.value }).toString()}`);
  });
  if (mode === 'status') {
    // Pages by their answer, each with the pages linking to it: a site's broken pages and where they are linked from.
    replace(results, h('p', { class: 'muted' }, 'Reading…'));
    try {
      const answer = await api.get<PagesByStatus>('/api/pages', { status: q === '' ? '4xx,5xx,failed' : q, linkers: 1, limit });
      const rows = answer.pages.map((p) => [
        statusBadge(p.status),
        h('span', undefined, pageLink(p.url), p.error === null || p.error === `HTTP ${p.status}` ? null : h('span', { class: 'kind' }, ` (${p.error})`)),
        h('span', undefined, ...(p.linkers?.urls ?? []).slice(0, 3).flatMap((u, i) => [i === 0 ? '' : ', ', pageLink(u)]), (p.linkers?.total ?? 0) > 3 ? ` and ${formatCount(p.linkers!.total - 3)} more` : (p.linkers?.total ?? 0) === 0 ? '–' : ''),
      ]);
      replace(
        results,
        h('p', { class: 'muted', 'data-pages-total': String(answer.total) }, `${formatCount(answer.total)} page${answer.total === 1 ? '' : 's'} answered ${answer.status.join(', ')}${answer.total > answer.pages.length ? ` (the first ${answer.pages.length})` : ''}:`),
        answer.pages.length === 0 ? null : table(['status', 'page', 'linked from'], rows),
      );
    } catch (error) {
      replace(results, notice('error', error instanceof Error ? error.message : String(error)));
    }
    return;
  }
  if (q === '') {
    replace(results, h('p', { class: 'muted' }, 'Type part of a URL to find pages; click one for its detail, links and scores.'));
    return;
  }
  replace(results, h('p', { class: 'muted' }, 'Searching…'));
  try {
    const answer = await api.get<SearchResult>('/api/search', { q, mode, limit });
    const rows = answer.pages.map((p) => [statusBadge(p.status), pageLink(p.url), p.title ?? '']);
    replace(
      results,
      h('p', { class: 'muted' }, answer.pages.length === limit ? `The first ${limit} pages:` : `${answer.pages.length} page${answer.pages.length === 1 ? '' : 's'}:`),
      answer.pages.length === 0 ? null : table(['status', 'URL', 'title'], rows),
    );
    const statusHeader = results.querySelector('th');
    if (statusHeader !== null) statusHeader.style.width = '5rem';
  } catch (error) {
    replace(results, notice('error', error instanceof Error ? error.message : String(error)));
  }
}
