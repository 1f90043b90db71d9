/**
 * The live PageRank's worker thread: applies the crawler's graph changes to
 * an IncrementalPageRank as they come, and once per interval works them in
 * (pushes in slices of a few milliseconds, so new changes are taken in
 * between) and publishes the normalised vector. Idle when nothing changed.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { IncrementalPageRank } from '../analysis/incremental-pagerank.js';
import { type FromWorker, type LiveWorkerOptions, OP_ADD, OP_GROW, OP_SET, type ToWorker } from './live-rank-protocol.js';

/** Links followed per slice of work: a few milliseconds. */
const SLICE_EDGES = 200_000;

const options = workerData as LiveWorkerOptions;

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
const engine = new IncrementalPageRank(options.damping);
const port = parentPort!;
let version = 0;
let busyMs = 0;
let lastPublished = -Infinity;
/** When the current (or last) update started. */
let lastStarted = -Infinity;
/** An update is under way (work() is scheduled with setImmediate until it is done). */
let solving = false;
let scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;

function apply(ops: Int32Array): void {
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
}

function publish(final: boolean, errorBound = Number.NaN): void {
  version++;
  const scores = engine.scores();
  const message: FromWorker = {
    type: 'scores',
    version,
    pages: engine.pages,
    links: engine.linkCount,
    scores,
    converged: !engine.pending,
    final,
    errorBound,
    pushes: engine.totalPushes,
    edgeVisits: engine.totalEdgeVisits,
    busyMs,
    cpuMs: threadCpuMs(),
    bytes: engine.bytes,
  };
  port.postMessage(message, [scores.buffer as ArrayBuffer]);
  lastPublished = performance.now();
}

/** Starts work now, or when the interval since the last vector's start is over. */
function schedule(): void {
  if (scheduled !== null || solving) return;
  const wait = lastStarted + options.intervalMs - performance.now();
  scheduled = wait <= 0 ? setImmediate(work) : setTimeout(work, Math.ceil(wait));
}

/**
 * One update: pushes in slices (changes arriving meanwhile are applied between them) until the
 * changes are worked in, then publishes; an update still going after a whole interval publishes
 * an intermediate vector and carries on. Pushing once per interval, not after every batch of
 * changes, is what keeps the work to what the new pages and links need.
 */
function work(): void {
  scheduled = null;
  if (!solving) {
    solving = true;
    lastStarted = performance.now();
  }
  const started = performance.now();
  engine.solve(options.tolerance, SLICE_EDGES);
  busyMs += performance.now() - started;
  if (engine.pending) {
    if (performance.now() - lastPublished >= options.intervalMs) publish(false);
    scheduled = setImmediate(work);
    return;
  }
  solving = false;
  publish(false);
}

port.on('message', (message: ToWorker) => {
  try {
    if (message.type === 'changes') {
      const started = performance.now();
      apply(message.ops);
      busyMs += performance.now() - started;
      schedule();
    } else {
      if (scheduled !== null) {
        clearTimeout(scheduled as NodeJS.Timeout);
        clearImmediate(scheduled as NodeJS.Immediate);
        scheduled = null;
      }
      solving = false;
      const started = performance.now();
      engine.refreshResidual();
      engine.solve(message.tolerance);
      const errorBound = engine.errorBound();
      busyMs += performance.now() - started;
      publish(true, errorBound);
    }
  } catch (error) {
    const failure: FromWorker = { type: 'error', message: String((error as Error).stack ?? error) };
    port.postMessage(failure);
  }
});
