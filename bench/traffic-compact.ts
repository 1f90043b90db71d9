/**
 * TrafficRank and HOTness on a compact graph file (src/analysis/traffic-compact.ts) beside PageRank
 * on the same file, in one process: the lists loaded once, then PageRank (`wga rank G.wgc`'s solver,
 * to 1e-10) and TrafficRank with Anderson's history in float64 and float32 (to the tolerance, 1e-10
 * by default), each timed, with its sweeps and the process's peak RSS after it; with --plain, the
 * plain solver's TrafficRank on the same graph (one thread, src/analysis/traffic.ts), and whether
 * the top 100 pages and the vectors agree.
 *
 * Run with --expose-gc at 10^9 links and up: the vectors of one solve are then freed before the next.
 *
 *   node --expose-gc dist/bench/traffic-compact.js --graph G.wgc [--plain G.wgadj] [--threads 2] [--history float64,float32] [--tolerance 1e-10] [--rounds R] [--pagerank-first]
 *
 * --pagerank-first: PageRank before TrafficRank in each round (at Tomlin's size PageRank's figure is
 * then in hand even when a long TrafficRank solve has to be stopped).
 */
import { compactOutDegrees, compactPageRank } from '../src/analysis/pagerank-compact.js';
import { compactAutoSolver } from '../src/app/compact-graph.js';
import { trafficRank } from '../src/analysis/traffic.js';
import { type HistoryWidth, compactTrafficRank } from '../src/analysis/traffic-compact.js';
import { topK } from '../src/analysis/top.js';
import { CompactFile } from '../src/formats/compact-file.js';
import { loadGraph } from '../src/formats/load.js';
import { compactBytes } from '../src/graph/compact.js';
import { benchArguments } from './arguments.js';
import { median } from './report.js';

let graphPath = '';
let plainPath: string | null = null;
let threads = 2;
let histories: HistoryWidth[] = ['float64', 'float32'];
let tolerance = 1e-10;
let rounds = 1;
let pageRankFirst = false;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--graph') graphPath = value();
  else if (arg === '--plain') plainPath = value();
  else if (arg === '--threads') threads = Number(value());
  else if (arg === '--history') histories = value().split(',') as HistoryWidth[];
  else if (arg === '--tolerance') tolerance = Number(value());
  else if (arg === '--rounds') rounds = Number(value());
  else if (arg === '--pagerank-first') pageRankFirst = true;
  else throw new Error(`unknown argument ${arg}`);
}
if (graphPath === '') throw new Error('--graph G.wgc is needed');

const gb = (bytes: number): string => (bytes / 1024 ** 3).toFixed(2);
const peak = (): string => gb(process.resourceUsage().maxRSS * 1024);
const seconds = (since: number): number => (performance.now() - since) / 1000;

const file = CompactFile.open(graphPath);
let started = performance.now();
const inLists = file.readLists('in');
const outLists = file.readLists('out');
const load = seconds(started);
const n = file.nodeCount;
const m = file.linkCount;
console.log(`${graphPath}: ${n.toLocaleString('en-US')} pages, ${m.toLocaleString('en-US')} links; in-lists ${(compactBytes(inLists) / m).toFixed(3)} bytes/link, out-lists ${(compactBytes(outLists) / m).toFixed(3)}; loaded in ${load.toFixed(1)} s; ${threads} threads, TrafficRank to ${tolerance}; node ${process.version}`);
console.log(`peak RSS after loading: ${peak()} GB`);
console.log();
console.log('| run | solver | sweeps / iterations | s | | | violation / residual | history GB | peak RSS GB so far |');
console.log('|---|---|---:|---:|---|---:|---:|---:|---:|');

/** A full collection when node was started with --expose-gc (the last solve's shared buffers go). */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Each sweep or iteration on stderr, with the seconds since the solve began (runs of an hour need watching). */
function progress(what: string): (step: number, value: number) => void {
  const began = performance.now();
  return (step, value) => process.stderr.write(`${what} ${step}: ${value.toExponential(2)} at ${seconds(began).toFixed(0)} s\n`);
}

// TrafficRank first by default (the larger footprint, while nothing else is held), then PageRank; each row
// printed as soon as its solve ends, the ratios once both are known.
const trafficTimes = new Map<HistoryWidth, number[]>();
const traffic = new Map<HistoryWidth, ReturnType<typeof compactTrafficRank>>();
const pageRankTimes: number[] = [];
/** PageRank's figures (its vector dropped at once: at 10^9 links and up it is gigabytes). */
let pageRank: { iterations: number; residual: number; lumped: boolean } | null = null;
function runTraffic(round: number): void {
  for (const history of histories) {
    traffic.delete(history);
    collect();
    started = performance.now();
    const result = compactTrafficRank(inLists, outLists, { tolerance, threads, history, onSweep: progress(`TrafficRank (${history}) sweep`) });
    const time = seconds(started);
    if (!trafficTimes.has(history)) trafficTimes.set(history, []);
    trafficTimes.get(history)!.push(time);
    traffic.set(history, result);
    console.log(`| TrafficRank (round ${round + 1}) | anderson, history ${history} | ${result.sweeps} | ${time.toFixed(1)} | | | ${result.violation.toExponential(1)} | ${gb(result.bytes.history)} | ${peak()} |`);
  }
}

function runPageRank(round: number): void {
  collect();
  // The out-degrees (4 bytes per page) live only while PageRank runs; `wga rank G.wgc`'s choice of solver, and the
  // in-lists' per-page offsets (read from the file, outside the time, as `rank` loads them) when it is Gauss-Seidel.
  const outDegree = compactOutDegrees(inLists);
  const solver = compactAutoSolver(outDegree);
  inLists.offsets = solver === 'gauss-seidel' ? file.readOffsets('in') : null;
  started = performance.now();
  const rank = compactPageRank(inLists, outDegree, { solver, tolerance: 1e-10, threads, onIteration: progress('PageRank iteration') });
  const time = seconds(started);
  inLists.offsets = null;
  pageRankTimes.push(time);
  pageRank = { iterations: rank.iterations, residual: rank.residual, lumped: rank.core.pages < n };
  const how = solver === 'gauss-seidel' ? `Gauss-Seidel over ${rank.components!.count.toLocaleString('en-US')} components (Tarjan ${rank.components!.seconds.toFixed(1)} s), ${rank.passes.toFixed(1)} passes` : `power on the compact in-lists${pageRank.lumped ? ', dangling pages lumped' : ''}`;
  console.log(`| PageRank (round ${round + 1}) | ${how} | ${pageRank.iterations} | ${time.toFixed(1)} | | | ${pageRank.residual.toExponential(1)} | — | ${peak()} |`);
}

for (let round = 0; round < rounds; round++) {
  if (pageRankFirst) runPageRank(round);
  runTraffic(round);
  if (!pageRankFirst) runPageRank(round);
}
const pageRankSeconds = median(pageRankTimes);
console.log();
console.log(`PageRank: median ${pageRankSeconds.toFixed(1)} s (${pageRankTimes.map((t) => t.toFixed(1)).join(', ')})`);
for (const history of histories) {
  const times = trafficTimes.get(history)!;
  console.log(`TrafficRank, history ${history}: median ${median(times).toFixed(1)} s (${times.map((t) => t.toFixed(1)).join(', ')}), **${(median(times) / pageRankSeconds).toFixed(2)} x PageRank**`);
}

if (plainPath !== null) {
  const { graph } = await loadGraph(plainPath);
  started = performance.now();
  const plain = trafficRank(graph, { tolerance });
  const plainSeconds = seconds(started);
  console.log(`| TrafficRank, plain form | anderson, one thread (traffic.ts) | ${plain.sweeps} | ${plainSeconds.toFixed(1)} | | ${(plainSeconds / pageRankSeconds).toFixed(2)} | ${plain.violation.toExponential(1)} | ${gb(16 * 8 * n)} | ${peak()} |`);
  console.log();
  const plainTop = topK(plain.trafficRank, 100);
  for (const history of histories) {
    const result = traffic.get(history)!;
    const top = topK(result.trafficRank, 100);
    const same = top.every((v, i) => v === plainTop[i]);
    let hot = 0;
    let flow = 0;
    for (let v = 0; v < n; v++) {
      hot = Math.max(hot, Math.abs(result.hotness[v]! - plain.hotness[v]!) / plain.hotness[v]!);
      flow = Math.max(flow, Math.abs(result.trafficRank[v]! - plain.trafficRank[v]!) / plain.trafficRank[v]!);
    }
    console.log(`history ${history}: top 100 the plain solver's, in its order: ${same ? 'yes' : 'NO'}; largest relative difference of TrafficRank ${flow.toExponential(1)}, of HOTness ${hot.toExponential(1)}`);
  }
}
console.log(`\npeak RSS of the process: ${peak()} GB`);
