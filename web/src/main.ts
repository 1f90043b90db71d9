/**
 * The wga GUI's entry point: the shell (tabs, the summary line) and the routes, those of a store or,
 * when the server serves a compact graph file (`wga serve --graph`), those of the file. Each view
 * is its own module in views/; drawings and plots are in charts/.
 */
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { api } from './api.js';
import { formatCount, h, replace, routeLink } from './dom.js';
import { type Route, startRouter } from './router.js';
import { auditView } from './views/audit.js';
import { changesView } from './views/changes.js';
import { crawlView } from './views/crawl.js';
import { dataView } from './views/data.js';
import { graphView } from './views/graph.js';
import { graphFileDistancesView, graphFileNodeView, graphFileRanksView } from './views/graph-file.js';
import { notFoundView } from './views/not-found.js';
import { pageView } from './views/page.js';
import { pagesTableView } from './views/pages-table.js';
import { rankView } from './views/rank.js';
import { searchView } from './views/search.js';
import type { GraphFileInfo, Info } from './types.js';

const ROUTES: Route[] = [
  { path: '/crawl', title: 'Crawl', view: crawlView, tab: 'crawl' },
  { path: '/changes', title: 'Changes', view: changesView, tab: 'crawl' },
  { path: '/rank', title: 'Rank', view: rankView, tab: 'rank' },
  { path: '/pages', title: 'Pages', view: pagesTableView, tab: 'pages' },
  { path: '/search', title: 'Search', view: searchView, tab: 'pages' },
  { path: '/page', title: 'Page', view: pageView, tab: 'pages' },
  { path: '/audit', title: 'Audit', view: auditView, tab: 'audit' },
  { path: '/graph', title: 'Graph', view: graphView, tab: 'graph' },
  { path: '/data', title: 'Data', view: dataView, tab: 'data' },
  { path: '/not-found', title: 'Not found', view: notFoundView, tab: '' },
];

const TABS: Array<[string, string, string]> = [
  ['crawl', '/crawl', 'Crawl'],
  ['rank', '/rank', 'Rank'],
  ['pages', '/pages', 'Pages'],
  ['audit', '/audit', 'Audit'],
  ['graph', '/graph', 'Graph'],
  ['data', '/data', 'Data'],
];

/** `wga serve --graph G.wgc`: a compact graph file and what was saved beside it. */
const GRAPH_FILE_ROUTES: Route[] = [
  { path: '/ranks', title: 'Rankings', view: graphFileRanksView, tab: 'ranks' },
  { path: '/node', title: 'Page', view: graphFileNodeView, tab: 'ranks' },
  { path: '/distances', title: 'Distances', view: graphFileDistancesView, tab: 'distances' },
  { path: '/not-found', title: 'Not found', view: notFoundView, tab: '' },
];

const GRAPH_FILE_TABS: Array<[string, string, string]> = [
  ['ranks', '/ranks', 'Rankings'],
  ['distances', '/distances', 'Distances'],
];

let summaryTimer: ReturnType<typeof setTimeout> | undefined;

function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** The store's size in the header; views call it after changing the data. */
export async function refreshSummary(): Promise<void> {
  const box = document.getElementById('store-summary');
  if (box === null) return;
  try {
    const info = await api.get<Info | GraphFileInfo>('/api/info');
    if (info.mode === 'graph') {
      replace(box, h('span', { title: info.file }, `${info.file} · ${plural(info.nodes, 'page')} · ${plural(info.links, 'link')} · compact graph file`));
      return;
    }
    const crawling = info.crawl.running ? ' · crawling' : '';
    const c = info.counts;
    replace(box, h('span', { title: info.store }, `${plural(c.pages, 'page')} · ${plural(c.links, 'link')} · ${plural(c.runs, 'run')}${crawling}`));
    // While a crawl runs the store grows: look again in a few seconds.
    clearTimeout(summaryTimer);
    if (info.crawl.running) summaryTimer = setTimeout(() => void refreshSummary(), 3000);
  } catch {
    replace(box, h('span', { class: 'muted' }, 'store unavailable'));
  }
}

/** Whether the server serves a graph file (its /api/info says so); a store when it cannot tell. */
async function servesGraphFile(): Promise<boolean> {
  try {
    return (await api.get<Info | GraphFileInfo>('/api/info')).mode === 'graph';
  } catch {
    return false;
  }
}

async function start(): Promise<void> {
  const graphFile = await servesGraphFile();
  const nav = document.getElementById('tabs')!;
  const links = new Map<string, HTMLAnchorElement>();
  for (const [tab, path, label] of graphFile ? GRAPH_FILE_TABS : TABS) {
    const link = routeLink(path, {}, label, { class: 'tab', 'data-tab': tab });
    links.set(tab, link);
    nav.appendChild(link);
  }
  const shown = (route: Route): void => {
    for (const [tab, link] of links) {
      link.classList.toggle('active', tab === route.tab);
      if (tab === route.tab) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  };
  startRouter(graphFile ? GRAPH_FILE_ROUTES : ROUTES, document.getElementById('outlet')!, shown, graphFile ? '/ranks' : '/crawl');
  void refreshSummary();
  window.addEventListener('wga:data-changed', () => void refreshSummary());
}

void start();
