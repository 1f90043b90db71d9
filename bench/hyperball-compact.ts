/**
 * HyperBall on a compact graph file (src/analysis/hyperball-compact.ts), iteration by iteration: how
 * many counters changed and how long each iteration took, then the total, the peak RSS and a
 * checksum of the harmonic scores (every 1009th page), so that two builds can be compared on the
 * same file (the same checksum: the same estimates).
 *
 *   node dist/bench/hyperball-compact.js --graph G.wgc [--log2m 4] [--iterations 1000] [--threads 2]
 *
 * The counters are both in memory (no external mode) and without the distance sums, as `wga rank
 * G.wgc --method harmonic` runs when they fit.
 */
import { compactHyperBall } from '../src/analysis/hyperball-compact.js';
import { CompactFile } from '../src/formats/compact-file.js';
import { benchArguments } from './arguments.js';

let graphPath = '';
let log2m = 4;
let iterations = 1000;
let threads = 2;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--graph') graphPath = value();
  else if (arg === '--log2m') log2m = Number(value());
  else if (arg === '--iterations') iterations = Number(value());
  else if (arg === '--threads') threads = Number(value());
  else throw new Error(`unknown argument ${arg}`);
}
if (graphPath === '') throw new Error('--graph G.wgc is needed');

const file = CompactFile.open(graphPath);
const loadStarted = performance.now();
const lists = file.readLists('in');
console.log(
  `${graphPath}: ${file.nodeCount.toLocaleString('en-US')} pages, ${file.linkCount.toLocaleString('en-US')} links; in-lists loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s; log2m ${log2m}, ${threads} threads; node ${process.version}`,
);
console.log('| iteration | counters changed | s |');
console.log('|---:|---:|---:|');
const started = performance.now();
let last = started;
const result = compactHyperBall(lists, {
  log2m,
  seed: 1,
  threads,
  maxIterations: iterations,
  distanceSums: false,
  onIteration: (t, changed) => {
    const now = performance.now();
    console.log(`| ${t} | ${changed.toLocaleString('en-US')} | ${((now - last) / 1000).toFixed(1)} |`);
    last = now;
  },
});
let checksum = 0;
for (let x = 0; x < result.harmonic.length; x += 1009) checksum += result.harmonic[x]!;
console.log();
console.log(
  `${result.iterations} iterations in ${((performance.now() - started) / 1000).toFixed(1)} s; peak RSS ${(process.resourceUsage().maxRSS / 1024 ** 2).toFixed(2)} GB; checksum of the harmonic scores ${checksum}`,
);
