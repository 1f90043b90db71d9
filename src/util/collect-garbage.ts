/**
 * A full garbage collection on this thread, now. A command that runs several analyses of a graph
 * of 10^8 pages one after another drops gigabytes of typed arrays between them; the runtime
 * collects them only when its own heuristics fire, which can be after the next analysis has
 * allocated its arrays beside them (the ranks table at Common Crawl's size was killed at 24 GB so,
 * BENCHMARKS.md). `--expose-gc` set at run time makes `gc` available to a fresh context.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null = null;

export function collectGarbage(): void {
  if (collect === null) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
