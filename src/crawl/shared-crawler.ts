/**
 * One instance of a crawl shared by several processes through a PostgreSQL
 * store (store/shared-crawl-db.ts): the Web Graph Analyzer paper's crawler
 * instances (Section 4.3) with the OPIC paper's distributed computation
 * (Section 4.1). The instance holds some partitions of the pages (hash of
 * the host, so politeness per host stays with one instance), fetches their
 * pages greedily by OPIC cash (hosts.ts politeness, robots.txt), pays
 * out-links it holds directly and the others by money transfers
 * (shared-ledger.ts), and every checkpoint writes its results, takes the
 * transfers owed to it, renews its leases and takes or lets go partitions.
 * A page is fetched only by the holder of its partition; a partition is let
 * go only when none of its fetches is running, so no page is fetched by two
 * instances at once. After a kill, the dead instance's partitions are taken
 * over when their lease expires and its fetches since its last checkpoint
 * are made again, once.
 *
 * Compared with the one-process crawler (crawler.ts), a shared crawl is a
 * first pass with Greedy: no --refresh, --focus, --discovery-share,
 * --max-depth, --max-pages or other strategies (refused by checkSharedSettings),
 * and redirect chains are not followed for loops (each page is still fetched
 * once).
 */
import { hostname as machineName } from 'node:os';
import { OptionError } from '../errors.js';
import type { FetchRecord, LinkKind } from '../store/store.js';
import { type SharedCheckpoint, type SharedCrawlDb, type SharedJob, type SharedPageRow, LostLeaseError, partitionOf } from '../store/shared-crawl-db.js';
import { type FetchResult, Fetcher, HTML_TYPES } from './fetcher.js';
import { type Host, HostTable, RobotsState } from './hosts.js';
import { RobotsRules } from './robots.js';
import { fetchRecordOf, fetchRobotsRules } from './robots-fetch.js';
import { type CompiledSettings, type CrawlSettings, compileSettings } from './settings.js';
import { SharedLedger } from './shared-ledger.js';
import { UrlTable } from './url-table.js';
import { resolveUrl } from './url.js';
import { grown } from '../util/typed-arrays.js';

/** Page states, for this instance. */
const WAITING = 0;
const IN_FLIGHT = 1;
const DONE = 2;
const RETRY_WAIT = 3;
/** In a partition this instance does not hold: only its store id (once known) matters here. */
const FOREIGN = 4;

/** Partition states. */
const NOT_HELD = 0;
const HELD = 1;
/** Being let go: no new fetches, payments by transfer; let go at a checkpoint once quiet. */
const RELEASING = 2;

/** A partition let go is not taken back by the same instance for this long. */
const AVOID_MS = 10_000;

/**
 * While an instance is short of work (fewer hosts with pages waiting than it
 * needs to keep its requests busy) it checkpoints this many times as often:
 * the pages others found for it reach it sooner (the start of a crawl, when
 * every page is news for another instance, and its end).
 */
const SHORT_CHECKPOINT_SPEEDUP = 4;

/** Weight of the newest fetch in the running mean of fetch durations. */
const LATENCY_WEIGHT = 0.05;

export const DEFAULT_PARTITIONS = 64;
export const DEFAULT_LEASE_MS = 30_000;

export interface SharedCrawlOptions {
  signal?: AbortSignal;
  onProgress?: (progress: SharedProgress) => void;
  progressMs?: number;
  /** Called after every committed checkpoint, with the instance id (tests check the total cash then). */
  onCheckpoint?: (instance: string) => Promise<void> | void;
}

export interface SharedCounters {
  fetched: number;
  failed: number;
  excluded: number;
  other: number;
  requests: number;
  retries: number;
  /** Pages whose fetch this instance recorded. */
  pages: number;
  checkpoints: number;
  transfersSent: number;
  transfersApplied: number;
  rowsWritten: number;
  /** Milliseconds spent in checkpoint transactions. */
  dbMs: number;
  /** Of which in their last statement, the only one that waits for other instances (the job row's lock). */
  lockMs: number;
}

export interface SharedProgress extends SharedCounters {
  instance: string;
  elapsedMs: number;
  partitions: number;
  inFlight: number;
  waiting: number;
  crawlFetches: number;
  crawlPages: number;
}

export interface SharedReport extends SharedCounters {
  instance: string;
  /** 'done': the crawl is finished; 'stopped': a signal or --max-time; 'finished-before': it was over already. */
  stoppedBy: 'done' | 'stopped' | 'max-time' | 'finished-before';
  seconds: number;
  /** The crawl's totals at the end. */
  crawlPages: number;
  crawlFetches: number;
  opicTime: number;
  /** The run of OPIC estimates saved by the last instance out, else null. */
  run: number | null;
}

/** Settings a shared crawl cannot honour, refused with the option's name. */
export function checkSharedSettings(s: CrawlSettings): void {
  const why = 'is not supported in a crawl shared by several instances (a first pass with OPIC Greedy)';
  if (s.strategy !== 'greedy') throw new OptionError('--strategy', `${s.strategy} ${why}`);
  if (s.refresh) throw new OptionError('--refresh', why);
  if (s.focus.length > 0) throw new OptionError('--focus', why);
  if (s.discoveryShare > 0) throw new OptionError('--discovery-share', why);
  if (s.maxDepth !== null) throw new OptionError('--max-depth', why);
  if (s.maxPages !== null) throw new OptionError('--max-pages', why);
}

/** The seeds of a new shared crawl as its first pages (partition, key, host). */
export function sharedSeeds(settings: CrawlSettings, partitions: number): Array<{ url: string; key: string; host: string; depth: number; part: number }> {
  const seen = new Set<string>();
  const compiled = compileSettings(settings, seedHosts(settings));
  const seeds: Array<{ url: string; key: string; host: string; depth: number; part: number }> = [];
  for (const seed of settings.seeds) {
    const resolved = resolveUrl(seed);
    if (!resolved.ok) throw new OptionError('seed', `'${seed}' is not an http(s) URL`);
    const why = compiled.scope.exclusion(resolved.url, resolved.key, 0);
    if (why !== null) throw new OptionError('seed', `${seed} is outside the crawl's scope: ${why}`);
    if (seen.has(resolved.key)) continue;
    seen.add(resolved.key);
    const url = resolved.url.hash === '' ? resolved.url.href : resolved.url.href.slice(0, resolved.url.href.length - resolved.url.hash.length);
    seeds.push({ url, key: resolved.key, host: resolved.url.hostname, depth: 0, part: partitionOf(resolved.url.hostname, partitions) });
  }
  if (seeds.length === 0) throw new OptionError('seed', 'give at least one seed URL to start crawling from');
  return seeds;
}

function seedHosts(settings: CrawlSettings): string[] {
  return settings.seeds.map((s) => {
    const resolved = resolveUrl(s);
    if (!resolved.ok) throw new OptionError('seed', `'${s}' is not an http(s) URL`);
    return resolved.url.hostname;
  });
}

export class SharedCrawler {
  readonly id = `${machineName()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private readonly compiled: CompiledSettings;
  private readonly ledger: SharedLedger;
  private readonly hosts: HostTable;
  private readonly fetcher: Fetcher;
  private readonly urls = new UrlTable();
  private dbId = new Float64Array(1024);
  private part = new Uint16Array(1024);
  private hostOf = new Int32Array(1024);
  private depth = new Uint16Array(1024);
  private state = new Uint8Array(1024);
  private attempts = new Uint8Array(1024);
  private readonly localOfId = new Map<number, number>();
  private readonly partitions: number;
  private readonly held: Uint8Array;
  /** Fetches running or waiting to be retried, per partition. */
  private readonly busy: Int32Array;
  /** Pages waiting for their first fetch, per partition. */
  private readonly waitingIn: Int32Array;
  private waitingCount = 0;
  private inFlight = 0;
  private readonly avoid = new Map<number, number>();
  private rejected = new Set<string>();
  private readonly robotsQueue: Host[] = [];
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  // Since the last checkpoint:
  private pendingOwn: number[] = [];
  private pendingForeign: number[] = [];
  private fetches: SharedCheckpoint['fetches'] = [];
  private links: SharedCheckpoint['links'] = [];
  private counts = { fetched: 0, requests: 0, pages: 0 };
  private readonly counters: SharedCounters = {
    fetched: 0, failed: 0, excluded: 0, other: 0, requests: 0, retries: 0, pages: 0, checkpoints: 0, transfersSent: 0, transfersApplied: 0, rowsWritten: 0, dbMs: 0, lockMs: 0,
  };
  private job: SharedJob;
  private writing: Promise<void> | null = null;
  private stopping: SharedReport['stoppedBy'] | null = null;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private readonly started = performance.now();
  private readonly startedAt = Date.now();
  /** Running mean of the fetches' durations (ms), for the hosts this instance needs (neededHosts). */
  private latencyMs = 0;
  /** Whether the last snapshot found this instance short of work (checkpoints come sooner). */
  private short = true;
  private lastCheckpointAt = 0;

  private constructor(
    private readonly db: SharedCrawlDb,
    job: SharedJob,
    private readonly settings: CrawlSettings,
    private readonly options: SharedCrawlOptions,
  ) {
    this.job = job;
    this.partitions = job.partitions;
    this.held = new Uint8Array(job.partitions);
    this.busy = new Int32Array(job.partitions);
    this.waitingIn = new Int32Array(job.partitions);
    this.compiled = compileSettings(settings, seedHosts(settings));
    this.ledger = new SharedLedger(settings.damping);
    this.ledger.advance(job.all, job.clock);
    this.hosts = new HostTable(settings.perHost, settings.delayMs);
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
  }

  /** Joins the crawl in `db` and works on it until it is finished (or stopped); returns at once if it is finished. */
  static async join(db: SharedCrawlDb, options: SharedCrawlOptions = {}): Promise<SharedReport> {
    const job = await db.job();
    if (job === null) throw new OptionError('--join', `${db.location} holds no shared crawl to join; start one with: wga crawl SEED... --shared --db URL`);
    const settings = JSON.parse(job.settings) as CrawlSettings;
    const crawler = new SharedCrawler(db, job, settings, options);
    if (job.status === 'done') return crawler.report(null, 'finished-before');
    return crawler.run();
  }

  private async run(): Promise<SharedReport> {
    await this.db.register(this.id, machineName(), process.pid);
    const timers: NodeJS.Timeout[] = [];
    const abort = (): void => this.stop('stopped');
    try {
      await this.checkpoint(false);
      // Ticks at the short interval; a checkpoint every tick while short of work, else every checkpointMs.
      const shortMs = Math.max(10, Math.round(this.settings.checkpointMs / SHORT_CHECKPOINT_SPEEDUP));
      timers.push(
        setInterval(() => {
          if (this.writing !== null) return;
          if (this.short || performance.now() - this.lastCheckpointAt >= this.settings.checkpointMs - shortMs / 2) void this.checkpoint(false);
        }, shortMs),
      );
      if (this.options.onProgress !== undefined) timers.push(setInterval(() => this.options.onProgress!(this.progress()), this.options.progressMs ?? 1000));
      if (this.settings.maxTimeMs !== null) timers.push(setTimeout(() => this.stop('max-time'), this.settings.maxTimeMs));
      if (this.options.signal?.aborted === true) this.stop('stopped');
      this.options.signal?.addEventListener('abort', abort);
      this.pump();
      // Work until the crawl is done or this instance is stopped, then until its fetches are over.
      while (this.failure === null && !(this.stopping !== null && this.inFlight === 0 && this.robotsLoading === 0)) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
      for (const timer of timers) clearInterval(timer);
      if (this.failure !== null) throw this.failure;
      await this.checkpoint(true);
      if (this.failure !== null) throw this.failure;
      const run = this.job.status === 'done' ? await this.db.saveRun(this.startedAt, this.settings.damping) : null;
      return this.report(run, this.stopping ?? 'done');
    } catch (error) {
      if (!(error instanceof LostLeaseError)) await this.db.markInstance(this.id, 'failed').catch(() => undefined);
      throw error;
    } finally {
      for (const timer of timers) clearInterval(timer);
      this.options.signal?.removeEventListener('abort', abort);
      this.hosts.clearTimers();
      for (const timer of this.retryTimers) clearTimeout(timer);
      await this.fetcher.destroy().catch(() => undefined);
      if (this.writing !== null) await this.writing.catch(() => undefined);
    }
  }

  private robotsLoading = 0;

  private stop(reason: SharedReport['stoppedBy']): void {
    this.stopping ??= reason;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.hosts.clearTimers();
    this.poke();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.stop('stopped');
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  // ---- pages ---------------------------------------------------------------

  private ensure(i: number): void {
    if (i < this.dbId.length) return;
    const size = Math.max(i + 1, this.dbId.length * 2);
    this.dbId = grown(this.dbId, size);
    this.part = grown(this.part, size);
    this.hostOf = grown(this.hostOf, size);
    this.depth = grown(this.depth, size);
    this.state = grown(this.state, size);
    this.attempts = grown(this.attempts, size);
  }

  private isHeld(i: number): boolean {
    return this.held[this.part[i]!] === HELD && this.state[i] !== FOREIGN;
  }

  /** The local index of a URL's page, adding it if it is new and in scope; -1 when out of scope. */
  private intern(url: URL, key: string, depth: number): number {
    const known = this.urls.id(key);
    if (known !== -1) return known;
    if (this.rejected.has(key)) return -1;
    const why = this.compiled.scope.exclusion(url, key, depth);
    if (why !== null) {
      if (this.rejected.size >= 100_000) this.rejected = new Set();
      this.rejected.add(key);
      return -1;
    }
    const href = url.hash === '' ? url.href : url.href.slice(0, url.href.length - url.hash.length);
    const i = this.urls.add(key, href === key ? key : href);
    this.ensure(i);
    this.part[i] = partitionOf(url.hostname, this.partitions);
    this.depth[i] = Math.min(depth, 65_535);
    this.hostOf[i] = -1;
    if (this.held[this.part[i]!] === HELD) {
      this.ledger.newPage(i);
      this.own(i, WAITING);
      this.pendingOwn.push(i);
    } else {
      this.state[i] = FOREIGN;
      this.pendingForeign.push(i);
    }
    return i;
  }

  /** Page i becomes one this instance fetches (state WAITING) or has fetched (DONE). */
  private own(i: number, state: number): void {
    this.state[i] = state;
    if (this.hostOf[i] === -1) {
      const url = new URL(this.urls.url(i));
      const { host, created } = this.hosts.intern(url.origin, url.hostname);
      if (created) this.ledger.setHostEnabled(host.id, false);
      this.hostOf[i] = host.id;
    }
    if (state === WAITING) {
      const host = this.hosts.hosts[this.hostOf[i]!]!;
      this.ledger.enqueue(i, host.id);
      this.waitingIn[this.part[i]!]!++;
      this.waitingCount++;
      this.needRobots(host);
    }
  }

  /** A page read from the store, in a partition this instance holds now. */
  private merge(row: SharedPageRow): void {
    let i = this.urls.id(row.key);
    if (i === -1) {
      i = this.urls.add(row.key, row.url);
      this.ensure(i);
      this.hostOf[i] = -1;
      this.state[i] = FOREIGN;
    }
    // Known and held already (news of a page this instance stored or adopted itself).
    if (this.dbId[i] === row.id && this.state[i] !== FOREIGN && this.held[row.part] === HELD) return;
    this.dbId[i] = row.id;
    this.localOfId.set(row.id, i);
    this.part[i] = row.part;
    if (this.held[row.part] !== HELD) return;
    if (this.state[i] !== FOREIGN) {
      // A page this instance found too and had not stored yet: the stored one is it.
      this.ledger.credit(i, row.cash);
      this.ledger.setSeenAll(i, row.seenAll);
      this.ledger.touch(i);
      return;
    }
    this.depth[i] = Math.min(row.depth, 65_535);
    this.ledger.setPage(i, row);
    this.own(i, row.done ? DONE : WAITING);
  }

  // ---- scheduling ------------------------------------------------------------

  private needRobots(host: Host): void {
    if (host.robotsState !== RobotsState.Unknown) return;
    host.robotsState = RobotsState.Fetching;
    this.robotsQueue.push(host);
  }

  private pump(): void {
    if (this.stopping === null && this.failure === null) {
      while (this.inFlight < this.settings.concurrency && this.robotsQueue.length > 0) void this.loadRobots(this.robotsQueue.shift()!);
      let refused = 0;
      while (this.inFlight < this.settings.concurrency && refused < 1000) {
        const i = this.ledger.greediest();
        if (i < 0) break;
        if (!this.startPage(i)) refused++;
      }
      if (refused >= 1000) setImmediate(() => this.pump());
    }
    this.poke();
  }

  private refreshHost(host: Host): void {
    const now = performance.now();
    const available = this.hosts.available(host, now);
    this.ledger.setHostEnabled(host.id, available);
    if (!available && host.robotsState === RobotsState.Known && host.active < this.hosts.perHost && host.timer === null && this.stopping === null) {
      host.timer = setTimeout(() => {
        host.timer = null;
        this.refreshHost(host);
        this.pump();
      }, Math.max(1, Math.ceil(host.nextAt - now)));
    }
  }

  private startPage(i: number): boolean {
    const host = this.hosts.hosts[this.hostOf[i]!]!;
    this.ledger.dequeue(i);
    this.state[i] = IN_FLIGHT;
    this.waitingIn[this.part[i]!]!--;
    this.waitingCount--;
    this.busy[this.part[i]!]!++;
    if (host.robots !== null && !host.robots.allows(this.urls.url(i))) {
      const error = `excluded: ${host.robots.disallowAll ?? 'robots.txt disallows it'}`;
      this.finishPage(i, { status: null, contentType: null, fetchedAt: Date.now(), size: null, title: null, error }, [], []);
      return false;
    }
    this.inFlight++;
    this.counters.requests++;
    this.counts.requests++;
    const startedAt = performance.now();
    this.hosts.start(host, startedAt);
    this.refreshHost(host);
    this.fetcher.fetch(new URL(this.urls.url(i))).then(
      (result) => {
        const ms = performance.now() - startedAt;
        this.latencyMs = this.latencyMs === 0 ? ms : this.latencyMs + LATENCY_WEIGHT * (ms - this.latencyMs);
        this.onFetched(i, host, result);
      },
      (error: unknown) => this.fail(error as Error),
    );
    return true;
  }

  private onFetched(i: number, host: Host, result: FetchResult): void {
    this.inFlight--;
    this.hosts.finish(host);
    try {
      if (result.failure === 'retryable' && this.attempts[i]! < this.settings.retries && this.stopping === null) this.scheduleRetry(i, host, result);
      else this.process(i, result);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    this.refreshHost(host);
    this.pump();
  }

  private scheduleRetry(i: number, host: Host, result: FetchResult): void {
    const attempt = ++this.attempts[i]!;
    this.counters.retries++;
    this.state[i] = RETRY_WAIT;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.busy[this.part[i]!]!--;
      this.state[i] = WAITING;
      // A partition being let go takes no new fetches: the page waits for the next holder.
      if (this.stopping !== null || this.held[this.part[i]!] !== HELD) return;
      this.ledger.enqueue(i, host.id);
      this.waitingIn[this.part[i]!]!++;
      this.waitingCount++;
      this.refreshHost(host);
      this.pump();
    }, result.retryAfterMs ?? this.settings.retryDelayMs * 2 ** (attempt - 1));
    this.retryTimers.add(timer);
  }

  private process(i: number, result: FetchResult): void {
    const record = fetchRecordOf(result);
    const out: number[] = [];
    const links: Array<{ target: number; kind: LinkKind; nofollow: boolean }> = [];
    const pageUrl = this.urls.url(i);
    if (result.page !== null && result.error === null) {
      const page = result.page;
      let base: string | URL = pageUrl;
      if (page.base !== null) {
        const resolved = resolveUrl(page.base, pageUrl);
        if (resolved.ok) base = resolved.url;
      }
      const nofollow = new Map<number, boolean>();
      for (const link of page.links) {
        const resolved = resolveUrl(link.href, base);
        if (!resolved.ok) continue;
        const target = this.intern(resolved.url, resolved.key, this.depth[i]! + 1);
        if (target < 0 || target === i) continue;
        const before = nofollow.get(target);
        nofollow.set(target, before === undefined ? link.nofollow : before && link.nofollow);
      }
      for (const [target, flag] of nofollow) {
        out.push(target);
        links.push({ target, kind: 'anchor', nofollow: flag });
      }
      if (page.canonical !== null) {
        const resolved = resolveUrl(page.canonical, base);
        if (resolved.ok && resolved.key !== this.urls.key(i)) {
          const target = this.intern(resolved.url, resolved.key, this.depth[i]!);
          if (target >= 0) links.push({ target, kind: 'canonical', nofollow: false });
        }
      }
    } else if (result.location !== null && result.error === null) {
      const resolved = resolveUrl(result.location, pageUrl);
      if (!resolved.ok) record.error = `redirect to an unusable Location (${resolved.problem}): ${result.location.slice(0, 200)}`;
      else if (resolved.key === this.urls.key(i)) record.error = 'redirect loop: the page redirects to itself';
      else {
        const target = this.intern(resolved.url, resolved.key, this.depth[i]!);
        if (target >= 0) {
          out.push(target);
          links.push({ target, kind: 'redirect', nofollow: false });
        }
      }
    }
    this.finishPage(i, record, out, links);
  }

  private finishPage(i: number, record: FetchRecord, out: number[], links: Array<{ target: number; kind: LinkKind; nofollow: boolean }>): void {
    this.ledger.read(i, out, (j) => this.isHeld(j));
    this.state[i] = DONE;
    this.busy[this.part[i]!]!--;
    this.fetches.push({ local: i, part: this.part[i]!, record, first: true });
    for (const link of links) this.links.push({ source: i, ...link });
    this.counters.pages++;
    this.counts.pages++;
    const { status, error, contentType } = record;
    if (error !== null && error.startsWith('excluded:') && status === null) this.counters.excluded++;
    else if (error !== null || (status !== null && status >= 400)) this.counters.failed++;
    else if (status !== null && status >= 200 && status < 300 && (contentType === null || HTML_TYPES.has(contentType))) {
      this.counters.fetched++;
      this.counts.fetched++;
    } else this.counters.other++;
  }

  // ---- checkpoints -------------------------------------------------------------

  /** Writes what changed since the last checkpoint and takes the store's news (one transaction). */
  private async checkpoint(finishing: boolean): Promise<void> {
    while (this.writing !== null) await this.writing;
    if (this.failure !== null) return;
    const started = performance.now();
    this.lastCheckpointAt = started;
    const snapshot = this.snapshot(finishing);
    this.writing = this.db
      .checkpoint(this.id, snapshot.checkpoint, { dbMs: this.lastDbMs, lockMs: this.lastLockMs })
      .then(async (result) => {
        this.lastDbMs = performance.now() - started;
        this.counters.dbMs += this.lastDbMs;
        this.lastLockMs = result.lockMs;
        this.counters.lockMs += result.lockMs;
        this.counters.checkpoints++;
        this.counters.rowsWritten += result.rowsWritten;
        this.counters.transfersSent += snapshot.checkpoint.transfers.length;
        this.counters.transfersApplied += result.applied.length;
        this.afterCommit(snapshot, result);
        await this.options.onCheckpoint?.(this.id);
      })
      .catch((error: unknown) => this.fail(error as Error))
      .finally(() => {
        this.writing = null;
      });
    await this.writing;
  }

  private lastDbMs = 0;
  private lastLockMs = 0;

  private snapshot(finishing: boolean): { checkpoint: SharedCheckpoint; released: number[] } {
    const held: number[] = [];
    const release: number[] = [];
    const releasing: number[] = [];
    const workByPartition = new Map<number, number>();
    const hostsByPartition = this.hostsWithWork();
    let hostsWithWork = 0;
    for (const n of hostsByPartition.values()) hostsWithWork += n;
    const neededHosts = this.neededHosts();
    for (let p = 0; p < this.partitions; p++) {
      if (this.held[p] === NOT_HELD) continue;
      held.push(p);
      if (this.waitingIn[p]! > 0) workByPartition.set(p, this.waitingIn[p]!);
      if (this.held[p] === RELEASING) releasing.push(p);
      if (this.held[p] === RELEASING && this.busy[p] === 0) release.push(p);
    }
    const ownPages: SharedCheckpoint['ownPages'] = [];
    const foreignPages: SharedCheckpoint['foreignPages'] = [];
    const ids = new Map<number, number>();
    const listed = new Set<number>();
    for (const i of [...this.pendingOwn, ...this.pendingForeign]) {
      if (this.dbId[i] !== 0 || listed.has(i)) continue;
      listed.add(i);
      if (this.state[i] === FOREIGN) foreignPages.push(this.newPage(i));
      else ownPages.push({ ...this.newPage(i), state: this.ledger.state(i) });
    }
    this.pendingOwn = [];
    this.pendingForeign = [];
    const changed: SharedCheckpoint['changed'] = [];
    for (const i of this.ledger.takeChanged()) {
      if (this.dbId[i] === 0 || this.state[i] === FOREIGN) continue;
      changed.push({ local: i, state: this.ledger.state(i) });
    }
    const outgoing = this.ledger.takeOutgoing();
    const transfers: SharedCheckpoint['transfers'] = [];
    for (const [local, amount] of outgoing.transfers) transfers.push({ local, part: this.part[local]!, amount });
    const note = (i: number): void => {
      if (this.dbId[i] !== 0) ids.set(i, this.dbId[i]!);
    };
    for (const f of this.fetches) note(f.local);
    for (const l of this.links) {
      note(l.source);
      note(l.target);
    }
    for (const c of changed) note(c.local);
    for (const t of transfers) note(t.local);
    const waiting = this.waitingCount === 0 && this.inFlight === 0 && this.retryTimers.size === 0 && this.robotsLoading === 0;
    this.short = !finishing && this.stopping === null && (waiting || hostsWithWork < neededHosts);
    const now = Date.now();
    for (const [p, until] of this.avoid) if (until < now) this.avoid.delete(p);
    const checkpoint: SharedCheckpoint = {
      held,
      release,
      releasing,
      ownPages,
      foreignPages,
      ids,
      fetches: this.fetches,
      links: this.links,
      changed,
      transfers,
      virtual: outgoing.virtual,
      clockGrowth: outgoing.clockGrowth,
      reads: outgoing.reads,
      counts: this.counts,
      waiting,
      short: this.short && !waiting,
      finishing,
      avoid: [...this.avoid.keys()],
      workByPartition,
      hostsByPartition,
      neededHosts,
      waitingPages: this.waitingCount,
    };
    this.fetches = [];
    this.links = [];
    this.counts = { fetched: 0, requests: 0, pages: 0 };
    // Partitions let go now: their pages are no longer this instance's (nothing of theirs changes after the snapshot).
    for (const p of finishing ? held : release) this.held[p] = NOT_HELD;
    return { checkpoint, released: finishing ? held : release };
  }

  /**
   * Hosts with pages waiting, by held partition. Politeness lets a host take
   * perHost requests at once and one new request per delay, so these hosts
   * bound what the instance can have in flight (neededHosts).
   */
  private hostsWithWork(): Map<number, number> {
    const seen = new Uint8Array(this.hosts.hosts.length);
    const byPartition = new Map<number, number>();
    for (let i = 0; i < this.urls.size; i++) {
      if (this.state[i] !== WAITING || this.held[this.part[i]!] !== HELD) continue;
      const h = this.hostOf[i]!;
      if (h < 0 || seen[h] === 1) continue;
      seen[h] = 1;
      byPartition.set(this.part[i]!, (byPartition.get(this.part[i]!) ?? 0) + 1);
    }
    return byPartition;
  }

  /**
   * Hosts with work this instance needs to keep its `concurrency` requests
   * busy: a host starts a request at most every max(latency, delay) ms
   * (hosts.ts counts the delay from a request's start) and runs perHost at
   * once, so it fills perHost * latency / max(latency, delay) of a slot.
   * Before any fetch has been timed, the delay alone decides (one host per slot).
   */
  private neededHosts(): number {
    const { concurrency, perHost, delayMs } = this.settings;
    const latency = Math.max(1, this.latencyMs);
    return Math.ceil((concurrency * Math.max(latency, delayMs)) / (latency * perHost));
  }

  private newPage(i: number): { local: number; url: string; key: string; host: string; depth: number; part: number } {
    const url = this.urls.url(i);
    return { local: i, url, key: this.urls.key(i), host: new URL(url).hostname, depth: this.depth[i]!, part: this.part[i]! };
  }

  private afterCommit(snapshot: { checkpoint: SharedCheckpoint; released: number[] }, result: Awaited<ReturnType<SharedCrawlDb['checkpoint']>>): void {
    this.job = result.job;
    for (const [local, id, seenAll, storedCash] of result.assigned) {
      this.dbId[local] = id;
      this.localOfId.set(id, local);
      if (seenAll < 0 || this.state[local] === FOREIGN) continue;
      this.ledger.setSeenAll(local, seenAll);
      // A page another instance had stored first (adopted): the store added its cash to ours.
      if (storedCash !== 0) this.ledger.credit(local, storedCash);
    }
    // Pages still unstored are owed nothing by the virtual page yet: they stay level with the new accumulator.
    for (const i of this.pendingOwn) if (this.dbId[i] === 0 && this.state[i] !== FOREIGN) this.ledger.setSeenAll(i, result.job.all);
    for (const p of snapshot.released) {
      this.avoid.set(p, Date.now() + AVOID_MS);
    }
    if (snapshot.released.length > 0) this.dropReleased(new Set(snapshot.released));
    for (const p of result.acquired) this.held[p] = HELD;
    for (const row of result.loaded) this.merge(row);
    if (result.acquired.length > 0) this.adoptForeign(new Set(result.acquired));
    for (const [id, amount] of result.applied) {
      const local = this.localOfId.get(id);
      if (local === undefined || !this.isHeld(local)) throw new Error(`internal error: a transfer to page ${id}, which this instance does not hold (${JSON.stringify({ local, part: local === undefined ? null : this.part[local], held: local === undefined ? null : this.held[this.part[local]!], state: local === undefined ? null : this.state[local], acquired: result.acquired, snapHeld: snapshot.checkpoint.held, released: snapshot.released, loaded: result.loaded.filter((r) => r.id === id).length })})`);
      this.ledger.credit(local, amount);
    }
    this.ledger.advance(result.job.all, result.job.clock);
    for (const p of result.letGo) {
      if (this.held[p] !== HELD) continue;
      this.held[p] = RELEASING;
      this.quiet(p);
    }
    if (result.job.status === 'done') this.stop('done');
    this.pump();
  }

  /** A partition being let go: its waiting pages leave the selection. */
  private quiet(p: number): void {
    for (let i = 0; i < this.urls.size; i++) {
      if (this.part[i] !== p || this.state[i] !== WAITING) continue;
      this.ledger.dequeue(i);
      this.waitingIn[p]!--;
      this.waitingCount--;
      // Still WAITING for the books; released at the checkpoint where the partition is quiet.
    }
  }

  private dropReleased(parts: Set<number>): void {
    for (let i = 0; i < this.urls.size; i++) {
      if (!parts.has(this.part[i]!) || this.state[i] === FOREIGN) continue;
      if (this.state[i] === WAITING) {
        this.ledger.dequeue(i);
        if (this.waitingIn[this.part[i]!]! > 0) {
          // Pages of a partition let go at the end (finishing), not quieted before.
          this.waitingIn[this.part[i]!]!--;
          this.waitingCount--;
        }
      }
      this.state[i] = FOREIGN;
      if (this.dbId[i] === 0) this.pendingForeign.push(i);
    }
  }

  /** Pages known here as others' whose partition this instance now holds, and which the store does not have yet. */
  private adoptForeign(parts: Set<number>): void {
    for (let i = 0; i < this.urls.size; i++) {
      if (this.state[i] !== FOREIGN || this.dbId[i] !== 0 || !parts.has(this.part[i]!)) continue;
      this.ledger.newPage(i);
      this.ledger.setSeenAll(i, this.job.all);
      this.own(i, WAITING);
      this.pendingOwn.push(i);
    }
  }

  // ---- robots.txt ------------------------------------------------------------

  private async loadRobots(host: Host): Promise<void> {
    this.inFlight++;
    this.robotsLoading++;
    host.active++;
    let rules: RobotsRules;
    try {
      rules = await this.fetchRobots(host);
    } catch (error) {
      this.fail(error as Error);
      return;
    } finally {
      this.inFlight--;
      this.robotsLoading--;
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
        this.counts.requests++;
      },
      stopping: () => this.stopping !== null,
    });
  }

  // ---- reports ---------------------------------------------------------------

  private progress(): SharedProgress {
    let partitions = 0;
    for (let p = 0; p < this.partitions; p++) if (this.held[p] === HELD) partitions++;
    return {
      ...this.counters,
      instance: this.id,
      elapsedMs: performance.now() - this.started,
      partitions,
      inFlight: this.inFlight,
      waiting: this.waitingCount,
      crawlFetches: this.job.fetchSeq,
      crawlPages: this.job.pages,
    };
  }

  private report(run: number | null, stoppedBy: SharedReport['stoppedBy']): SharedReport {
    return {
      ...this.counters,
      instance: this.id,
      stoppedBy,
      seconds: (performance.now() - this.started) / 1000,
      crawlPages: this.job.pages,
      crawlFetches: this.job.fetchSeq,
      opicTime: this.job.clock,
      run,
    };
  }
}

