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
import { hostname as machineName, tmpdir } from 'node:os';
import { ExitCode, OptionError, WgaError } from '../errors.js';
import { StoreError } from '../store/store.js';
import { StoreFailureError, storeFailure } from '../store/store-failure.js';
import { settleWithin } from '../util/settle.js';
import { type NewSharedPage, type SharedCheckpoint, type SharedCrawlDb, type SharedJob, type SharedPageRow, LostLeaseError, partitionOf } from '../store/shared-crawl-db.js';
import { openWarc } from '../formats/warc-writer.js';
import { HTML_TYPES } from './fetcher.js';
import type { Host, Server } from './hosts.js';
import { watchMemory } from './memory-watch.js';
import { Column, DONE, FOREIGN, type FoundLink, IN_FLIGHT, PagePipeline, type PageOutcome, WAITING } from './page-pipeline.js';
import { type CrawlSettings, DEFAULT_SETTINGS, compileSettings, memoryBudgetOf } from './settings.js';
import { SharedLedger } from './shared-ledger.js';
import { resolveUrl } from './url.js';
import type { WarcWriter } from '../formats/warc-writer.js';

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
  /** One line for the user (the memory budget reached). */
  onNotice?: (message: string) => void;
  /** Called after every committed checkpoint, with the instance id (tests check the total cash then). */
  onCheckpoint?: (instance: string) => Promise<void> | void;
}

export interface SharedCounters {
  fetched: number;
  failed: number;
  excluded: number;
  redirects: number;
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
  /** Bytes of bodies on the wire and decoded, sitemaps read. */
  wireBytes: number;
  bodyBytes: number;
  sitemaps: number;
  /** Pages rendered (--render), those the browser could not render, and the links only rendering found. */
  rendered: number;
  renderFailed: number;
  renderedLinks: number;
  /** Pages that linked to more targets than --max-links-per-page (the rest not kept). */
  pagesOverLinkCap: number;
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
  stoppedBy: 'done' | 'stopped' | 'max-time' | 'memory' | 'finished-before';
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

export class SharedCrawler extends PagePipeline {
  readonly id = `${machineName()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private readonly ledger: SharedLedger;
  private readonly dbId = new Column(new Float64Array(1024));
  private readonly part = new Column(new Uint16Array(1024));
  private readonly localOfId = new Map<number, number>();
  private readonly partitions: number;
  private readonly held: Uint8Array;
  /** Fetches running or waiting to be retried, per partition. */
  private readonly busyIn: Int32Array;
  /** Pages waiting for their first fetch, per partition. */
  private readonly waitingIn: Int32Array;
  /** Per partition, the hosts with pages waiting in it; per host (id), its pages waiting. */
  private readonly hostsWithWorkIn: Int32Array;
  private hostWaiting = new Int32Array(64);
  private waitingCount = 0;
  private readonly avoid = new Map<number, number>();
  // Since the last checkpoint:
  private pendingOwn: number[] = [];
  private pendingForeign: number[] = [];
  private fetches: SharedCheckpoint['fetches'] = [];
  private links: SharedCheckpoint['links'] = [];
  private counts = { fetched: 0, requests: 0, pages: 0 };
  /** The instance's own counters (the pipeline keeps those of fetches). */
  private readonly own_ = { pages: 0, checkpoints: 0, transfersSent: 0, transfersApplied: 0, rowsWritten: 0, dbMs: 0, lockMs: 0 };
  private job: SharedJob;
  private writing: Promise<void> | null = null;
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
    settings: CrawlSettings,
    private readonly options: SharedCrawlOptions,
    warc: WarcWriter | null,
  ) {
    super(settings, compileSettings(settings, seedHosts(settings)), { rereads: false, warc, spillDir: tmpdir() });
    Column.reserve(this.pageCapacity, [this.dbId, this.part]);
    this.job = job;
    this.partitions = job.partitions;
    this.held = new Uint8Array(job.partitions);
    this.busyIn = new Int32Array(job.partitions);
    this.waitingIn = new Int32Array(job.partitions);
    this.hostsWithWorkIn = new Int32Array(job.partitions);
    this.ledger = new SharedLedger(settings.damping);
    this.ledger.advance(job.all, job.clock);
  }

  /** Joins the crawl in `db` and works on it until it is finished (or stopped); returns at once if it is finished. */
  static async join(db: SharedCrawlDb, options: SharedCrawlOptions = {}): Promise<SharedReport> {
    const job = await db.job();
    if (job === null) throw new OptionError('--join', `${db.location} holds no shared crawl to join; start one with: wga crawl SEED... --shared --db URL`);
    // Settings stored by an older version lack the newer ones: their defaults.
    const settings = { ...DEFAULT_SETTINGS, ...(JSON.parse(job.settings) as CrawlSettings) };
    if (job.status === 'done') return new SharedCrawler(db, job, settings, options, null).report(null, 'finished-before');
    const warc = openWarc(settings, 'wga-shared');
    try {
      return await new SharedCrawler(db, job, settings, options, warc).run();
    } finally {
      warc?.close();
    }
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
      timers.push(watchMemory(memoryBudgetOf(this.settings), (why) => {
        this.options.onNotice?.(why);
        this.stop('memory');
      }));
      if (this.options.signal?.aborted === true) this.stop('stopped');
      this.options.signal?.addEventListener('abort', abort);
      this.pump();
      // Work until the crawl is done or this instance is stopped, then until its fetches are over.
      while (this.failure === null && !(this.stopping !== null && this.counters.inFlight === 0 && this.robotsLoading === 0)) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
      for (const timer of timers) clearInterval(timer);
      this.throwIfFailed();
      await this.checkpoint(true);
      this.throwIfFailed();
      const run = this.job.status === 'done' ? await this.db.saveRun(this.startedAt, this.settings.damping) : null;
      return this.report(run, (this.stopping ?? 'done') as SharedReport['stoppedBy']);
    } catch (error) {
      // A store that stopped answering is not waited on to hear that this instance failed.
      if (!(error instanceof LostLeaseError)) await settleWithin(this.db.markInstance(this.id, 'failed'), 5000);
      throw this.storeFailureOf(error);
    } finally {
      for (const timer of timers) clearInterval(timer);
      this.options.signal?.removeEventListener('abort', abort);
      await this.closePipeline();
      if (this.writing !== null) await this.writing.catch(() => undefined);
    }
  }

  /**
   * A database failure as one line saying how to go on. A shared checkpoint is not sent again: its
   * transaction assigns ids and moves cash, and one whose answer was lost may have committed. The
   * instance leaves instead; what it fetched since its last checkpoint is fetched again by whoever
   * holds its partitions next.
   */
  private storeFailureOf(error: unknown): unknown {
    if (error instanceof StoreError && !(error instanceof StoreFailureError)) return error;
    const failure = storeFailure(error);
    if (failure === null) return error;
    const location = this.db.location;
    const text =
      `${failure.text}. This instance stopped; the store keeps the crawl up to its last checkpoint. ` +
      `When the store answers, join again: wga crawl --join --db ${location} (its partitions pass to other instances after the lease, ${(this.job.leaseMs / 1000).toFixed(0)} s)`;
    return new StoreFailureError(location, { transient: failure.transient, text }, failure.transient ? ExitCode.unavailable : ExitCode.input);
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  // ---- pages (the pipeline's hooks) -------------------------------------------

  private isHeld(i: number): boolean {
    return this.held[this.part.get(i)] === HELD && this.state.get(i) !== FOREIGN;
  }

  /** A sitemap is recorded by the instance that read it while its partition is held or being let go (sitemapPending). */
  protected override ours(i: number): boolean {
    return this.held[this.part.get(i)] !== NOT_HELD && this.state.get(i) !== FOREIGN;
  }

  protected override sitemapPending(host: Host, delta: 1 | -1): void {
    this.busyIn[partitionOf(host.hostname, this.partitions)]! += delta;
  }

  protected addPage(i: number, url: URL, _focus: boolean, waiting: boolean): void {
    this.part.set(i, partitionOf(url.hostname, this.partitions));
    const held = this.held[this.part.get(i)];
    // A sitemap (not waiting: read already) of a partition being let go is still this instance's to record.
    if (held === HELD || (held === RELEASING && !waiting)) {
      this.ledger.newPage(i);
      this.own(i, waiting ? WAITING : IN_FLIGHT);
      this.pendingOwn.push(i);
    } else {
      this.state.set(i, FOREIGN);
      this.pendingForeign.push(i);
    }
  }

  /** Page i becomes one this instance fetches (WAITING), has fetched (DONE) or is fetching (IN_FLIGHT: a sitemap). */
  private own(i: number, state: number): void {
    this.state.set(i, state);
    const host = this.hostFor(i);
    if (state === WAITING) {
      this.ledger.enqueue(i, host.id);
      this.waiting(i, 1);
      this.needRobots(host);
    }
  }

  /** A page read from the store, in a partition this instance holds now. */
  private merge(row: SharedPageRow): void {
    let i = this.urls.id(row.key);
    if (i === -1) {
      i = this.restorePage(row.key, row.url, row.depth, 'page');
      this.state.set(i, FOREIGN);
    }
    // Known and held already (news of a page this instance stored or adopted itself).
    if (this.dbId.get(i) === row.id && this.state.get(i) !== FOREIGN && this.held[row.part] === HELD) return;
    this.dbId.set(i, row.id);
    this.localOfId.set(row.id, i);
    this.part.set(i, row.part);
    if (this.held[row.part] !== HELD) return;
    if (this.state.get(i) !== FOREIGN) {
      // A page this instance found too and had not stored yet: the stored one is it.
      this.ledger.credit(i, row.cash);
      this.ledger.setSeenAll(i, row.seenAll);
      this.ledger.touch(i);
      return;
    }
    this.depth.set(i, Math.min(row.depth, 65_535));
    this.ledger.setPage(i, row);
    this.own(i, row.done ? DONE : WAITING);
  }

  protected nextPage(): number {
    return this.ledger.greediest();
  }

  protected pageStarted(i: number, _refetch: boolean, requested: boolean): void {
    if (this.rereading.has(i)) {
      // Read again to be rendered (its host's verdict, render-policy.ts): no longer waiting since its first read.
      this.busyIn[this.part.get(i)]!++;
      if (requested) this.counts.requests++;
      return;
    }
    this.ledger.dequeue(i);
    this.waiting(i, -1);
    this.busyIn[this.part.get(i)]!++;
    if (requested) this.counts.requests++;
  }

  protected override async claimSitemapProbe(origin: string): Promise<boolean> {
    return this.db.claimSitemapProbe(origin);
  }

  protected async sitemapProbeAnswered(origin: string, status: number | null): Promise<void> {
    await this.db.sitemapProbeAnswered(origin, status);
  }

  protected sitemapStarted(i: number): void {
    this.busyIn[this.part.get(i)]!++;
    this.counts.requests++;
  }

  protected override robotsRequest(): void {
    super.robotsRequest();
    this.counts.requests++;
  }

  protected override fetchTimed(ms: number): void {
    this.latencyMs = this.latencyMs === 0 ? ms : this.latencyMs + LATENCY_WEIGHT * (ms - this.latencyMs);
  }

  protected retryWaits(_i: number, _refetch: boolean): void {}

  protected retryReady(i: number, host: Host, _refetch: boolean): void {
    this.busyIn[this.part.get(i)]!--;
    // A partition being let go takes no new fetches: the page waits for the next holder.
    if (this.held[this.part.get(i)] !== HELD) return;
    this.ledger.enqueue(i, host.id);
    this.waiting(i, 1);
  }

  protected pageFinished(i: number, outcome: PageOutcome): void {
    const { record, out, links } = outcome;
    this.ledger.read(i, out, (j) => this.isHeld(j));
    this.busyIn[this.part.get(i)]!--;
    const again = this.rereading.has(i);
    this.fetches.push({ local: i, part: this.part.get(i), record, first: !again });
    // Read again, rendered: its links are those of its first read and more (stored links are kept, the new ones added).
    for (const link of links) this.links.push({ source: i, target: link.target, kind: link.kind, nofollow: (link.rel & 1) !== 0, rel: link.rel, hreflang: link.hreflang, lastmod: link.lastmod });
    if (again) return;
    this.own_.pages++;
    this.counts.pages++;
    const { status, error, contentType } = record;
    if (error === null && status !== null && status >= 200 && status < 300 && (contentType === null || HTML_TYPES.has(contentType))) this.counts.fetched++;
  }

  protected laterLink(source: number, link: FoundLink): void {
    this.links.push({ source, target: link.target, kind: link.kind, nofollow: (link.rel & 1) !== 0, rel: link.rel, hreflang: link.hreflang, lastmod: link.lastmod });
  }

  protected setHostServer(host: Host, server: Server): void {
    this.ledger.setHostServer(host.id, server.id);
  }

  protected setServerSelectable(server: Server, selectable: boolean): void {
    this.ledger.setServerEnabled(server.id, selectable);
  }

  protected setHostSelectable(host: Host, selectable: boolean): void {
    this.ledger.setHostEnabled(host.id, selectable);
  }

  protected afterPump(): void {
    this.poke();
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
        this.own_.dbMs += this.lastDbMs;
        this.lastLockMs = result.lockMs;
        this.own_.lockMs += result.lockMs;
        this.own_.checkpoints++;
        this.own_.rowsWritten += result.rowsWritten;
        this.own_.transfersSent += snapshot.checkpoint.transfers.length;
        this.own_.transfersApplied += result.applied.length;
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
      if (this.held[p] === RELEASING && this.busyIn[p] === 0) release.push(p);
    }
    const ownPages: SharedCheckpoint['ownPages'] = [];
    const foreignPages: SharedCheckpoint['foreignPages'] = [];
    const ids = new Map<number, number>();
    const listed = new Set<number>();
    for (const i of [...this.pendingOwn, ...this.pendingForeign]) {
      if (this.dbId.get(i) !== 0 || listed.has(i)) continue;
      listed.add(i);
      if (this.state.get(i) === FOREIGN) foreignPages.push(this.newPage(i));
      else ownPages.push({ ...this.newPage(i), state: this.ledger.state(i) });
    }
    this.pendingOwn = [];
    this.pendingForeign = [];
    const changed: SharedCheckpoint['changed'] = [];
    for (const i of this.ledger.takeChanged()) {
      if (this.dbId.get(i) === 0 || this.state.get(i) === FOREIGN) continue;
      changed.push({ local: i, state: this.ledger.state(i) });
    }
    const outgoing = this.ledger.takeOutgoing();
    const transfers: SharedCheckpoint['transfers'] = [];
    for (const [local, amount] of outgoing.transfers) transfers.push({ local, part: this.part.get(local), amount });
    const note = (i: number): void => {
      if (this.dbId.get(i) !== 0) ids.set(i, this.dbId.get(i));
    };
    for (const f of this.fetches) note(f.local);
    for (const l of this.links) {
      note(l.source);
      note(l.target);
    }
    for (const c of changed) note(c.local);
    for (const t of transfers) note(t.local);
    const waiting = this.waitingCount === 0 && this.counters.inFlight === 0 && this.retryTimers.size === 0 && this.robotsLoading === 0;
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
    const byPartition = new Map<number, number>();
    for (let p = 0; p < this.partitions; p++) if (this.hostsWithWorkIn[p]! > 0) byPartition.set(p, this.hostsWithWorkIn[p]!);
    return byPartition;
  }

  /**
   * Page i joins (+1) or leaves (-1) the waiting pages of its partition: the partition's count, and
   * its count of hosts with waiting pages (kept as it changes, so a checkpoint scans no page).
   */
  private waiting(i: number, delta: 1 | -1): void {
    const p = this.part.get(i);
    this.waitingIn[p]! += delta;
    this.waitingCount += delta;
    const h = this.hostOf.get(i);
    if (h < 0) return;
    if (h >= this.hostWaiting.length) {
      const grown = new Int32Array(Math.max(h + 1, this.hostWaiting.length * 2));
      grown.set(this.hostWaiting);
      this.hostWaiting = grown;
    }
    const before = this.hostWaiting[h]!;
    this.hostWaiting[h] = before + delta;
    if (before === 0 && delta > 0) this.hostsWithWorkIn[p]!++;
    else if (before === 1 && delta < 0) this.hostsWithWorkIn[p]!--;
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

  private newPage(i: number): NewSharedPage {
    const url = this.urls.url(i);
    return { local: i, url, key: this.urls.key(i), host: new URL(url).hostname, depth: this.depth.get(i), part: this.part.get(i), role: this.roleOf(i) };
  }

  /** Pages [0, firstUnstored) all have their row in the store: their URL text may leave RAM. */
  private firstUnstored = 0;

  private spillStored(): void {
    while (this.firstUnstored < this.urls.size && this.dbId.get(this.firstUnstored) !== 0) this.firstUnstored++;
    try {
      this.urls.spill(this.firstUnstored);
    } catch (error) {
      this.fail(new WgaError(`could not write the crawl's URL spill file in ${tmpdir()}: ${(error as Error).message}`, ExitCode.unavailable));
    }
  }

  private afterCommit(snapshot: { checkpoint: SharedCheckpoint; released: number[] }, result: Awaited<ReturnType<SharedCrawlDb['checkpoint']>>): void {
    this.job = result.job;
    for (const [local, id, seenAll, storedCash] of result.assigned) {
      this.dbId.set(local, id);
      this.localOfId.set(id, local);
      if (seenAll < 0 || this.state.get(local) === FOREIGN) continue;
      this.ledger.setSeenAll(local, seenAll);
      // A page another instance had stored first (adopted): the store added its cash to ours.
      if (storedCash !== 0) this.ledger.credit(local, storedCash);
    }
    // Pages still unstored are owed nothing by the virtual page yet: they stay level with the new accumulator.
    for (const i of this.pendingOwn) if (this.dbId.get(i) === 0 && this.state.get(i) !== FOREIGN) this.ledger.setSeenAll(i, result.job.all);
    for (const p of snapshot.released) {
      this.avoid.set(p, Date.now() + AVOID_MS);
    }
    if (snapshot.released.length > 0) this.dropReleased(new Set(snapshot.released));
    for (const p of result.acquired) this.held[p] = HELD;
    for (const row of result.loaded) this.merge(row);
    if (result.acquired.length > 0) this.adoptForeign(new Set(result.acquired));
    for (const [id, amount] of result.applied) {
      const local = this.localOfId.get(id);
      if (local === undefined || !this.isHeld(local)) throw new Error(`internal error: a transfer to page ${id}, which this instance does not hold (${JSON.stringify({ local, part: local === undefined ? null : this.part.get(local), held: local === undefined ? null : this.held[this.part.get(local)], state: local === undefined ? null : this.state.get(local), acquired: result.acquired, snapHeld: snapshot.checkpoint.held, released: snapshot.released, loaded: result.loaded.filter((r) => r.id === id).length })})`);
      this.ledger.credit(local, amount);
    }
    this.ledger.advance(result.job.all, result.job.clock);
    for (const p of result.letGo) {
      if (this.held[p] !== HELD) continue;
      this.held[p] = RELEASING;
      this.quiet(p);
    }
    this.spillStored();
    if (result.job.status === 'done') this.stop('done');
    this.pump();
  }

  /** A partition being let go: its waiting pages leave the selection. */
  private quiet(p: number): void {
    for (let i = 0; i < this.urls.size; i++) {
      if (this.part.get(i) !== p || this.state.get(i) !== WAITING) continue;
      this.ledger.dequeue(i);
      this.waiting(i, -1);
      // Still WAITING for the books; released at the checkpoint where the partition is quiet.
    }
  }

  private dropReleased(parts: Set<number>): void {
    for (let i = 0; i < this.urls.size; i++) {
      if (!parts.has(this.part.get(i)) || this.state.get(i) === FOREIGN) continue;
      if (this.state.get(i) === WAITING) {
        this.ledger.dequeue(i);
        if (this.waitingIn[this.part.get(i)]! > 0) {
          // Pages of a partition let go at the end (finishing), not quieted before.
          this.waiting(i, -1);
        }
      }
      this.state.set(i, FOREIGN);
      if (this.dbId.get(i) === 0) this.pendingForeign.push(i);
    }
  }

  /** Pages known here as others' whose partition this instance now holds, and which the store does not have yet. */
  private adoptForeign(parts: Set<number>): void {
    for (let i = 0; i < this.urls.size; i++) {
      if (this.state.get(i) !== FOREIGN || this.dbId.get(i) !== 0 || !parts.has(this.part.get(i))) continue;
      this.ledger.newPage(i);
      this.ledger.setSeenAll(i, this.job.all);
      this.own(i, WAITING);
      this.pendingOwn.push(i);
    }
  }

  // ---- reports ---------------------------------------------------------------

  private sharedCounters(): SharedCounters {
    const c = this.counters;
    return {
      fetched: c.fetched, failed: c.failed, excluded: c.excluded, redirects: c.redirects, other: c.other, requests: c.requests, retries: c.retries,
      ...this.own_, wireBytes: c.wireBytes, bodyBytes: c.bodyBytes, sitemaps: c.sitemaps,
      rendered: c.rendered, renderFailed: c.renderFailed, renderedLinks: c.renderedLinks, pagesOverLinkCap: c.pagesOverLinkCap,
    };
  }

  private progress(): SharedProgress {
    let partitions = 0;
    for (let p = 0; p < this.partitions; p++) if (this.held[p] === HELD) partitions++;
    return {
      ...this.sharedCounters(),
      instance: this.id,
      elapsedMs: performance.now() - this.started,
      partitions,
      inFlight: this.counters.inFlight,
      waiting: this.waitingCount,
      crawlFetches: this.job.fetchSeq,
      crawlPages: this.job.pages,
    };
  }

  private report(run: number | null, stoppedBy: SharedReport['stoppedBy']): SharedReport {
    return {
      ...this.sharedCounters(),
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

