/**
 * `crawl`: collect a sector of the web into a store with OPIC importance on-line (crawl/crawler.ts).
 * Settings are kept in the store, so a resumed crawl continues with the same ones; options given
 * with resume change them. The status of the crawl in a store (by whichever process) is read from
 * the store's crawl state, current to its last checkpoint.
 */
import { resolve as resolvePath } from 'node:path';
import { Crawler, type CrawlProgress, type CrawlReport } from '../crawl/crawler.js';
import { BrowserMissingError, BROWSER_CANDIDATES, findBrowser } from '../crawl/render.js';
import { RENDER_MODES } from '../crawl/render-policy.js';
import { CRAWL_STRATEGIES } from '../crawl/frontier.js';
import { HOST_SCOPES } from '../crawl/scope.js';
import { type CrawlSettings, compileSettings, completeSettings, MIN_MEMORY_BYTES } from '../crawl/settings.js';
import { OptionError } from '../errors.js';
import { CRAWL_STATE, type CrawlLock, type Store, type StoreCounts, parseOpicState } from '../store/store.js';
import { type AppContext, quietContext } from './context.js';
import { liveTopIfAny } from './live-rank.js';
import { bytesOption, choiceOption, integerOption, numberOption } from './values.js';

/** A crawl's options as the CLI gives them (strings; the HTTP API passes the same names). */
export interface CrawlCliOptions {
  db?: string;
  /** Shared crawls (several instances on one PostgreSQL store, src/app/shared-crawl.ts). */
  shared?: boolean;
  join?: boolean;
  instances?: string;
  partitions?: string;
  lease?: string;
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
  memory?: string;
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
  checkpointPages?: string;
  storeRetry?: string;
  live?: boolean;
  liveInterval?: string;
  liveShare?: string;
  liveInlineEdges?: string;
  /** Commander's --no-compression and --no-sitemaps give false. */
  compression?: boolean;
  sitemaps?: boolean;
  maxSitemaps?: string;
  maxSitemapEntries?: string;
  respectNofollow?: boolean;
  warc?: string;
  warcSize?: string;
  render?: string;
  browser?: string;
  renderConcurrency?: string;
  renderTimeout?: string;
  renderQuiet?: string;
  renderResources?: string;
  renderBudget?: string;
  renderIdle?: string;
  maxLinksPerPage?: string;
  perIp?: string;
  ipDelay?: string;
  dns?: string;
  dnsTimeout?: string;
  dnsMinTtl?: string;
  dnsMaxTtl?: string;
  dnsNegativeTtl?: string;
  dnsConcurrency?: string;
  dnsCache?: string;
  keepAliveHosts?: string;
  recrawl?: boolean;
  top?: string;
  quiet?: boolean;
  json?: boolean;
}

export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

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
  if (options.memory !== undefined) s.memoryBytes = bytesOption('--memory', options.memory, MIN_MEMORY_BYTES);
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
  if (options.liveShare !== undefined) s.liveShare = numberOption('--live-share', options.liveShare, 1, { min: 0, exclusiveMin: true, max: 1 });
  if (options.liveInlineEdges !== undefined) s.liveInlineEdges = integerOption('--live-inline-edges', options.liveInlineEdges, 5_000_000, 0);
  if (options.checkpoint !== undefined) s.checkpointMs = integerOption('--checkpoint', options.checkpoint, 1000, 10);
  if (options.checkpointPages !== undefined) s.checkpointPages = integerOption('--checkpoint-pages', options.checkpointPages, 10_000, 1);
  if (options.storeRetry !== undefined) s.storeRetryMs = Math.round(1000 * numberOption('--store-retry', options.storeRetry, 0, { min: 0, max: 86_400 }));
  if (options.compression !== undefined) s.compression = options.compression;
  if (options.sitemaps !== undefined) s.sitemaps = options.sitemaps;
  if (options.maxSitemaps !== undefined) s.maxSitemaps = integerOption('--max-sitemaps', options.maxSitemaps, 50, 0);
  if (options.maxSitemapEntries !== undefined) s.maxSitemapEntries = integerOption('--max-sitemap-entries', options.maxSitemapEntries, 50_000, 1);
  if (options.respectNofollow !== undefined) s.respectNofollow = options.respectNofollow;
  if (options.warc !== undefined) s.warcDir = resolvePath(options.warc);
  if (options.warcSize !== undefined) s.warcMaxBytes = integerOption('--warc-size', options.warcSize, 1_000_000_000, 1_000_000);
  if (options.render !== undefined) s.render = choiceOption('--render', options.render, RENDER_MODES, 'auto');
  if (options.browser !== undefined) s.browser = resolvePath(options.browser);
  if (options.renderConcurrency !== undefined) s.renderConcurrency = integerOption('--render-concurrency', options.renderConcurrency, 2, 1);
  if (options.renderTimeout !== undefined) s.renderTimeoutMs = Math.round(1000 * numberOption('--render-timeout', options.renderTimeout, 15, { min: 0.1, max: 600 }));
  if (options.renderQuiet !== undefined) s.renderQuietMs = integerOption('--render-quiet', options.renderQuiet, 500, 10);
  if (options.renderBudget !== undefined) s.renderBudget = numberOption('--render-budget', options.renderBudget, 0.25, { min: 0, exclusiveMin: true });
  if (options.renderIdle !== undefined) s.renderIdleMs = Math.round(1000 * numberOption('--render-idle', options.renderIdle, 30, { min: 0, max: 86_400 }));
  if (options.maxLinksPerPage !== undefined) s.maxLinksPerPage = integerOption('--max-links-per-page', options.maxLinksPerPage, 100_000, 1);
  if (options.perIp !== undefined) s.perIp = integerOption('--per-ip', options.perIp, 4, 1);
  if (options.ipDelay !== undefined) s.ipDelayMs = numberOption('--ip-delay', options.ipDelay, 250, { min: 0 });
  if (options.dns !== undefined) s.dns = options.dns;
  if (options.dnsTimeout !== undefined) s.dnsTimeoutMs = Math.round(1000 * numberOption('--dns-timeout', options.dnsTimeout, 5, { min: 0.1, max: 600 }));
  if (options.dnsMinTtl !== undefined) s.dnsMinTtl = integerOption('--dns-min-ttl', options.dnsMinTtl, 60, 0);
  if (options.dnsMaxTtl !== undefined) s.dnsMaxTtl = integerOption('--dns-max-ttl', options.dnsMaxTtl, 3600, 0);
  if (options.dnsNegativeTtl !== undefined) s.dnsNegativeTtl = integerOption('--dns-negative-ttl', options.dnsNegativeTtl, 300, 0);
  if (options.dnsConcurrency !== undefined) s.dnsConcurrency = integerOption('--dns-concurrency', options.dnsConcurrency, 16, 1);
  if (options.dnsCache !== undefined) s.dnsCache = integerOption('--dns-cache', options.dnsCache, 100_000, 1);
  if (options.keepAliveHosts !== undefined) s.keepAliveHosts = integerOption('--keep-alive-hosts', options.keepAliveHosts, 512, 1);
  if (options.renderResources !== undefined) s.renderResources = options.renderResources.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
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

/** Checks the options alone (before any store is opened, so that a mistyped command creates nothing). */
export function checkCrawlOptions(seeds: string[], options: CrawlCliOptions): void {
  const settings = completeSettings({ ...settingsFromOptions(options), seeds });
  compileSettings(settings, []);
  checkBrowser(settings, options.render !== undefined || options.browser !== undefined);
}

/**
 * Rendering asked for by name (--render auto|always, --browser) needs a browser now; the default
 * (auto, not given) reads pages as served when there is none, and the report says so.
 */
export function checkBrowser(settings: CrawlSettings, asked: boolean): void {
  if (settings.render === 'never' || !asked) return;
  if (findBrowser(settings.browser) === null) throw new BrowserMissingError(settings.browser === null ? BROWSER_CANDIDATES : [settings.browser]);
}

/** The `crawl --json` contract (documented in the README). */
export interface CrawlJson extends CrawlReport {
  store: string;
  seeds: string[];
  /** What each seed's page got: its status, or why it was not fetched (an address rule, robots.txt, no answer). */
  seedAnswers: Array<{ url: string; status: number | null; error: string | null }>;
  settings: CrawlSettings;
  top: Array<{ rank: number; url: string; importance: number; status: number | null }>;
}

/**
 * Runs a crawl into the store until it stops (frontier empty, a limit, or the context's signal);
 * progress events in the 'crawl' phase carry the CrawlProgress as their data. Returns the report
 * with the `top` best pages by OPIC importance.
 */
export async function runCrawl(
  store: Store,
  seeds: string[],
  options: CrawlCliOptions & { progressMs?: number; progressTop?: number },
  context: AppContext = quietContext,
): Promise<CrawlJson> {
  const k = integerOption('--top', options.top, 10, 1);
  const settings = await crawlSettings(store, seeds, options);
  const report: CrawlReport = await Crawler.run(store, settings, {
    resume: options.resume === true,
    recrawl: options.recrawl === true,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(context.onNotice === undefined ? {} : { onNotice: context.onNotice }),
    progressMs: options.progressMs ?? 1000,
    progressTop: options.progressTop ?? 3,
    ...(context.onProgress === undefined
      ? {}
      : {
          onProgress: (p: CrawlProgress) =>
            context.onProgress!({ phase: 'crawl', message: progressText(p), done: p.fetched, data: { ...p } }),
        }),
  });
  // runs[0] is plain OPIC's estimate.
  const top = await store.topPages(report.runs[0]!, k);
  const seedAnswers: CrawlJson['seedAnswers'] = [];
  for (const seed of settings.seeds) {
    const page = await store.pageByUrl(seed);
    seedAnswers.push({ url: seed, status: page?.status ?? null, error: page?.error ?? (page === null ? 'not in the store' : null) });
  }
  return {
    store: store.location,
    seeds: settings.seeds,
    seedAnswers,
    ...report,
    settings,
    top: top.map((t, i) => ({ rank: i + 1, url: t.page.url, importance: t.value, status: t.page.status })),
  };
}

/** One line of crawl progress, free of control characters. */
export function progressText(p: CrawlProgress): string {
  return (
    `${p.fetched.toLocaleString('en-US')} fetched, ${p.pagesPerSecond.toFixed(0)} pages/s, frontier ${p.frontier.toLocaleString('en-US')}, ` +
    `${p.failed.toLocaleString('en-US')} failed, ${p.excluded.toLocaleString('en-US')} excluded, ${p.inFlight} in flight`
  );
}

/** A crawl lock whose heartbeat (one per checkpoint) is older than this belongs to a crawler that stopped. */
export const CRAWL_ALIVE_MS = 15_000;

/** The `crawl status` of a store, from its crawl state (whichever process crawls). */
export interface StoredCrawlStatus {
  /** A crawler holds the lock and wrote a checkpoint in the last CRAWL_ALIVE_MS. */
  running: boolean;
  lock: CrawlLock | null;
  /** Page fetches in the whole crawl and the time of the last checkpoint (ms since the epoch). */
  fetches: number;
  updatedAt: number | null;
  counts: StoreCounts;
  /** OPIC's clock G and error factor 1/G at the last checkpoint. */
  opic: { time: number; errorFactor: number | null } | null;
  top: Array<{ url: string; importance: number }>;
  /** The live PageRank's best pages: the running crawl's last checkpoint, or the last crawl's final vector; null without one. */
  live: StoredLiveRank | null;
  settings: Record<string, unknown> | null;
}

/** The live PageRank as the crawl status carries it (docs/live-importance.md). */
export interface StoredLiveRank {
  /** Pages the vector covers (the pages known when it was computed). */
  pages: number;
  /** When it was computed, ms since the epoch. */
  updatedAt: number;
  /** True for the vector solved to 1e-10 at the end of a crawl. */
  final: boolean;
  top: Array<{ url: string; importance: number }>;
}

/**
 * The crawl status of a store; `counts` may answer the store's counts from a cache (they are costly
 * on big stores), keyed by the crawl state's last checkpoint, which is read first: a cache keyed by an
 * older reading would show the counts of a checkpoint before the one that released the lock.
 */
export async function storedCrawlStatus(
  store: Store,
  k = 10,
  now = Date.now(),
  counts: (checkpoint: string) => Promise<StoreCounts> = () => store.counts(),
): Promise<StoredCrawlStatus> {
  const state = await store.crawlState();
  const [storeCounts, top, live] = await Promise.all([counts(`${state[CRAWL_STATE.progress] ?? ''}|${state[CRAWL_STATE.dataVersion] ?? ''}`), store.liveOpicTop(k), k > 0 ? liveTopIfAny(store, { limit: k }) : null]);
  const lock = state[CRAWL_STATE.lock] === undefined ? null : (JSON.parse(state[CRAWL_STATE.lock]!) as CrawlLock);
  const progress = state[CRAWL_STATE.progress] === undefined ? null : (JSON.parse(state[CRAWL_STATE.progress]!) as { fetches: number; updatedAt: number });
  const opic = parseOpicState(state[CRAWL_STATE.opic]);
  return {
    running: lock !== null && now - lock.heartbeat < CRAWL_ALIVE_MS,
    lock,
    fetches: progress?.fetches ?? 0,
    updatedAt: progress?.updatedAt ?? null,
    counts: storeCounts,
    opic: opic === null ? null : { time: opic.clock, errorFactor: opic.clock > 0 ? 1 / opic.clock : null },
    top: (top ?? []).map((t) => ({ url: t.page.url, importance: t.value })),
    live: live === null ? null : { pages: live.pages, updatedAt: live.updatedAt, final: live.final, top: live.top.map((t) => ({ url: t.url, importance: t.score })) },
    settings: state[CRAWL_STATE.settings] === undefined ? null : (JSON.parse(state[CRAWL_STATE.settings]!) as Record<string, unknown>),
  };
}
