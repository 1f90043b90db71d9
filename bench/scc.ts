/**
 * Strongly connected components: Tarjan's search (stronglyConnectedComponents, as WebAssembly
 * up to 20M links) against the pivot's two
 * searches plus Tarjan on the rest (src/analysis/scc-pivot.ts), on one and
 * two threads, with a check that both find the same sets and that the
 * pivot's ids are topological (every link from an id to a smaller or equal one):
 *
 *   node dist/bench/scc.js [GRAPH] [--runs 3]
 *
 * GRAPH: any file `wga` loads (default: data/cnr-2000/cnr-2000.graph).
 * Prints the time of each run in this process (the first includes V8's compiling).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stronglyConnectedComponentsAroundPivot } from '../src/analysis/scc-pivot.js';
import { type SccResult, stronglyConnectedComponents } from '../src/analysis/scc.js';
import { loadGraph } from '../src/formats/load.js';
import type { Graph } from '../src/graph/graph.js';
import { warmUpWorkers } from '../src/parallel/pool.js';
import { graphAndRuns } from './arguments.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { path, runs } = graphAndRuns(process.argv.slice(2), resolve(repoRoot, 'data/cnr-2000/cnr-2000.graph'), 3);

function sameSets(graph: Graph, a: SccResult, b: SccResult): boolean {
  if (a.count !== b.count) return false;
  const map = new Int32Array(a.count).fill(-1);
  for (let v = 0; v < graph.nodeCount; v++) {
    const x = a.component[v]!;
    if (map[x] === -1) map[x] = b.component[v]!;
    else if (map[x] !== b.component[v]) return false;
  }
  return true;
}

function topological(graph: Graph, scc: SccResult): boolean {
  const { outOffsets, outTargets } = graph;
  for (let u = 0; u < graph.nodeCount; u++) {
    for (let e = outOffsets[u]!; e < outOffsets[u + 1]!; e++) if (scc.component[u]! < scc.component[outTargets[e]!]!) return false;
  }
  return true;
}

const { graph, seconds } = await loadGraph(path);
console.log(`${path}: ${graph.nodeCount.toLocaleString('en-US')} pages, ${graph.edgeCount.toLocaleString('en-US')} links, loaded in ${seconds.toFixed(2)} s`);
warmUpWorkers(2);
const timed = <T>(run: () => T): [T, number] => {
  const started = performance.now();
  const result = run();
  return [result, performance.now() - started];
};
for (let run = 1; run <= runs; run++) {
  const [tarjan, tarjanMs] = timed(() => stronglyConnectedComponents(graph));
  const [one, oneMs] = timed(() => stronglyConnectedComponentsAroundPivot(graph, { threads: 1 }));
  const [two, twoMs] = timed(() => stronglyConnectedComponentsAroundPivot(graph, { threads: 2 }));
  const checked = sameSets(graph, tarjan, one) && sameSets(graph, tarjan, two) && topological(graph, one) && topological(graph, two);
  console.log(
    `run ${run}: Tarjan ${tarjanMs.toFixed(0)} ms, pivot on 1 thread ${oneMs.toFixed(0)} ms, on 2 threads ${twoMs.toFixed(0)} ms; ` +
      `${tarjan.count.toLocaleString('en-US')} components, largest ${tarjan.largest.toLocaleString('en-US')}; ${checked ? 'same sets, topological ids' : 'MISMATCH'}`,
  );
  if (!checked) process.exitCode = 1;
}
