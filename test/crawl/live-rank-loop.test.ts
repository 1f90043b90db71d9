/**
 * The live PageRank's update loop (crawl/live-rank-loop.ts) under --live-share: its CPU budget
 * (CpuShare) earns the share of the wall time and makes work that overdraws it wait; the loop's
 * waits are counted, and the final vector is the same whatever the share.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CpuShare, LiveUpdateLoop } from '../../src/crawl/live-rank-loop.js';
import { OP_GROW, OP_SET, type LiveVector } from '../../src/crawl/live-rank-protocol.js';
import { maxAbsDifference } from '../helpers.js';

/** A ring of `pages` pages with a chord from every third page, as SET operations after one GROW. */
function ringOps(pages: number, first: number, last: number): Int32Array {
  const ops: number[] = first === 0 ? [OP_GROW, pages] : [];
  for (let u = first; u < last; u++) {
    const targets = u % 3 === 0 ? [(u + 1) % pages, (u * 7 + 2) % pages] : [(u + 1) % pages];
    ops.push(OP_SET, u, targets.length, ...targets);
  }
  return Int32Array.from(ops);
}

interface Run {
  final: LiveVector;
  /** Per update: when it started (ms since the loop was made) and the pretend CPU used before it. */
  starts: Array<{ at: number; cpu: number }>;
  held: number;
  heldMs: number;
}

/** Feeds the ring in `batches` batches, `everyMs` apart, to a loop whose updates each cost `costMs` of (pretend) CPU. */
async function run(share: number, costMs: number, batches: number, everyMs: number): Promise<Run> {
  const pages = 600;
  let cpu = 0;
  const starts: Array<{ at: number; cpu: number }> = [];
  const made = performance.now();
  const pending: Int32Array[] = [];
  let finishing = false;
  let final: LiveVector | null = null;
  let failure: unknown = null;
  const loop: LiveUpdateLoop = new LiveUpdateLoop(
    0.85,
    {
      intervalMs: 5,
      tolerance: 1e-6,
      guessUnfetched: false,
      sliceEdges: 1e9,
      share,
      cpuMs: () => cpu,
      // One slice an update: its pretend CPU is charged after it.
      afterSlice: () => {
        cpu += costMs;
      },
      takeChanges: () => {
        if (!finishing) starts.push({ at: performance.now() - made, cpu });
        if (pending.length === 0) return null;
        const ops = Int32Array.from(pending.flatMap((p) => [...p]));
        pending.length = 0;
        return ops;
      },
    },
    (vector) => {
      if (vector.final) final = vector;
    },
    (error) => {
      failure = error;
    },
  );
  const per = pages / batches;
  for (let b = 0; b < batches; b++) {
    pending.push(ringOps(pages, b * per, (b + 1) * per));
    loop.schedule();
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  finishing = true;
  loop.finish(1e-12);
  assert.equal(failure, null);
  assert.ok(final !== null, 'a final vector');
  return { final, starts, held: loop.held, heldMs: loop.heldMs };
}

describe('live updates under --live-share', () => {
  it('earns the share of the wall time, up to a second of CPU saved, and makes an overdraft wait', () => {
    const budget = new CpuShare(0.25, 0, 0);
    assert.equal(budget.wait(0, 0), 0);
    // 1,500 ms of CPU in 10 ms: 1,000 saved + 2.5 earned - 1,500 = -497.5, repaid at 0.25 ms a ms.
    assert.equal(budget.wait(10, 1500), 1990);
    assert.equal(budget.wait(2000, 1500), 0);
    // A long idle time saves no more than BURST_MS.
    assert.equal(budget.wait(100_000, 1500), 0);
    assert.equal(budget.wait(100_000, 1500 + CpuShare.BURST_MS), 0);
    assert.equal(budget.wait(100_000, 1500 + CpuShare.BURST_MS + 100), 400);
    // No CPU clock (NaN): no bound.
    assert.equal(new CpuShare(0.1, 0, 0).wait(1, Number.NaN), 0);
  });

  it('holds updates back when their CPU overdraws the share, counts it, and ends with the same vector', async () => {
    // 600 ms of pretend CPU an update at half a core: 1,000 saved, then 400, then -200, repaid in 400 ms.
    const bounded = await run(0.5, 600, 12, 50);
    assert.ok(bounded.held >= 1 && bounded.heldMs > 0, `held ${bounded.held} for ${bounded.heldMs} ms`);
    assert.equal(bounded.final.held, bounded.held);
    // An update starts only while the budget is not overdrawn: the CPU used before it at most a
    // second more than half the wall time (timers fire no earlier than asked, to the millisecond).
    assert.ok(bounded.starts.length >= 3, `${bounded.starts.length} updates`);
    for (const { at, cpu } of bounded.starts) assert.ok(cpu <= CpuShare.BURST_MS + 0.5 * at + 1, `an update started at ${at.toFixed(0)} ms with ${cpu} ms of CPU used`);

    const free = await run(1, 600, 12, 50);
    assert.equal(free.held, 0);
    assert.equal(free.final.heldMs, 0);
    // Unbounded, the same updates overdraw half a core (the check above could fail).
    const last = free.starts[free.starts.length - 1]!;
    assert.ok(last.cpu > CpuShare.BURST_MS + 0.5 * last.at, `unbounded: ${last.cpu} ms of CPU by ${last.at.toFixed(0)} ms`);
    // The share changes when updates run, not the final vector (both solved to 1e-12 from the same graph).
    assert.equal(free.final.pages, bounded.final.pages);
    assert.ok(maxAbsDifference(free.final.scores, bounded.final.scores) < 1e-11, `${maxAbsDifference(free.final.scores, bounded.final.scores)}`);
  });
});
