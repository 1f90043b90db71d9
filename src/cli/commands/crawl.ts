/**
 * `wga crawl SEED... --db STORE`: collect a sector of the web into a store,
 * with OPIC importance on-line (crawl/crawler.ts). Settings are kept in the
 * store, so `wga crawl --resume --db STORE` continues with the same ones;
 * options given with --resume change them. Ctrl-C stops cleanly (running
 * fetches finish, a last checkpoint is written); a second Ctrl-C leaves at
 * once, and the crawl resumes from its last checkpoint.
 */
import type { Command } from 'commander';
import { type CrawlCliOptions, type CrawlJson, checkCrawlOptions, collect, runCrawl } from '../../app/crawl.js';
import type { CrawlProgress } from '../../crawl/crawler.js';
import { CRAWL_STRATEGIES } from '../../crawl/frontier.js';
import { ipDelayOf, memoryBudgetOf, perIpOf } from '../../crawl/settings.js';
import { ExitCode, OptionError, WgaError } from '../../errors.js';
import { openStore } from '../../store/open.js';
import { count, megabytes, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { integerOption } from '../values.js';

export { type CrawlJson, crawlSettings, settingsFromOptions } from '../../app/crawl.js';
import { sharedCrawlCommand, wantsSharedCrawl } from './crawl-shared.js';

export function progressLine(p: CrawlProgress): string {
  // The live PageRank's ranking when there is one, else OPIC's estimates.
  const top = (p.live?.top ?? p.top).map((t) => `${safeLabel(t.url, 60)} ${score(t.importance)}`).join(', ');
  const label = p.live === null ? 'top' : `live PageRank of ${count(p.live.pages)}`;
  return (
    `${count(p.fetched)} fetched, ${p.pagesPerSecond.toFixed(0)} pages/s, frontier ${count(p.frontier)}, ` +
    `${count(p.failed)} failed, ${count(p.excluded)} excluded, ${p.inFlight} in flight` +
    `${p.checkpoints.count > 0 ? `, checkpoint ${p.checkpoints.lastMs.toFixed(0)} ms` : ''}` +
    `${p.rendered > 0 ? `, ${count(p.rendered)} rendered` : ''}${top === '' ? '' : ` | ${label}: ${top}`}`
  );
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
    .option('--per-ip <n>', 'requests at once to one server address, all the hosts it serves together (default: 4 x --per-host)')
    .option('--ip-delay <ms>', 'minimum time between two requests to one server address (default: --delay / 4)')
    .option('--dns <server[:port]>', 'ask this DNS server directly (A and AAAA, with their TTLs) instead of the system resolver')
    .option('--dns-timeout <seconds>', 'longest wait for a DNS answer (default: 5)')
    .option('--dns-min-ttl <seconds>', 'keep DNS answers at least this long (default: 60)')
    .option('--dns-max-ttl <seconds>', 'keep DNS answers at most this long (default: 3600)')
    .option('--dns-negative-ttl <seconds>', 'remember a failed lookup this long (default: 300)')
    .option('--dns-concurrency <n>', 'names looked up at once (default: 16)')
    .option('--dns-cache <n>', 'names the DNS cache holds; the oldest are let go first, and counted (default: 100000)')
    .option('--keep-alive-hosts <n>', 'hosts whose idle connections stay open; beyond, those of the hosts used longest ago are closed, and counted (default: 512)')
    .option('--concurrency <n>', 'requests at once, all hosts together (default: 8)')
    .option('--max-pages <n>', 'stop after this many page fetches in the whole crawl')
    .option('--max-depth <n>', 'do not fetch pages more than this many clicks from a seed')
    .option('--max-time <seconds>', 'stop this session after this long')
    .option('--memory <size>', "stop this session (after a checkpoint) when the crawl's resident memory reaches this, e.g. 6GB (default: 3/4 of the machine's)")
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
    .option('--live-share <share>', 'share of one core the live PageRank may use on average; its vectors are then less converged (default: 1, no bound)')
    .option('--live-inline-edges <n>', 'links the live PageRank may follow on the crawler\'s thread before it moves to a worker thread (default: 5000000; 0: a worker from the start)')
    .option('--no-compression', 'do not ask for compressed answers (answers compressed anyway are still decoded)')
    .option('--no-sitemaps', "do not read sitemaps (robots.txt's Sitemap lines, else /sitemap.xml)")
    .option('--max-sitemaps <n>', 'sitemaps read per host and session, indexes included (default: 50)')
    .option('--max-sitemap-entries <n>', 'URLs read of one sitemap (default: 50000)')
    .option('--respect-nofollow', 'find no new page through rel=nofollow links (they are still recorded between known pages)')
    .option('--recrawl', 'read every page fetched before once more (conditional requests: unchanged pages cost a 304), most important first, then stop')
    .option('--warc <dir>', 'write every request and answer to WARC/1.1 files in this directory')
    .option('--warc-size <bytes>', 'start a new WARC file past this size (default: 1000000000)')
    .option('--render <mode>', 'render pages in headless Chromium to find the links scripts write: never, auto (pages whose HTML looks built by scripts, and hosts where rendering found links) or always (default: auto; auto reads pages as served when no browser is installed)')
    .option('--browser <path>', 'the Chromium executable for --render (default: /usr/bin/chromium, or another found)')
    .option('--render-concurrency <n>', 'pages rendered at once, in tabs of one browser (default: one per core, at most 8)')
    .option('--render-timeout <seconds>', 'longest time to render a page; past it its links are read as they are (default: 15)')
    .option('--render-budget <times>', "--render auto: the renders it chooses (samples, whole hosts; not application shells) take at most this many times the crawl's time (default: 0.25)")
    .option('--render-idle <seconds>', 'close the browser when no page has needed it for this long (default: 30)')
    .option('--max-links-per-page <n>', 'distinct links kept per page; pages with more are cut there and counted (default: 100000)')
    .option('--render-quiet <ms>', 'a rendered page has settled after this long without a request or a DOM change (default: 500)')
    .option('--render-resources <types>', 'what rendered pages may load, through the crawl\'s rules: script,stylesheet,fetch,xhr (default), also image,media,font,texttrack,manifest,other')
    .option('--checkpoint <ms>', 'write to the store this often (default: 1000)')
    .option('--checkpoint-pages <n>', 'while a checkpoint is written, fetch at most this many pages (or 10 times as many links, or twice as many new pages) more, then wait for it (default: 10000)')
    .option('--store-retry <seconds>', 'when the store stops answering, try a checkpoint again this long before stopping (default: 120)')
    .option('--top <k>', 'pages listed at the end (default: 10)')
    .option('-q, --quiet', 'no progress on stderr')
    .option('--json', 'print one JSON document at the end')
    .option('--shared', 'start a crawl several processes work on together (PostgreSQL store); more join with --join')
    .option('--join', 'work on the shared crawl in the store until it is finished (any machine that reaches the database)')
    .option('--instances <n>', 'a shared crawl worked on by N processes of this machine (starts it, or joins it with --join)')
    .option('--partitions <n>', 'shared crawl: partitions the hosts are split into (default: 64)')
    .option('--lease <ms>', 'shared crawl: an instance silent this long loses its partitions to the others (default: 30000)')
    .action(async (seeds: string[], options: CrawlCliOptions) => {
      if (options.db === undefined) throw new OptionError('--db', 'missing: the store to crawl into (a SQLite file or a postgres:// URL)');
      if (wantsSharedCrawl(options)) return sharedCrawlCommand(seeds, { ...options, db: options.db });
      integerOption('--top', options.top, 10, 1);
      // Options are checked before the store is opened, so that a mistyped command creates no file.
      checkCrawlOptions(seeds, options);
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
        const tty = process.stderr.isTTY === true;
        const report = await runCrawl(
          store,
          seeds,
          { ...options, progressMs: tty ? 500 : 5000 },
          {
            signal: controller.signal,
            onNotice: (message) => process.stderr.write(`${process.stderr.isTTY === true ? '\r\x1b[K' : ''}wga: ${message}\n`),
            ...(options.quiet === true
              ? {}
              : {
                  onProgress: (event) => {
                    const line = progressLine(event.data as unknown as CrawlProgress);
                    process.stderr.write(tty ? `\r\x1b[K${line.slice(0, (process.stderr.columns ?? 200) - 1)}` : `${line}\n`);
                  },
                }),
          },
        );
        if (options.quiet !== true && tty) process.stderr.write('\r\x1b[K');
        printReport(report, options.json === true);
        // A crawl none of whose seeds got an answer did nothing a user wanted: say why, per seed, and fail.
        const answered = report.seedAnswers.some((s) => s.status !== null);
        if (!answered && report.stoppedBy !== 'stopped') {
          for (const seed of report.seedAnswers) process.stderr.write(`wga: seed ${safeLabel(seed.url, 200)}: ${seed.error === null ? 'not fetched' : safeLabel(seed.error, 300)}\n`);
          throw new WgaError(`nothing was fetched: ${report.seedAnswers.length === 1 ? 'the seed was' : 'every seed was'} refused or unanswered (above)`, ExitCode.input);
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await store.close();
      }
    });
}

/** Hosts whose --render auto verdict the report prints (--json has them all). */
const HOSTS_SHOWN = 10;

/** The report's lines on rendering (--render): what the browser rendered and what it added. */
export function renderRows(report: CrawlJson): string[][] {
  if (report.renderUnavailable) return [['rendered (--render auto)', 'none: no Chromium on this machine (install chromium, or give --browser; --render never silences this)']];
  const r = report.renderer;
  const rows: string[][] =
    r === null || r.launches === 0
      ? report.settings.render === 'never'
        ? []
        : [['rendered (--render ' + report.settings.render + ')', 'none']]
      : r.rendered + r.failed === 0
        ? [['rendered in Chromium', 'none: the browser started, and no page had finished rendering when the crawl ended']]
        : [
          ['rendered in Chromium', `${count(r.rendered)} pages (${count(r.unsettled)} not settled in time, ${count(r.failed)} failed; ${seconds(r.renderMs / 1000 / (r.rendered + r.failed))} each)`],
          ['links only rendering found', count(report.renderedLinks)],
          ['subresources', `${count(r.subresources)} fetched, ${count(r.cacheHits)} reused, ${count(r.blocked)} blocked by type, ${count(r.refused)} refused or failed`],
        ];
  // --render auto: per host, what was decided, why, and how to get the other choice.
  const hosts = report.renderHosts ?? [];
  for (const host of hosts.slice(0, HOSTS_SHOWN)) rows.push([`  ${safeLabel(host.host, 60)}`, safeLabel(host.reason, 400)]);
  if (hosts.length > HOSTS_SHOWN) rows.push(['', `${count(hosts.length - HOSTS_SHOWN)} more hosts with scripts: --json lists them (renderHosts)`]);
  return rows;
}

/** Hosts, the server addresses they were grouped under, and the limits each address had. */
/** The live PageRank's cost, and the vectors its share of a core held back (--live-share), when it did. */
function liveRows(report: CrawlJson): string[][] {
  const live = report.live;
  if (live === null || live === undefined) return [];
  const cpu = Number.isFinite(live.cpuMs) ? `, ${seconds(live.cpuMs / 1000)} of CPU` : '';
  const bound = Number.isFinite(live.errorBound) ? `, the final one within ${live.errorBound.toExponential(1)} (L1)` : '';
  const rows = [['live PageRank', `${count(live.updates)} vectors${cpu}${bound}`]];
  if (live.held > 0) rows.push(['live PageRank held back', `${count(live.held)} updates, ${seconds(live.heldMs / 1000)} beyond --live-interval, to keep to --live-share ${live.share} of a core`]);
  return rows;
}

function hostsLine(report: CrawlJson): string {
  const delay = ipDelayOf(report.settings);
  const spacing = delay > 0 ? `, ${Math.round(delay)} ms apart` : '';
  const servers = report.servers === 1 ? '1 server address' : `${count(report.servers)} server addresses`;
  return `${count(report.hosts)} on ${servers} (each asked at most ${count(perIpOf(report.settings))} requests at once${spacing}: --per-ip, --ip-delay)`;
}

/** The DNS line: lookups, the cache's share, failures, and the cache's cap when it bit. */
function dnsRows(report: CrawlJson): string[][] {
  const d = report.dns;
  if (d === undefined || d.lookups + d.cached === 0) return [];
  const failed = d.failed > 0 ? `, ${count(d.failed)} failed (${count(d.timeouts)} timed out)` : '';
  const evicted = d.evicted > 0 ? `, ${count(d.evicted)} names let go (cache full: --dns-cache ${count(report.settings.dnsCache)})` : '';
  return [['DNS', `${count(d.lookups)} lookups (${count(d.maxInFlight)} at most at once), ${count(d.cached)} answered from the cache${failed}${evicted}`]];
}

/** The connections line, when --keep-alive-hosts closed idle connections. */
function connectionRows(report: CrawlJson): string[][] {
  const c = report.connections;
  if (c === undefined || c.closedIdle === 0) return [];
  return [['connections', `idle connections closed ${count(c.closedIdle)} times to keep at most ${count(report.settings.keepAliveHosts)} hosts open (--keep-alive-hosts); ${count(c.opened)} opened`]];
}

function printReport(report: CrawlJson, json: boolean): void {
  if (json) {
    printJson(report);
    return;
  }
  const { store: location, settings, top } = report;
  const stopped = { done: 'frontier empty', 'max-pages': '--max-pages reached', 'max-time': '--max-time reached', memory: `--memory reached: ${megabytes(report.memory.peakRss)} resident, the budget ${megabytes(memoryBudgetOf(settings))}; --resume with a larger --memory`, stopped: 'stopped' }[report.stoppedBy];
  print(`crawled into ${location} in ${seconds(report.seconds)} (${stopped}): ${count(report.known)} pages known, ${count(report.fetched)} fetched`);
  print(
    table([
      ['fetched (2xx HTML)', count(report.fetched)],
      ['redirects', count(report.redirects)],
      ['failed', count(report.failed)],
      ['excluded (robots.txt, addresses)', count(report.excluded)],
      ['other (not HTML)', count(report.other)],
      ['frontier (never fetched)', count(report.frontier)],
      ['hosts', hostsLine(report)],
      ...dnsRows(report),
      ...connectionRows(report),
      ['requests (this session)', `${count(report.requests)} (${count(report.retries)} retries)`],
      ...(report.checkpoints !== undefined && report.checkpoints.count > 0
        ? [
            ['checkpoints (this session)', `${count(report.checkpoints.count)} written, ${seconds(report.checkpoints.totalMs / report.checkpoints.count / 1000)} each on average, the longest ${seconds(report.checkpoints.maxMs / 1000)}`],
            ...(report.checkpoints.held > 0
              ? [['waited for the store', `${seconds(report.checkpoints.heldMs / 1000)} in ${count(report.checkpoints.held)} waits, a checkpoint's worth pending (--checkpoint-pages ${count(settings.checkpointPages)})`]]
              : []),
          ]
        : []),
      ...(report.pagesOverLinkCap > 0 ? [['pages over the link cap', `${count(report.pagesOverLinkCap)} (links to more than ${count(settings.maxLinksPerPage)} targets: the rest not kept; --max-links-per-page)`]] : []),
      ...renderRows(report),
      ...liveRows(report),
      ['OPIC clock G', `${report.opicTime.toPrecision(6)} (error factor 1/G = ${(1 / report.opicTime).toPrecision(3)}), total cash ${report.totalCash.toPrecision(12)}`],
    ]),
  );
  // The plain OPIC estimate: Adaptive OPIC's (saved as its own run with --refresh) only means something
  // once the crawl has lasted several windows (--window passes), and is noisier on a site that does not change.
  print(`\nMost important pages (OPIC estimate${settings.refresh ? `; Adaptive OPIC's is run ${report.runs[1] ?? '-'}` : ''}):`);
  print(table([['rank', 'importance', 'status', 'page'], ...top.map((t) => [String(t.rank), score(t.importance), t.status === null ? '-' : String(t.status), safeLabel(t.url)])], [0, 1]));
  const names = ['opic', ...(report.live !== null && report.runs.length > 1 ? ['live'] : []), ...(settings.refresh ? ['opic-adaptive'] : [])];
  if (report.runs.length > 0) print(`\nsaved as run${report.runs.length === 1 ? '' : 's'} ${report.runs.map((id, i) => `${id} (${names[i] ?? 'run'})`).join(', ')}`);
  if (report.frontier > 0) {
    const more = report.stoppedBy === 'max-pages' && settings.maxPages !== null ? ` --max-pages ${settings.maxPages * 2}` : '';
    print(`\n${count(report.frontier)} known pages were not fetched; continue with: wga crawl --resume --db ${location}${more}`);
  }
}
