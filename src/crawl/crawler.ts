/**
 * The crawler: the Web Graph Analyzer paper's crawler (Section 4.3) driven by
 * the OPIC paper's on-line importance. Every known page is an OPIC page from
 * the moment it is first seen as a link target, so it has an importance
 * estimate before it is ever fetched; fetching a page is OPIC's "read": its
 * cash goes to its history and on to the pages it links to (anchors and
 * redirects, the links `wga rank --db` analyses), so OPIC's estimates and the
 * exact PageRank of the crawled graph are directly comparable. Greedy fetches
 * the page with the most cash first, among the hosts politeness allows.
 *
 * Pages that fail (4xx, errors, non-HTML, refused by a rule) are read with no
 * out-links: like dangling pages, they give their cash to the virtual page.
 * Out-of-scope URLs are not pages: links to them are not kept.
 *
 * Everything goes to the store in checkpoints (checkpoint.ts) of about a
 * second; a crawl stopped in any way resumes from its last checkpoint.
 */
import { hostname as machineName } from 'node:os';
import { AdaptiveOpic } from '../analysis/adaptive-opic.js';
import { OptionError, WgaError, ExitCode } from '../errors.js';
import type { CrawlLock, FetchRecord, Store, StoredCrawl } from '../store/store.js';
import { CRAWL_STATE, parseOpicState } from '../store/store.js';
import { PendingBatch, storeId } from './checkpoint.js';
import { type FetchResult, Fetcher, HTML_TYPES } from './fetcher.js';
import { Frontier } from './frontier.js';
import { LiveRank, type LiveVector } from './live-rank.js';
import { liveRankState, topOfVector } from './live-state.js';
import { type Host, HostTable, RobotsState } from './hosts.js';
import { RobotsRules } from './robots.js';
import { fetchRecordOf, fetchRobotsRules } from './robots-fetch.js';
import { type CompiledSettings, type CrawlSettings, compileSettings } from './settings.js';
import { grown } from '../util/typed-arrays.js';
import { UrlTable } from './url-table.js';
import { resolveUrl } from './url.js';
import type { CrawlCounters } from './counters.js';

/** Page states. */
const WAITING = 0;
const IN_FLIGHT = 1;
const DONE = 2;
const RETRY_WAIT = 3;

/** Out-of-scope URLs remembered, so that their links are not judged again and again. */
const REJECTED_CACHE = 100_000;
/** The counters a finished page counts in, by the class of its answer (see countFinished). */
const OUTCOMES = ['excluded', 'failed', 'redirects', 'fetched', 'other'] as const;
const NO_OUTCOME = 255;

/** intern(): the URL is only out of scope because it is deeper than --max-depth. */
const TOO_DEEP = -2;

/**
 * With --max-depth, the out-links of fetched pages (to pages, with the clicks they add: 1 for an
 * anchor, 0 for a redirect or canonical), and the links the depth limit cut. Only in memory: after
 * --resume, pages fetched before are not re-examined.
 */
class DepthLinks {
  private readonly children = new Map<number, Array<[number, number]>>();
  private readonly cuts = new Map<number, Array<{ url: string; key: string; nofollow: boolean }>>();

  child(source: number, target: number, step: number): void {
    let list = this.children.get(source);
    if (list === undefined) this.children.set(source, (list = []));
    list.push([target, step]);
  }

  childrenOf(source: number): ReadonlyArray<[number, number]> {
    return this.children.get(source) ?? [];
  }

  cut(source: number, url: string, key: string, nofollow: boolean): void {
    let list = this.cuts.get(source);
    if (list === undefined) this.cuts.set(source, (list = []));
    list.push({ url, key, nofollow });
  }

  takeCut(source: number): Array<{ url: string; key: string; nofollow: boolean }> {
    const list = this.cuts.get(source) ?? [];
    this.cuts.delete(source);
    return list;
  }
}

/** Pages refused by robots.txt finished in one turn of the event loop before yielding. */
const REFUSALS_PER_TURN = 1000;
/** A crawl lock older than this is taken over (its crawler stopped without releasing it). */
const STALE_LOCK_MS = 60_000;

export type StopReason = 'done' | 'max-pages' | 'max-time' | 'stopped';

export type { CrawlCounters };

export interface CrawlProgress extends CrawlCounters {
  elapsedMs: number;
  /** Page fetches per second over this session. */
  pagesPerSecond: number;
  /** Best pages by current importance (OPIC's estimate). */
  top: Array<{ url: string; importance: number }>;
  /** The live PageRank's best pages and the pages its latest vector covers (null: off, or no vector yet). */
  live: { top: Array<{ url: string; importance: number }>; pages: number; ageMs: number } | null;
}

/** What the live PageRank cost in a crawl (docs/live-importance.md). */
export interface LiveReport {
  /** Vectors published. */
  updates: number;
  pages: number;
  links: number;
  /** Pushes and links followed by them, in all. */
  pushes: number;
  edgeVisits: number;
  /** Time spent on changes and pushes, ms (the final solve included; wall time). */
  busyMs: number;
  /**
   * CPU time of the updates, ms: the busy time of those run on the crawler's thread, plus the CPU
   * clock of the worker thread once they moved there, its start-up included (10 ms resolution;
   * NaN off Linux, null in JSON).
   */
  cpuMs: number;
  /** True when the updates had moved to a worker thread (they had followed --live-inline-edges links). */
  inWorker: boolean;
  /** Of which the final solve, ms. */
  finalMs: number;
  /** Bytes of the engine's typed arrays. */
  bytes: number;
  /** Upper bound of the final vector's L1 error against the exact PageRank of the crawled graph. */
  errorBound: number;
}

export interface CrawlReport extends CrawlCounters {
  stoppedBy: StopReason;
  seconds: number;
  /** Total page fetches in the crawl (all sessions). */
  fetches: number;
  /**
   * The process's memory when the fetches ended, before the runs were saved, in bytes; under
   * `node --expose-gc` after a full collection (`collected`), so heapUsed + arrayBuffers is what the
   * crawl's state really holds (benchmarks divide it by the pages known).
   */
  memory: { rss: number; heapUsed: number; arrayBuffers: number; collected: boolean };
  /** Store runs saved at the end: the OPIC estimates (and Adaptive OPIC's with --refresh). */
  runs: number[];
  opicTime: number;
  totalCash: number;
  /** The live PageRank's cost (null with --no-live). */
  live: LiveReport | null;
}

export interface CrawlOptions {
  /** Continue the crawl in the store (its settings are given in `settings`). */
  resume?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: CrawlProgress) => void;
  progressMs?: number;
  /** How many best pages progress reports carry. */
  progressTop?: number;
}

function memoryNow(): CrawlReport['memory'] {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === 'function') gc();
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, arrayBuffers, collected: typeof gc === 'function' };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Typed-array columns that grow with the pages. */
class Column<T extends Int32Array | Uint8Array | Uint16Array> {
  /** `empty`: the value of entries never set. */
  constructor(
    public data: T,
    private readonly empty = 0,
  ) {
    if (empty !== 0) data.fill(empty);
  }
  set(i: number, value: number): void {
    if (i >= this.data.length) this.data = grown(this.data, Math.max(i + 1, this.data.length * 2), this.empty);
    this.data[i] = value;
  }
  get(i: number): number {
    return i < this.data.length ? this.data[i]! : this.empty;
  }
}

export class Crawler {
  private readonly settings: CrawlSettings;
  private readonly compiled: CompiledSettings;
  private readonly opic: AdaptiveOpic;
  private readonly frontier: Frontier;
  private readonly hosts: HostTable;
  private readonly fetcher: Fetcher;
  private readonly batch: PendingBatch;
  private readonly lock: CrawlLock;
  // Per page (index = OPIC id = store id - 1).
  /** Keys and URLs of the known pages, off the heap (url-table.ts). */
  private readonly urls = new UrlTable();
  private readonly hostOf = new Column(new Int32Array(1024));
  private readonly depth = new Column(new Uint16Array(1024));
  private readonly state = new Column(new Uint8Array(1024));
  private readonly hops = new Column(new Uint8Array(1024));
  private readonly attempts = new Column(new Uint8Array(1024));
  /** The class of each finished page's answer (OUTCOMES), NO_OUTCOME before its first. */
  private readonly outcome = new Column(new Uint8Array(1024), NO_OUTCOME);
  private readonly redirectTo = new Map<number, number>();
  private rejected = new Set<string>();
  private readonly robotsQueue: Host[] = [];
  private readonly counters: CrawlCounters = {
    known: 0, fetched: 0, failed: 0, excluded: 0, redirects: 0, other: 0, frontier: 0, inFlight: 0, requests: 0, retries: 0, invalidLinks: 0, hosts: 0,
  };
  /** Fetches recorded in the whole crawl: the last fetch_seq given. */
  private fetchSeq = 0;
  /** Page fetches started in the whole crawl (retries aside): what --max-pages limits. */
  private pagesStarted = 0;
  private sessionFetches = 0;
  private retryTimers = new Set<NodeJS.Timeout>();
  private stopping: StopReason | null = null;
  private failure: Error | null = null;
  private writing: Promise<void> | null = null;
  /** With --max-depth: the links of fetched pages, to lower depths found by a shorter path later. */
  private readonly depthLinks: DepthLinks | null;
  /** A pump() put off to the next turn of the event loop (see pump). */
  private pumpLater: NodeJS.Immediate | null = null;
  private readonly started = performance.now();
  private readonly startedAt = Date.now();
  private finish: (() => void) | null = null;
  private lastPassWindow = 0;
  private memory: CrawlReport['memory'] = { rss: 0, heapUsed: 0, arrayBuffers: 0, collected: false };
  private readonly settingsText: string;
  /** The live PageRank (null with --no-live). */
  private live: LiveRank | null = null;
  /** The live vector last written to a checkpoint. */
  private liveStored = 0;
  private liveReport: LiveReport | null = null;

  private constructor(
    private readonly store: Store,
    settings: CrawlSettings,
    stored: StoredCrawl | null,
    private readonly options: CrawlOptions,
  ) {
    this.settings = settings;
    this.settingsText = JSON.stringify(settings);
    const seedHosts = [...settings.seeds, ...(stored?.pages.filter((p) => p.depth === 0).map((p) => p.url) ?? [])].map((s) => {
      const resolved = resolveUrl(s);
      if (!resolved.ok) throw new OptionError('seed', `'${s}' is not an http(s) URL`);
      return resolved.url.hostname;
    });
    this.compiled = compileSettings(settings, seedHosts);
    this.opic = new AdaptiveOpic(
      { kind: 'interpolation', window: 1 },
      {
        damping: settings.damping,
        focusShare: settings.focusShare,
        discoveryShare: settings.discoveryShare,
        reselectRead: settings.refresh,
        trackChanges: true,
        seed: settings.seed,
      },
    );
    this.frontier = new Frontier(this.opic.opic, {
      strategy: settings.strategy,
      refresh: settings.refresh,
      bufferSize: settings.bufferSize,
      seed: settings.seed,
      damping: settings.damping,
    });

    this.hosts = new HostTable(settings.perHost, settings.delayMs);
    this.depthLinks = settings.maxDepth === null ? null : new DepthLinks();
    this.fetcher = new Fetcher({
      userAgent: settings.userAgent,
      ipRules: this.compiled.ipRules,
      resolve: this.compiled.resolve,
      connectTimeoutMs: settings.connectTimeoutMs,
      headersTimeoutMs: settings.headersTimeoutMs,
      bodyTimeoutMs: settings.bodyTimeoutMs,
      pageTimeoutMs: settings.pageTimeoutMs,
      maxBodyBytes: settings.maxBodyBytes,
      connectionsPerOrigin: settings.perHost,
    });
    this.lock = { owner: `${machineName()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`, hostname: machineName(), pid: process.pid, heartbeat: Date.now() };
    if (stored !== null) this.restore(stored);
    this.batch = new PendingBatch(this.opic.pages);
  }

  /**
   * Crawls into `store` until the frontier is empty, a limit is reached or `signal` aborts;
   * with `resume`, continues the crawl the store holds.
   */
  static async run(store: Store, settings: CrawlSettings, options: CrawlOptions = {}): Promise<CrawlReport> {
    const stored = await store.loadCrawl();
    const hasCrawl = parseOpicState(stored.state[CRAWL_STATE.opic]) !== null;
    if (stored.pages.length > 0 && !hasCrawl) {
      throw new WgaError(`${store.location}: holds ${stored.pages.length} pages that are not from a crawl (an import?); crawl into another store`, ExitCode.usage);
    }
    if (hasCrawl && options.resume !== true) {
      throw new WgaError(`${store.location}: already holds a crawl; continue it with --resume, or start again after: wga reset --db ${store.location}`, ExitCode.usage);
    }
    if (!hasCrawl && options.resume === true && settings.seeds.length === 0) {
      throw new WgaError(`${store.location}: holds no crawl to resume; give seed URLs to start one`, ExitCode.usage);
    }
    if (!hasCrawl && settings.seeds.length === 0) throw new OptionError('seed', 'give at least one seed URL to start crawling from');
    const crawler = new Crawler(store, settings, hasCrawl ? stored : null, options);
    return crawler.crawl();
  }

  private async crawl(): Promise<CrawlReport> {
    const holder = await this.store.takeCrawlLock(this.lock, (held) =>
      held.hostname === this.lock.hostname ? !pidAlive(held.pid) || Date.now() - held.heartbeat > STALE_LOCK_MS : Date.now() - held.heartbeat > STALE_LOCK_MS,
    );
    if (holder !== null) {
      throw new WgaError(
        `${this.store.location}: another crawler (pid ${holder.pid} on ${holder.hostname}) is writing this crawl, last seen ${new Date(holder.heartbeat).toISOString()}`,
        ExitCode.usage,
      );
    }
    const timers: NodeJS.Timeout[] = [];
    const abort = (): void => this.stop('stopped');
    try {
      // The worker starts once the crawl is ours (a refused crawl leaves no thread behind).
      if (this.settings.live) {
        this.live = new LiveRank({
          damping: this.settings.damping,
          intervalMs: this.settings.liveIntervalMs,
          inlineEdges: this.settings.liveInlineEdges,
          onVector: (vector) => this.onLiveVector(vector),
          onError: (error) => this.fail(error),
        });
        if (this.opic.pages > 0) await this.loadLiveGraph();
      }
      this.addSeeds();
      if (this.settings.refresh) for (const host of this.hosts.hosts) this.needRobots(host);
      // The state after the seeds, before any fetch: a crawl killed now resumes with its seeds.
      await this.checkpoint();
      const done = new Promise<void>((resolve) => (this.finish = resolve));
      // A timer checkpoint is skipped while the previous one is still being written.
      timers.push(setInterval(() => this.writing === null && void this.checkpoint(), this.settings.checkpointMs));
      if (this.options.onProgress !== undefined) timers.push(setInterval(() => this.options.onProgress!(this.progress()), this.options.progressMs ?? 1000));
      if (this.settings.maxTimeMs !== null) timers.push(setTimeout(() => this.stop('max-time'), this.settings.maxTimeMs));
      if (this.options.signal?.aborted === true) this.stop('stopped');
      this.options.signal?.addEventListener('abort', abort);
      this.pump();
      await done;
      for (const timer of timers) clearInterval(timer);
      this.memory = memoryNow();
      if (this.failure !== null) throw this.failure;
      await this.finishLive();
      await this.checkpoint();
      if (this.failure !== null) throw this.failure;
      const runs = await this.saveRuns();
      return this.report(runs);
    } finally {
      for (const timer of timers) clearInterval(timer);
      this.options.signal?.removeEventListener('abort', abort);
      this.hosts.clearTimers();
      for (const timer of this.retryTimers) clearTimeout(timer);
      if (this.pumpLater !== null) clearImmediate(this.pumpLater);
      await this.fetcher.destroy().catch(() => undefined);
      await this.live?.close().catch(() => undefined);
      if (this.writing !== null) await this.writing.catch(() => undefined);
      await this.store.releaseCrawlLock(this.lock.owner).catch(() => undefined);
    }
  }

  // ---- pages -------------------------------------------------------------

  private restore(stored: StoredCrawl): void {
    const globals = parseOpicState(stored.state[CRAWL_STATE.opic])!;
    this.opic.opic.restoreGlobals(globals);
    const rates = stored.state[CRAWL_STATE.recentRates];
    if (rates !== undefined) this.opic.recentIntroductions = JSON.parse(rates) as number[];
    // The stored window_history values are relative to the window of their checkpoint: set it before
    // they are restored, so that the next change of window rescales them rather than inflating them.
    let window = Number(stored.state[CRAWL_STATE.window]);
    if (!(window > 0) && globals.reads > 0) window = (this.settings.windowPasses * globals.clock * stored.pages.length) / globals.reads;
    if (window > 0 && Number.isFinite(window)) {
      this.opic.setWindow(window);
      this.lastPassWindow = window;
    }
    stored.pages.forEach((page, index) => {
      if (page.id !== storeId(index)) {
        throw new WgaError(`${this.store.location}: page ids are not 1..${stored.pages.length} (found ${page.id} at position ${index + 1}); this store's crawl cannot be resumed`, ExitCode.input);
      }
      const url = new URL(page.url);
      const { host } = this.hosts.intern(url.origin, url.hostname);
      this.frontier.setHostEnabled(host.id, false);
      this.counters.hosts = this.hosts.size;
      const id = this.opic.restorePage(page.opic, page.windowHistory, host.id);
      const done = page.status !== null || page.error !== null;
      this.track(id, page.url, page.key, host.id, page.depth, done ? DONE : WAITING);
      if (done) this.countFinished(id, page.status, page.error, page.contentType);
      else {
        this.frontier.add(id, host.id);
        this.needRobots(host);
      }
      if (page.fetchSeq !== null) this.fetchSeq = Math.max(this.fetchSeq, page.fetchSeq);
    });
    this.pagesStarted = this.fetchSeq;
    for (const [source, target] of stored.redirects) this.redirectTo.set(source - 1, target - 1);
  }

  /**
   * Counts a finished page the way the store's counts() does (records.ts, COUNT_CONDITIONS); a page
   * fetched again moves from the class of its former answer to that of the new one.
   */
  private countFinished(id: number, status: number | null, error: string | null, contentType: string | null): void {
    const before = this.outcome.get(id);
    if (before !== NO_OUTCOME) this.counters[OUTCOMES[before]!]--;
    let outcome: number;
    if (error !== null && error.startsWith('excluded:') && status === null) outcome = 0;
    else if (error !== null || (status !== null && status >= 400)) outcome = 1;
    else if (status !== null && status >= 300 && status < 400) outcome = 2;
    else if (status !== null && status >= 200 && status < 300 && (contentType === null || HTML_TYPES.has(contentType))) outcome = 3;
    else outcome = 4;
    this.outcome.set(id, outcome);
    this.counters[OUTCOMES[outcome]!]++;
  }

  private track(id: number, url: string, key: string, host: number, depth: number, state: number): void {
    const tableId = this.urls.add(key, url);
    if (tableId !== id) throw new Error(`internal error: page ${id} got URL table id ${tableId}`);
    this.hostOf.set(id, host);
    this.depth.set(id, Math.min(depth, 65_535));
    this.state.set(id, state);
    this.hops.set(id, 0);
    this.attempts.set(id, 0);
    this.counters.known++;
    if (state === WAITING) this.counters.frontier++;
  }

  private addSeeds(): void {
    const added: number[] = [];
    for (const seed of this.settings.seeds) {
      const resolved = resolveUrl(seed);
      if (!resolved.ok) throw new OptionError('seed', `'${seed}' is not an http(s) URL`);
      const why = this.compiled.scope.exclusion(resolved.url, resolved.key, 0);
      if (why !== null) throw new OptionError('seed', `${seed} is outside the crawl's scope: ${why}`);
      if (this.urls.id(resolved.key) !== -1) continue;
      added.push(this.intern(resolved.url, resolved.key, 0));
    }
    // A new crawl gives its one unit of cash to its seeds (OPIC's initial state).
    if (this.opic.opic.totalCash() === 0 && added.length > 0) this.opic.opic.distributeInitialCash(added);
  }

  /** The id of a URL's page, adding it if it is new and in scope; -1 when out of scope. */
  private intern(url: URL, key: string, depth: number): number {
    const known = this.urls.id(key);
    if (known !== -1) {
      if (this.depthLinks !== null && depth < this.depth.get(known)) this.lowerDepth(known, depth);
      return known;
    }
    if (this.rejected.has(key)) return -1;
    const why = this.compiled.scope.exclusion(url, key, depth);
    if (why !== null) {
      // Depth depends on the path a URL was found by: only other reasons are final.
      if (depth <= this.compiled.scope.maxDepth) {
        if (this.rejected.size >= REJECTED_CACHE) this.rejected = new Set();
        this.rejected.add(key);
        return -1;
      }
      return this.compiled.scope.exclusion(url, key, 0) === null ? TOO_DEEP : -1;
    }
    const { host, created } = this.hosts.intern(url.origin, url.hostname);
    if (created) {
      this.frontier.setHostEnabled(host.id, false);
      this.counters.hosts = this.hosts.size;
    }
    const focus = this.compiled.focus.some((re) => re.test(key));
    const id = this.opic.addPage(focus, host.id);
    this.live?.grow(id + 1);
    const href = url.hash === '' ? url.href : url.href.slice(0, url.href.length - url.hash.length);
    this.track(id, href === key ? key : href, key, host.id, depth, WAITING);
    this.frontier.add(id, host.id);
    this.needRobots(host);
    return id;
  }

  /**
   * A known page found by a shorter path (Greedy does not find pages in breadth-first order): its
   * depth, and that of the pages reached through it, goes down, and links a --max-depth had cut
   * become pages and links now that they are within reach.
   */
  private lowerDepth(start: number, startDepth: number): void {
    const links = this.depthLinks!;
    const queue: Array<[number, number]> = [[start, startDepth]];
    for (let head = 0; head < queue.length; head++) {
      const [id, depth] = queue[head]!;
      if (depth >= this.depth.get(id)) continue;
      this.depth.set(id, depth);
      this.batch.depth(id, depth);
      for (const [child, step] of links.childrenOf(id)) queue.push([child, depth + step]);
      if (depth + 1 > this.compiled.scope.maxDepth) continue;
      for (const cut of links.takeCut(id)) {
        const target = this.intern(new URL(cut.url), cut.key, depth + 1);
        if (target < 0 || target === id) continue;
        // A link of a page already read: stored now, and followed by OPIC when the page is read again.
        this.batch.link(id, target, 'anchor', cut.nofollow);
        links.child(id, target, 1);
        this.live?.addLinks(id, [target]);
      }
    }
  }

  // ---- scheduling ----------------------------------------------------------

  private needRobots(host: Host): void {
    if (host.robotsState !== RobotsState.Unknown) return;
    host.robotsState = RobotsState.Fetching;
    this.robotsQueue.push(host);
  }

  private limitReached(): boolean {
    if (this.settings.maxPages !== null && this.pagesStarted >= this.settings.maxPages) {
      this.stopping ??= 'max-pages';
      return true;
    }
    return false;
  }

  /** Starts as many fetches as concurrency and politeness allow, then checks whether the crawl is over. */
  private pump(): void {
    if (this.stopping === null) {
      while (this.counters.inFlight < this.settings.concurrency && this.robotsQueue.length > 0) void this.loadRobots(this.robotsQueue.shift()!);
      // Pages a rule refuses finish at once, without a request; a bounded number per turn of the event
      // loop keeps a crawl whose pages are all refused (e.g. --refresh after robots.txt failed) from
      // spinning here without ever writing a checkpoint or hearing a signal.
      let refusedHere = 0;
      while (this.counters.inFlight < this.settings.concurrency && !this.limitReached()) {
        const id = this.frontier.take((page) => this.hostOf.get(page));
        if (id < 0) break;
        if (!this.startPage(id) && ++refusedHere >= REFUSALS_PER_TURN) {
          this.pumpLater = setImmediate(() => {
            this.pumpLater = null;
            this.pump();
          });
          return;
        }
      }
    }
    this.checkFinished();
  }

  private checkFinished(): void {
    if (this.finish === null) return;
    if (this.counters.inFlight > 0 || this.pumpLater !== null) return;
    if (this.stopping === null) {
      if (this.retryTimers.size > 0 || this.robotsQueue.length > 0) return;
      if (this.hosts.hosts.some((h) => h.timer !== null)) return;
      this.stopping = 'done';
    }
    const finish = this.finish;
    this.finish = null;
    finish();
  }

  stop(reason: StopReason): void {
    this.stopping ??= reason;
    this.hosts.clearTimers();
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.checkFinished();
  }

  /** Switches a host on or off for selection; when only its delay holds it, wakes up when that ends. */
  private refreshHost(host: Host): void {
    const now = performance.now();
    const available = this.hosts.available(host, now);
    this.frontier.setHostEnabled(host.id, available);
    if (!available && host.robotsState === RobotsState.Known && host.active < this.hosts.perHost && host.timer === null && this.stopping === null) {
      host.timer = setTimeout(() => {
        host.timer = null;
        this.refreshHost(host);
        this.pump();
      }, Math.max(1, Math.ceil(host.nextAt - now)));
    }
  }

  /** Fetches a page, or finishes it at once when robots.txt refuses it (then returns false). */
  private startPage(id: number): boolean {
    const host = this.hosts.hosts[this.hostOf.get(id)]!;
    const refetch = this.state.get(id) === DONE;
    if (!refetch) this.counters.frontier--;
    this.state.set(id, IN_FLIGHT);
    if (host.robots !== null && !host.robots.allows(this.urls.url(id))) {
      const error = `excluded: ${host.robots.disallowAll ?? 'robots.txt disallows it'}`;
      this.finishPage(id, { status: null, contentType: null, fetchedAt: Date.now(), size: null, title: null, error }, [], refetch, false);
      // Re-reading a refused page costs no request, but it is a selection: with --refresh, counting it
      // is what lets --max-pages end a crawl whose pages have all become refused.
      if (refetch) this.pagesStarted++;
      return false;
    }
    this.pagesStarted++;
    this.sessionFetches++;
    this.launch(id, host, refetch);
    return true;
  }

  private launch(id: number, host: Host, refetch: boolean): void {
    this.counters.inFlight++;
    this.counters.requests++;
    this.hosts.start(host, performance.now());
    this.refreshHost(host);
    const url = new URL(this.urls.url(id));
    this.fetcher.fetch(url).then(
      (result) => this.onFetched(id, host, refetch, result),
      (error: unknown) => this.fail(error as Error),
    );
  }

  private onFetched(id: number, host: Host, refetch: boolean, result: FetchResult): void {
    this.counters.inFlight--;
    this.hosts.finish(host);
    try {
      if (result.failure === 'retryable' && this.attempts.get(id) < this.settings.retries && this.stopping === null) {
        this.scheduleRetry(id, host, refetch, result);
      } else {
        this.process(id, refetch, result);
      }
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    this.refreshHost(host);
    if (this.batch.size >= this.settings.checkpointPages) void this.checkpoint();
    this.pump();
  }

  /**
   * A failed fetch to try again after an exponential back-off (or the server's Retry-After): the page
   * waits out of the frontier, then rejoins it and is chosen again on the usual terms (politeness).
   */
  private scheduleRetry(id: number, host: Host, refetch: boolean, result: FetchResult): void {
    const attempt = this.attempts.get(id) + 1;
    this.attempts.set(id, attempt);
    this.counters.retries++;
    this.state.set(id, RETRY_WAIT);
    this.pagesStarted--;
    this.sessionFetches--;
    const wait = result.retryAfterMs ?? this.settings.retryDelayMs * 2 ** (attempt - 1);
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (this.stopping !== null) return;
      this.state.set(id, refetch ? DONE : WAITING);
      if (!refetch) this.counters.frontier++;
      this.frontier.putBack(id, host.id);
      this.refreshHost(host);
      this.pump();
    }, wait);
    this.retryTimers.add(timer);
  }

  // ---- results -------------------------------------------------------------

  private process(id: number, refetch: boolean, result: FetchResult): void {
    const record = fetchRecordOf(result);
    const out: number[] = [];
    const links: Array<{ target: number; kind: 'anchor' | 'redirect' | 'canonical'; nofollow: boolean }> = [];
    if (result.page !== null && result.error === null) {
      this.pageLinks(id, result, out, links);
    } else if (result.location !== null && result.error === null) {
      const problem = this.redirect(id, result.location, out, links);
      if (problem !== null) record.error = problem;
    }
    this.finishPage(id, record, out, refetch, true, links);
  }

  /** Out-links of a fetched HTML page: resolved against its base, in scope, without self-links. */
  private pageLinks(id: number, result: FetchResult, out: number[], links: Array<{ target: number; kind: 'anchor' | 'redirect' | 'canonical'; nofollow: boolean }>): void {
    const page = result.page!;
    const pageUrl = this.urls.url(id);
    let base: string | URL = pageUrl;
    if (page.base !== null) {
      const resolved = resolveUrl(page.base, pageUrl);
      if (resolved.ok) base = resolved.url;
    }
    const depth = this.depth.get(id) + 1;
    const nofollow = new Map<number, boolean>();
    for (const link of page.links) {
      const resolved = resolveUrl(link.href, base);
      if (!resolved.ok) {
        this.counters.invalidLinks++;
        continue;
      }
      const target = this.intern(resolved.url, resolved.key, depth);
      if (target === TOO_DEEP && this.depthLinks !== null) this.depthLinks.cut(id, resolved.url.href, resolved.key, link.nofollow);
      if (target < 0 || target === id) continue;
      const before = nofollow.get(target);
      // A page linked several times is nofollow only if every link to it is.
      nofollow.set(target, before === undefined ? link.nofollow : before && link.nofollow);
    }
    for (const [target, flag] of nofollow) {
      out.push(target);
      links.push({ target, kind: 'anchor', nofollow: flag });
      this.depthLinks?.child(id, target, 1);
    }
    if (page.canonical !== null) {
      const resolved = resolveUrl(page.canonical, base);
      if (resolved.ok && resolved.key !== this.urls.key(id)) {
        const target = this.intern(resolved.url, resolved.key, this.depth.get(id));
        if (target >= 0) {
          links.push({ target, kind: 'canonical', nofollow: false });
          this.depthLinks?.child(id, target, 0);
        }
      }
    }
  }

  /** A redirect: the target becomes a page (same depth: no click), linked by a 'redirect' link. Returns a problem, if any. */
  private redirect(id: number, location: string, out: number[], links: Array<{ target: number; kind: 'anchor' | 'redirect' | 'canonical'; nofollow: boolean }>): string | null {
    const resolved = resolveUrl(location, this.urls.url(id));
    if (!resolved.ok) return `redirect to an unusable Location (${resolved.problem}): ${location.slice(0, 200)}`;
    if (resolved.key === this.urls.key(id)) return 'redirect loop: the page redirects to itself';
    const hops = this.hops.get(id) + 1;
    if (hops > this.settings.maxRedirects) return `more than ${this.settings.maxRedirects} redirects in a row`;
    const isNew = this.urls.id(resolved.key) === -1;
    const target = this.intern(resolved.url, resolved.key, this.depth.get(id));
    if (target < 0) return null;
    if (isNew) this.hops.set(target, hops);
    out.push(target);
    links.push({ target, kind: 'redirect', nofollow: false });
    this.depthLinks?.child(id, target, 0);
    this.redirectTo.set(id, target);
    // Follow the chain from the target: coming back here is a loop.
    let at = target;
    for (let step = 0; step <= this.settings.maxRedirects + 1; step++) {
      const next = this.redirectTo.get(at);
      if (next === undefined) return null;
      if (next === id) return 'redirect loop';
      at = next;
    }
    return null;
  }

  private finishPage(
    id: number,
    record: FetchRecord,
    out: number[],
    refetch: boolean,
    fetched: boolean,
    links: Array<{ target: number; kind: 'anchor' | 'redirect' | 'canonical'; nofollow: boolean }> = [],
  ): void {
    this.opic.read(id, out);
    this.state.set(id, DONE);
    this.attempts.set(id, 0);
    // A page fetched before keeps its stored answer and links unless the server gave a definite new
    // one: a refresh while the server is down or robots.txt cannot be read must not erase the crawl.
    // (OPIC still reads the page, as a dangling one: its cash goes to the virtual page.)
    if (refetch && (record.status === null || record.status >= 500)) return;
    // fetch_seq: the order in which fetches completed (null for pages a rule kept from fetching).
    this.batch.recordFetch(id, fetched ? ++this.fetchSeq : null, record, refetch);
    for (const link of links) this.batch.link(id, link.target, link.kind, link.nofollow);
    // The live graph is the stored one (anchors and redirects, as `wga rank --db` loads it). Set even
    // when empty: the page no longer waits, so the live estimate stops guessing its links.
    this.live?.setLinks(id, out);
    this.frontier.fetched(id, out);
    this.countFinished(id, record.status, record.error, record.contentType);
  }

  // ---- checkpoints and results ---------------------------------------------

  private fail(error: Error): void {
    this.failure ??= error;
    this.stop('stopped');
  }

  /** Adapts the Interpolation window to `windowPasses` passes over the known pages, in G-time. */
  private adaptWindow(): void {
    const reads = this.opic.opic.reads;
    if (reads === 0) return;
    const perPass = (this.opic.opic.time * this.opic.pages) / reads;
    const window = this.settings.windowPasses * perPass;
    if (window > 0 && Math.abs(window - this.lastPassWindow) > 1e-3 * window) {
      this.opic.setWindow(window);
      this.lastPassWindow = window;
    }
  }

  /** Writes everything pending since the last checkpoint, after the write in progress if there is one. */
  private async checkpoint(): Promise<void> {
    // `writing` never rejects (failures go to fail()); the loop re-checks because another
    // caller may have started a write when this one wakes up.
    while (this.writing !== null) await this.writing;
    this.adaptWindow();
    this.lock.heartbeat = Date.now();
    const batch = this.batch.take(this.opic, this.facts, {
      [CRAWL_STATE.lock]: JSON.stringify(this.lock),
      [CRAWL_STATE.progress]: JSON.stringify({ fetches: this.fetchSeq, updatedAt: Date.now() }),
      // The settings are stored with the state they produced: --resume continues with them.
      [CRAWL_STATE.settings]: this.settingsText,
      ...this.liveState(),
    });
    this.writing = this.store
      .writeCrawlBatch(batch)
      .catch((error: unknown) => this.fail(error as Error))
      .finally(() => {
        this.writing = null;
      });
    await this.writing;
  }

  // ---- live PageRank ---------------------------------------------------------

  /** After --resume: the live graph starts from the links the store holds. */
  private async loadLiveGraph(): Promise<void> {
    const live = this.live!;
    live.grow(this.opic.pages);
    const { graph, pageIds } = await this.store.loadGraph();
    for (let v = 0; v < graph.nodeCount; v++) {
      const id = pageIds[v]! - 1;
      const targets = graph.successors(v);
      // Pages done without links are set too: they no longer wait (the live estimate guesses only waiting pages' links).
      if (targets.length > 0 || this.state.get(id) === DONE) live.setLinks(id, Array.from(targets, (t) => pageIds[t]! - 1));
    }
  }

  private onLiveVector(vector: LiveVector): void {
    this.frontier.liveVector(vector.scores, this.opic.pages);
    this.pump();
  }

  /** The live ranking for a checkpoint's crawl_state, when a vector arrived since the last one. */
  private liveState(): Record<string, string> {
    const vector = this.live?.latest ?? null;
    if (vector === null || vector.version === this.liveStored) return {};
    this.liveStored = vector.version;
    return { [CRAWL_STATE.liveRank]: JSON.stringify(liveRankState(vector, this.live!.latestAt, this.fetchSeq)) };
  }

  /** The crawl is over: the live vector is solved to the final tolerance from a recomputed residual. */
  private async finishLive(): Promise<void> {
    if (this.live === null) return;
    const before = this.live.latest?.busyMs ?? 0;
    const vector = await this.live.finish();
    this.liveReport = {
      updates: this.live.updates,
      pages: vector.pages,
      links: vector.links,
      pushes: vector.pushes,
      edgeVisits: vector.edgeVisits,
      busyMs: vector.busyMs,
      cpuMs: vector.cpuMs,
      inWorker: this.live.inWorker,
      finalMs: vector.busyMs - before,
      bytes: vector.bytes,
      errorBound: vector.errorBound,
    };
  }

  private readonly facts = {
    url: (id: number) => this.urls.url(id),
    key: (id: number) => this.urls.key(id),
    hostname: (id: number) => this.hosts.hosts[this.hostOf.get(id)]!.hostname,
    depth: (id: number) => this.depth.get(id),
  };

  private async saveRuns(): Promise<number[]> {
    const pages = this.opic.pages;
    const pageIds = Float64Array.from({ length: pages }, (_, id) => storeId(id));
    const parameters = {
      source: 'crawl',
      strategy: this.settings.strategy,
      damping: this.settings.damping,
      reads: this.opic.opic.reads,
      focus: this.settings.focus,
      focusShare: this.settings.focusShare,
      discoveryShare: this.settings.discoveryShare,
    };
    const base = { startedAt: this.startedAt, finishedAt: Date.now(), iterations: this.opic.opic.reads, converged: null };
    const runs = [await this.store.saveRun({ ...base, method: 'opic', parameters, residual: this.opic.opic.errorFactor }, pageIds, this.opic.opic.estimates())];
    const live = this.live?.latest ?? null;
    if (live !== null && live.final && live.pages === pages) {
      runs.push(
        await this.store.saveRun(
          {
            ...base,
            method: 'live',
            parameters: { ...parameters, unfetched: 'dangling', updates: this.liveReport?.updates ?? null, pushes: live.pushes, links: live.links },
            iterations: null,
            residual: live.errorBound,
            converged: true,
          },
          pageIds,
          live.scores,
        ),
      );
    }
    if (this.settings.refresh) {
      runs.push(
        await this.store.saveRun(
          { ...base, method: 'opic-adaptive', parameters: { ...parameters, window: this.opic.window, windowPasses: this.settings.windowPasses }, residual: null },
          pageIds,
          this.opic.estimates(),
        ),
      );
    }
    return runs;
  }

  private progress(): CrawlProgress {
    const elapsedMs = performance.now() - this.started;
    const k = this.options.progressTop ?? 3;
    const estimates = this.settings.refresh ? this.opic.estimates() : this.opic.opic.estimates();
    const top: Array<{ url: string; importance: number }> = [];
    for (let id = 0; id < estimates.length; id++) {
      const value = estimates[id]!;
      if (top.length < k || value > top[top.length - 1]!.importance) {
        top.push({ url: this.urls.url(id), importance: value });
        top.sort((a, b) => b.importance - a.importance);
        if (top.length > k) top.pop();
      }
    }
    const vector = this.live?.latest ?? null;
    const live =
      vector === null
        ? null
        : {
            top: topOfVector(vector.scores, k).map(([id, importance]) => ({ url: this.urls.url(id), importance })),
            pages: vector.pages,
            ageMs: Date.now() - this.live!.latestAt,
          };
    return { ...this.counters, elapsedMs, pagesPerSecond: elapsedMs > 0 ? (this.sessionFetches * 1000) / elapsedMs : 0, top, live };
  }

  private report(runs: number[]): CrawlReport {
    return {
      ...this.counters,
      stoppedBy: this.stopping ?? 'done',
      seconds: (performance.now() - this.started) / 1000,
      fetches: this.fetchSeq,
      memory: this.memory,
      runs,
      opicTime: this.opic.opic.time,
      totalCash: this.opic.opic.totalCash(),
      live: this.liveReport,
    };
  }

  // ---- robots.txt ------------------------------------------------------------

  private async loadRobots(host: Host): Promise<void> {
    this.counters.inFlight++;
    host.active++;
    let rules: RobotsRules;
    try {
      rules = await this.fetchRobots(host);
    } catch (error) {
      this.fail(error as Error);
      return;
    } finally {
      this.counters.inFlight--;
      host.active--;
    }
    host.robots = rules;
    host.delayMs = Math.max(this.settings.delayMs, rules.crawlDelayMs());
    host.robotsState = RobotsState.Known;
    host.nextAt = performance.now() + host.delayMs;
    this.refreshHost(host);
    this.pump();
  }

  private async fetchRobots(host: Host): Promise<RobotsRules> {
    return fetchRobotsRules(this.fetcher, host.origin, {
      userAgent: this.settings.userAgent,
      retries: this.settings.retries,
      retryDelayMs: this.settings.retryDelayMs,
      onRequest: () => {
        this.counters.requests++;
      },
      stopping: () => this.stopping !== null,
    });
  }
}
