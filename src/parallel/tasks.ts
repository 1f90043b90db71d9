/**
 * The kernels worker threads can run, by name. A kernel takes a TaskContext
 * (shared data, its thread number, the thread count, a barrier) and works on
 * its share; pool.ts runs thread 0 of the same kernel in the calling thread.
 */
import { simulateWalks } from '../analysis/montecarlo.js';
import { gatherThread, powerIterationThread } from '../analysis/pagerank-power.js';
import { googleStepThread, sweepLargeComponent } from '../analysis/pagerank-scc.js';
import { pivotReachThread } from '../analysis/scc-pivot.js';
import { bfsThread } from '../analysis/levels.js';
import type { TaskContext } from './pool.js';

/** A kernel of any data type (`never` accepts them all: the name decides the type). */
export type ParallelKernel = (context: TaskContext<never>) => void;

export const PARALLEL_TASKS: Record<string, ParallelKernel> = {
  'pagerank-component-sweeps': sweepLargeComponent,
  'pagerank-google-step': googleStepThread,
  'pagerank-power': powerIterationThread,
  'gather-bound': gatherThread,
  'montecarlo-walks': simulateWalks,
  'scc-pivot-reach': pivotReachThread,
  'levels-bfs': bfsThread,
};
