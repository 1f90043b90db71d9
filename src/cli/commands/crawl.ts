/**
 * `wga crawl SEED... --db STORE`: collect a sector of the web into a store,
 * with OPIC importance on-line (crawl/crawler.ts). Settings are kept in the
 * store, so `wga crawl --resume --db STORE` continues with the same ones;
 * options given with --resume change them. Ctrl-C stops cleanly (running
 * fetches finish, a last checkpoint is written); a second Ctrl-C leaves at
 * once, and the crawl resumes from its last checkpoint.
 */
import { resolve as resolvePath } from 'node:path';
import type { Command } from 'commander';
import { Crawler, type CrawlProgress, type CrawlReport } from '../../crawl/crawler.js';
import { CRAWL_STRATEGIES } from '../../crawl/frontier.js';
import { HOST_SCOPES } from '../../crawl/scope.js';
import { type CrawlSettings, compileSettings, completeSettings } from '../../crawl/settings.js';
import { OptionError } from '../../errors.js';
import { openStore } from '../../store/open.js';
import { CRAWL_STATE, type PageRecord, type Store } from '../../store/store.js';
import { count, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { choiceOption, integerOption, numberOption } from '../values.js';

interface CrawlCliOptions {
  db?: string;
  resume?: boolean;
  filter?: string[];
  fence?: string[];
  extensions?: string;
  hosts?: string;
  allowIp?: string[];
  denyIp?: string[];
  ipCountry?: string;
  country?: string[];
  denyCountry?: string[];
  resolve?: string[];
  delay?: string;
  perHost?: string;
  concurrency?: string;
  maxPages?: string;
  maxDepth?: string;
  maxTime?: string;
  strategy?: string;
  bufferSize?: string;
  refresh?: boolean;
  window?: string;
  focus?: string[];
  focusShare?: string;
  discoveryShare?: string;
  damping?: string;
  retries?: string;
  retryDelay?: string;
  userAgent?: string;
  timeout?: string;
  maxBody?: string;
  maxRedirects?: string;
  checkpoint?: string;
  live?: boolean;
  liveInterval?: string;
  top?: string;
  quiet?: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The settings the command line gives explicitly (the rest comes from the store or the defaults). */
export function settingsFromOptions(options: CrawlCliOptions): Partial<CrawlSettings> {
  const s: Partial<CrawlSettings> = {};
  if (options.filter !== undefined) s.filters = options.filter;
  if (options.fence !== undefined) s.fences = options.fence;
  if (options.extensions !== undefined) {
    s.extensions = options.extensions === 'any' ? null : options.extensions.split(',').map((e) => e.trim().replace(/^\./, '').toLowerCase()).filter((e) => e !== '');
  }
  if (options.hosts !== undefined) s.hosts = choiceOption('--hosts', options.hosts, HOST_SCOPES, 'seeds');
  if (options.allowIp !== undefined) s.allowIp = options.allowIp;
  if (options.denyIp !== undefined) s.denyIp = options.denyIp;
  if (options.ipCountry !== undefined) s.ipCountryFile = resolvePath(options.ipCountry);
  if (options.country !== undefined) s.countries = options.country;
  if (options.denyCountry !== undefined) s.denyCountries = options.denyCountry;
  if (options.resolve !== undefined) {
    s.resolve = Object.fromEntries(
      options.resolve.map((entry) => {
        const at = entry.lastIndexOf('=');
        if (at <= 0) throw new OptionError('--resolve', `expected HOST=ADDRESS, got '${entry}'`);
        return [entry.slice(0, at).toLowerCase(), entry.slice(at + 1)];
      }),
    );
  }
  if (options.delay !== undefined) s.delayMs = numberOption('--delay', options.delay, 0, { min: 0 });
  if (options.perHost !== undefined) s.perHost = integerOption('--per-host', options.perHost, 1, 1);
  if (options.concurrency !== undefined) s.concurrency = integerOption('--concurrency', options.concurrency, 8, 1);
  if (options.maxPages !== undefined) s.maxPages = integerOption('--max-pages', options.maxPages, 0, 0);
  if (options.maxDepth !== undefined) s.maxDepth = integerOption('--max-depth', options.maxDepth, 0, 0);
  if (options.maxTime !== undefined) s.maxTimeMs = 1000 * numberOption('--max-time', options.maxTime, 0, { min: 0, exclusiveMin: true });
  if (options.strategy !== undefined) s.strategy = choiceOption('--strategy', options.strategy, CRAWL_STRATEGIES, 'greedy');
  if (options.bufferSize !== undefined) s.bufferSize = integerOption('--buffer-size', options.bufferSize, 100, 1);
  if (options.refresh !== undefined) s.refresh = options.refresh;
  if (options.window !== undefined) s.windowPasses = numberOption('--window', options.window, 4, { min: 0, exclusiveMin: true });
  if (options.focus !== undefined) s.focus = options.focus;
  if (options.focusShare !== undefined) s.focusShare = numberOption('--focus-share', options.focusShare, 0.5, { min: 0, max: 1 });
  if (options.discoveryShare !== undefined) s.discoveryShare = numberOption('--discovery-share', options.discoveryShare, 0, { min: 0, max: 1 });
  if (options.damping !== undefined) s.damping = numberOption('--damping', options.damping, 0.85, { min: 0, max: 1 });
  if (options.retries !== undefined) s.retries = integerOption('--retries', options.retries, 2, 0);
  if (options.retryDelay !== undefined) s.retryDelayMs = numberOption('--retry-delay', options.retryDelay, 1000, { min: 0 });
  if (options.userAgent !== undefined) s.userAgent = options.userAgent;
  if (options.timeout !== undefined) s.pageTimeoutMs = 1000 * numberOption('--timeout', options.timeout, 60, { min: 0, exclusiveMin: true });
  if (options.maxBody !== undefined) s.maxBodyBytes = integerOption('--max-body', options.maxBody, 10 * 1024 * 1024, 1);
  if (options.maxRedirects !== undefined) s.maxRedirects = integerOption('--max-redirects', options.maxRedirects, 10, 0);
  if (options.live !== undefined) s.live = options.live;
  if (options.liveInterval !== undefined) s.liveIntervalMs = integerOption('--live-interval', options.liveInterval, 1000, 10);
  if (options.checkpoint !== undefined) s.checkpointMs = integerOption('--checkpoint', options.checkpoint, 1000, 10);
  return s;
}

/** The crawl's settings: stored ones on --resume, overridden by what the command line gives. */
export async function crawlSettings(store: Store, seeds: string[], options: CrawlCliOptions): Promise<CrawlSettings> {
  const given = settingsFromOptions(options);
  let stored: Partial<CrawlSettings> & { seeds: string[] } = { seeds: [] };
  if (options.resume === true) {
    const text = (await store.crawlState())[CRAWL_STATE.settings];
    if (text !== undefined) stored = JSON.parse(text) as CrawlSettings;
  }
  const merged = { ...stored, ...given, seeds: [...new Set([...stored.seeds, ...seeds])] };
  // With --filter describing the sector, hosts are not limited to the seeds' unless asked.
  if (merged.hosts === undefined && (merged.filters?.length ?? 0) > 0) merged.hosts = 'any';
  return completeSettings(merged);
}

export function progressLine(p: CrawlProgress): string {
  // The live PageRank's ranking when there is one, else OPIC's estimates.
  const top = (p.live?.top ?? p.top).map((t) => `${safeLabel(t.url, 60)} ${score(t.importance)}`).join(', ');
  const label = p.live === null ? 'top' : `live PageRank of ${count(p.live.pages)}`;
  return (
    `${count(p.fetched)} fetched, ${p.pagesPerSecond.toFixed(0)} pages/s, frontier ${count(p.frontier)}, ` +
    `${count(p.failed)} failed, ${count(p.excluded)} excluded, ${p.inFlight} in flight${top === '' ? '' : ` | ${label}: ${top}`}`
  );
}

/** The `crawl --json` contract (documented in the README). */
export interface CrawlJson extends CrawlReport {
  store: string;
  seeds: string[];
  settings: CrawlSettings;
  top: Array<{ rank: number; url: string; importance: number; status: number | null }>;
}

export function registerCrawl(program: Command): void {
  program
    .command('crawl')
    .description('crawl a sector of the web into a store, fetching the most important pages first (OPIC Greedy)')
    .argument('[seeds...]', 'URLs to start from (with --resume: more seeds to add)')
    .option('--db <store>', 'the store: a SQLite file (created if missing) or a postgres:// URL')
    .option('--resume', 'continue the crawl in the store, with its settings (options given here change them)')
    .option('--filter <regex>', 'a URL must match one of these to be fetched (repeatable)', collect)
    .option('--fence <regex>', 'a URL matching any of these is never fetched (repeatable)', collect)
    .option('--extensions <list>', "file extensions fetched, comma-separated, or 'any' (default: all but images, media, archives, documents, styles, scripts)")
    .option('--hosts <scope>', "hosts crawled: 'seeds' (the seeds' hosts), 'domain' (and their subdomains), 'any' (default: seeds, or any with --filter)")
    .option('--allow-ip <cidr>', 'only connect to addresses in these ranges; also allows private and loopback ones (repeatable)', collect)
    .option('--deny-ip <cidr>', 'never connect to addresses in these ranges (repeatable)', collect)
    .option('--ip-country <file>', 'table of IP ranges and their countries (lines "CIDR CC" or "FIRST LAST CC")')
    .option('--country <cc>', 'only connect to servers in these countries, by --ip-country (repeatable)', collect)
    .option('--deny-country <cc>', 'never connect to servers in these countries (repeatable)', collect)
    .option('--resolve <host=address>', 'use this address for this host instead of DNS (repeatable)', collect)
    .option('--delay <ms>', 'minimum time between two requests to one host, or its robots.txt Crawl-delay if larger (default: 1000)')
    .option('--per-host <n>', 'connections per host (default: 1)')
    .option('--concurrency <n>', 'requests at once, all hosts together (default: 8)')
    .option('--max-pages <n>', 'stop after this many page fetches in the whole crawl')
    .option('--max-depth <n>', 'do not fetch pages more than this many clicks from a seed')
    .option('--max-time <seconds>', 'stop this session after this long')
    .option('--strategy <s>', `order of fetches: ${CRAWL_STRATEGIES.join(', ')} (default: greedy, the most OPIC cash first; pagerank: the highest live PageRank first)`)
    .option('--buffer-size <n>', "buffer strategy: the length of the buffer of new pages (default: 100)")
    .option('--refresh', 'keep crawling: read fetched pages again, most important first (Adaptive OPIC keeps importance current)')
    .option('--window <passes>', 'Adaptive OPIC Interpolation window, in passes over the known pages (default: 4)')
    .option('--focus <regex>', 'pages whose URL matches get the focus share of the virtual page\'s cash (repeatable)', collect)
    .option('--focus-share <x>', 'share of the virtual page\'s payouts for focus pages (default: 0.5 with --focus)')
    .option('--discovery-share <x>', 'share of the virtual page\'s payouts for pages never fetched (default: 0)')
    .option('--damping <c>', 'OPIC: share of a page\'s cash passed to its links (default: 0.85, as PageRank)')
    .option('--retries <n>', 'retries of a fetch after a 5xx, 429, timeout or network error (default: 2)')
    .option('--retry-delay <ms>', 'first retry after this long, doubling each time (default: 1000)')
    .option('--user-agent <text>', 'the User-Agent sent and matched in robots.txt')
    .option('--timeout <seconds>', 'longest time for one page (default: 60)')
    .option('--max-body <bytes>', 'pages larger than this fail (default: 10485760)')
    .option('--max-redirects <n>', 'longest chain of redirects followed (default: 10)')
    .option('--no-live', 'no live PageRank of the pages found while crawling (docs/live-importance.md)')
    .option('--live', 'a live PageRank of the pages found, updated in a worker thread while crawling (the default)')
    .option('--live-interval <ms>', 'least time between two live PageRank updates (default: 1000)')
    .option('--checkpoint <ms>', 'write to the store this often (default: 1000)')
    .option('--top <k>', 'pages listed at the end (default: 10)')
    .option('-q, --quiet', 'no progress on stderr')
    .option('--json', 'print one JSON document at the end')
    .action(async (seeds: string[], options: CrawlCliOptions) => {
      if (options.db === undefined) throw new OptionError('--db', 'missing: the store to crawl into (a SQLite file or a postgres:// URL)');
      const k = integerOption('--top', options.top, 10, 1);
      // Options are checked before the store is opened, so that a mistyped command creates no file.
      compileSettings(completeSettings({ ...settingsFromOptions(options), seeds }), []);
      const store = await openStore(options.db, { create: true });
      const controller = new AbortController();
      let interrupts = 0;
      const onSignal = (): void => {
        interrupts++;
        if (interrupts === 1) {
          process.stderr.write('\nwga: stopping: finishing running fetches and writing a checkpoint (Ctrl-C again to leave now; --resume continues)\n');
          controller.abort();
        } else process.exit(130);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const settings = await crawlSettings(store, seeds, options);
        const tty = process.stderr.isTTY === true;
        const report = await Crawler.run(store, settings, {
          resume: options.resume === true,
          signal: controller.signal,
          progressMs: tty ? 500 : 5000,
          ...(options.quiet === true
            ? {}
            : { onProgress: (p: CrawlProgress) => process.stderr.write(tty ? `\r\x1b[K${progressLine(p).slice(0, (process.stderr.columns ?? 200) - 1)}` : `${progressLine(p)}\n`) }),
        });
        if (options.quiet !== true && tty) process.stderr.write('\r\x1b[K');
        // runs[0] is plain OPIC's estimate (see printReport).
        const top = (await store.topPages(report.runs[0]!, k)).map((t, i) => ({ rank: i + 1, page: t.page, value: t.value }));
        printReport(store.location, settings, report, top, options.json === true);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await store.close();
      }
    });
}

function printReport(location: string, settings: CrawlSettings, report: CrawlReport, top: Array<{ rank: number; page: PageRecord; value: number }>, json: boolean): void {
  if (json) {
    const result: CrawlJson = {
      store: location,
      seeds: settings.seeds,
      ...report,
      settings,
      top: top.map((t) => ({ rank: t.rank, url: t.page.url, importance: t.value, status: t.page.status })),
    };
    printJson(result);
    return;
  }
  const stopped = { done: 'frontier empty', 'max-pages': '--max-pages reached', 'max-time': '--max-time reached', stopped: 'stopped' }[report.stoppedBy];
  print(`crawled into ${location} in ${seconds(report.seconds)} (${stopped}): ${count(report.known)} pages known, ${count(report.fetched)} fetched`);
  print(
    table([
      ['fetched (2xx HTML)', count(report.fetched)],
      ['redirects', count(report.redirects)],
      ['failed', count(report.failed)],
      ['excluded (robots.txt, addresses)', count(report.excluded)],
      ['other (not HTML)', count(report.other)],
      ['frontier (never fetched)', count(report.frontier)],
      ['hosts', count(report.hosts)],
      ['requests (this session)', `${count(report.requests)} (${count(report.retries)} retries)`],
      ['OPIC clock G', `${report.opicTime.toPrecision(6)} (error factor 1/G = ${(1 / report.opicTime).toPrecision(3)}), total cash ${report.totalCash.toPrecision(12)}`],
    ]),
  );
  // The plain OPIC estimate: Adaptive OPIC's (saved as its own run with --refresh) only means something
  // once the crawl has lasted several windows (--window passes), and is noisier on a site that does not change.
  print(`\nMost important pages (OPIC estimate${settings.refresh ? `; Adaptive OPIC's is run ${report.runs[1] ?? '-'}` : ''}):`);
  print(table([['rank', 'importance', 'status', 'page'], ...top.map((t) => [String(t.rank), score(t.value), t.page.status === null ? '-' : String(t.page.status), safeLabel(t.page.url)])], [0, 1]));
  if (report.frontier > 0) {
    const more = report.stoppedBy === 'max-pages' && settings.maxPages !== null ? ` --max-pages ${settings.maxPages * 2}` : '';
    print(`\n${count(report.frontier)} known pages were not fetched; continue with: wga crawl --resume --db ${location}${more}`);
  }
}
