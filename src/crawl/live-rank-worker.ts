/**
 * The live PageRank's worker thread: runs the update loop (live-rank-loop.ts)
 * on the changes the crawler sends, and posts each vector back. It starts
 * either empty or from the state the crawler's thread had built while the
 * graph was small (live-rank.ts).
 */
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { type FromWorker, type LiveWorkerData, type ToWorker } from './live-rank-protocol.js';
import { LiveUpdateLoop } from './live-rank-loop.js';

/** Links followed per slice of work: a few milliseconds. */
const SLICE_EDGES = 200_000;

const data = workerData as LiveWorkerData;

/**
 * CPU time of this thread, ms, from /proc/thread-self/stat (utime + stime, in clock ticks of 10 ms);
 * NaN where there is none (not Linux). Node 20 has no per-thread CPU clock of its own.
 */
function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * The updates are background work: on Linux each thread has its own nice value, and this one takes
 * the lowest priority, so that when the cores are busy the crawler's thread and the other processes
 * go first and a vector comes a little later. On the generated 100,000-page site crawled on
 * loopback (two cores shared with the site's server) pages/s with the live PageRank went from
 * 0.85-0.89 of pages/s without it to 0.89-0.91 (BENCHMARKS.md). Elsewhere the call would lower the
 * whole process, so it is made on Linux only; where it is refused nothing else changes.
 */
if (process.platform === 'linux') {
  try {
    setPriority(19);
  } catch {
    // Not allowed here (a container's policy): the updates run at the crawler's priority.
  }
}

const port = parentPort!;

function failed(error: unknown): void {
  const failure: FromWorker = { type: 'error', message: String((error as Error).stack ?? error) };
  port.postMessage(failure);
}

const loop = new LiveUpdateLoop(
  data.options.damping,
  {
    intervalMs: data.options.intervalMs,
    share: data.options.share,
    tolerance: data.options.tolerance,
    guessUnfetched: data.options.guessUnfetched,
    capacity: data.options.capacity,
    fullVectors: data.options.fullVectors,
    sliceEdges: SLICE_EDGES,
    // The updates' CPU before the hand-over (on the crawler's thread), then this thread's.
    cpuMs: () => data.cpuMsBefore + threadCpuMs(),
  },
  (vector) => port.postMessage(vector, [vector.scores.buffer as ArrayBuffer]),
  failed,
  data.from,
);

port.on('message', (message: ToWorker) => {
  try {
    if (message.type === 'changes') loop.apply(message.ops);
    else loop.finish(message.tolerance);
  } catch (error) {
    failed(error);
  }
});
