/**
 * A crawl's settings: everything `wga crawl` was told, as plain JSON so that
 * the store keeps them (crawl_state) and `--resume` continues with the same
 * scope, politeness and strategy. Compiled here into the objects the crawler
 * uses; every bad value is a typed error naming its option.
 */
import { availableParallelism, totalmem } from 'node:os';
import { domainToASCII } from 'node:url';
import { OptionError } from '../errors.js';
import { CountryTable } from './country-table.js';
import { type CrawlStrategy, CRAWL_STRATEGIES } from './frontier.js';
import { IpRules } from './ip-rules.js';
import { compilePattern, type HostScope, HOST_SCOPES, Scope } from './scope.js';
import { DEFAULT_DNS, type DnsOptions, parseDnsServer } from './dns-cache.js';
import { DEFAULT_KEEP_ALIVE_HOSTS } from './connections.js';
import { DEFAULT_USER_AGENT } from './fetcher.js';
import { DEFAULT_RENDER_RESOURCES, RENDER_RESOURCE_TYPES } from './render.js';
import { type RenderMode, RENDER_MODES } from './render-policy.js';

export interface CrawlSettings {
  seeds: string[];
  filters: string[];
  fences: string[];
  /** Allowed extensions; null: all but the default skipped ones. */
  extensions: string[] | null;
  hosts: HostScope;
  allowIp: string[];
  denyIp: string[];
  ipCountryFile: string | null;
  countries: string[];
  denyCountries: string[];
  /** Host name to address, instead of DNS. */
  resolve: Record<string, string>;
  /** Minimum time between the starts of two requests to one host, ms. */
  delayMs: number;
  perHost: number;
  concurrency: number;
  /** Fetches in the whole crawl (resumed sessions included); null: no limit. */
  maxPages: number | null;
  maxDepth: number | null;
  /** Length of one session, ms; null: no limit. */
  maxTimeMs: number | null;
  /**
   * The crawl's memory budget, bytes of resident memory: reached, the session stops after a
   * checkpoint, as --max-time does, rather than let the machine or V8's heap run out (null: 3/4 of
   * the machine's memory, read when the session starts).
   */
  memoryBytes: number | null;
  strategy: CrawlStrategy;
  bufferSize: number;
  refresh: boolean;
  /** Adaptive OPIC's Interpolation window, in passes over the known pages. */
  windowPasses: number;
  focus: string[];
  focusShare: number;
  discoveryShare: number;
  damping: number;
  retries: number;
  retryDelayMs: number;
  userAgent: string;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  pageTimeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  checkpointMs: number;
  checkpointPages: number;
  seed: number;
  /** Keep a live PageRank of the known graph (docs/live-importance.md): true. */
  live: boolean;
  /** Least time between two live PageRank vectors, ms: 1000. */
  liveIntervalMs: number;
  /**
   * Share of one core the live PageRank's updates may use on average (0 < share <= 1; 1: as often
   * as --live-interval allows): 1. Their cost grows with the graph; a bound makes the pushes wait
   * instead of taking more of a core (docs/live-importance.md).
   */
  liveShare: number;
  /**
   * Links the live PageRank's updates may follow on the crawler's thread, between fetches, before
   * they move to a worker thread (docs/live-importance.md): 5,000,000, about what starting the
   * thread costs. 0: in a worker from the start.
   */
  liveInlineEdges: number;
  /** Ask for compressed answers (Accept-Encoding: gzip, deflate, br): true. */
  compression: boolean;
  /** Read sitemaps (robots.txt's Sitemap lines, else /sitemap.xml): true. */
  sitemaps: boolean;
  /** Sitemaps read per host and session (an index's included): 50. */
  maxSitemaps: number;
  /** Entries read of one sitemap: 50,000 (the protocol's own limit). */
  maxSitemapEntries: number;
  /** Do not find new pages through rel=nofollow links (they are still recorded to known pages): false. */
  respectNofollow: boolean;
  /** Write every request and answer to WARC files in this directory (null: no WARC). */
  warcDir: string | null;
  /** A WARC file is closed and the next one started at this size, bytes: 1 GB. */
  warcMaxBytes: number;
  /**
   * How long a checkpoint that the store did not take (a lost connection, a server restarting or
   * paused, a locked file) is tried again, with backoff, before the crawl stops, ms: 120,000.
   * 0: stop at the first failure.
   */
  storeRetryMs: number;
  /** Which pages are rendered in headless Chromium (render-policy.ts): 'auto'. */
  render: RenderMode;
  /** The browser's executable (null: looked for, render.ts BROWSER_CANDIDATES). */
  browser: string | null;
  /** Pages rendered at once (null: one per core, at most 8). */
  renderConcurrency: number | null;
  /** Longest time to render a page, from its load to its links, ms: 15,000. */
  renderTimeoutMs: number;
  /** Quiet time (no request, no DOM change) after which a rendered page has settled, ms: 500. */
  renderQuietMs: number;
  /** Resource types a rendered page may load (Playwright's names): scripts, stylesheets, fetch and XHR. */
  renderResources: string[];
  /**
   * --render auto's time budget (render-policy.ts): the renders it chooses (samples, whole hosts; not
   * application shells) may take at most this many times the crawl's time: 0.25.
   */
  renderBudget: number;
  /** The browser is closed when no page has needed it for this long, ms: 30,000. */
  renderIdleMs: number;
  /** Distinct links kept per page (a link farm's page is cut there, and counted): 100,000. */
  maxLinksPerPage: number;
  /** Requests at once to one server address, all its hosts together; null: 4 x --per-host. */
  perIp: number | null;
  /** Minimum time between the starts of two requests to one address, ms; null: --delay / 4. */
  ipDelayMs: number | null;
  /** A DNS server (IP[:PORT]) asked directly instead of the system resolver; null: getaddrinfo. */
  dns: string | null;
  dnsTimeoutMs: number;
  /** TTL floor and ceiling of cached answers, s. */
  dnsMinTtl: number;
  dnsMaxTtl: number;
  /** How long a failed lookup is remembered, s. */
  dnsNegativeTtl: number;
  /** Names looked up at once. */
  dnsConcurrency: number;
  /** Names the DNS cache holds. */
  dnsCache: number;
  /** Hosts whose idle keep-alive connections stay open (connections.ts). */
  keepAliveHosts: number;
}

/** The least --memory a crawl takes: Node and its buffers alone hold about 60 MB. */
export const MIN_MEMORY_BYTES = 128 * 2 ** 20;

/** The memory budget of a session: --memory, else 3/4 of this machine's memory. */
export function memoryBudgetOf(settings: CrawlSettings): number {
  return settings.memoryBytes ?? Math.floor(0.75 * totalmem());
}

/**
 * Room the crawler's per-page columns (URL index, OPIC, Greedy's heap, the pipeline's, the live
 * PageRank's) start with: 2^22 pages, about 600 MB of address space and no RAM until pages are
 * known (util/typed-arrays.ts). Crawls of up to 4 million known pages never copy a column;
 * larger ones grow them 8 times at a time. Bounded so that a process holding several crawls (the
 * tests) stays far below the address space a fork may take (spawning Chromium, a child process).
 */
export const INITIAL_PAGE_ROOM = 2 ** 22;
/** Bytes a known page reserves in all the columns together, at most: the room never exceeds budget / this. */
export const RESERVED_BYTES_PER_PAGE = 160;

/** Pages the per-page columns start with room for: INITIAL_PAGE_ROOM, less under a small --memory. */
export function pageCapacityOf(settings: CrawlSettings): number {
  return Math.min(INITIAL_PAGE_ROOM, Math.floor(memoryBudgetOf(settings) / RESERVED_BYTES_PER_PAGE));
}

/** The most requests at once a crawl takes (--concurrency, --per-host). */
export const MAX_CONCURRENCY = 10_000;

export const DEFAULT_SETTINGS: Omit<CrawlSettings, 'seeds'> = {
  filters: [],
  fences: [],
  extensions: null,
  hosts: 'seeds',
  allowIp: [],
  denyIp: [],
  ipCountryFile: null,
  countries: [],
  denyCountries: [],
  resolve: {},
  delayMs: 1000,
  perHost: 1,
  concurrency: 8,
  maxPages: null,
  maxDepth: null,
  maxTimeMs: null,
  memoryBytes: null,
  strategy: 'greedy',
  bufferSize: 100,
  refresh: false,
  windowPasses: 4,
  focus: [],
  focusShare: 0,
  discoveryShare: 0,
  damping: 0.85,
  retries: 2,
  retryDelayMs: 1000,
  userAgent: DEFAULT_USER_AGENT,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  pageTimeoutMs: 60_000,
  maxBodyBytes: 10 * 1024 * 1024,
  maxRedirects: 10,
  checkpointMs: 1000,
  // Measured at 10^6 pages (BENCHMARKS.md, issue 38): 2,000 held the crawl back while each
  // checkpoint's transaction rewrote most of the store's index pages; 10,000 lets a slow write
  // take more pages at once.
  checkpointPages: 10_000,
  seed: 1,
  live: true,
  liveIntervalMs: 1000,
  liveShare: 1,
  liveInlineEdges: 5_000_000,
  compression: true,
  sitemaps: true,
  maxSitemaps: 50,
  maxSitemapEntries: 50_000,
  respectNofollow: false,
  warcDir: null,
  warcMaxBytes: 1_000_000_000,
  storeRetryMs: 120_000,
  render: 'auto',
  browser: null,
  renderConcurrency: null,
  renderTimeoutMs: 15_000,
  renderQuietMs: 500,
  renderResources: [...DEFAULT_RENDER_RESOURCES],
  renderBudget: 0.25,
  renderIdleMs: 30_000,
  maxLinksPerPage: 100_000,
  perIp: null,
  ipDelayMs: null,
  dns: null,
  dnsTimeoutMs: DEFAULT_DNS.timeoutMs,
  dnsMinTtl: DEFAULT_DNS.minTtlS,
  dnsMaxTtl: DEFAULT_DNS.maxTtlS,
  dnsNegativeTtl: DEFAULT_DNS.negativeTtlS,
  dnsConcurrency: DEFAULT_DNS.concurrency,
  dnsCache: DEFAULT_DNS.cacheEntries,
  keepAliveHosts: DEFAULT_KEEP_ALIVE_HOSTS,
};

/** --per-ip: given, else 4 x --per-host (a server of many hosts is asked at most 4 times as much as one host). */
export function perIpOf(s: CrawlSettings): number {
  return s.perIp ?? Math.min(MAX_CONCURRENCY, 4 * s.perHost);
}

/** --ip-delay: given, else a quarter of --delay. */
export function ipDelayOf(s: CrawlSettings): number {
  return s.ipDelayMs ?? s.delayMs / 4;
}

/** The DNS cache's options from the settings. */
export function dnsOptionsOf(s: CrawlSettings): DnsOptions {
  return {
    server: s.dns,
    timeoutMs: s.dnsTimeoutMs,
    minTtlS: s.dnsMinTtl,
    maxTtlS: s.dnsMaxTtl,
    negativeTtlS: s.dnsNegativeTtl,
    concurrency: s.dnsConcurrency,
    cacheEntries: s.dnsCache,
  };
}

/** The settings with defaults for what is missing (e.g. settings stored by an older version). */
export function completeSettings(partial: Partial<CrawlSettings> & { seeds: string[] }): CrawlSettings {
  const settings = { ...DEFAULT_SETTINGS, ...partial } as CrawlSettings;
  checkSettings(settings);
  return settings;
}

function checkSettings(s: CrawlSettings): void {
  const integer = (option: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void => {
    if (!(Number.isInteger(value) && value >= min && value <= max)) {
      throw new OptionError(option, max === Number.MAX_SAFE_INTEGER ? `expected an integer of at least ${min}, got ${value}` : `expected an integer from ${min} to ${max}, got ${value}`);
    }
  };
  // Each request holds a socket and its buffers: beyond these, a mistake rather than a crawl.
  integer('--concurrency', s.concurrency, 1, MAX_CONCURRENCY);
  integer('--per-host', s.perHost, 1, MAX_CONCURRENCY);
  integer('--retries', s.retries, 0);
  integer('--buffer-size', s.bufferSize, 1);
  integer('--max-redirects', s.maxRedirects, 0);
  if (s.maxPages !== null) integer('--max-pages', s.maxPages, 0);
  if (s.maxDepth !== null) integer('--max-depth', s.maxDepth, 0);
  for (const [option, value] of [
    ['--delay', s.delayMs],
    ['--retry-delay', s.retryDelayMs],
    ['--max-time', s.maxTimeMs ?? 0],
  ] as const) {
    if (!(Number.isFinite(value) && value >= 0)) throw new OptionError(option, `expected a number of at least 0, got ${value}`);
  }
  if (s.memoryBytes !== null && !(Number.isInteger(s.memoryBytes) && s.memoryBytes >= MIN_MEMORY_BYTES)) {
    throw new OptionError('--memory', `expected at least ${MIN_MEMORY_BYTES / 2 ** 20} MB, got ${s.memoryBytes} bytes`);
  }
  if (!(s.windowPasses > 0)) throw new OptionError('--window', `expected a positive number of passes, got ${s.windowPasses}`);
  if (!(Number.isFinite(s.liveIntervalMs) && s.liveIntervalMs >= 10)) throw new OptionError('--live-interval', `expected at least 10 ms, got ${s.liveIntervalMs}`);
  if (!(s.liveShare > 0 && s.liveShare <= 1)) throw new OptionError('--live-share', `expected a share of one core in (0, 1], got ${s.liveShare}`);
  integer('--live-inline-edges', s.liveInlineEdges, 0);
  integer('--max-sitemaps', s.maxSitemaps, 0);
  integer('--max-sitemap-entries', s.maxSitemapEntries, 1);
  integer('--warc-size', s.warcMaxBytes, 1_000_000);
  integer('--store-retry', s.storeRetryMs, 0);
  if (!RENDER_MODES.includes(s.render)) throw new OptionError('--render', `expected one of ${RENDER_MODES.join(', ')}, got '${s.render}'`);
  if (s.renderConcurrency !== null) integer('--render-concurrency', s.renderConcurrency, 1, 64);
  integer('--render-timeout', s.renderTimeoutMs, 100, 600_000);
  integer('--render-quiet', s.renderQuietMs, 10, 60_000);
  if (!(Number.isFinite(s.renderBudget) && s.renderBudget > 0)) throw new OptionError('--render-budget', `expected a positive number (times the crawl's time), got ${s.renderBudget}`);
  integer('--render-idle', s.renderIdleMs, 0, 86_400_000);
  integer('--max-links-per-page', s.maxLinksPerPage, 1, 10_000_000);
  if (s.perIp !== null) integer('--per-ip', s.perIp, 1, MAX_CONCURRENCY);
  if (s.ipDelayMs !== null && !(Number.isFinite(s.ipDelayMs) && s.ipDelayMs >= 0)) throw new OptionError('--ip-delay', `expected a number of at least 0, got ${s.ipDelayMs}`);
  if (s.dns !== null) {
    const server = parseDnsServer(s.dns);
    if (!server.ok) throw new OptionError('--dns', `${server.reason}, got '${s.dns}'`);
  }
  integer('--dns-timeout', s.dnsTimeoutMs, 100, 600_000);
  integer('--dns-min-ttl', s.dnsMinTtl, 0, 604_800);
  integer('--dns-max-ttl', s.dnsMaxTtl, 0, 604_800);
  if (s.dnsMaxTtl < s.dnsMinTtl) throw new OptionError('--dns-max-ttl', `${s.dnsMaxTtl} is below --dns-min-ttl ${s.dnsMinTtl}`);
  integer('--dns-negative-ttl', s.dnsNegativeTtl, 0, 604_800);
  integer('--dns-concurrency', s.dnsConcurrency, 1, 1024);
  integer('--dns-cache', s.dnsCache, 1, 100_000_000);
  integer('--keep-alive-hosts', s.keepAliveHosts, 1, 1_000_000);
  for (const type of s.renderResources) {
    if (!RENDER_RESOURCE_TYPES.includes(type)) throw new OptionError('--render-resources', `expected types among ${RENDER_RESOURCE_TYPES.join(', ')}, got '${type}'`);
  }
  if (s.strategy === 'pagerank' && !s.live) throw new OptionError('--no-live', 'the pagerank strategy orders the frontier by the live PageRank: it needs it on');
  if (!CRAWL_STRATEGIES.includes(s.strategy)) throw new OptionError('--strategy', `expected one of ${CRAWL_STRATEGIES.join(', ')}, got '${s.strategy}'`);
  if (!HOST_SCOPES.includes(s.hosts)) throw new OptionError('--hosts', `expected one of ${HOST_SCOPES.join(', ')}, got '${s.hosts}'`);
  if (s.focus.length > 0 && s.focusShare === 0) s.focusShare = 0.5;
}

/** The objects a crawl runs with, built from its settings. */
/** Tabs rendering at once: --render-concurrency, else one per core up to 8 (a tab holds 30-100 MB). */
export function renderConcurrencyOf(settings: CrawlSettings): number {
  return settings.renderConcurrency ?? Math.max(1, Math.min(8, availableParallelism()));
}

export interface CompiledSettings {
  scope: Scope;
  ipRules: IpRules;
  focus: RegExp[];
  resolve: Map<string, string>;
}

export function compileSettings(settings: CrawlSettings, seedHosts: readonly string[]): CompiledSettings {
  const countries = settings.ipCountryFile === null ? null : CountryTable.fromFile(settings.ipCountryFile);
  for (const [host, address] of Object.entries(settings.resolve)) {
    if (!/^[0-9a-fA-F:.]+$/.test(address)) throw new OptionError('--resolve', `'${host}=${address}': the address is not an IP address`);
  }
  return {
    scope: new Scope({
      filters: settings.filters.map((f) => compilePattern(f, '--filter')),
      fences: settings.fences.map((f) => compilePattern(f, '--fence')),
      extensions: settings.extensions,
      hosts: settings.hosts,
      seedHosts,
      maxDepth: settings.maxDepth ?? Infinity,
    }),
    ipRules: new IpRules({ allow: settings.allowIp, deny: settings.denyIp, countries, allowCountries: settings.countries, denyCountries: settings.denyCountries }),
    focus: settings.focus.map((f) => compilePattern(f, '--focus')),
    // Hosts as URLs carry them: an IDN given as typed (bücher.example) is looked up as xn--bcher-kva.example.
    resolve: new Map(Object.entries(settings.resolve).map(([host, address]) => [domainToASCII(host.toLowerCase()) || host.toLowerCase(), address])),
  };
}
