/**
 * The wga GUI's entry point: the shell (tabs, the store's summary line) and the routes. Each view
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
import { notFoundView } from './views/not-found.js';
import { pageView } from './views/page.js';
import { pagesTableView } from './views/pages-table.js';
import { rankView } from './views/rank.js';
import { searchView } from './views/search.js';
import type { Info } from './types.js';

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

let summaryTimer: ReturnType<typeof setTimeout> | undefined;

function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** The store's size in the header; views call it after changing the data. */
export async function refreshSummary(): Promise<void> {
  const box = document.getElementById('store-summary');
  if (box === null) return;
  try {
    const info = await api.get<Info>('/api/info');
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

function start(): void {
  const nav = document.getElementById('tabs')!;
  const links = new Map<string, HTMLAnchorElement>();
  for (const [tab, path, label] of TABS) {
    const link = routeLink(path, {}, label, { class: 'tab', 'data-tab': tab });
    links.set(tab, link);
    nav.appendChild(link);
  }
  startRouter(ROUTES, document.getElementById('outlet')!, (route) => {
    for (const [tab, link] of links) {
      link.classList.toggle('active', tab === route.tab);
      if (tab === route.tab) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  });
  void refreshSummary();
  window.addEventListener('wga:data-changed', () => void refreshSummary());
}

start();
