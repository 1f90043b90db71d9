/**
 * `wga demo`, the README's first command: the whole tool in one run. It
 * serves a generated website on 127.0.0.1 (experiments/website.ts: power-law
 * links, broken links, redirects, a robots.txt rule, a spider trap), crawls
 * it into an embedded SQLite store with OPIC Greedy, then analyses what it
 * collected: OPIC's on-line estimates beside the exact PageRank of the crawled
 * graph (Kendall tau), strongly connected components, levels from the home
 * page and dangling pages. The store is kept so that every other command can
 * be tried on it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { kendallTau } from '../../analysis/compare.js';
import { degreeSummary } from '../../analysis/degrees.js';
import { levels } from '../../analysis/levels.js';
import { pagerank } from '../../analysis/pagerank.js';
import { stronglyConnectedComponents } from '../../analysis/scc.js';
import { topK } from '../../analysis/top.js';
import { Crawler, type CrawlProgress, type CrawlReport } from '../../crawl/crawler.js';
import { completeSettings } from '../../crawl/settings.js';
import { WgaError, ExitCode } from '../../errors.js';
import { Website } from '../../experiments/website.js';
import { serveWebsite } from '../../experiments/website-server.js';
import { openStore } from '../../store/open.js';
import { count, levelsTable, percent, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { integerOption } from '../values.js';
import { progressLine } from './crawl.js';

interface DemoOptions {
  pages?: string;
  seed?: string;
  passes?: string;
  db?: string;
  concurrency?: string;
  json?: boolean;
}

/** The spider trap (/calendar/N.html links to N+1, forever) is fenced off after ten pages. */
const TRAP_FENCE = '/calendar/[0-9]{2,}\\.html$';

/** The `demo --json` contract (documented in the README). */
export interface DemoJson {
  site: { origin: string; pages: number; seed: number };
  store: string;
  crawl: CrawlReport;
  /** What the server was asked: robots.txt, the disallowed /private/ pages, the trap's pages. */
  requests: { total: number; robots: number; private: number; trap: number; mostAtOnce: number };
  graph: { pages: number; links: number; dangling: number; scc: { count: number; largest: number } };
  pagerank: { iterations: number; residual: number };
  /** Kendall tau-b between OPIC's estimates after the crawl and the exact PageRank of the crawled graph. */
  kendallTau: number;
  /** The same after the first pass and after the last one (the top pages are those of the last). */
  passes: Array<{ passes: number; fetches: number; kendallTau: number }>;
  top: Array<{ rank: number; url: string; opic: number; pagerank: number; pagerankRank: number }>;
  levels: { root: string; histogram: number[]; unreachable: number };
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('serve a generated website on 127.0.0.1, crawl it with OPIC into a SQLite store, and analyse what was collected')
    .option('--pages <n>', 'pages of the generated website (default: 3000)')
    .option('--seed <s>', 'random seed of the website (default: 1)')
    .option('--passes <n>', 'passes over the site: after the first, pages are read again, most important first (default: 3)')
    .option('--db <file>', 'the SQLite file to crawl into (default: a new file in the temporary directory)')
    .option('--concurrency <n>', 'requests at once (default: 8)')
    .option('--json', 'print one JSON document')
    .action(async (options: DemoOptions) => {
      const pages = integerOption('--pages', options.pages, 3000, 10);
      const seed = integerOption('--seed', options.seed, 1, 0);
      const concurrency = integerOption('--concurrency', options.concurrency, 8, 1);
      const passes = integerOption('--passes', options.passes, 3, 1);
      const path = options.db ?? join(mkdtempSync(join(tmpdir(), 'wga-demo-')), 'demo.sqlite');
      const result = await runDemo(pages, seed, passes, concurrency, path, options.json !== true);
      if (options.json === true) printJson(result);
      else printDemo(result);
    });
}

async function runDemo(pages: number, seed: number, passes: number, concurrency: number, path: string, showProgress: boolean): Promise<DemoJson> {
  const site = await serveWebsite(new Website({ pages, seed }));
  const store = await openStore(path, { create: true });
  try {
    if ((await store.counts()).pages > 0) {
      throw new WgaError(`--db ${store.location}: this store already has pages; give the demo a new file`, ExitCode.usage);
    }
    if (showProgress) print(`Serving a generated website of ${count(pages)} pages at ${site.origin}/ and crawling it into ${store.location} ...`);
    const settings = completeSettings({
      seeds: [`${site.origin}/`],
      // The site is on loopback, which a crawl refuses unless allowed; it is ours, so no politeness delay.
      allowIp: ['127.0.0.1/32'],
      delayMs: 0,
      perHost: concurrency,
      concurrency,
      fences: [TRAP_FENCE],
    });
    const tty = showProgress && process.stderr.isTTY === true;
    const crawlOptions = {
      progressMs: 250,
      ...(tty ? { onProgress: (p: CrawlProgress) => process.stderr.write(`\r\x1b[K${progressLine(p).slice(0, (process.stderr.columns ?? 200) - 1)}`) } : {}),
    };
    const crawl = await Crawler.run(store, settings, crawlOptions);
    if (tty) process.stderr.write('\r\x1b[K');
    const { graph, pageIds } = await store.loadGraph();
    const rank = pagerank(graph);
    // OPIC's estimates after the first pass (every page read once), then after the later passes,
    // in which the crawl reads pages again (--refresh) and the estimates converge (OPIC paper, Section 3).
    let opic = await store.runScores(crawl.runs[0]!, pageIds);
    const taus = [{ passes: 1, fetches: crawl.fetches, kendallTau: kendallTau(opic, rank.scores) }];
    if (passes > 1) {
      const again = await Crawler.run(store, { ...settings, refresh: true, maxPages: passes * crawl.fetches }, { ...crawlOptions, resume: true });
      if (tty) process.stderr.write('\r\x1b[K');
      opic = await store.runScores(again.runs[0]!, pageIds);
      taus.push({ passes, fetches: again.fetches, kendallTau: kendallTau(opic, rank.scores) });
    }
    const tau = taus[taus.length - 1]!.kendallTau;
    const byPagerank = new Int32Array(graph.nodeCount);
    Array.from(topK(rank.scores, graph.nodeCount)).forEach((v, i) => (byPagerank[v] = i + 1));
    const components = stronglyConnectedComponents(graph);
    const root = pageIds.indexOf(1); // the seed is the first page stored
    const fromHome = levels(graph, [root]);
    const path = (p: string): number => site.requests.get(p) ?? 0;
    let privateRequests = 0;
    let trap = 0;
    let total = 0;
    for (const [p, n] of site.requests) {
      total += n;
      if (p.startsWith('/private/')) privateRequests += n;
      if (p.startsWith('/calendar/')) trap += n;
    }
    return {
      site: { origin: site.origin, pages, seed },
      store: store.location,
      crawl,
      requests: { total, robots: path('/robots.txt'), private: privateRequests, trap, mostAtOnce: site.maxConcurrent },
      graph: {
        pages: graph.nodeCount,
        links: graph.edgeCount,
        dangling: degreeSummary(graph).danglingNodes,
        scc: { count: components.count, largest: components.largest },
      },
      pagerank: { iterations: rank.iterations, residual: rank.residual },
      kendallTau: tau,
      passes: taus,
      top: Array.from(topK(opic, 10), (v, i) => ({
        rank: i + 1,
        url: graph.labels.label(v),
        opic: opic[v]!,
        pagerank: rank.scores[v]!,
        pagerankRank: byPagerank[v]!,
      })),
      levels: { root: graph.labels.label(root), histogram: fromHome.histogram, unreachable: fromHome.unreachable },
    };
  } finally {
    await store.close();
    await site.close();
  }
}

function printDemo(d: DemoJson): void {
  const c = d.crawl;
  print(`\nCrawled in ${seconds(c.seconds)} (${(c.fetches / c.seconds).toFixed(0)} pages/s):`);
  print(
    table([
      ['fetched (2xx HTML)', count(c.fetched)],
      ['failed (404s)', count(c.failed)],
      ['redirects (stored as links)', count(c.redirects)],
      ['excluded by robots.txt', `${count(c.excluded)} (the server saw ${d.requests.robots} robots.txt and ${d.requests.private} /private/ requests)`],
      ['other (2xx not HTML: the JSON files; PDFs are out of scope by extension)', count(c.other)],
      ['spider trap', `${d.requests.trap} /calendar/ pages requested, the rest fenced off by --fence '${TRAP_FENCE}'`],
      ['OPIC', `clock G = ${c.opicTime.toPrecision(4)}, total cash ${c.totalCash.toPrecision(12)}`],
    ]),
  );
  const n = d.graph.pages;
  print(`\nThe crawled graph: ${count(n)} pages, ${count(d.graph.links)} links`);
  print(
    table([
      ['dangling pages', `${count(d.graph.dangling)} (${percent(d.graph.dangling, n)}): failed, redirected elsewhere, or with no link`],
      ['SCCs', `${count(d.graph.scc.count)}; the giant one has ${count(d.graph.scc.largest)} pages (${percent(d.graph.scc.largest, n)})`],
    ]),
  );
  print(`\nMost important pages by OPIC (computed while crawling, ${d.passes.length > 1 ? `${d.passes[d.passes.length - 1]!.passes} passes` : 'one pass'}), beside exact PageRank of the crawled graph (${d.pagerank.iterations} iterations):`);
  print(
    table(
      [['rank', 'OPIC', 'PageRank', 'PR rank', 'page'], ...d.top.map((t) => [String(t.rank), score(t.opic), score(t.pagerank), String(t.pagerankRank), safeLabel(t.url)])],
      [0, 1, 2, 3],
    ),
  );
  for (const p of d.passes) {
    print(`Kendall tau between OPIC and PageRank over all ${count(n)} pages after ${p.passes === 1 ? 'the first pass' : `${p.passes} passes`} (${count(p.fetches)} fetches): ${p.kendallTau.toFixed(4)}`);
  }
  print(`\nClicks from the home page ${safeLabel(d.levels.root)}:`);
  print(levelsTable(d.levels.histogram, n));
  print(`${count(d.levels.unreachable)} pages cannot be reached from it.`);
  print(`\nThe store is kept: try  wga top --db ${d.store} --score opic,  wga search --db ${d.store} calendar,  wga rank --db ${d.store} --method traffic`);
}
