/**
 * A reusable barrier for a fixed number of threads on shared memory
 * (Atomics.wait works in Node's main thread too). state[0] counts arrivals,
 * state[1] is the generation, state[2] an abort flag any thread may raise
 * so that the others stop waiting instead of hanging.
 */
export const BARRIER_SLOTS = 3;

export class BarrierAbortedError extends Error {
  constructor() {
    super('another thread of the computation failed');
  }
}

/** No thread arrived for too long: one of them is stuck or gone. */
export class BarrierTimeoutError extends Error {}

export function createBarrierState(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * BARRIER_SLOTS));
}

/**
 * How long a thread of a kernel over the compact graph may wait at a barrier for another: one
 * phase there (a TrafficRank sweep at Tomlin's 2 x 10^9 links: 80-90 s on two threads) lasts
 * minutes, and the threads' shares, balanced by bytes, need not end together. Ten minutes keeps a
 * margin and still ends a computation whose worker never started. (A worker that dies stops the
 * others at once: worker.ts aborts the barrier.)
 */
export const LONG_PHASE_TIMEOUT_MS = 10 * 60 * 1000;

/** Blocks until `parties` threads have called it with the same state. */
export function barrierWait(state: Int32Array, parties: number, timeoutMs = 120_000): void {
  if (parties <= 1) return;
  const generation = Atomics.load(state, 1);
  if (Atomics.add(state, 0, 1) === parties - 1) {
    Atomics.store(state, 0, 0);
    Atomics.add(state, 1, 1);
    Atomics.notify(state, 1);
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (Atomics.load(state, 1) === generation) {
    if (Atomics.load(state, 2) !== 0) throw new BarrierAbortedError();
    Atomics.wait(state, 1, generation, 100);
    if (Date.now() > deadline) {
      Atomics.store(state, 2, 1);
      throw new BarrierTimeoutError(`barrier: no progress for ${timeoutMs} ms`);
    }
  }
}

/** Marks the computation as failed and wakes every waiting thread. */
export function abortBarrier(state: Int32Array): void {
  Atomics.store(state, 2, 1);
  Atomics.notify(state, 1);
}
