/**
 * Entry point of a pooled worker thread: runs the task a message names with
 * the shared data it carries, then counts itself done. See pool.ts.
 *
 * A worker that ends in the middle of a task (process.exit in a kernel, an
 * error thrown outside the task's call) still reports through the shared
 * memory the other threads watch, from its 'exit' handler: they stop waiting
 * and the command fails with the cause instead of hanging.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BarrierAbortedError, abortBarrier } from './barrier.js';
import { FAILURE_BYTES, failureText } from './failure.js';
import { PARALLEL_TASKS } from './tasks.js';

interface TaskMessage {
  name: string;
  data: object;
  thread: number;
  threads: number;
  barrier: Int32Array;
  done: Int32Array;
  failure: Uint8Array;
}

/** Set to 1 by this thread when it ends: the pool replaces it before its next task (pool.ts). */
const exited = (workerData as { exited?: Int32Array } | undefined)?.exited;
let current: TaskMessage | null = null;

/**
 * Records the cause (the first one only: the slot is claimed atomically) and wakes the threads
 * waiting at the barrier. A thread that stopped because another one failed has no cause to give.
 */
function fail(message: TaskMessage, text: string | null): void {
  if (text !== null && Atomics.compareExchange(message.done, 1, 0, -1) === 0) {
    const bytes = Buffer.from(text).subarray(0, FAILURE_BYTES);
    message.failure.set(bytes);
    Atomics.store(message.done, 1, Math.max(1, bytes.length));
  }
  abortBarrier(message.barrier);
}

function finish(message: TaskMessage): void {
  Atomics.add(message.done, 0, 1);
  Atomics.notify(message.done, 0);
}

process.on('exit', (code) => {
  if (exited !== undefined) Atomics.store(exited, 0, 1);
  if (current === null) return;
  fail(current, `a worker thread ended in the middle of the task (exit code ${code})`);
  finish(current);
  current = null;
});

parentPort?.on('message', (message: TaskMessage) => {
  const { name, data, thread, threads, barrier } = message;
  current = message;
  try {
    const task = PARALLEL_TASKS[name];
    if (task === undefined) throw new Error(`unknown parallel task '${name}'`);
    task({ data: data as never, thread, threads, barrier });
  } catch (error) {
    fail(message, error instanceof BarrierAbortedError ? null : failureText(error));
  } finally {
    if (current === message) {
      current = null;
      finish(message);
    }
  }
});
