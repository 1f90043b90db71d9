/**
 * The crawl of the server's store: one this server starts and stops, or one another process runs
 * (`wga crawl` in a shell). Its status is read from the store's crawl state (as of the last
 * checkpoint, once a second) merged with the live counters of a crawl this server runs; every
 * watcher gets the same status object each tick, so two browsers see the same progress.
 */
import { EventEmitter } from 'node:events';
import { type CrawlCliOptions, type CrawlJson, checkCrawlOptions, runCrawl, storedCrawlStatus } from '../app/crawl.js';
import type { CrawlCounters } from '../crawl/counters.js';
import type { CrawlProgress } from '../crawl/crawler.js';
import { openStore } from '../store/open.js';
import { CRAWL_STATE, type CrawlLock, type Store, type StoreCounts } from '../store/store.js';
import { HttpError, type ErrorBody } from './http-errors.js';

export const CRAWL_TICK_MS = 1000;

/** The status the API reports (GET /api/crawl, SSE /api/crawl/events). */
export interface CrawlStatusJson {
  running: boolean;
  /** Who crawls: this server, another process (by the store's lock), or nobody. */
  owner: 'server' | 'other' | null;
  startedAt: number | null;
  /** When this status was read. */
  updatedAt: number;
  /** The store's last crawl checkpoint, ms since the epoch. */
  checkpointAt: number | null;
  lock: CrawlLock | null;
  counters: CrawlCounters;
  pagesPerSecond: number;
  /** Page fetches in the whole crawl. */
  fetches: number;
  elapsedMs: number | null;
  opic: { time: number; errorFactor: number | null } | null;
  top: Array<{ url: string; importance: number }>;
  /**
   * The live PageRank's best pages (docs/live-importance.md): of the crawl this server runs, its
   * latest vector; else the store's (a running crawl's last checkpoint, or the last crawl's final
   * vector). ageMs: how old the vector is. Null without one (no crawl yet, --no-live).
   */
  live: { pages: number; ageMs: number; final: boolean; top: Array<{ url: string; importance: number }> } | null;
  settings: Record<string, unknown> | null;
  /** The last crawl this server ran, when it finished. */
  report: CrawlJson | null;
  /**
   * When no crawl runs: the latest crawl session's page requests over time, from the store's visits
   * (seconds since the session started, and pages requested by then); null without visits.
   */
  history: { startedAt: number; seconds: number[]; requests: number[] } | null;
  error: ErrorBody['error'] | null;
}

interface FinishedCrawl {
  counts: { redirects: number; other: number; hosts: number };
  /** Pages requested in the latest session (its visits but robots.txt's exclusions) and those answered 304. */
  requests: number;
  notModified: number;
  history: CrawlStatusJson['history'];
}

/** Points of the curve drawn at most. */
const HISTORY_POINTS = 200;

/** The latest crawl session of the store, from its visits: counts and the pages fetched over time. */
async function readFinishedCrawl(store: Store): Promise<FinishedCrawl | null> {
  const counts = await store.crawlCounts();
  const text = (await store.crawlState())[CRAWL_STATE.sessions];
  const sessions = text === undefined ? [] : (JSON.parse(text) as Array<{ started: number; finished: number | null }>);
  const session = sessions[sessions.length - 1];
  if (session === undefined) return { counts, requests: 0, notModified: 0, history: null };
  // Pages robots.txt excluded have a visit (the decision, dated) but were never requested.
  const visits = (await store.visits(session.started, (session.finished ?? Date.now()) + 1)).filter((v) => !(v.status === null && v.error?.startsWith('excluded:')));
  const seconds: number[] = [0];
  const requests: number[] = [0];
  const step = Math.max(1, Math.ceil(visits.length / HISTORY_POINTS));
  visits.forEach((v, i) => {
    if ((i + 1) % step === 0 || i === visits.length - 1) {
      seconds.push((v.fetchedAt - session.started) / 1000);
      requests.push(i + 1);
    }
  });
  return {
    counts,
    requests: visits.length,
    notModified: visits.filter((v) => v.notModified).length,
    history: visits.length === 0 ? null : { startedAt: session.started, seconds, requests },
  };
}

interface OwnCrawl {
  controller: AbortController;
  startedAt: number;
  progress: CrawlProgress | null;
  done: Promise<void>;
}

export class CrawlWatch {
  private own: OwnCrawl | null = null;
  private lastReport: CrawlJson | null = null;
  private lastError: ErrorBody['error'] | null = null;
  private readonly events = new EventEmitter();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<CrawlStatusJson> | null = null;
  /** publish() was called while a status was being read. */
  private publishAgain = false;
  /** Successive (time, fetches) readings of another process's crawl, for its pages per second. */
  private readings: Array<{ at: number; fetches: number }> = [];

  constructor(
    private readonly store: Store,
    private readonly db: string,
    private readonly hooks: { changed: () => void; describeError: (error: unknown) => ErrorBody['error']; counts: (checkpoint: string) => Promise<StoreCounts> },
  ) {
    this.events.setMaxListeners(0);
  }

  get runningHere(): boolean {
    return this.own !== null;
  }

  /** Starts a crawl into the store (409 when one runs, here or elsewhere). */
  async start(seeds: string[], options: CrawlCliOptions): Promise<CrawlStatusJson> {
    if (this.own !== null) throw new HttpError(409, 'conflict', 'a crawl started by this server is running; stop it first');
    checkCrawlOptions(seeds, options);
    const stored = await storedCrawlStatus(this.store, 0);
    if (stored.running) {
      throw new HttpError(409, 'conflict', `another crawler (${stored.lock?.hostname ?? '?'}, pid ${stored.lock?.pid ?? '?'}) is crawling into this store`);
    }
    if (seeds.length === 0 && options.resume !== true) throw new HttpError(400, 'bad-request', 'seeds: give at least one seed URL (or resume)', 'seeds');
    const controller = new AbortController();
    // The crawl writes through its own connection; the server's stays free for queries.
    const crawlStore = await openStore(this.db, { create: true });
    const own: OwnCrawl = { controller, startedAt: Date.now(), progress: null, done: Promise.resolve() };
    this.own = own;
    this.lastError = null;
    own.done = runCrawl(crawlStore, seeds, { ...options, progressMs: 500, progressTop: 10 }, {
      signal: controller.signal,
      onProgress: (event) => {
        own.progress = event.data as unknown as CrawlProgress;
      },
    })
      .then(
        (report) => {
          this.lastReport = report;
        },
        (error: unknown) => {
          this.lastError = this.hooks.describeError(error);
        },
      )
      .finally(async () => {
        await crawlStore.close().catch(() => undefined);
        this.own = null;
        this.hooks.changed();
        this.publish();
      });
    this.publish();
    return this.status();
  }

  /** Stops the crawl this server runs (running fetches finish, a last checkpoint is written). */
  async stop(): Promise<CrawlStatusJson> {
    const own = this.own;
    if (own === null) {
      const stored = await storedCrawlStatus(this.store, 0);
      if (stored.running) throw new HttpError(409, 'conflict', 'the crawl running is another process\'s: stop it there (Ctrl-C)');
      throw new HttpError(409, 'conflict', 'no crawl is running');
    }
    own.controller.abort();
    await own.done;
    return this.status();
  }

  /** The current status (reads the store). */
  async status(): Promise<CrawlStatusJson> {
    // This server's crawl as it is before the store is read: a crawl that ends during the read then
    // still shows as running with its live counters, never as stopped with the counts of a
    // checkpoint before its last one.
    const own = this.own;
    const report = this.lastReport;
    const error = this.lastError;
    const now = Date.now();
    const stored = await storedCrawlStatus(this.store, 10, now, this.hooks.counts);
    if (own === null) {
      this.readings.push({ at: stored.updatedAt ?? now, fetches: stored.fetches });
      this.readings = this.readings.filter((r) => now - r.at < 10_000);
    } else this.readings = [];
    const first = this.readings[0];
    const last = this.readings[this.readings.length - 1];
    const otherRate = first !== undefined && last !== undefined && last.at > first.at ? (1000 * (last.fetches - first.fetches)) / (last.at - first.at) : 0;
    const p = own?.progress ?? null;
    const c = stored.counts;
    const finished = own === null && !stored.running ? await this.finishedCrawl(stored.updatedAt ?? 0) : null;
    return {
      running: own !== null || stored.running,
      owner: own !== null ? 'server' : stored.running ? 'other' : null,
      startedAt: own?.startedAt ?? null,
      updatedAt: now,
      checkpointAt: stored.updatedAt,
      lock: stored.lock,
      counters:
        p !== null
          ? {
              known: p.known, fetched: p.fetched, failed: p.failed, excluded: p.excluded, redirects: p.redirects, other: p.other,
              frontier: p.frontier, inFlight: p.inFlight, requests: p.requests, retries: p.retries, invalidLinks: p.invalidLinks, hosts: p.hosts,
              wireBytes: p.wireBytes, bodyBytes: p.bodyBytes, notModified: p.notModified, sitemaps: p.sitemaps,
              rendered: p.rendered, renderFailed: p.renderFailed, renderedLinks: p.renderedLinks, pagesOverLinkCap: p.pagesOverLinkCap, servers: p.servers,
            }
          : {
              // From the store: a crawl run by another process, or by this server before it restarted.
              known: c.pages, fetched: c.fetched, failed: c.failed, excluded: c.excluded, redirects: finished?.counts.redirects ?? 0,
              other: finished?.counts.other ?? 0, frontier: c.frontier, inFlight: 0, requests: finished?.requests ?? 0, retries: 0,
              invalidLinks: 0, hosts: finished?.counts.hosts ?? 0, wireBytes: 0, bodyBytes: 0, notModified: finished?.notModified ?? 0, sitemaps: 0,
              rendered: 0, renderFailed: 0, renderedLinks: 0, pagesOverLinkCap: c.overLinkCap, servers: 0,
            },
      pagesPerSecond: p !== null ? p.pagesPerSecond : stored.running ? otherRate : 0,
      fetches: stored.fetches,
      elapsedMs: p?.elapsedMs ?? (own === null ? null : now - own.startedAt),
      opic: stored.opic,
      top: p !== null && p.top.length > 0 ? p.top : stored.top,
      live:
        p?.live != null && p.live.top.length > 0
          ? { pages: p.live.pages, ageMs: p.live.ageMs, final: false, top: p.live.top }
          : stored.live === null
            ? null
            : { pages: stored.live.pages, ageMs: Math.max(0, now - stored.live.updatedAt), final: stored.live.final, top: stored.live.top },
      settings: stored.settings,
      report,
      error,
      history: finished?.history ?? null,
    };
  }

  private finishedRead: { key: number; value: Promise<FinishedCrawl | null> } | null = null;

  /** A finished crawl's counts and curve from the store, read again only after a new checkpoint. */
  private finishedCrawl(checkpointAt: number): Promise<FinishedCrawl | null> {
    if (this.finishedRead === null || this.finishedRead.key !== checkpointAt) {
      this.finishedRead = { key: checkpointAt, value: readFinishedCrawl(this.store).catch(() => null) };
    }
    return this.finishedRead.value;
  }

  /** Calls `listener` with the status now and every tick until the returned function is called. */
  watch(listener: (status: CrawlStatusJson) => void): () => void {
    this.events.on('status', listener);
    if (this.timer === null) {
      this.timer = setInterval(() => this.publish(), CRAWL_TICK_MS);
    }
    this.publish();
    return () => {
      this.events.off('status', listener);
      if (this.events.listenerCount('status') === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /**
   * Reads the status once and sends the same object to every watcher. Asked while a reading is under
   * way (a crawl starting or ending during a tick), it reads again after that one: a change is
   * always followed by a status read after it.
   */
  private publish(): void {
    if (this.events.listenerCount('status') === 0) return;
    if (this.ticking !== null) {
      this.publishAgain = true;
      return;
    }
    this.publishAgain = false;
    this.ticking = this.status();
    this.ticking
      .then((status) => this.events.emit('status', status))
      .catch(() => undefined)
      .finally(() => {
        this.ticking = null;
        if (this.publishAgain) this.publish();
      });
  }

  /** Stops a crawl of this server (at server shutdown). */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    const own = this.own;
    if (own !== null) {
      own.controller.abort();
      await own.done;
    }
  }
}
