/**
 * Entry point of a pooled worker thread: runs the task a message names with
 * the shared data it carries, then counts itself done. See pool.ts.
 */
import { parentPort } from 'node:worker_threads';
import { abortBarrier } from './barrier.js';
import { FAILURE_BYTES } from './pool.js';
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

parentPort?.on('message', (message: TaskMessage) => {
  const { name, data, thread, threads, barrier, done, failure } = message;
  try {
    const task = PARALLEL_TASKS[name];
    if (task === undefined) throw new Error(`unknown parallel task '${name}'`);
    task({ data: data as never, thread, threads, barrier });
  } catch (error) {
    abortBarrier(barrier);
    const text = Buffer.from(String((error as Error).stack ?? error)).subarray(0, FAILURE_BYTES);
    failure.set(text);
    Atomics.store(done, 1, Math.max(1, text.length));
  } finally {
    Atomics.add(done, 0, 1);
    Atomics.notify(done, 0);
  }
});
