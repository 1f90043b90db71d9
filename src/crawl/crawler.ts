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
import type { HostRenderReport } from './render-policy.js';
import { readFileSync } from 'node:fs';
import { hostname as machineName, tmpdir } from 'node:os';
import { dirname, resolve as resolvePath } from 'node:path';
import { AdaptiveOpic } from '../analysis/adaptive-opic.js';
import { OptionError, WgaError, ExitCode } from '../errors.js';
import type { CrawlLock, CrawlSummary, Store } from '../store/store.js';
import { CRAWL_STATE, GRAPH_LINK_KINDS, parseOpicState } from '../store/store.js';
import { PendingBatch, storeId } from './checkpoint.js';
import { StoreFailureError, storeFailure } from '../store/store-failure.js';
import { settleWithin } from '../util/settle.js';
import { Frontier } from './frontier.js';
import { LiveRank, type LiveVector } from './live-rank.js';
import { setOpsOfOutLists } from './live-rank-protocol.js';
import { liveRankState } from './live-state.js';
import type { DnsCounters } from './dns-cache.js';
import type { ConnectionCounters } from './connections.js';
import type { Host, Server } from './hosts.js';
import { watchMemory } from './memory-watch.js';
import { DONE, type FoundLink, PagePipeline, type PageOutcome, WAITING } from './page-pipeline.js';
import type { RenderCounters } from './render.js';
import { type CrawlSettings, compileSettings, memoryBudgetOf } from './settings.js';
import { resolveUrl } from './url.js';
import type { CrawlCounters } from './counters.js';
import { openWarc, type WarcWriter } from '../formats/warc-writer.js';
import { lockHolderAlive } from '../store/crawl-lock.js';

export type StopReason = 'done' | 'max-pages' | 'max-time' | 'memory' | 'stopped';

export type { CrawlCounters };

export interface CrawlProgress extends CrawlCounters {
  elapsedMs: number;
  /** Page fetches per second over this session. */
  pagesPerSecond: number;
  /** Best pages by current importance (OPIC's estimate). */
  top: Array<{ url: string; importance: number }>;
  /** The live PageRank's best pages and the pages its latest vector covers (null: off, or no vector yet). */
  live: { top: Array<{ url: string; importance: number }>; pages: number; ageMs: number } | null;
  /** Checkpoints written in this session, and how long the last one and the longest took to write. */
  checkpoints: CheckpointTimes;
}

/** Checkpoint write times of a session: they stay flat as a crawl grows (issue 38), or they do not. */
export interface CheckpointTimes {
  count: number;
  lastMs: number;
  maxMs: number;
  totalMs: number;
  /** How long fetches waited for a write, a checkpoint's worth (`checkpointPages`) pending, and how many times. */
  heldMs: number;
  held: number;
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
  /** The share of one core the updates could use (--live-share), and the updates it held back, for how long beyond --live-interval in all, ms. */
  share: number;
  held: number;
  heldMs: number;
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
  memory: { rss: number; heapUsed: number; arrayBuffers: number; collected: boolean; peakRss: number };
  /** Store runs saved at the end: the OPIC estimates (and Adaptive OPIC's with --refresh). */
  runs: number[];
  opicTime: number;
  totalCash: number;
  /** The live PageRank's cost (null with --no-live). */
  live: LiveReport | null;
  /** What the browser did (--render; null when no page could be rendered). */
  renderer: RenderCounters | null;
  /** --render auto found no browser: pages were read as served. */
  renderUnavailable: boolean;
  /** --render auto: per host with pages with scripts, what was decided and why (render-policy.ts). */
  renderHosts: HostRenderReport[];
  /** What the crawl's DNS did (dns-cache.ts). */
  dns: DnsCounters;
  /** What its keep-alive connections did (connections.ts). */
  connections: ConnectionCounters;
  checkpoints: CheckpointTimes;
}

export interface CrawlOptions {
  /** Continue the crawl in the store (its settings are given in `settings`). */
  resume?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: CrawlProgress) => void;
  progressMs?: number;
  /** How many best pages progress reports carry. */
  progressTop?: number;
  /**
   * Read every page fetched before once more (conditional requests: an unchanged page costs a 304),
   * most important first, with the pages found on the way, then stop: one pass of --refresh.
   */
  recrawl?: boolean;
  /** A warning while the crawl goes on (the store not answering, then answering again). */
  onNotice?: (message: string) => void;
}

/** Milliseconds as seconds for a message: 1.5, 12. */
const seconds = (ms: number): string => (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);

/** Longest wait for the crawl lock's release at the end of a crawl, ms. */
const RELEASE_WAIT_MS = 5000;
/** The out-list of a page fetched without links. */
const NO_LINKS = new Int32Array(0);

/**
 * The process's largest resident set so far (bytes): what a crawl cost at its worst. On Linux from
 * /proc/self/status (VmHWM): getrusage's maxRSS is kept across execve, so a crawl started by a
 * large process (a test runner, a server) would report that process's size as its own.
 */
function peakRss(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match !== null) return Number(match[1]) * 1024;
  } catch {
    // Not Linux, or /proc unreadable: the rusage figure below.
  }
  return process.resourceUsage().maxRSS * 1024;
}

function memoryNow(): CrawlReport['memory'] {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === 'function') gc();
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, arrayBuffers, collected: typeof gc === 'function', peakRss: peakRss() };
}

export class Crawler extends PagePipeline {
  private readonly settingsText: string;
  private readonly opic: AdaptiveOpic;
  private readonly frontier: Frontier;
  private batch: PendingBatch;
  private readonly lock: CrawlLock;
  /** Fetches recorded in the whole crawl: the last fetch_seq given. */
  private fetchSeq = 0;
  /** Page fetches started in the whole crawl (retries aside): what --max-pages limits. */
  private pagesStarted = 0;
  private sessionFetches = 0;
  private writing: Promise<void> | null = null;
  private readonly started = performance.now();
  private readonly startedAt = Date.now();
  private finish: (() => void) | null = null;
  private lastPassWindow = 0;
  private memory: CrawlReport['memory'] = { rss: 0, heapUsed: 0, arrayBuffers: 0, collected: false, peakRss: 0 };
  /** The live PageRank (null with --no-live). */
  private live: LiveRank | null = null;
  /** The live vector last written to a checkpoint. */
  private liveStored = 0;
  private liveReport: LiveReport | null = null;
  /** The crawl's sessions (this one last), kept in crawl_state. */
  private sessions: Array<{ started: number; finished: number | null }> = [];
  private readonly recrawl: boolean;

  private constructor(
    private readonly store: Store,
    settings: CrawlSettings,
    stored: CrawlSummary | null,
    private readonly options: CrawlOptions,
    warc: WarcWriter | null,
  ) {
    const seedHosts = [...settings.seeds, ...(stored?.seeds ?? [])].map((s) => {
      const resolved = resolveUrl(s);
      if (!resolved.ok) throw new OptionError('seed', `'${s}' is not an http(s) URL`);
      return resolved.url.hostname;
    });
    const recrawl = options.recrawl === true;
    super(settings, compileSettings(settings, seedHosts), { rereads: settings.refresh || recrawl, warc, spillDir: spillDirOf(store) });
    this.recrawl = recrawl;
    this.settingsText = JSON.stringify(settings);
    this.opic = new AdaptiveOpic(
      { kind: 'interpolation', window: 1 },
      {
        damping: settings.damping,
        focusShare: settings.focusShare,
        discoveryShare: settings.discoveryShare,
        reselectRead: settings.refresh || recrawl,
        trackChanges: true,
        seed: settings.seed,
        capacity: this.pageCapacity,
        // A page's group is its host: the pipeline's column (OPIC keeps none of its own).
        groupOf: (id) => this.hostOf.get(id),
      },
    );
    this.frontier = new Frontier(this.opic.opic, {
      strategy: settings.strategy,
      refresh: settings.refresh || recrawl,
      bufferSize: settings.bufferSize,
      seed: settings.seed,
      damping: settings.damping,
    });
    this.lock = { owner: `${machineName()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`, hostname: machineName(), pid: process.pid, heartbeat: Date.now(), startedAt: Date.now() };
    if (stored !== null) this.restore(stored);
    this.batch = new PendingBatch(0);
  }

  /**
   * Crawls into `store` until the frontier is empty, a limit is reached or `signal` aborts;
   * with `resume`, continues the crawl the store holds.
   */
  static async run(store: Store, settings: CrawlSettings, options: CrawlOptions = {}): Promise<CrawlReport> {
    const stored = await store.crawlSummary();
    const hasCrawl = parseOpicState(stored.state[CRAWL_STATE.opic]) !== null;
    if (stored.pages > 0 && !hasCrawl) {
      throw new WgaError(`${store.location}: holds ${stored.pages} pages that are not from a crawl (an import?); crawl into another store`, ExitCode.usage);
    }
    if (hasCrawl && options.resume !== true) {
      throw new WgaError(`${store.location}: already holds a crawl; continue it with --resume, or start again after: wga reset --db ${store.location}`, ExitCode.usage);
    }
    if (!hasCrawl && options.resume === true && settings.seeds.length === 0) {
      throw new WgaError(`${store.location}: holds no crawl to resume; give seed URLs to start one`, ExitCode.usage);
    }
    if (!hasCrawl && settings.seeds.length === 0) throw new OptionError('seed', 'give at least one seed URL to start crawling from');
    if (options.recrawl === true && !hasCrawl) throw new OptionError('--recrawl', `${store.location} holds no crawl to read again`);
    if (options.recrawl === true && settings.strategy !== 'greedy') throw new OptionError('--recrawl', `reads the most important pages first, which is the greedy strategy, not ${settings.strategy}`);
    const warc = openWarc(settings, 'wga');
    try {
      const crawler = new Crawler(store, settings, hasCrawl ? stored : null, options, warc);
      if (hasCrawl) await crawler.restorePages(stored);
      return await crawler.crawl();
    } finally {
      warc?.close();
    }
  }

  private async crawl(): Promise<CrawlReport> {
    const holder = await this.store.takeCrawlLock(this.lock, (held) => !lockHolderAlive(held));
    if (holder !== null) {
      throw new WgaError(
        `${this.store.location}: another crawler (pid ${holder.pid} on ${holder.hostname}) is writing this crawl, last seen ${new Date(holder.heartbeat).toISOString()}`,
        ExitCode.usage,
      );
    }
    const timers: NodeJS.Timeout[] = [];
    const abort = (): void => this.stop('stopped');
    try {
      this.sessions.push({ started: this.startedAt, finished: null });
      // The worker starts once the crawl is ours (a refused crawl leaves no thread behind).
      if (this.settings.live) {
        this.live = new LiveRank({
          damping: this.settings.damping,
          intervalMs: this.settings.liveIntervalMs,
          share: this.settings.liveShare,
          inlineEdges: this.settings.liveInlineEdges,
          capacity: this.pageCapacity,
          fullVectors: this.settings.strategy === 'pagerank',
          onVector: (vector) => this.onLiveVector(vector),
          onError: (error) => this.fail(error),
        });
      }
      if (this.opic.pages > 0 && (this.live !== null || this.outLinks !== null)) await this.loadStoredGraph();
      this.addSeeds();
      if (this.settings.refresh || this.recrawl) for (const host of this.hosts.hosts) this.needRobots(host);
      // The state after the seeds, before any fetch: a crawl killed now resumes with its seeds.
      await this.checkpoint();
      const done = new Promise<void>((resolve) => (this.finish = resolve));
      // A timer checkpoint is skipped while the previous one is still being written.
      timers.push(setInterval(() => this.writing === null && void this.checkpoint(), this.settings.checkpointMs));
      if (this.options.onProgress !== undefined) timers.push(setInterval(() => this.options.onProgress!(this.progress()), this.options.progressMs ?? 1000));
      if (this.settings.maxTimeMs !== null) timers.push(setTimeout(() => this.stop('max-time'), this.settings.maxTimeMs));
      timers.push(watchMemory(memoryBudgetOf(this.settings), (why) => {
        this.options.onNotice?.(why);
        this.stop('memory');
      }));
      if (this.options.signal?.aborted === true) this.stop('stopped');
      this.options.signal?.addEventListener('abort', abort);
      this.pump();
      await done;
      for (const timer of timers) clearInterval(timer);
      this.memory = memoryNow();
      this.throwIfFailed();
      // The live PageRank's last solve runs in its worker while the last checkpoint and OPIC's
      // ranking are written (each a few seconds at 10^6 pages); a second checkpoint then stores
      // the final live ranking's state.
      const liveFinished = this.finishLive().then(
        () => null,
        (error: unknown) => error,
      );
      this.sessions[this.sessions.length - 1]!.finished = Date.now();
      await this.checkpoint();
      this.throwIfFailed();
      const runs = [await this.saveOpicRun()];
      const liveFailure = await liveFinished;
      if (liveFailure !== null) throw liveFailure;
      if (this.live !== null && (this.live.latest?.version ?? this.liveStored) !== this.liveStored) {
        await this.checkpoint();
        this.throwIfFailed();
      }
      runs.push(...(await this.saveLaterRuns()));
      return this.report(runs);
    } finally {
      for (const timer of timers) clearInterval(timer);
      this.options.signal?.removeEventListener('abort', abort);
      await this.closePipeline();
      await this.live?.close().catch(() => undefined);
      if (this.writing !== null) await this.writing.catch(() => undefined);
      // A store that stopped answering keeps the lock (a later crawl sees its process gone); the
      // release is not waited on for longer than a few seconds.
      await settleWithin(this.store.releaseCrawlLock(this.lock.owner), RELEASE_WAIT_MS);
    }
  }

  // ---- pages (the pipeline's hooks) -------------------------------------------

  private restore(stored: CrawlSummary): void {
    const globals = parseOpicState(stored.state[CRAWL_STATE.opic])!;
    this.opic.opic.restoreGlobals(globals);
    for (const origin of stored.sitemapProbes) this.sitemapProbed.add(origin);
    const rates = stored.state[CRAWL_STATE.recentRates];
    if (rates !== undefined) this.opic.recentIntroductions = JSON.parse(rates) as number[];
    const sessions = stored.state[CRAWL_STATE.sessions];
    if (sessions !== undefined) this.sessions = JSON.parse(sessions) as Array<{ started: number; finished: number | null }>;
    let window = Number(stored.state[CRAWL_STATE.window]);
    if (!(window > 0) && globals.reads > 0) window = (this.settings.windowPasses * globals.clock * stored.pages) / globals.reads;
    if (window > 0 && Number.isFinite(window)) {
      this.opic.setWindow(window);
      this.lastPassWindow = window;
    }
    // window_history holds the rates R = H / T; a store checkpointed before held H, relative to its window.
    this.storedHistoryScale = stored.state[CRAWL_STATE.windowRates] === '1' || !(window > 0 && Number.isFinite(window)) ? 1 : 1 / window;
  }

  /** What a stored window_history is multiplied by to give Adaptive OPIC's rate (1, or 1 / T for older stores). */
  private storedHistoryScale = 1;

  /**
   * The stored crawl's pages, read a batch at a time (a resume of 10^7 pages holds 10^4 of them as
   * objects at once), then its redirects. Before the crawl starts.
   */
  private async restorePages(stored: CrawlSummary): Promise<void> {
    let index = 0;
    for await (const batch of this.store.crawlPageBatches()) {
      for (const page of batch) {
        if (page.id !== storeId(index)) {
          throw new WgaError(`${this.store.location}: page ids are not 1..${stored.pages} (found ${page.id} at position ${index + 1}); this store's crawl cannot be resumed`, ExitCode.input);
        }
        index++;
        const id = this.restorePage(page.key, page.url, page.depth, page.role ?? 'page');
        const host = this.hostForUrl(id, page.url);
        const opicId = this.opic.restorePage(page.opic, this.storedHistoryScale === 1 ? page.windowHistory : page.windowHistory * this.storedHistoryScale, host.id);
        if (opicId !== id) throw new Error(`internal error: page ${id} got OPIC id ${opicId}`);
        const done = page.status !== null || page.error !== null;
        if (done) {
          this.restoredFinished(id, page.status, page.error, page.contentType);
          if (this.validators !== null && (page.etag !== null || page.lastModified !== null)) this.validators.set(id, { etag: page.etag, lastModified: page.lastModified });
        } else {
          this.state.set(id, WAITING);
          this.counters.frontier++;
          this.frontier.add(id, host.id);
          this.needRobots(host);
        }
        if (page.fetchSeq !== null) this.fetchSeq = Math.max(this.fetchSeq, page.fetchSeq);
      }
    }
    this.pagesStarted = this.fetchSeq;
    for (const [source, target] of stored.redirects) this.redirectTo.set(source - 1, target - 1);
    this.batch = new PendingBatch(this.opic.pages);
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

  protected addPage(id: number, url: URL, focus: boolean, waiting: boolean): void {
    const host = this.hostFor(id, url);
    const opicId = this.opic.addPage(focus, host.id);
    if (opicId !== id) throw new Error(`internal error: page ${id} got OPIC id ${opicId}`);
    this.live?.grow(id + 1);
    if (waiting) {
      this.state.set(id, WAITING);
      this.counters.frontier++;
      this.frontier.add(id, host.id);
      this.needRobots(host);
    } else {
      // Being read already (a sitemap): out of the selection.
      this.opic.opic.hold(id);
    }
  }

  protected nextPage(): number {
    return this.frontier.take((page) => this.hostOf.get(page));
  }

  protected override limitReached(): boolean {
    if (this.settings.maxPages !== null && this.pagesStarted >= this.settings.maxPages) {
      this.stopping ??= 'max-pages';
      return true;
    }
    if (!this.waitsForStore()) return false;
    this.heldSince ??= performance.now();
    void this.checkpoint();
    return true;
  }

  /**
   * While a checkpoint is being written (on the SQLite writer thread, or to PostgreSQL), the crawl
   * goes on fetching into the next batch, up to a checkpoint's worth (batchFull). Past that no fetch
   * starts until the write is done, and the next checkpoint is asked for, so a store slower than the
   * crawl holds it back instead of letting the waiting batch grow without bound. (With 100 times as
   * many links, the wide site's batches of 200,000 new pages raised the crawl's peak RSS by 200 bytes
   * per known URL: BENCHMARKS.md.)
   */
  private waitsForStore(): boolean {
    return this.writing !== null && this.batchFull();
  }

  /**
   * A checkpoint's worth is pending: `checkpointPages` fetches, 10 times as many links, or twice as
   * many new pages. The last two bound what a batch holds on a site whose pages bring many new ones
   * (the wide site: 200 each, so 2 x 10^6 new pages in 10,000 fetches): the batch is built as objects
   * on the JavaScript heap before it is packed for the store, and written in one transaction, and
   * that peak came on top of the crawl's own memory (issue 38). New pages are bounded the tighter:
   * on the wide site, batches of 10 times `checkpointPages` (10,000) new pages raised the crawl's
   * peak by 234 MB at 10,000 fetches, against 20,000 new pages a batch (BENCHMARKS.md).
   */
  private batchFull(): boolean {
    const limit = this.settings.checkpointPages;
    return this.batch.size >= limit || this.batch.linkCount >= 10 * limit || this.batch.newPages(this.opic.pages) >= 2 * limit;
  }

  /** Waiting for the store is not the end of the crawl. */
  protected override busy(): boolean {
    return super.busy() || (this.stopping === null && this.waitsForStore());
  }

  protected pageStarted(id: number, refetch: boolean, requested: boolean): void {
    if (!refetch) this.counters.frontier--;
    // Re-reading a refused page costs no request, but it is a selection: with --refresh, counting it
    // is what lets --max-pages end a crawl whose pages have all become refused.
    // A page read again to be rendered (its host's verdict, render-policy.ts) is no new page.
    if ((requested || refetch) && !this.rereading.has(id)) this.pagesStarted++;
    if (requested) this.sessionFetches++;
  }

  protected sitemapStarted(id: number): void {
    // Being read: out of Greedy's selection (already, when the sitemap was found just now).
    if (!this.opic.opic.isHeld(id)) this.opic.opic.hold(id);
  }

  protected sitemapProbeAnswered(origin: string, status: number | null): void {
    this.batch.sitemapProbe(origin, status);
  }

  protected retryWaits(id: number, refetch: boolean): void {
    if (!this.rereading.has(id)) this.pagesStarted--;
    this.sessionFetches--;
    if (!refetch) this.counters.frontier++;
  }

  protected retryReady(id: number, host: Host, _refetch: boolean): void {
    this.frontier.putBack(id, host.id);
  }

  protected pageFinished(id: number, outcome: PageOutcome): void {
    const { record, out, links, refetch, fetched } = outcome;
    this.opic.read(id, out);
    // --recrawl: a page read in this session is not read again in it.
    if (this.recrawl) this.opic.opic.hold(id);
    if (refetch && (record.status === null || record.status >= 500)) {
      // The stored answer and links stand (page-pipeline.ts, finishPage); OPIC has read the page as dangling.
      this.live?.setLinks(id, out);
      return;
    }
    // fetch_seq: the order in which fetches completed (null for pages a rule kept from fetching, and sitemaps).
    this.batch.recordFetch(id, fetched ? ++this.fetchSeq : null, record, refetch && record.notModified !== true);
    if (record.notModified !== true) for (const link of links) this.batch.link(id, link.target, link.kind, link.rel, link.hreflang, link.lastmod);
    // The live graph is the stored one (the web graph's kinds, as `wga rank --db` loads it). Set even
    // when empty: the page no longer waits, so the live estimate stops guessing its links.
    this.live?.setLinks(id, out);
    this.frontier.fetched(id, out);
    if (this.batchFull()) void this.checkpoint();
  }

  protected laterLink(source: number, link: FoundLink): void {
    this.batch.link(source, link.target, link.kind, link.rel, link.hreflang, link.lastmod);
    if (GRAPH_LINK_KINDS.includes(link.kind)) this.live?.addLinks(source, [link.target]);
  }

  protected override depthLowered(id: number, depth: number): void {
    this.batch.depth(id, depth);
  }

  protected setHostServer(host: Host, server: Server): void {
    this.frontier.setHostServer(host.id, server.id);
  }

  protected setServerSelectable(server: Server, selectable: boolean): void {
    this.frontier.setServerEnabled(server.id, selectable);
  }

  protected setHostSelectable(host: Host, selectable: boolean): void {
    this.frontier.setHostEnabled(host.id, selectable);
  }

  protected afterPump(): void {
    if (this.finish === null || this.busy()) return;
    this.stopping ??= 'done';
    const finish = this.finish;
    this.finish = null;
    finish();
  }

  override stop(reason: StopReason): void {
    super.stop(reason);
  }

  // ---- checkpoints and results ---------------------------------------------

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

  /** A checkpoint waiting for the write in progress: later requests join it (it takes everything pending when it starts). */
  private queuedCheckpoint: Promise<void> | null = null;

  /**
   * Writes everything pending since the last checkpoint, after the write in progress if there is one.
   * Requests made while a write runs are one checkpoint, not one each: a crawl that reaches
   * `checkpointPages` during a write asks on every page it finishes, and queued one by one those
   * requests became thousands of small transactions (at 10^6 pages: 3,649 checkpoints of 274 pages,
   * the writer busy 87% of the crawl).
   */
  private checkpoint(): Promise<void> {
    if (this.queuedCheckpoint === null) {
      const queued = (async () => {
        // After checkpoint() has returned (this is its first turn), so that queuedCheckpoint is set.
        await Promise.resolve();
        // `writing` never rejects (failures go to fail()).
        while (this.writing !== null) await this.writing;
        // From here on a request needs the next batch: this one takes what is pending now.
        this.queuedCheckpoint = null;
        await this.writeCheckpoint();
      })();
      this.queuedCheckpoint = queued;
    }
    return this.queuedCheckpoint;
  }

  private async writeCheckpoint(): Promise<void> {
    // After a failure nothing more is written (as in the shared crawler): a batch taken after a lost
    // one would store OPIC's reads of pages whose fetches were in the lost one, so the store stays
    // at its last checkpoint, as the error says.
    if (this.failure !== null) return;
    this.adaptWindow();
    this.lock.heartbeat = Date.now();
    const batch = this.batch.take(this.opic, this.facts, {
      [CRAWL_STATE.lock]: JSON.stringify(this.lock),
      [CRAWL_STATE.progress]: JSON.stringify({ fetches: this.fetchSeq, updatedAt: Date.now() }),
      // The settings are stored with the state they produced: --resume continues with them.
      [CRAWL_STATE.settings]: this.settingsText,
      [CRAWL_STATE.sessions]: JSON.stringify(this.sessions),
      ...this.liveState(),
    });
    this.writing = this.writeBatch(batch)
      .catch((error: unknown) => this.fail(error as Error))
      .finally(() => {
        this.writing = null;
        if (this.heldSince !== null) {
          this.checkpointTimes.heldMs += performance.now() - this.heldSince;
          this.checkpointTimes.held++;
          this.heldSince = null;
        }
        // Fetches held back while it was written (waitsForStore) start now, if the crawl runs.
        if (this.finish !== null) this.pump();
      });
    await this.writing;
  }

  /** When the store last took a checkpoint (ms since the epoch; 0: none yet in this process). */
  private lastWritten = 0;
  private readonly checkpointTimes: CheckpointTimes = { count: 0, lastMs: 0, maxMs: 0, totalMs: 0, heldMs: 0, held: 0 };
  /** Since when fetches wait for the write in progress (limitReached), or null. */
  private heldSince: number | null = null;

  /**
   * Writes a checkpoint's batch. A failure that may pass (a lost connection, a server restarting or
   * paused, a locked file: store-failure.ts) is tried again with backoff for `storeRetryMs` while the
   * crawl goes on fetching; then, or at once for any other failure, the crawl stops with one line
   * saying what happened and how to go on. Sending a batch again is safe: PostgreSQL writes it once
   * (writeCrawlBatch), and a failed SQLite transaction wrote nothing.
   */
  /** The store holds the batch's pages now: their URL text may leave RAM (url-table.ts). */
  private spillUrls(batch: Parameters<Store['writeCrawlBatch']>[0]): void {
    const last = batch.pages[batch.pages.length - 1];
    if (last === undefined) return;
    try {
      // Store ids are page ids + 1: pages [0, last.id) are stored.
      this.urls.spill(last.id);
    } catch (error) {
      throw new WgaError(`could not write the crawl's URL spill file in ${spillDirOf(this.store)}: ${(error as Error).message}`, ExitCode.unavailable);
    }
  }

  private async writeBatch(batch: Parameters<Store['writeCrawlBatch']>[0]): Promise<void> {
    const started = Date.now();
    let delayMs = 250;
    for (let attempt = 1; ; attempt++) {
      try {
        const writeStarted = performance.now();
        await this.store.writeCrawlBatch(batch);
        const took = performance.now() - writeStarted;
        const times = this.checkpointTimes;
        times.count++;
        times.lastMs = took;
        times.maxMs = Math.max(times.maxMs, took);
        times.totalMs += took;
        this.spillUrls(batch);
        if (attempt > 1) this.options.onNotice?.(`${this.store.location}: the store answers again after ${seconds(Date.now() - started)} s; the crawl goes on`);
        this.lastWritten = Date.now();
        return;
      } catch (error) {
        const failure = storeFailure(error);
        if (failure === null) throw error;
        const waited = Date.now() - started;
        if (!failure.transient || waited + delayMs > this.settings.storeRetryMs) {
          const kept = this.lastWritten === 0 ? 'its last checkpoint' : `its last checkpoint (${new Date(this.lastWritten).toISOString()})`;
          const tried = failure.transient && this.settings.storeRetryMs > 0 ? `; tried again for ${seconds(waited)} s` : '';
          throw new StoreFailureError(
            this.store.location,
            { transient: failure.transient, text: `${failure.text}${tried}. The crawl stopped; the store keeps it up to ${kept}: continue with wga crawl --resume --db ${this.store.location}` },
            failure.transient ? ExitCode.unavailable : ExitCode.input,
          );
        }
        if (attempt === 1) this.options.onNotice?.(`${this.store.location}: the store did not take a checkpoint: ${failure.text}; trying again for up to ${seconds(this.settings.storeRetryMs)} s`);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        delayMs = Math.min(2 * delayMs, 10_000);
      }
    }
  }

  // ---- live PageRank ---------------------------------------------------------

  /**
   * After --resume: the live graph (and, for re-reads, each page's out-links) from the links the
   * store holds, a batch of out-lists at a time, sent to the live PageRank as they were read (no
   * URLs, no graph built: issue 38, 10^8 links in the resume's minute).
   */
  private async loadStoredGraph(): Promise<void> {
    const live = this.live;
    const pages = this.opic.pages;
    live?.grow(pages);
    const shift = -storeId(0);
    const withLinks = new Uint8Array(pages);
    for await (const batch of this.store.crawlOutLists(GRAPH_LINK_KINDS)) {
      const { sources, ends, targets } = batch;
      for (let i = 0, start = 0; i < sources.length; i++) {
        const id = sources[i]! + shift;
        const end = ends[i]!;
        withLinks[id] = 1;
        if (this.outLinks !== null && this.state.get(id) === DONE) this.outLinks.set(id, targets.slice(start, end).map((t) => t + shift));
        start = end;
      }
      live?.applyOps(setOpsOfOutLists(batch, shift));
    }
    // Pages done without links are set too: they no longer wait (the live estimate guesses only waiting pages' links).
    if (live !== null) for (let id = 0; id < pages; id++) if (withLinks[id] === 0 && this.state.get(id) === DONE) live.setLinks(id, NO_LINKS);
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
      share: this.settings.liveShare,
      held: vector.held,
      heldMs: vector.heldMs,
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
    role: (id: number) => this.roleOf(id),
  };

  /** What every run a crawl saves has: the pages (store ids 1..n) and the crawl's parameters. */
  private runBase() {
    // Store ids 1..n (storeId), and the estimates computed as they are written: at 10^8 known
    // pages two arrays of them all would be the crawl's peak (issue 38).
    const pageIds = { first: storeId(0), length: this.opic.pages };
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
    return { pageIds, parameters, base };
  }

  /** OPIC's ranking of every known page, as a run. */
  private async saveOpicRun(): Promise<number> {
    const { pageIds, parameters, base } = this.runBase();
    return this.store.saveRun({ ...base, method: 'opic', parameters, residual: this.opic.opic.errorFactor }, pageIds, (id) => this.opic.opic.estimate(id));
  }

  /** The final live PageRank and Adaptive OPIC's estimates, as runs (when the crawl has them). */
  private async saveLaterRuns(): Promise<number[]> {
    const pages = this.opic.pages;
    const { pageIds, parameters, base } = this.runBase();
    const runs: number[] = [];
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

  /**
   * The best pages for a progress report. Finding them scans every known page, so the list is
   * kept and found again only once 50 times the last scan's time has passed: the reports cost
   * at most about 2% of the crawl however many pages it knows (a list seconds old at 10^8 pages).
   */
  private progressTop(k: number): Array<{ url: string; importance: number }> {
    const now = performance.now();
    if (this.topCache !== null && this.topCache.k === k && now < this.topCache.nextAt) return this.topCache.top;
    const top: Array<{ id: number; importance: number }> = [];
    const adaptive = this.settings.refresh ? this.opic.estimates() : null;
    const pages = this.opic.pages;
    for (let id = 0; id < pages; id++) {
      const value = adaptive !== null ? adaptive[id]! : this.opic.opic.estimate(id);
      if (top.length < k || value > top[top.length - 1]!.importance) {
        top.push({ id, importance: value });
        top.sort((a, b) => b.importance - a.importance);
        if (top.length > k) top.pop();
      }
    }
    const result = top.map((t) => ({ url: this.urls.url(t.id), importance: t.importance }));
    const done = performance.now();
    this.topCache = { k, top: result, nextAt: done + 50 * (done - now) };
    return result;
  }

  private topCache: { k: number; top: Array<{ url: string; importance: number }>; nextAt: number } | null = null;

  private progress(): CrawlProgress {
    const elapsedMs = performance.now() - this.started;
    const k = this.options.progressTop ?? 3;
    const top = this.progressTop(k);
    const vector = this.live?.latest ?? null;
    const live =
      vector === null
        ? null
        : {
            top: vector.top.slice(0, k).map(([id, importance]) => ({ url: this.urls.url(id), importance })),
            pages: vector.pages,
            ageMs: Date.now() - this.live!.latestAt,
          };
    return { ...this.counters, elapsedMs, pagesPerSecond: elapsedMs > 0 ? (this.sessionFetches * 1000) / elapsedMs : 0, top, live, checkpoints: { ...this.checkpointTimes } };
  }

  private report(runs: number[]): CrawlReport {
    return {
      ...this.counters,
      stoppedBy: (this.stopping ?? 'done') as StopReason,
      seconds: (performance.now() - this.started) / 1000,
      fetches: this.fetchSeq,
      memory: this.memory,
      runs,
      opicTime: this.opic.opic.time,
      totalCash: this.opic.opic.totalCash(),
      live: this.liveReport,
      renderer: this.renderCounters(),
      renderUnavailable: this.renderUnavailable,
      renderHosts: this.renderHostReport(),
      dns: { ...this.dns.counters },
      connections: this.fetcher.connectionCounters,
      checkpoints: { ...this.checkpointTimes },
    };
  }
}

/**
 * Where the URL table spills text the store already holds: beside an SQLite store (the disk the
 * user chose for the crawl), else the system's temporary directory.
 */
function spillDirOf(store: Store): string {
  return store.kind === 'sqlite' && store.location !== ':memory:' ? dirname(resolvePath(store.location)) : tmpdir();
}
