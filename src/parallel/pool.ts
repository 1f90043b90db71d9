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
import { abortBarrier, barrierWait, createBarrierState } from './barrier.js';

/** What a task receives: its shared data, which thread it is, and how many there are. */
export interface TaskContext<T> {
  data: T;
  thread: number;
  threads: number;
  /** A barrier shared by the task's threads. */
  barrier: Int32Array;
}

const workers: Worker[] = [];

/** Threads to use by default: the machine's cores, at most 8. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

function ensureWorkers(count: number): Worker[] {
  while (workers.length < count) {
    const worker = new Worker(new URL('./worker.js', import.meta.url));
    worker.unref();
    workers.push(worker);
  }
  return workers.slice(0, count);
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
  try {
    local({ data, thread: 0, threads, barrier });
  } catch (error) {
    abortBarrier(barrier);
    throw error;
  }
  const deadline = Date.now() + 120_000;
  while (Atomics.load(done, 0) < threads - 1) {
    const seen = Atomics.load(done, 0);
    Atomics.wait(done, 0, seen, 100);
    if (Date.now() > deadline) throw new Error(`parallel task '${name}': workers did not finish`);
  }
  const failed = Atomics.load(done, 1);
  if (failed !== 0) {
    const message = Buffer.from(failure.slice(0, failed)).toString('utf8');
    throw new Error(`parallel task '${name}' failed in a worker thread: ${message}`);
  }
}

/** Room for a worker's error message. */
export const FAILURE_BYTES = 2048;

export { barrierWait };
