/**
 * The cost of PageRank's link-visiting kernels, in nanoseconds per link per
 * iteration, for each solver and thread count, against the memory-bound
 * floor of one gather per link per iteration on the same graph:
 *
 *   npm run bench:kernels -- [GRAPH] [--threads 1,2] [--runs 5] [--iterations 30]
 *
 * GRAPH: any file `wga` loads (default: data/cnr-2000/cnr-2000.graph).
 * - power: a fixed number of power iterations (tolerance 0), time / (iterations x links);
 * - gather: the loop `sum += z[inSources[e]]` over the graph's own in-link
 *   array, each thread over its share of the links, nothing else: the floor
 *   for a pull, since every iteration must read each link's source index
 *   (4 bytes, in order) and gather its source's value (8 bytes, scattered);
 * - gauss-seidel and auto: a whole solve to 1e-10, time / (equivalent iterations x links),
 *   equivalent iterations being links visited / links (the solver's own count);
 * - gauss-seidel-js, gauss-seidel-wasm: the same with the large components swept in JavaScript
 *   or by the WebAssembly kernel (gauss-seidel picks by size: pagerank-scc.ts, WASM_KERNEL_LINKS);
 * - pull-sweep, push-sweep (one thread; probes, not solvers): plain Gauss-Seidel sweeps in page
 *   order pulling over in-links or pushing over out-links (pullSweeps, pushSweeps below).
 * Medians of RUNS runs in this process, after one warm-up run each.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pagerank } from '../src/analysis/pagerank.js';
import { pagerankBySccGaussSeidel } from '../src/analysis/pagerank-scc.js';
import { type GatherData, splitByLinks } from '../src/analysis/pagerank-power.js';
import { stronglyConnectedComponents } from '../src/analysis/scc.js';
import { loadGraph } from '../src/formats/load.js';
import { runParallel, warmUpWorkers } from '../src/parallel/pool.js';
import { gatherThread } from '../src/analysis/pagerank-power.js';
import { sharedFloat64 } from '../src/parallel/shared-memory.js';
import { benchArguments } from './arguments.js';
import { median } from './report.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let path = resolve(repoRoot, 'data/cnr-2000/cnr-2000.graph');
let threadCounts = [1, 2];
let runs = 5;
let iterations = 30;
let solvers = ['power', 'gather', 'gauss-seidel', 'auto'];
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--threads') threadCounts = value().split(',').map(Number);
  else if (arg === '--runs') runs = Number(value());
  else if (arg === '--iterations') iterations = Number(value());
  else if (arg === '--solvers') solvers = value().split(',');
  else if (!arg.startsWith('--')) path = resolve(arg);
  else throw new Error(`unknown argument ${arg}`);
}

const loaded = await loadGraph(path);
const graph = loaded.graph;
const m = graph.edgeCount;
console.log(`${path}: ${graph.nodeCount.toLocaleString('en-US')} pages, ${m.toLocaleString('en-US')} links, loaded in ${loaded.seconds.toFixed(2)} s`);
warmUpWorkers(Math.max(...threadCounts));
const sccStarted = performance.now();
const scc = stronglyConnectedComponents(graph);
console.log(`SCC: ${((performance.now() - sccStarted) / 1000).toFixed(3)} s (${scc.count} components, largest ${scc.largest})`);
console.log('');
console.log('| kernel | threads | median time | iterations (equivalent) | ns per link per iteration |');
console.log('|---|---|---|---|---|');

function time(fn: () => number): { seconds: number; work: number } {
  const times: number[] = [];
  let work = 0;
  fn();
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    work = fn();
    times.push((performance.now() - started) / 1000);
  }
  return { seconds: median(times), work };
}

/**
 * Probes of the access pattern, one thread, not solvers of wga: `iterations` Gauss-Seidel sweeps in
 * page order over all pages (dangling mass left out), either pulling y[u] = x[u] / d(u) over each
 * page's in-links (a random read per link, as the kernels do) or pushing over its out-links into
 * an accumulator that a page reads and clears when its turn comes (a random read-modify-write per
 * link; the same sweep: acc[v] holds the pages before v from this sweep and those after it from
 * the last). Returns the sweeps made.
 */
function pullSweeps(sweeps: number): number {
  const n = graph.nodeCount;
  const { inOffsets, inSources, outOffsets } = graph;
  const y = new Float64Array(n).fill(1 / n);
  const c = 0.85;
  const base = (1 - c) / n;
  for (let k = 0; k < sweeps; k++) {
    for (let v = 0; v < n; v++) {
      let sum = 0;
      const end = inOffsets[v + 1]!;
      for (let e = inOffsets[v]!; e < end; e++) sum += y[inSources[e]!]!;
      const degree = outOffsets[v + 1]! - outOffsets[v]!;
      y[v] = degree > 0 ? (c * sum + base) / degree : 0;
    }
  }
  return sweeps;
}

function pushSweeps(sweeps: number): number {
  const n = graph.nodeCount;
  const { outOffsets, outTargets } = graph;
  const acc = new Float64Array(n);
  const c = 0.85;
  const base = (1 - c) / n;
  for (let k = 0; k < sweeps; k++) {
    for (let v = 0; v < n; v++) {
      const from = outOffsets[v]!;
      const end = outOffsets[v + 1]!;
      const xv = c * acc[v]! + base;
      acc[v] = 0;
      if (end === from) continue;
      const share = xv / (end - from);
      for (let e = from; e < end; e++) acc[outTargets[e]!]! += share;
    }
  }
  return sweeps;
}

for (const solver of solvers) {
  for (const threads of threadCounts) {
    let measured: { seconds: number; work: number };
    if (solver === 'gather') {
      const z = sharedFloat64(graph.nodeCount).fill(1 / graph.nodeCount);
      const data: GatherData = {
        inOffsets: graph.inOffsets,
        inSources: graph.inSources,
        z,
        bounds: splitByLinks(graph.inOffsets, graph.nodeCount, threads),
        params: sharedFloat64(1).fill(iterations),
        sums: sharedFloat64(threads),
      };
      measured = time(() => {
        runParallel('gather-bound', data, threads, gatherThread);
        return iterations;
      });
    } else if (solver === 'pull-sweep' || solver === 'push-sweep') {
      if (threads !== 1) continue;
      measured = time(() => (solver === 'pull-sweep' ? pullSweeps(iterations) : pushSweeps(iterations)));
    } else if (solver === 'power') {
      measured = time(() => pagerank(graph, { solver: 'power', tolerance: 1e-300, maxIterations: iterations, threads }).iterations);
    } else if (solver === 'gauss-seidel-js' || solver === 'gauss-seidel-wasm') {
      // The large components' sweeps in JavaScript or in the WebAssembly kernel, whatever the graph's size.
      const kernel = solver === 'gauss-seidel-js' ? 'js' : 'wasm';
      measured = time(
        () => pagerankBySccGaussSeidel(graph, { damping: 0.85, tolerance: 1e-10, maxIterations: 1000, teleport: null, threads, scc, kernel }).equivalentIterations,
      );
    } else {
      measured = time(() => pagerank(graph, { solver: solver as 'auto' | 'gauss-seidel', threads, scc }).equivalentIterations);
    }
    const ns = (measured.seconds * 1e9) / (measured.work * m);
    console.log(`| ${solver} | ${threads} | ${measured.seconds.toFixed(3)} s | ${measured.work.toFixed(1)} | ${ns.toFixed(2)} |`);
  }
}
