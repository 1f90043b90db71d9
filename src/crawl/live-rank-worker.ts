/**
 * The live PageRank's worker thread: applies the crawler's graph changes to
 * an IncrementalPageRank, pushes in slices of a few milliseconds (so new
 * changes are taken in between), and publishes the normalised vector when
 * the changes are worked in, at most once per interval; while changes keep
 * coming faster than they are worked in, it still publishes once per
 * interval (an intermediate vector). Idle when nothing changed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IncrementalPageRank } from '../analysis/incremental-pagerank.js';
import { type FromWorker, type LiveWorkerOptions, OP_ADD, OP_GROW, OP_SET, type ToWorker } from './live-rank-protocol.js';

/** Links followed per slice of work: a few milliseconds. */
const SLICE_EDGES = 200_000;

const options = workerData as LiveWorkerOptions;
const engine = new IncrementalPageRank(options.damping);
const port = parentPort!;
let version = 0;
let busyMs = 0;
/** Changes received since the last published vector. */
let changed = false;
let lastPublished = -Infinity;
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
    bytes: engine.bytes,
  };
  port.postMessage(message, [scores.buffer as ArrayBuffer]);
  changed = false;
  lastPublished = performance.now();
}

function schedule(): void {
  if (scheduled !== null) return;
  scheduled = setImmediate(work);
}

function work(): void {
  scheduled = null;
  if (engine.pending) {
    const started = performance.now();
    engine.solve(options.tolerance, SLICE_EDGES);
    busyMs += performance.now() - started;
  }
  if (changed) {
    const wait = lastPublished + options.intervalMs - performance.now();
    if (wait <= 0) publish(false);
    else if (!engine.pending) {
      // Worked in: publish when the interval is over (more changes may come first).
      scheduled = setTimeout(work, Math.ceil(wait));
      return;
    }
  }
  if (engine.pending) schedule();
}

port.on('message', (message: ToWorker) => {
  try {
    if (message.type === 'changes') {
      const started = performance.now();
      apply(message.ops);
      busyMs += performance.now() - started;
      changed = true;
      // A timer waiting out the interval: work on the new changes now instead.
      if (scheduled !== null) {
        clearTimeout(scheduled as NodeJS.Timeout);
        clearImmediate(scheduled as NodeJS.Immediate);
        scheduled = null;
      }
      schedule();
    } else {
      if (scheduled !== null) {
        clearTimeout(scheduled as NodeJS.Timeout);
        clearImmediate(scheduled as NodeJS.Immediate);
        scheduled = null;
      }
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
