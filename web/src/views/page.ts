/**
 * A page's detail (`/page?url=ENCODED_URL`): title, URL, fetch status and time, depth, every stored
 * score, its in-links and out-links as clickable paged lists, its level from chosen roots, its
 * strongly connected component, and a drawing of its neighbourhood.
 */
import { api, ApiError } from '../api.js';
import { drawNeighbourhood } from '../charts/neighbourhood.js';
import { externalLink, formatCount, formatScore, h, notice, pageLink, replace, routeLink, table } from '../dom.js';
import { navigate } from '../router.js';
import { legend, statusBadge } from '../status.js';
import type { CrawlStatus, LevelsResult, LinkRecord, Neighbourhood, PageDetail, SccResult } from '../types.js';

/** What the page's 'rendered' fact says, per outcome (docs/rendering.md). */
const RENDERED: Record<string, string> = {
  none: 'no: read as served',
  settled: 'yes, in Chromium; links marked “found by rendering only” are not in its HTML',
  unsettled: 'yes, in Chromium, read when the render time ran out (it had not settled)',
  failed: 'the browser could not render it: the links of its HTML stand',
};

const PAGE_SIZE = 50;

export async function pageView(root: HTMLElement, query: URLSearchParams): Promise<() => void> {
  const url = query.get('url') ?? '';
  let stopDrawing: (() => void) | null = null;
  const cleanup = (): void => stopDrawing?.();
  if (url === '') {
    root.append(h('h1', undefined, 'Page'), notice('info', 'No page given: search for one in Pages.'));
    return cleanup;
  }
  let page: PageDetail;
  try {
    page = await api.get<PageDetail>('/api/page', { url, offset: 0, limit: PAGE_SIZE });
  } catch (error) {
    root.append(
      h('h1', undefined, 'Page'),
      notice('error', error instanceof ApiError && error.status === 404 ? `No page ${url} in this store.` : error instanceof Error ? error.message : String(error)),
      h('p', undefined, routeLink('/search', { q: url }, 'Search for similar URLs')),
    );
    return cleanup;
  }

  const facts: Array<[string, HTMLElement | string]> = [
    ['status', h('span', undefined, statusBadge(page.status), page.error ? ` ${page.error}` : '')],
    ['content type', page.contentType ?? '–'],
    ['fetched at', page.fetchedAt === null ? 'never' : new Date(page.fetchedAt).toLocaleString()],
    ['crawl depth', page.depth === null ? '–' : String(page.depth)],
    ['size', page.size === null || page.size === undefined ? '–' : `${formatCount(page.size)} bytes${page.wireSize != null && page.wireSize !== page.size ? ` (${formatCount(page.wireSize)} on the wire)` : ''}`],
    ...(page.role === 'sitemap' ? ([['role', 'sitemap']] as Array<[string, string]>) : []),
    ['rendered', RENDERED[page.rendered ?? 'none']],
    ...((page.linksDropped ?? 0) > 0 ? ([['link cap', `${formatCount(page.linksDropped ?? 0)} links to targets past --max-links-per-page not kept`]] as Array<[string, string]>) : []),
    [
      'changes',
      page.changeRate === null || page.changeRate === undefined
        ? '–'
        : page.changeRate === 0
          ? `none seen in ${formatCount(page.visits?.length ?? 0)} visits`
          : `about ${page.changeRate.toPrecision(2)} a day (Cho and Garcia-Molina’s estimate, ${formatCount(page.visits?.length ?? 0)} visits)`,
    ],
    ['in-links, out-links', `${formatCount(page.inDegree)}, ${formatCount(page.outDegree)}`],
    ['host', page.host ?? '–'],
  ];
  const header = h(
    'div',
    { class: 'panel' },
    h('div', { class: 'title-line', 'data-page-title': '' }, page.title ?? '(no title)'),
    h('div', { class: 'url-line', 'data-page-url': '' }, externalLink(page.url)),
    h('dl', { class: 'facts' }, ...facts.flatMap(([k, v]) => [h('dt', undefined, k), h('dd', undefined, v)])),
  );
  const scores = h(
    'div',
    { class: 'panel' },
    h('h2', undefined, 'Scores'),
    page.scores.length === 0 ? h('p', { class: 'muted' }, 'No stored run scores this page.') : table(['run', 'method', 'score'], page.scores.map((s) => [String(s.run), s.method, formatScore(s.value)]), [0, 2]),
  );
  const inBox = h('div', { 'data-links': 'in' });
  const outBox = h('div', { 'data-links': 'out' });
  const links = h('div', { class: 'grid' }, h('div', { class: 'panel' }, h('h2', undefined, `Links to this page (${formatCount(page.links.inTotal)})`), inBox), h('div', { class: 'panel' }, h('h2', undefined, `Links from this page (${formatCount(page.links.outTotal)})`), outBox));

  const rootsInput = h('input', { type: 'text', name: 'roots', placeholder: 'root URLs, separated by spaces', spellcheck: 'false' });
  const levelOut = h('div', { 'data-level': '' });
  const levelButton = h('button', { type: 'button' }, 'Level');
  const sccOut = h('div', { 'data-scc': '' });
  const analysis = h(
    'div',
    { class: 'panel' },
    h('h2', undefined, 'Level and component'),
    h('div', { class: 'row' }, rootsInput, levelButton),
    levelOut,
    sccOut,
  );
  rootsInput.style.flex = '1';
  rootsInput.style.width = 'auto';
  const drawingBox = h('div');
  const drawing = h('div', { class: 'panel' }, h('h2', undefined, 'Neighbourhood'), drawingBox, legend());
  const visitRows = (page.visits ?? []).map((v) => [
    new Date(v.fetchedAt).toLocaleString(),
    v.notModified ? '304 (not modified)' : v.status === null ? '–' : String(v.status),
    v.changed === null ? 'first visit' : v.changed ? 'changed' : 'unchanged',
    v.linksAdded + v.linksRemoved === 0 ? '' : `+${v.linksAdded} −${v.linksRemoved}`,
  ]);
  const visits = h(
    'div',
    { class: 'panel', 'data-visits': '' },
    h('h2', undefined, 'Visits'),
    visitRows.length === 0 ? h('p', { class: 'muted' }, 'Never fetched.') : table(['when', 'answer', 'body', 'links'], visitRows),
    h('p', undefined, routeLink('/changes', {}, 'What changed in the latest crawl session')),
  );
  root.append(h('h1', undefined, 'Page'), h('div', { class: 'grid' }, header, h('div', { class: 'stack' }, scores, analysis)), links, h('div', { class: 'grid' }, visits, drawing));

  const showLinks = (box: HTMLElement, which: 'in' | 'out', records: LinkRecord[], offset: number, total: number): void => {
    const list = h('ul', { class: 'links' });
    for (const link of records) {
      // Its kind (but anchor), rel tokens, hreflang and a sitemap entry's lastmod.
      const notes = [
        ...(link.kind === 'anchor' ? [] : [link.kind]),
        ...(link.rel ?? (link.nofollow ? ['nofollow'] : [])).map((token) => (token === 'script' ? 'found by rendering only' : token)),
        ...(link.hreflang == null ? [] : [`hreflang ${link.hreflang}`]),
        ...(link.lastmod == null ? [] : [`lastmod ${new Date(link.lastmod).toISOString().slice(0, 10)}`]),
      ];
      list.appendChild(h('li', undefined, pageLink(link.url), notes.length === 0 ? null : h('span', { class: 'kind', 'data-kind': link.kind }, `(${notes.join(', ')})`)));
    }
    const pager = h('div', { class: 'pager' });
    if (total > records.length) {
      const previous = h('button', { type: 'button', class: 'secondary', disabled: offset === 0, 'data-page': 'previous' }, '‹ previous');
      const next = h('button', { type: 'button', class: 'secondary', disabled: offset + PAGE_SIZE >= total, 'data-page': 'next' }, 'next ›');
      const go = (to: number): void => {
        void api
          .get<PageDetail>('/api/page', { url, offset: to, limit: PAGE_SIZE })
          .then((p) => showLinks(box, which, which === 'in' ? p.in : p.out, to, which === 'in' ? p.links.inTotal : p.links.outTotal))
          .catch((error: unknown) => replace(box, notice('error', error instanceof Error ? error.message : String(error))));
      };
      previous.addEventListener('click', () => go(Math.max(0, offset - PAGE_SIZE)));
      next.addEventListener('click', () => go(offset + PAGE_SIZE));
      pager.append(previous, `${formatCount(offset + 1)}–${formatCount(offset + records.length)} of ${formatCount(total)}`, next);
    }
    replace(box, records.length === 0 ? h('p', { class: 'muted' }, 'None.') : list, pager);
  };
  showLinks(inBox, 'in', page.in, 0, page.links.inTotal);
  showLinks(outBox, 'out', page.out, 0, page.links.outTotal);

  const level = async (): Promise<void> => {
    const roots = rootsInput.value.split(/\s+/).filter((r) => r !== '');
    if (roots.length === 0) {
      replace(levelOut, h('p', { class: 'muted' }, 'Give one or more root URLs to compute this page’s level (clicks from the nearest root).'));
      return;
    }
    try {
      const result = await api.get<LevelsResult>('/api/levels', { root: roots, page: url });
      const value = result.page?.level ?? null;
      replace(levelOut, h('p', undefined, value === null ? 'Not reachable from these roots.' : `${value} click${value === 1 ? '' : 's'} from the nearest root`, h('span', { class: 'muted' }, ` (${formatCount(result.reached)} pages reached from them).`)));
    } catch (error) {
      replace(levelOut, notice('error', error instanceof Error ? error.message : String(error)));
    }
  };
  levelButton.addEventListener('click', () => void level());
  // The crawl's seeds are the natural roots; the user may give others.
  void api
    .get<{ crawl: CrawlStatus }>('/api/crawl')
    .then((c) => {
      const seeds = c.crawl.settings?.seeds;
      if (Array.isArray(seeds) && rootsInput.value === '') rootsInput.value = seeds.map(String).join(' ');
    })
    .catch(() => undefined)
    .finally(() => void level());
  void api
    .get<SccResult>('/api/scc', { root: url })
    .then((scc) => {
      const r = scc.root;
      replace(sccOut, h('p', undefined, r === null ? 'Component unknown.' : r.inLargest ? `In the giant strongly connected component (${formatCount(r.size)} pages of ${formatCount(scc.nodes)}).` : r.size === 1 ? 'In no cycle: its strongly connected component is itself.' : `In a strongly connected component of ${formatCount(r.size)} pages (the giant one has ${formatCount(scc.largest)}).`));
    })
    .catch((error: unknown) => replace(sccOut, notice('error', error instanceof Error ? error.message : String(error))));
  void api
    .get<Neighbourhood>('/api/neighbourhood', { url, depth: 1, limit: 40 })
    .then((n) => {
      stopDrawing = drawNeighbourhood(drawingBox, n, (target) => navigate(`/page?${new URLSearchParams({ url: target }).toString()}`));
      if (n.truncated) drawingBox.appendChild(h('small', { class: 'muted' }, `The ${n.nodes.length} most linked neighbours are drawn.`));
    })
    .catch((error: unknown) => replace(drawingBox, notice('error', error instanceof Error ? error.message : String(error))));
  return cleanup;
}
