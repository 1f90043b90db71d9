/**
 * The crawler's side of the live PageRank. The updates start on the crawler's
 * own thread (live-rank-loop.ts), in slices of a few tenths of a millisecond
 * between fetches. Starting a worker thread costs some 50-100 ms of CPU, more
 * than a short crawl's updates (the PostgreSQL manual's: 1-3 million links
 * followed, ~20-50 ms); so, as in the ski-rental rule, the updates stay here
 * until the links they followed (`inlineEdges`, 5 million: about what the
 * thread's start costs) pay for the thread, then the engine's state moves,
 * without a copy, to a worker thread (live-rank-worker.ts), which carries on
 * with the same vector, residual and queue; from then on the queued changes
 * are sent to it every FLUSH_MS, so fetching never waits for the computation. Either way the latest vector published is kept here for the
 * progress line, the checkpoints and the pagerank strategy. Where the
 * updates run changes their timing, not what they compute.
 */
import { Worker } from 'node:worker_threads';
import { INCREMENTAL_PAGERANK_DEFAULTS, IncrementalPageRank } from '../analysis/incremental-pagerank.js';
import { LiveUpdateLoop } from './live-rank-loop.js';
import { type FromWorker, type LiveVector, type LiveWorkerData, type LiveWorkerOptions, OP_ADD, OP_GROW, OP_SET, type ToWorker } from './live-rank-protocol.js';

export type { LiveVector } from './live-rank-protocol.js';

/** Changes are sent to the worker this often, ms. */
const FLUSH_MS = 100;
/** Links followed per slice of an update on the crawler's thread: well under a millisecond. */
const INLINE_SLICE_EDGES = 20_000;
/**
 * A batch of changes larger than this (int32 values: about the links of a resumed crawl's stored
 * graph of 1 million links) goes to the worker rather than being applied on the crawler's thread.
 */
const INLINE_MAX_BATCH = 1_000_000;
/** Links the updates may follow on the crawler's thread before they move to a worker thread. */
export const LIVE_INLINE_EDGES = 5_000_000;
/** Share of one core the live updates may use by default: no bound (docs/live-importance.md, "Threads and cadence"). */
export const LIVE_SHARE = 1;

export interface LiveRankOptions {
  damping?: number;
  /** Least time between two vectors, ms: 1000. */
  intervalMs?: number;
  /** Share of one core the updates may use on average (LiveLoopOptions.share): LIVE_SHARE. */
  share?: number;
  tolerance?: number;
  /**
   * While crawling, guess a waiting page's unseen links from the links seen (true, the default;
   * docs/live-importance.md) or count it as dangling (false). The final vector is the PageRank of
   * the graph sent either way.
   */
  guessUnfetched?: boolean;
  /** Pages the engine's per-page arrays are reserved for (the crawl's page capacity; 0: start small). */
  capacity?: number;
  /**
   * Every vector whole (the pagerank strategy needs them); false, the default: the intermediate
   * vectors carry their best pages only (LiveVector.top), the final one is whole.
   */
  fullVectors?: boolean;
  /** Links the updates may follow on this thread before they move to a worker: LIVE_INLINE_EDGES (0: a worker from the start). */
  inlineEdges?: number;
  /** Called on the crawler's thread with each vector published. */
  onVector?: (vector: LiveVector) => void;
  /** Called when the updates fail. */
  onError?: (error: Error) => void;
}

/** A growable buffer of int32 operations. */
class OpBuffer {
  private data = new Int32Array(4096);
  length = 0;

  push2(a: number, b: number): void {
    this.reserve(2);
    this.data[this.length++] = a;
    this.data[this.length++] = b;
  }

  push3(a: number, b: number, c: number): void {
    this.reserve(3);
    this.data[this.length++] = a;
    this.data[this.length++] = b;
    this.data[this.length++] = c;
  }

  pushAll(values: ArrayLike<number>): void {
    this.reserve(values.length);
    for (let i = 0; i < values.length; i++) this.data[this.length++] = values[i]!;
  }

  /** The operations queued, in an array of their own (to transfer); the buffer is emptied. */
  take(): Int32Array<ArrayBuffer> {
    const ops = this.data.slice(0, this.length);
    this.length = 0;
    return ops;
  }

  private reserve(k: number): void {
    if (this.length + k <= this.data.length) return;
    const next = new Int32Array(Math.max(this.length + k, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

export class LiveRank {
  private readonly workerOptions: LiveWorkerOptions;
  private readonly inlineEdges: number;
  /** The updates on this thread (null once they moved to the worker). */
  private inline: LiveUpdateLoop | null = null;
  private worker: Worker | null = null;
  private readonly ops = new OpBuffer();
  private pagesSent = 0;
  private pagesKnown = 0;
  private timer: NodeJS.Timeout | null = null;
  private waitingFinal: { resolve: (vector: LiveVector) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;
  private closed = false;
  /** The latest vector, or null before the first. */
  latest: LiveVector | null = null;
  /** When the latest vector arrived (Date.now()). */
  latestAt = 0;
  /** Vectors received. */
  updates = 0;

  constructor(private readonly options: LiveRankOptions = {}) {
    this.workerOptions = {
      damping: options.damping ?? INCREMENTAL_PAGERANK_DEFAULTS.damping,
      intervalMs: options.intervalMs ?? 1000,
      share: options.share ?? LIVE_SHARE,
      tolerance: options.tolerance ?? INCREMENTAL_PAGERANK_DEFAULTS.tolerance,
      guessUnfetched: options.guessUnfetched ?? true,
      capacity: options.capacity ?? 0,
      fullVectors: options.fullVectors ?? false,
    };
    this.inlineEdges = options.inlineEdges ?? LIVE_INLINE_EDGES;
    if (this.inlineEdges <= 0) this.startWorker();
    else {
      const loop: LiveUpdateLoop = new LiveUpdateLoop(
        this.workerOptions.damping,
        {
          intervalMs: this.workerOptions.intervalMs,
          share: this.workerOptions.share,
          tolerance: this.workerOptions.tolerance,
          guessUnfetched: this.workerOptions.guessUnfetched,
          capacity: this.workerOptions.capacity,
          fullVectors: this.workerOptions.fullVectors,
          sliceEdges: INLINE_SLICE_EDGES,
          // On this thread the updates' CPU is their busy time (no per-thread clock to read).
          cpuMs: () => loop.busyMs,
          afterSlice: () => this.handOverIfDue(),
          takeChanges: () => this.takeChanges(),
        },
        (vector) => this.received(vector),
        (error) => this.failed(error instanceof Error ? error : new Error(String(error))),
      );
      this.inline = loop;
    }
  }

  /** True once the updates run in the worker thread. */
  get inWorker(): boolean {
    return this.worker !== null;
  }

  /** Pages 0 .. total - 1 exist. */
  grow(total: number): void {
    this.pagesKnown = Math.max(this.pagesKnown, total);
  }

  /** Page u's out-links are `targets` (replacing any it had); it no longer waits (an empty list: finished without links). */
  setLinks(u: number, targets: ArrayLike<number>): void {
    this.change(OP_SET, u, targets);
  }

  /** Page u links to `targets` too. */
  addLinks(u: number, targets: ArrayLike<number>): void {
    this.change(OP_ADD, u, targets);
  }

  /**
   * Changes already encoded (live-rank-protocol.ts: SET and ADD operations), in an array the
   * engine may keep: a resume's 10^8 stored links go to the worker as they were read, without a
   * copy into the queue (with the updates on this thread, a large batch starts the worker).
   */
  applyOps(ops: Int32Array<ArrayBuffer>): void {
    if (this.closed || this.failure !== null || ops.length === 0) return;
    if (this.inline !== null && this.ops.length + ops.length > INLINE_MAX_BATCH) this.startWorker();
    if (this.worker === null) {
      this.growOp();
      this.ops.pushAll(ops);
      this.inline?.schedule();
      return;
    }
    // What is queued (the GROW among it) goes first: the operations stay in order.
    this.flush();
    const message: ToWorker = { type: 'changes', ops };
    this.worker.postMessage(message, [ops.buffer]);
  }

  /** Sends the queued changes to the worker (with the updates on this thread: nothing to send). */
  flush(): void {
    if (this.closed || this.failure !== null || this.worker === null) return;
    this.growOp();
    if (this.ops.length === 0) return;
    const ops = this.ops.take();
    const message: ToWorker = { type: 'changes', ops };
    this.worker.postMessage(message, [ops.buffer]);
  }

  /** Sends what is queued and waits for the vector solved to `tolerance` from a recomputed residual. */
  async finish(tolerance: number = INCREMENTAL_PAGERANK_DEFAULTS.finalTolerance): Promise<LiveVector> {
    if (this.failure !== null) throw this.failure;
    const final = new Promise<LiveVector>((resolve, reject) => (this.waitingFinal = { resolve, reject }));
    this.growOp();
    if (this.inline !== null && this.ops.length > INLINE_MAX_BATCH) this.startWorker();
    if (this.inline !== null) {
      try {
        this.inline.finish(tolerance);
      } catch (error) {
        this.failed(error instanceof Error ? error : new Error(String(error)));
      }
    } else {
      this.flush();
      const message: ToWorker = { type: 'finish', tolerance };
      this.worker!.postMessage(message);
    }
    return final;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inline?.stop();
    if (this.timer !== null) clearInterval(this.timer);
    await this.worker?.terminate();
  }

  /** The page count of the graph sent (ops included). */
  get pages(): number {
    return this.pagesKnown;
  }

  /** Queues a change: for the next update on this thread, or for the worker (flush). */
  private change(op: number, u: number, targets: ArrayLike<number>): void {
    if (this.closed || this.failure !== null) return;
    this.growOp();
    this.ops.push3(op, u, targets.length);
    this.ops.pushAll(targets);
    this.inline?.schedule();
  }

  /** The changes queued for the next update on this thread (pages found since the last included). */
  private takeChanges(): Int32Array | null {
    this.growOp();
    if (this.ops.length > INLINE_MAX_BATCH) {
      this.startWorker();
      return null;
    }
    return this.ops.length === 0 ? null : this.ops.take();
  }

  /** Moves the updates to the worker once those on this thread have followed `inlineEdges` links. */
  private handOverIfDue(): boolean {
    if (this.inline === null || this.inline.engine.totalEdgeVisits < this.inlineEdges) return false;
    this.startWorker();
    return true;
  }

  /** Starts the worker thread, handing it the state built on this thread (if any). */
  private startWorker(): void {
    const inline = this.inline;
    this.inline = null;
    let data: LiveWorkerData = { options: this.workerOptions, from: null, cpuMsBefore: 0 };
    const transfer: ArrayBuffer[] = [];
    if (inline !== null) {
      inline.stop();
      const state = inline.engine.exportState();
      data = { options: this.workerOptions, from: { state, version: inline.version, busyMs: inline.busyMs, heldMs: inline.heldMs, held: inline.held }, cpuMsBefore: inline.busyMs };
      transfer.push(...IncrementalPageRank.buffersOf(state));
      // The changes still queued (made during the last update) go to the worker with the next flush.
    }
    const worker = new Worker(new URL('./live-rank-worker.js', import.meta.url), { workerData: data, transferList: transfer });
    this.worker = worker;
    worker.on('message', (message: FromWorker) => this.received(message));
    worker.on('error', (error) => this.failed(error));
    worker.on('exit', (code) => {
      if (!this.closed) this.failed(new Error(`live PageRank worker: exited with code ${code}`));
    });
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  private growOp(): void {
    if (this.pagesKnown > this.pagesSent) {
      this.ops.push2(OP_GROW, this.pagesKnown);
      this.pagesSent = this.pagesKnown;
    }
  }

  private received(message: FromWorker): void {
    if (message.type === 'error') {
      this.failed(new Error(`live PageRank worker: ${message.message}`));
      return;
    }
    this.latest = message;
    this.latestAt = Date.now();
    this.updates++;
    if (message.final && this.waitingFinal !== null) {
      const { resolve } = this.waitingFinal;
      this.waitingFinal = null;
      resolve(message);
    }
    this.options.onVector?.(message);
  }

  private failed(error: Error): void {
    this.failure ??= error;
    if (this.waitingFinal !== null) {
      const { reject } = this.waitingFinal;
      this.waitingFinal = null;
      reject(error);
    }
    this.options.onError?.(error);
  }
}
