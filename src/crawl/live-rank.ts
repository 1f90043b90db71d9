/**
 * The crawler's side of the live PageRank: graph changes are queued as they
 * happen (pages found, out-links of fetched pages) and sent to the worker
 * thread (live-rank-worker.ts) every FLUSH_MS, so fetching never waits for
 * the computation; the latest vector the worker published is kept here for
 * the progress line, the checkpoints and the pagerank strategy.
 */
import { Worker } from 'node:worker_threads';
import { INCREMENTAL_PAGERANK_DEFAULTS } from '../analysis/incremental-pagerank.js';
import { type FromWorker, type LiveVector, type LiveWorkerOptions, OP_ADD, OP_GROW, OP_SET, type ToWorker } from './live-rank-protocol.js';

export type { LiveVector } from './live-rank-protocol.js';

/** Changes are sent to the worker this often, ms. */
const FLUSH_MS = 100;

export interface LiveRankOptions {
  damping?: number;
  /** Least time between two vectors, ms: 1000. */
  intervalMs?: number;
  tolerance?: number;
  /** Called on the crawler's thread with each vector the worker publishes. */
  onVector?: (vector: LiveVector) => void;
  /** Called when the worker fails. */
  onError?: (error: Error) => void;
}

export class LiveRank {
  private readonly worker: Worker;
  private ops: number[] = [];
  private pagesSent = 0;
  private pagesKnown = 0;
  private readonly timer: NodeJS.Timeout;
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
    const workerOptions: LiveWorkerOptions = {
      damping: options.damping ?? INCREMENTAL_PAGERANK_DEFAULTS.damping,
      intervalMs: options.intervalMs ?? 1000,
      tolerance: options.tolerance ?? INCREMENTAL_PAGERANK_DEFAULTS.tolerance,
    };
    this.worker = new Worker(new URL('./live-rank-worker.js', import.meta.url), { workerData: workerOptions });
    this.worker.on('message', (message: FromWorker) => this.received(message));
    this.worker.on('error', (error) => this.failed(error));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.failed(new Error(`live PageRank worker: exited with code ${code}`));
    });
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Pages 0 .. total - 1 exist. */
  grow(total: number): void {
    this.pagesKnown = Math.max(this.pagesKnown, total);
  }

  /** Page u's out-links are `targets` (replacing any it had). */
  setLinks(u: number, targets: ArrayLike<number>): void {
    this.growOp();
    this.ops.push(OP_SET, u, targets.length);
    for (let i = 0; i < targets.length; i++) this.ops.push(targets[i]!);
  }

  /** Page u links to `targets` too. */
  addLinks(u: number, targets: ArrayLike<number>): void {
    this.growOp();
    this.ops.push(OP_ADD, u, targets.length);
    for (let i = 0; i < targets.length; i++) this.ops.push(targets[i]!);
  }

  /** Sends the queued changes to the worker. */
  flush(): void {
    if (this.closed || this.failure !== null) return;
    this.growOp();
    if (this.ops.length === 0) return;
    const ops = Int32Array.from(this.ops);
    this.ops = [];
    const message: ToWorker = { type: 'changes', ops };
    this.worker.postMessage(message, [ops.buffer]);
  }

  /** Sends what is queued and waits for the vector solved to `tolerance` from a recomputed residual. */
  async finish(tolerance: number = INCREMENTAL_PAGERANK_DEFAULTS.finalTolerance): Promise<LiveVector> {
    if (this.failure !== null) throw this.failure;
    this.flush();
    const final = new Promise<LiveVector>((resolve, reject) => (this.waitingFinal = { resolve, reject }));
    const message: ToWorker = { type: 'finish', tolerance };
    this.worker.postMessage(message);
    return final;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.worker.terminate();
  }

  /** The page count of the graph sent (ops included). */
  get pages(): number {
    return this.pagesKnown;
  }

  private growOp(): void {
    if (this.pagesKnown > this.pagesSent) {
      this.ops.push(OP_GROW, this.pagesKnown);
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
