/**
 * The live PageRank's update loop, the same on the crawler's thread (while
 * the graph is small) and in the worker thread (live-rank-worker.ts): graph
 * changes are applied to an IncrementalPageRank as they come, and once per
 * interval they are worked in (pushes in slices, so that other work runs in
 * between) and the normalised vector is published. Idle when nothing changed.
 */
import { IncrementalPageRank, type IncrementalPageRankState } from '../analysis/incremental-pagerank.js';
import { LIVE_VECTOR_TOP, type LiveVector, OP_ADD, OP_GROW, OP_SET } from './live-rank-protocol.js';

export interface LiveLoopOptions {
  /** Least time between the starts of two updates, ms. */
  intervalMs: number;
  /**
   * Share of one core the updates may use on average (0 < share <= 1; 1: no bound), by CpuShare
   * over `cpuMs`: a slice that would overdraw it waits.
   */
  share?: number;
  /** L1 tolerance of the updates. */
  tolerance: number;
  /** Guess a waiting page's unseen links from the links seen (IncrementalPageRank's guessUnfetched). */
  guessUnfetched: boolean;
  /** Publish the whole vector every time, not only its best pages (LiveVector.scores). */
  fullVectors?: boolean;
  /** Pages the engine's per-page arrays are reserved for (IncrementalPageRank's capacity; 0: start small). */
  capacity?: number;
  /** Links followed per slice of work. */
  sliceEdges: number;
  /** CPU time the updates have used so far, ms (the thread's clock in the worker; the busy time on the crawler's thread). */
  cpuMs: () => number;
  /** Called after each slice of work; it may stop the loop (the state is then no longer this loop's to touch). */
  afterSlice?: () => void;
  /**
   * The changes queued since the last update, taken when an update starts (null: none). With it,
   * an update works in the changes made before it started, and later ones wait for the next.
   */
  takeChanges?: () => Int32Array | null;
}

/** Where a loop carries on from: an engine's state and the counters of the vectors published before. */
export interface LiveLoopStart {
  state: IncrementalPageRankState;
  version: number;
  busyMs: number;
  heldMs?: number;
  held?: number;
}

/**
 * A share of one core as a budget of CPU time (a token bucket): it earns `share` ms of CPU per ms
 * of wall time, up to BURST_MS saved, and the work spends what the CPU clock says it used. An
 * update's pushes spread the new pages' mass over the whole graph, so their cost grows with it; at
 * a fixed interval the updates of a large crawl would take a whole core from the fetches. Under the
 * bound they push less often and the vectors published each interval are less converged (their
 * `converged` says so); the final solve is not bounded.
 */
export class CpuShare {
  static readonly BURST_MS = 1000;
  private credit = CpuShare.BURST_MS;

  /** `wall` and `cpu`: the clocks when the budget starts (NaN: at the first wait()). */
  constructor(
    private readonly share: number,
    private lastWall = Number.NaN,
    private lastCpu = Number.NaN,
  ) {}

  /** Time to wait, ms, before more work keeps to the share (0: go on now). */
  wait(wall: number, cpu: number): number {
    // A CPU clock that reads NaN (none off Linux) bounds nothing.
    if (!(cpu === cpu)) return 0;
    if (!(this.lastCpu === this.lastCpu)) {
      this.lastWall = wall;
      this.lastCpu = cpu;
    }
    this.credit = Math.min(CpuShare.BURST_MS, this.credit + this.share * (wall - this.lastWall) - (cpu - this.lastCpu));
    this.lastWall = wall;
    this.lastCpu = cpu;
    return this.credit >= 0 ? 0 : -this.credit / this.share;
  }
}

export class LiveUpdateLoop {
  readonly engine: IncrementalPageRank;
  /** Vectors published (by this loop and the ones it carries on from). */
  version: number;
  /** Time spent applying changes and pushing, ms (wall time). */
  busyMs: number;
  /** Time slices of the updates waited for the share (beyond the interval), ms, and how many waits. */
  heldMs = 0;
  held = 0;
  private readonly cpuShare: CpuShare | null;
  private lastPublished = -Infinity;
  /** When the current (or last) update started. */
  private lastStarted = -Infinity;
  /** An update is under way (work() is scheduled with setImmediate until it is done). */
  private solving = false;
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    damping: number,
    private readonly options: LiveLoopOptions,
    private readonly publishVector: (vector: LiveVector) => void,
    private readonly failed: (error: unknown) => void,
    from: LiveLoopStart | null = null,
  ) {
    this.engine = from === null ? new IncrementalPageRank(damping, { guessUnfetched: options.guessUnfetched, capacity: options.capacity ?? 0 }) : IncrementalPageRank.fromState(from.state);
    this.version = from?.version ?? 0;
    this.busyMs = from?.busyMs ?? 0;
    this.heldMs = from?.heldMs ?? 0;
    this.held = from?.held ?? 0;
    const share = options.share ?? 1;
    this.cpuShare = share < 1 ? new CpuShare(share) : null;
    if (from !== null && this.engine.pending) this.schedule();
  }

  /** Applies encoded changes (live-rank-protocol.ts) and schedules an update. */
  apply(ops: Int32Array): void {
    const started = performance.now();
    const engine = this.engine;
    let i = 0;
    while (i < ops.length) {
      const op = ops[i]!;
      if (op === OP_GROW) {
        engine.growTo(ops[i + 1]!);
        i += 2;
      } else if (op === OP_SET || op === OP_ADD) {
        const u = ops[i + 1]!;
        const k = ops[i + 2]!;
        const targets = ops.subarray(i + 3, i + 3 + k);
        if (op === OP_SET) engine.setLinks(u, targets);
        else engine.addLinks(u, targets);
        i += 3 + k;
      } else {
        throw new Error(`live PageRank: unknown operation ${op} at ${i}`);
      }
    }
    this.busyMs += performance.now() - started;
    this.schedule();
  }

  /** Starts work now, or when the interval since the last update's start is over. */
  schedule(): void {
    if (this.scheduled !== null || this.solving || this.stopped) return;
    const now = performance.now();
    const byInterval = Math.max(0, this.lastStarted + this.options.intervalMs - now);
    const wait = Math.max(byInterval, this.shareWait(now, byInterval));
    this.scheduled = wait <= 0 ? setImmediate(() => this.work()) : setTimeout(() => this.work(), Math.ceil(wait));
  }

  /** Cancels the scheduled work; the engine keeps its state (and pending changes) for whoever carries on. */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  /** Recomputes the residual, solves to `tolerance` and publishes the final vector. */
  finish(tolerance: number): void {
    this.cancel();
    this.solving = false;
    const ops = this.options.takeChanges?.() ?? null;
    if (ops !== null) this.apply(ops);
    this.cancel();
    const started = performance.now();
    // The final vector is z alone (the PageRank of the graph received): the guess is not solved for it.
    this.engine.stopGuessing();
    // Sweeps first, then the pushes only finish what is left (IncrementalPageRank.sweepFetched).
    this.engine.sweepFetched(tolerance);
    this.engine.refreshResidual();
    this.engine.solve(tolerance);
    const errorBound = this.engine.errorBound();
    this.busyMs += performance.now() - started;
    this.publish(true, errorBound);
  }

  private cancel(): void {
    if (this.scheduled !== null) {
      clearTimeout(this.scheduled as NodeJS.Timeout);
      clearImmediate(this.scheduled as NodeJS.Immediate);
      this.scheduled = null;
    }
  }

  /**
   * One slice of an update: pushes (changes arriving meanwhile are applied between slices) until
   * the changes are worked in, then publishes; an update still going after a whole interval
   * publishes an intermediate vector and carries on. Pushing once per interval, not after every
   * batch of changes, is what keeps the work to what the new pages and links need.
   */
  private work(): void {
    this.scheduled = null;
    if (this.stopped) return;
    try {
      if (!this.solving) {
        this.solving = true;
        this.lastStarted = performance.now();
        const ops = this.options.takeChanges?.() ?? null;
        // Taking the changes may have handed the state over (a batch too big for this thread).
        if (this.stopped) return;
        if (ops !== null) this.apply(ops);
      }
      const started = performance.now();
      this.engine.solve(this.options.tolerance, this.options.sliceEdges);
      this.busyMs += performance.now() - started;
      this.options.afterSlice?.();
      if (this.stopped) return;
      if (this.engine.pending) {
        if (performance.now() - this.lastPublished >= this.options.intervalMs) this.publish(false);
        const wait = this.shareWait(performance.now(), 0);
        this.scheduled = wait <= 0 ? setImmediate(() => this.work()) : setTimeout(() => this.work(), Math.ceil(wait));
        return;
      }
      this.solving = false;
      this.publish(false);
    } catch (error) {
      this.stopped = true;
      this.failed(error);
    }
  }

  /** How long the share makes the next slice wait, ms, beyond `already` (counted in held and heldMs). */
  private shareWait(now: number, already: number): number {
    if (this.cpuShare === null) return 0;
    const wait = this.cpuShare.wait(now, this.options.cpuMs());
    if (wait > already) {
      this.held++;
      this.heldMs += wait - already;
    }
    return wait;
  }

  private publish(final: boolean, errorBound = Number.NaN): void {
    this.version++;
    const engine = this.engine;
    const exact = final ? engine.exactScores() : null;
    this.publishVector({
      type: 'scores',
      version: this.version,
      pages: engine.pages,
      links: engine.linkCount,
      // The final vector is the PageRank of the graph received (pages still waiting then are dangling, as stored).
      scores: exact ?? (this.options.fullVectors === true ? engine.scores() : new Float64Array(0)),
      top: engine.top(LIVE_VECTOR_TOP, final, exact),
      converged: !engine.pending,
      final,
      errorBound,
      pushes: engine.totalPushes,
      edgeVisits: engine.totalEdgeVisits,
      busyMs: this.busyMs,
      cpuMs: this.options.cpuMs(),
      heldMs: this.heldMs,
      held: this.held,
      bytes: engine.bytes,
    });
    this.lastPublished = performance.now();
  }
}
