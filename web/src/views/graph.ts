/**
 * Graph: the collected graph's structure. Overview (size, dangling pages, SCCs and the giant one,
 * the bow-tie with counts, levels from roots as a histogram, in- and out-degree distributions on
 * log-log axes); the crawl tree (force-directed and collapsible); the directory tree of URL paths;
 * the host graph when the server offers it. The part shown is in the address bar (`?part=tree`).
 */
import { api, ApiError } from '../api.js';
import { barChart } from '../charts/bars.js';
import { drawBowTie } from '../charts/bowtie.js';
import { showDistances } from '../charts/distances.js';
import { drawForceTree } from '../charts/force-tree.js';
import { lineChart, type LineChart } from '../charts/line.js';
import { type TreeItem, treeList } from '../charts/tree-list.js';
import { formatCount, formatScore, h, notice, pageLink, replace, table } from '../dom.js';
import { navigate, setQuery } from '../router.js';
import { legend, statusColour } from '../status.js';
import type { CrawlStatus, CrawlTree, DegreesResult, DirectoryNode, DirectoryTree, Distances, LevelsResult, SccResult, Stats } from '../types.js';

const PARTS: Array<[string, string]> = [
  ['overview', 'Overview'],
  ['tree', 'Crawl tree'],
  ['directories', 'Directories'],
  ['hosts', 'Hosts and domains'],
];

const openPage = (url: string): void => navigate(`/page?${new URLSearchParams({ url }).toString()}`);
const failure = (box: HTMLElement) => (error: unknown) => replace(box, notice('error', error instanceof Error ? error.message : String(error)));

export async function graphView(root: HTMLElement, query: URLSearchParams): Promise<() => void> {
  const cleanups: Array<() => void> = [];
  const bar = h('div', { class: 'subtabs', role: 'tablist' });
  const body = h('div');
  root.append(h('h1', undefined, 'Graph'), bar, body);
  const buttons = new Map<string, HTMLButtonElement>();
  const show = (part: string): void => {
    while (cleanups.length > 0) cleanups.pop()!();
    for (const [name, button] of buttons) button.classList.toggle('active', name === part);
    setQuery(part === 'overview' ? {} : { part });
    body.replaceChildren();
    if (part === 'tree') cleanups.push(crawlTree(body));
    else if (part === 'directories') directories(body);
    else if (part === 'hosts') hosts(body);
    else cleanups.push(overview(body));
  };
  for (const [name, label] of PARTS) {
    const button = h('button', { type: 'button', role: 'tab', 'data-part': name }, label);
    button.addEventListener('click', () => show(name));
    buttons.set(name, button);
    bar.appendChild(button);
  }
  show(PARTS.some(([p]) => p === query.get('part')) ? query.get('part')! : 'overview');
  return () => {
    while (cleanups.length > 0) cleanups.pop()!();
  };
}

function overview(body: HTMLElement): () => void {
  const sizeBox = h('div', { 'data-graph-size': '' }, h('p', { class: 'muted' }, 'Loading…'));
  const bowBox = h('div');
  const levelsBox = h('div');
  const distancesBox = h('div', undefined, h('p', { class: 'muted' }, 'Estimating with HyperBall…'));
  const degreeIn = h('div');
  const degreeOut = h('div');
  const degreeTop = h('div');
  const rootsInput = h('input', { type: 'text', name: 'roots', placeholder: 'root URLs, separated by spaces (default: the crawl’s seeds)', spellcheck: 'false' });
  rootsInput.style.flex = '1';
  rootsInput.style.width = 'auto';
  const levelsButton = h('button', { type: 'button' }, 'Levels');
  body.append(
    h(
      'div',
      { class: 'grid' },
      h('div', { class: 'panel' }, h('h2', undefined, 'Size'), sizeBox),
      h('div', { class: 'panel' }, h('h2', undefined, 'Bow-tie'), bowBox),
    ),
    h(
      'div',
      { class: 'grid' },
      h('div', { class: 'panel' }, h('h2', undefined, 'Levels from roots'), h('div', { class: 'row' }, rootsInput, levelsButton), levelsBox),
      h('div', { class: 'panel', 'data-distances': '' }, h('h2', undefined, 'Distances between pages'), distancesBox),
    ),
    h(
      'div',
      { class: 'grid' },
      h('div', { class: 'panel' }, h('h2', undefined, 'In-degree distribution'), degreeIn),
      h('div', { class: 'panel' }, h('h2', undefined, 'Out-degree distribution'), degreeOut),
    ),
    degreeTop,
  );
  const charts: LineChart[] = [];
  void api
    .get<Stats>('/api/stats')
    .then((s) => {
      const rows: Array<[string, string]> = [
        ['pages', formatCount(s.nodes)],
        ['links', formatCount(s.edges)],
        ['dangling pages (no out-link)', `${formatCount(s.danglingNodes)} (${pct(s.danglingNodes, s.nodes)})`],
        ['strongly connected components', formatCount(s.scc.count)],
        ['the giant SCC', `${formatCount(s.scc.largest)} pages (${pct(s.scc.largest, s.nodes)})`],
      ];
      if (s.meanDegree !== undefined) rows.push(['mean degree', s.meanDegree.toFixed(2)]);
      if (s.fetched !== undefined) rows.push(['fetched / failed / excluded / frontier', [s.fetched, s.failed ?? 0, s.excluded ?? 0, s.frontier ?? 0].map(formatCount).join(' / ')]);
      replace(sizeBox, table(['', ''], rows, [1]));
    })
    .catch(failure(sizeBox));
  void api
    .get<SccResult>('/api/scc')
    .then((scc) => {
      drawBowTie(bowBox, scc.bowTie);
      bowBox.appendChild(h('p', { class: 'muted' }, `Largest components: ${scc.largestSizes.slice(0, 8).map(formatCount).join(', ')}.`));
    })
    .catch(failure(bowBox));
  const levels = async (): Promise<void> => {
    let roots = rootsInput.value.split(/\s+/).filter((r) => r !== '');
    if (roots.length === 0) {
      const crawl = await api.get<{ crawl: CrawlStatus }>('/api/crawl').catch(() => null);
      const seeds = crawl?.crawl.settings?.seeds;
      if (Array.isArray(seeds)) roots = seeds.map(String);
      rootsInput.value = roots.join(' ');
    }
    if (roots.length === 0) {
      replace(levelsBox, h('p', { class: 'muted' }, 'Give one or more root URLs.'));
      return;
    }
    try {
      const r = await api.get<LevelsResult>('/api/levels', { root: roots });
      replace(levelsBox);
      barChart(levelsBox, r.histogram.map((_, k) => String(k)), r.histogram, 'clicks from the nearest root');
      levelsBox.appendChild(h('p', { class: 'muted' }, `${formatCount(r.reached)} pages reached, ${formatCount(r.unreachable)} unreachable; the farthest is ${r.maxLevel} clicks away.`));
    } catch (error) {
      failure(levelsBox)(error);
    }
  };
  levelsButton.addEventListener('click', () => void levels());
  void levels();
  // The distance distribution of every pair of pages (wga distances): HyperBall's estimate, exact on small graphs.
  void api
    .get<Distances>('/api/distances', { runs: 4 })
    .then((d) => showDistances(distancesBox, d))
    .catch(failure(distancesBox));
  void api
    .get<DegreesResult>('/api/degrees', { top: 10 })
    .then((d) => {
      const plot = (box: HTMLElement, distribution: Array<[number, number]>, name: string, colour: string): void => {
        const points = distribution.filter(([degree, pages]) => degree > 0 && pages > 0).sort((a, b) => a[0] - b[0]);
        const chart = lineChart(box, { height: 240, series: [{ label: 'pages', color: colour, points: true }], xLabel: name, yLabel: 'pages', xLog: true, yLog: true, yFormat: (v) => (v >= 1 ? String(Math.round(v)) : v.toPrecision(2)) });
        chart.set([points.map(([x]) => x), points.map(([, y]) => y)]);
        charts.push(chart);
        const zero = distribution.find(([degree]) => degree === 0)?.[1] ?? 0;
        box.appendChild(h('small', { class: 'muted' }, `Log-log; ${formatCount(zero)} pages of degree 0 are not drawn.`));
      };
      plot(degreeIn, d.inDistribution, 'in-degree', '#2b6cb0');
      plot(degreeOut, d.outDistribution, 'out-degree', '#c05621');
      replace(
        degreeTop,
        h(
          'div',
          { class: 'grid' },
          h('div', { class: 'panel' }, h('h2', undefined, 'Most linked-to pages'), table(['in-links', 'page'], d.topIn.map((t) => [formatCount(t.degree), pageLink(t.label)]), [0])),
          h('div', { class: 'panel' }, h('h2', undefined, 'Pages with the most links'), table(['out-links', 'page'], d.topOut.map((t) => [formatCount(t.degree), pageLink(t.label)]), [0])),
        ),
      );
    })
    .catch(failure(degreeIn));
  return () => charts.forEach((c) => c.destroy());
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '0 %' : `${((100 * part) / whole).toFixed(1)} %`;
}

function crawlTree(body: HTMLElement): () => void {
  const forceBox = h('div', { 'data-force-tree': '' }, h('p', { class: 'muted' }, 'Loading…'));
  const listBox = h('div', { 'data-tree-list': '' });
  const note = h('p', { class: 'muted' });
  body.append(
    h('div', { class: 'panel' }, h('h2', undefined, 'Crawl tree'), note, forceBox, legend(), h('small', { class: 'muted' }, 'Each page hangs under the page that first linked it at the least depth. Node size: importance. Drag to pan, scroll to zoom, click a node for its page.')),
    h('div', { class: 'panel' }, h('h2', undefined, 'As a tree'), listBox),
  );
  let stop: (() => void) | null = null;
  let gone = false;
  void api
    .get<CrawlTree>('/api/crawl-tree', { limit: 2000 })
    .then((tree) => {
      if (gone) return;
      note.textContent = tree.sampled
        ? `The ${formatCount(tree.nodes.length)} most important of ${formatCount(tree.total)} pages (and their ancestors) are drawn.`
        : `${formatCount(tree.total)} pages${tree.importance.method === null ? '' : `; importance: ${tree.importance.method} (run ${tree.importance.run})`}.`;
      stop = drawForceTree(forceBox, tree.nodes, openPage);
      const max = Math.max(Number.MIN_VALUE, ...tree.nodes.map((p) => p.importance ?? 0));
      const items = new Map<number, TreeItem>();
      for (const p of tree.nodes) {
        items.set(p.id, {
          label: () => pageLink(p.url, p.url),
          note: p.importance === null ? undefined : formatScore(p.importance),
          dot: { colour: statusColour(p.status), size: 6 + Math.round(8 * Math.sqrt((p.importance ?? 0) / max)) },
          children: [],
        });
      }
      const roots: TreeItem[] = [];
      for (const p of tree.nodes) {
        const item = items.get(p.id)!;
        const parent = p.parent === null ? undefined : items.get(p.parent);
        (parent?.children ?? roots).push(item);
      }
      const byImportance = new Map(tree.nodes.map((p) => [items.get(p.id)!, p.importance ?? 0]));
      for (const item of items.values()) item.children.sort((a, b) => byImportance.get(b)! - byImportance.get(a)!);
      replace(listBox, treeList(roots, 1));
    })
    .catch((error: unknown) => {
      note.textContent = '';
      failure(forceBox)(error);
    });
  return () => {
    gone = true;
    stop?.();
  };
}

function directories(body: HTMLElement): void {
  const box = h('div', { 'data-directories': '' }, h('p', { class: 'muted' }, 'Loading…'));
  body.append(h('div', { class: 'panel' }, h('h2', undefined, 'Directory tree of URL paths'), box));
  const toItem = (node: DirectoryNode, parentPages: number): TreeItem => ({
    label: () => ((node.children?.length ?? 0) > 0 && !node.name.endsWith('/') ? `${node.name}/` : node.name),
    note: `${formatCount(node.pages)} page${node.pages === 1 ? '' : 's'}`,
    share: parentPages > 0 ? node.pages / parentPages : undefined,
    children: (node.children ?? []).slice().sort((a, b) => b.pages - a.pages).map((child) => toItem(child, node.pages)),
  });
  void api
    .get<DirectoryTree>('/api/dir-tree', { maxChildren: 50, maxDepth: 8 })
    .then((tree) => {
      replace(box, treeList((tree.children ?? []).map((child) => toItem(child, tree.pages)), 1));
      if (tree.truncated) box.appendChild(h('small', { class: 'muted' }, 'Only the 50 largest entries of each directory are listed.'));
    })
    .catch(failure(box));
}

interface HostGraph {
  level: 'host' | 'domain';
  nodes: Array<{ host: string; pages: number; pagerank: number }>;
  links: Array<{ source: number; target: number; links: number }>;
  hosts: number;
  hostLinks: number;
  selfLinksDropped: number;
}

/** The host graph or the pay-level-domain graph (`wga rank --level host|domain`): sites with their pages and weighted PageRank, and the links between them. */
function hosts(body: HTMLElement): void {
  const box = h('div', { 'data-hosts': '' }, h('p', { class: 'muted' }, 'Loading…'));
  const levelSelect = h('select', { 'aria-label': 'level', 'data-level': '' }, h('option', { value: 'host' }, 'Hosts'), h('option', { value: 'domain' }, 'Pay-level domains'));
  const title = h('h2', undefined, 'Host graph');
  body.append(h('div', { class: 'panel' }, title, h('div', { class: 'row' }, levelSelect), box));
  const load = (): void => {
    const level = levelSelect.value === 'domain' ? 'domain' : 'host';
    title.textContent = level === 'domain' ? 'Domain graph' : 'Host graph';
    replace(box, h('p', { class: 'muted' }, 'Loading…'));
    void api
    .get<HostGraph>('/api/hosts', { level })
    .then((g) => {
      const unit = g.level === 'domain' ? 'domain' : 'host';
      const rows = g.links
        .slice()
        .sort((a, b) => b.links - a.links)
        .slice(0, 200)
        .map((l) => [g.nodes[l.source]?.host ?? '?', g.nodes[l.target]?.host ?? '?', formatCount(l.links)]);
      replace(
        box,
        h('p', { class: 'muted' }, `${formatCount(g.hosts)} ${unit}s, ${formatCount(g.hostLinks)} links between them (weighted by page links); ${formatCount(g.selfLinksDropped)} page links stay inside one ${unit}. PageRank weighted by page-link counts, as wga rank --level ${unit} ranks them.`),
        table(
          [unit, 'pages', 'PageRank'],
          g.nodes.slice().sort((a, b) => b.pagerank - a.pagerank).slice(0, 200).map((n) => [n.host, formatCount(n.pages), formatScore(n.pagerank)]),
          [1, 2],
        ),
        h('h3', undefined, `Links between ${unit}s`),
        rows.length === 0 ? h('p', { class: 'muted' }, `No links between different ${unit}s.`) : table(['from', 'to', 'links'], rows, [2]),
      );
    })
    .catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) replace(box, notice('info', 'This server does not offer the host graph yet.'));
      else failure(box)(error);
    });
  };
  levelSelect.addEventListener('change', load);
  load();
}
