/**
 * What changed (`/changes?since=...&until=...`): `wga changes` in the browser. Between two times
 * of the crawl (by default its latest session): pages new, gone and changed, links added and
 * removed, and the pages that change most often (Cho and Garcia-Molina's estimate), every URL a
 * link to the page's detail. The window is in the address bar, so it can be bookmarked.
 */
import { api } from '../api.js';
import { formatCount, h, notice, pageLink, replace, table } from '../dom.js';
import { navigate } from '../router.js';
import { statusBadge } from '../status.js';
import type { Changes } from '../types.js';

export async function changesView(root: HTMLElement, query: URLSearchParams): Promise<void> {
  const since = query.get('since') ?? '';
  const until = query.get('until') ?? '';
  const sinceInput = h('input', { type: 'text', name: 'since', value: since, placeholder: 'since: ISO time, run:N or session:N (default: the latest session)', spellcheck: 'false' });
  const untilInput = h('input', { type: 'text', name: 'until', value: until, placeholder: 'until (default: now)', spellcheck: 'false' });
  const form = h('form', { class: 'panel row' }, sinceInput, untilInput, h('button', { type: 'submit' }, 'Show'));
  sinceInput.style.flex = '1';
  untilInput.style.flex = '1';
  const body = h('div', { 'data-changes': '' }, h('p', { class: 'muted' }, 'Reading the visits…'));
  root.append(h('h1', undefined, 'Changes'), form, body);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const params: Record<string, string> = {};
    if (sinceInput.value.trim() !== '') params.since = sinceInput.value.trim();
    if (untilInput.value.trim() !== '') params.until = untilInput.value.trim();
    navigate(`/changes?${new URLSearchParams(params).toString()}`);
  });
  let report: Changes;
  try {
    report = await api.get<Changes>('/api/changes', { ...(since === '' ? {} : { since }), ...(until === '' ? {} : { until }), limit: 200 });
  } catch (error) {
    replace(body, notice('error', error instanceof Error ? error.message : String(error)));
    return;
  }
  const c = report.counts;
  const summary = h(
    'div',
    { class: 'panel', 'data-changes-summary': '' },
    h('p', undefined, `From ${new Date(report.since).toLocaleString()} to ${report.until === null ? 'now' : new Date(report.until).toLocaleString()}: ${formatCount(report.visits)} visits, ${formatCount(report.notModified)} answered 304 (not modified).`),
    table(
      ['new', 'gone', 'changed', 'unchanged', 'links added', 'links removed'],
      [[c.new, c.gone, c.changed, c.unchanged, c.linksAdded, c.linksRemoved].map((n) => formatCount(n))],
      [0, 1, 2, 3, 4, 5],
    ),
  );
  const section = (title: string, total: number, headers: string[], rows: Array<Array<string | HTMLElement>>): HTMLElement =>
    h('div', { class: 'panel', 'data-section': title }, h('h2', undefined, `${title} (${formatCount(total)})`), rows.length === 0 ? h('p', { class: 'muted' }, 'None.') : table(headers, rows));
  const changing = report.rates.filter((r) => r.changes > 0);
  replace(
    body,
    summary,
    h(
      'div',
      { class: 'grid' },
      section('New pages', c.new, ['status', 'page'], report.new.map((p) => [statusBadge(p.status), pageLink(p.url)])),
      section('Gone', c.gone, ['was', 'now', 'page'], report.gone.map((p) => [statusBadge(p.before), p.status === null ? (p.error ?? '–') : statusBadge(p.status), pageLink(p.url)])),
    ),
    h(
      'div',
      { class: 'grid' },
      section('Changed', c.changed, ['links', 'page'], report.changed.map((p) => [`+${p.linksAdded} −${p.linksRemoved}`, pageLink(p.url)])),
      section('Changing most often', changing.length, ['a day', 'seen', 'page'], changing.map((r) => [r.perDay.toPrecision(2), `${r.changes} of ${r.visits - 1}`, pageLink(r.url)])),
    ),
    h(
      'div',
      { class: 'grid' },
      section('Links added', c.linksAdded, ['kind', 'from', 'to'], report.linksAdded.map((l) => [l.kind, pageLink(l.source), pageLink(l.target)])),
      section('Links removed', c.linksRemoved, ['kind', 'from', 'to'], report.linksRemoved.map((l) => [l.kind, pageLink(l.source), pageLink(l.target)])),
    ),
  );
}
