/**
 * The breadth-first search of `levels` on one thread and on all, from page 0,
 * with a check that both give the same levels:
 *
 *   node dist/bench/bfs.js [GRAPH] [--runs 3]
 *
 * GRAPH: any file `wga` loads (default: data/cnr-2000/cnr-2000.graph).
 * Prints the time of each run in this process.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { levels } from '../src/analysis/levels.js';
import { loadGraph } from '../src/formats/load.js';
import { defaultThreads, warmUpWorkers } from '../src/parallel/pool.js';
import { graphAndRuns } from './arguments.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { path, runs } = graphAndRuns(process.argv.slice(2), resolve(repoRoot, 'data/cnr-2000/cnr-2000.graph'), 3);

const threads = defaultThreads();
warmUpWorkers(threads);
const { graph, seconds } = await loadGraph(path);
console.log(`${path}: ${graph.nodeCount.toLocaleString('en-US')} pages, ${graph.edgeCount.toLocaleString('en-US')} links, loaded in ${seconds.toFixed(2)} s`);
for (let run = 1; run <= runs; run++) {
  let started = performance.now();
  const one = levels(graph, [0], { threads: 1 });
  const oneMs = performance.now() - started;
  started = performance.now();
  const all = levels(graph, [0], { threads });
  const allMs = performance.now() - started;
  const same = one.reached === all.reached && one.level.every((d, v) => d === all.level[v]);
  console.log(
    `run ${run}: 1 thread ${oneMs.toFixed(0)} ms, ${threads} threads ${allMs.toFixed(0)} ms; ` +
      `${one.reached.toLocaleString('en-US')} pages reached in ${one.maxLevel} levels; ${same ? 'same levels' : 'MISMATCH'}`,
  );
  if (!same) process.exitCode = 1;
}
