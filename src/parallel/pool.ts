/**
 * Worker threads for the parallel kernels. The calling thread takes part in
 * the work (thread 0) and `threads - 1` pooled workers do the rest; all of
 * them share the graph and the results through SharedArrayBuffer, and the
 * call stays synchronous: the caller blocks on Atomics until the workers are
 * done. Workers are created on first use and unref'd, so they never keep a
 * process alive.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BarrierAbortedError, BarrierTimeoutError, abortBarrier, barrierWait, createBarrierState } from './barrier.js';
import { FAILURE_BYTES } from './failure.js';
import { WgaError } from '../errors.js';

/** What a task receives: its shared data, which thread it is, and how many there are. */
export interface TaskContext<T> {
  data: T;
  thread: number;
  threads: number;
  /** A barrier shared by the task's threads. */
  barrier: Int32Array;
}

interface PooledWorker {
  worker: Worker;
  /** Set to 1 by the worker thread when it ends (worker.ts); read here without waiting for events. */
  exited: Int32Array;
}

const workers: PooledWorker[] = [];

/** Threads to use by default: the machine's cores, at most 8. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

function ensureWorkers(count: number): Worker[] {
  // A worker that ended (an error, process.exit, out of memory) is replaced before it is given work.
  for (let i = workers.length - 1; i >= 0; i--) {
    if (Atomics.load(workers[i]!.exited, 0) !== 0) workers.splice(i, 1);
  }
  while (workers.length < count) {
    const exited = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { exited } });
    const pooled: PooledWorker = { worker, exited };
    // Its error is reported by the task that fails with it (worker.ts); the pool only forgets the worker.
    const forget = (): void => {
      Atomics.store(exited, 0, 1);
      const index = workers.indexOf(pooled);
      if (index >= 0) workers.splice(index, 1);
    };
    worker.on('error', forget);
    worker.on('exit', forget);
    worker.unref();
    workers.push(pooled);
  }
  return workers.slice(0, count).map((w) => w.worker);
}

/**
 * Ends the pooled workers (the next parallel task starts new ones). An idle worker runs no code,
 * so its heap is never collected: the shared arrays of the last task it ran stay alive through it,
 * however large. Called between analyses that each hold gigabytes (compact-graph.ts).
 */
export async function releaseWorkers(): Promise<void> {
  const ending = workers.splice(0, workers.length);
  await Promise.all(ending.map(({ worker }) => worker.terminate()));
}

/** Starts the workers ahead of need, so their start-up overlaps other work. */
export function warmUpWorkers(threads: number): void {
  if (threads > 1) ensureWorkers(threads - 1);
}

/**
 * Runs the registered task `name` on `threads` threads (this one included)
 * with the same shared `data`, and returns when all are done. The task is
 * looked up in worker-tasks.ts; `local` is the same function for thread 0.
 */
export function runParallel<T extends object>(
  name: string,
  data: T,
  threads: number,
  local: (context: TaskContext<T>) => void,
): void {
  const barrier = createBarrierState();
  if (threads <= 1) {
    local({ data, thread: 0, threads: 1, barrier });
    return;
  }
  // done[0] counts finished workers; done[1] is the length of a failure message in `failure`.
  const done = new Int32Array(new SharedArrayBuffer(8));
  const failure = new Uint8Array(new SharedArrayBuffer(FAILURE_BYTES));
  const pool = ensureWorkers(threads - 1);
  pool.forEach((worker, i) => worker.postMessage({ name, data, thread: i + 1, threads, barrier, done, failure }));
  let localError: unknown = null;
  try {
    local({ data, thread: 0, threads, barrier });
  } catch (error) {
    abortBarrier(barrier);
    // Stopped because a worker failed: that worker's cause is the one to report, below.
    if (error instanceof BarrierTimeoutError) {
      localError = new ParallelTaskError(name, `stopped: a worker thread did not reach the barrier for ${error.message.replace(/^barrier: no progress for /, '')} (one may have run out of memory); try fewer --threads`);
    } else if (!(error instanceof BarrierAbortedError)) localError = error;
  }
  // Bounded: a worker that dies without running any code (out of memory) cannot report.
  const deadline = Date.now() + WORKER_WAIT_MS;
  while (Atomics.load(done, 0) < threads - 1) {
    const seen = Atomics.load(done, 0);
    Atomics.wait(done, 0, seen, 100);
    if (Date.now() > deadline) {
      abortBarrier(barrier);
      throw new ParallelTaskError(name, `worker threads did not finish within ${WORKER_WAIT_MS / 1000} s (one may have run out of memory); try fewer --threads`);
    }
  }
  if (localError !== null) throw localError;
  const failed = Atomics.load(done, 1);
  if (failed !== 0) {
    const message = Buffer.from(failure.slice(0, failed)).toString('utf8');
    throw new ParallelTaskError(name, `failed in a worker thread: ${message}`);
  }
}

/** Longest wait for the workers once the calling thread's share is done, ms. */
const WORKER_WAIT_MS = 120_000;

/** A parallel computation that failed in a worker thread: one line naming the task and the cause. */
export class ParallelTaskError extends WgaError {
  constructor(task: string, problem: string) {
    super(`parallel task '${task}' ${problem}`, 70);
  }
}

export { barrierWait };
