/**
 * The GUI of `wga serve --graph G.wgc`: a compact graph file, read in place by the server.
 * - /ranks: the best pages of each ranking `wga rank G.wgc --method M --save` kept beside the file;
 * - /node?name=: one page's degrees, saved scores and first neighbours (each a link to its own view);
 * - /distances: the distance distribution `wga distances G.wgc --save` kept.
 * What is not saved yet is said with the command that saves it: a request never starts an analysis
 * that takes an hour at this size.
 */
import { api } from '../api.js';
import { showDistances } from '../charts/distances.js';
import { formatCount, formatScore, h, notice, replace, routeLink, table } from '../dom.js';
import { navigate } from '../router.js';
import type { Distances, GraphFileInfo, GraphFilePage, GraphFileTop } from '../types.js';

/** What each ranking's scores are (`wga rank --method`). */
const METHOD_NAMES: Record<string, string> = {
  pagerank: 'PageRank',
  traffic: 'TrafficRank',
  hotness: 'HOTness',
  harmonic: 'harmonic centrality',
  closeness: 'closeness',
  lin: "Lin's index",
  montecarlo: 'Monte Carlo PageRank',
};

const PAGE_SIZE = 100;

/** The rankings HyperBall estimates (their scores file keeps the relative standard deviation as its residual). */
const GEOMETRIC = new Set(['harmonic', 'closeness', 'lin']);

function methodName(method: string): string {
  return METHOD_NAMES[method] ?? method;
}

/** How a saved ranking was solved: HyperBall's estimates keep their relative standard deviation where the solvers keep a residual. */
function solveSummary(ranking: GraphFileInfo['rankings'][number]): string {
  if (ranking.method === 'montecarlo') return `${formatCount(ranking.iterations)} walk${ranking.iterations === 1 ? '' : 's'} from every page, standard deviations up to ${ranking.residual.toExponential(1)}`;
  if (GEOMETRIC.has(ranking.method)) return `HyperBall, ${ranking.iterations} iterations, each count within about ${(100 * ranking.residual).toFixed(1)}%`;
  return `${ranking.iterations} iterations, residual ${ranking.residual.toExponential(1)}`;
}

function nodeLink(name: string): HTMLAnchorElement {
  return routeLink('/node', { name }, name, { class: 'page-link', title: name });
}

function failure(box: HTMLElement): (error: unknown) => void {
  return (error) => replace(box, notice('error', error instanceof Error ? error.message : String(error)));
}

/** A form to open a page by name (or id), shown on every view of the file. */
function findForm(value = ''): HTMLElement {
  const input = h('input', { type: 'search', name: 'name', placeholder: 'a page: its name, or its id', value, spellcheck: 'false' });
  input.style.flex = '1';
  input.style.width = 'auto';
  const form = h('form', { class: 'panel row search-form', role: 'search' }, input, h('button', { type: 'submit' }, 'Open page'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (name !== '') navigate(`/node?${new URLSearchParams({ name }).toString()}`);
  });
  return form;
}

/** The best pages by a saved ranking, a page of PAGE_SIZE at a time. */
export async function graphFileRanksView(root: HTMLElement, query: URLSearchParams): Promise<void> {
  const info = await api.get<GraphFileInfo>('/api/info');
  root.append(h('h1', undefined, 'Rankings'), findForm());
  const panel = h('div', { class: 'panel', 'data-graph-ranks': '' });
  root.append(panel);
  if (info.rankings.length === 0) {
    replace(
      panel,
      h('p', undefined, 'No ranking is saved beside this graph file yet. Rank it from a terminal, then reload this page:'),
      h('pre', undefined, `wga rank ${info.file} --method pagerank,harmonic --save`),
      h('p', { class: 'muted' }, 'Each method keeps its scores beside the file (G.wgc.pagerank, G.wgc.harmonic, ...); TrafficRank, HOTness, closeness and Lin\'s index too.'),
    );
    return;
  }
  const asked = query.get('method');
  const method = info.rankings.some((r) => r.method === asked) ? asked! : info.rankings[0]!.method;
  const ranking = info.rankings.find((r) => r.method === method)!;
  const offset = Math.max(0, Math.min(ranking.listed - 1, Math.floor(Number(query.get('offset') ?? 0) || 0)));
  const tabs = h('p', { class: 'row' }, ...info.rankings.map((r) => (r.method === method ? h('strong', undefined, methodName(r.method)) : routeLink('/ranks', { method: r.method }, methodName(r.method)))));
  const body = h('div', undefined, h('p', { class: 'muted' }, 'Reading…'));
  replace(panel, tabs, body);
  try {
    const answer = await api.get<GraphFileTop>('/api/top', { method, offset, limit: PAGE_SIZE });
    const rows = answer.top.map((p) => [String(p.rank), nodeLink(p.label), formatScore(p.score)]);
    const last = offset + answer.top.length;
    const pager = h(
      'p',
      { class: 'row muted' },
      `Pages ${formatCount(offset + 1)}–${formatCount(last)} of the best ${formatCount(ranking.listed)} kept (${formatCount(info.nodes)} pages ranked; ${solveSummary(ranking)}).`,
      offset > 0 ? routeLink('/ranks', { method, offset: String(Math.max(0, offset - PAGE_SIZE)) }, '← better') : null,
      last < ranking.listed ? routeLink('/ranks', { method, offset: String(last) }, 'next →') : null,
    );
    replace(body, pager, table(['#', 'page', methodName(method)], rows, [0, 2]));
  } catch (error) {
    failure(body)(error);
  }
}

/** One page of the file: degrees, every saved score, the first neighbours both ways. */
export async function graphFileNodeView(root: HTMLElement, query: URLSearchParams): Promise<void> {
  const name = query.get('name') ?? '';
  root.append(h('h1', undefined, 'Page'), findForm(name));
  const panel = h('div', { class: 'panel', 'data-graph-node': '' });
  root.append(panel);
  if (name === '') {
    replace(panel, h('p', { class: 'muted' }, 'Type a page\'s name (or its id) to see its links and scores.'));
    return;
  }
  replace(panel, h('p', { class: 'muted' }, 'Reading…'));
  try {
    const page = await api.get<GraphFilePage>('/api/page', { name, limit: PAGE_SIZE });
    const neighbours = (title: string, degree: number, names: string[]): HTMLElement =>
      h(
        'div',
        { class: 'panel' },
        h('h2', undefined, `${title} (${formatCount(degree)})`),
        names.length === 0 ? h('p', { class: 'muted' }, 'None.') : h('ul', { class: 'links' }, ...names.map((n) => h('li', undefined, nodeLink(n)))),
        degree > names.length ? h('p', { class: 'muted' }, `The first ${formatCount(names.length)} of ${formatCount(degree)}.`) : null,
      );
    replace(
      panel,
      h('div', { class: 'url-line', 'data-node-name': '' }, page.label),
      h(
        'dl',
        { class: 'facts' },
        ...[
          ['id', String(page.id)],
          ['links in', formatCount(page.inDegree)],
          ['links out', formatCount(page.outDegree)],
          ...page.scores.map((s) => [methodName(s.method), formatScore(s.value)]),
        ].flatMap(([k, v]) => [h('dt', undefined, k), h('dd', undefined, v)]),
      ),
      page.scores.length === 0 ? h('p', { class: 'muted' }, 'No ranking is saved beside this file (wga rank G.wgc --save).') : null,
    );
    root.append(h('div', { class: 'grid' }, neighbours('Linked from', page.inDegree, page.inLinks), neighbours('Links to', page.outDegree, page.outLinks)));
  } catch (error) {
    failure(panel)(error);
  }
}

/** The distance distribution saved beside the file. */
export async function graphFileDistancesView(root: HTMLElement): Promise<void> {
  const info = await api.get<GraphFileInfo>('/api/info');
  const panel = h('div', { class: 'panel', 'data-graph-distances': '' });
  root.append(h('h1', undefined, 'Distances between pages'), panel);
  if (!info.distances) {
    replace(
      panel,
      h('p', undefined, 'No distance distribution is saved beside this graph file yet. Compute it from a terminal (HyperBall, planned for the memory), then reload:'),
      h('pre', undefined, `wga distances ${info.file} --save`),
    );
    return;
  }
  replace(panel, h('p', { class: 'muted' }, 'Reading…'));
  await api.get<Distances>('/api/distances').then((d) => showDistances(panel, d), failure(panel));
}
