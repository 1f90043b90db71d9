/**
 * The kernels worker threads can run, by name. A kernel takes a TaskContext
 * (shared data, its thread number, the thread count, a barrier) and works on
 * its share; pool.ts runs thread 0 of the same kernel in the calling thread.
 */
import { simulateWalks } from '../analysis/montecarlo.js';
import { compactWalksThread } from '../analysis/montecarlo-compact.js';
import { gatherThread, powerIterationThread } from '../analysis/pagerank-power.js';
import { compactPowerThread } from '../analysis/pagerank-compact.js';
import { googleStepThread, sweepLargeComponent } from '../analysis/pagerank-scc.js';
import { pivotReachThread } from '../analysis/scc-pivot.js';
import { bfsThread } from '../analysis/levels.js';
import { compactBfsThread } from '../analysis/compact-search.js';
import { hyperBallThread } from '../analysis/hyperball.js';
import { compactTrafficThread } from '../analysis/traffic-compact.js';
import { compactHyperBallThread } from '../analysis/hyperball-compact.js';
import { compactGaussSeidelThread } from '../analysis/pagerank-compact-gs.js';
import { compactSccThread } from '../analysis/pagerank-compact-scc.js';
import { distanceCentralitiesThread } from '../analysis/centrality.js';
import { barrierWait } from './barrier.js';
import type { TaskContext } from './pool.js';

/** A kernel of any data type (`never` accepts them all: the name decides the type). */
export type ParallelKernel = (context: TaskContext<never>) => void;

/**
 * The pool's self-test (test/parallel): every thread marks its slot in `marks`; with `fail` set,
 * thread 1 fails that way (an error thrown, or its thread ended by process.exit) while the others
 * wait for it at a barrier.
 */
export function poolSelfTest(context: TaskContext<{ marks: Int32Array; fail: 'throw' | 'exit' | 'none' }>): void {
  const { data, thread, threads, barrier } = context;
  Atomics.store(data.marks, thread, thread + 1);
  barrierWait(barrier, threads);
  if (thread === 1 && data.fail === 'throw') throw new Error('failing on purpose');
  if (thread === 1 && data.fail === 'exit') process.exit(7);
  barrierWait(barrier, threads);
}

export const PARALLEL_TASKS: Record<string, ParallelKernel> = {
  'pool-self-test': poolSelfTest,
  'pagerank-component-sweeps': sweepLargeComponent,
  'pagerank-google-step': googleStepThread,
  'pagerank-power': powerIterationThread,
  'pagerank-compact': compactPowerThread as ParallelKernel,
  'gather-bound': gatherThread,
  'montecarlo-walks': simulateWalks,
  'montecarlo-walks-compact': compactWalksThread as ParallelKernel,
  'scc-pivot-reach': pivotReachThread,
  'levels-bfs': bfsThread,
  'levels-bfs-compact': compactBfsThread as ParallelKernel,
  hyperball: hyperBallThread as ParallelKernel,
  'traffic-compact': compactTrafficThread as ParallelKernel,
  'hyperball-compact': compactHyperBallThread as ParallelKernel,
  'pagerank-compact-gs': compactGaussSeidelThread as ParallelKernel,
  'pagerank-compact-scc': compactSccThread as ParallelKernel,
  'distance-centralities': distanceCentralitiesThread as ParallelKernel,
};
