/**
 * HyperBall and the exact distance centralities (issue 28), on this machine, each a fresh `wga`
 * process under /usr/bin/time (wall time and peak RSS):
 * 1. HyperBall (`wga rank --method harmonic --log2m K --json`) on cnr-2000 (325,557 pages,
 *    3,216,152 links) for log2m 6 and 8: iterations, seconds per iteration, total, peak memory,
 *    bytes per page; with `--large PATH.wgadj`, the same at log2m 6 on that graph (the 10^8-link
 *    graph of generate-web-graph.js);
 * 2. exact harmonic centrality on a generated graph of 10^4 pages: wga `--exact` against igraph's
 *    harmonic_centrality(mode="in") (Debian's python3-igraph), the solve times side by side;
 * 3. HyperBall's accuracy on a generated graph of 10^5 pages against the exact values: mean
 *    relative error of harmonic centrality against the counters' standard deviation, average
 *    distance and effective diameter, Kendall's tau.
 *
 *   npm run bench:hyperball -- [--large bench/.cache/web-1e7.wgadj]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distanceCentralities } from '../src/analysis/centrality.js';
import { kendallTau } from '../src/analysis/compare.js';
import { distanceStatistics, exactNeighbourhood, hyperBall } from '../src/analysis/hyperball.js';
import { powerLawGraph } from '../src/experiments/generators.js';
import type { Graph } from '../src/graph/graph.js';
import { cnrEdgeList } from '../test/helpers.js';
import { benchArguments } from './arguments.js';
import { compiledCli } from './crawl/paths.js';

let large: string | null = null;
let accuracyOnly = false;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--large') large = value();
  else if (arg === '--accuracy-only') accuracyOnly = true;
  else throw new Error(`unknown argument ${arg}`);
}
const work = mkdtempSync(join(tmpdir(), 'wga-bench-hyperball-'));

function timed(command: string, args: string[]): { seconds: number; peakKb: number; stdout: string } {
  const timeFile = join(work, 'time.out');
  const run = spawnSync('/usr/bin/time', ['-f', '%e %M', '-o', timeFile, command, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`${command} ${args.slice(0, 4).join(' ')}: ${run.stderr.slice(-1500)}`);
  const [seconds, peakKb] = spawnSync('cat', [timeFile], { encoding: 'utf8' }).stdout.trim().split(/\s+/).map(Number) as [number, number];
  return { seconds, peakKb, stdout: run.stdout };
}

const lines: string[] = [];
const say = (line: string): void => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};

if (!accuracyOnly) {
  // 1. HyperBall on cnr-2000 (and the large graph).
  say('| graph | log2m | threads | iterations | s per iteration | total s (process) | peak RSS (MB) | bytes per page (counters) |');
  say('|---|---:|---:|---:|---:|---:|---:|---:|');
  const targets: Array<[string, string, number[]]> = [['cnr-2000', cnrEdgeList(), [6, 8]]];
  if (large !== null) targets.push(['10^8-link graph', large, [6]]);
  for (const [name, path, sizes] of targets) {
    for (const log2m of sizes) {
      for (const threads of [1, 2]) {
        const r = timed(process.execPath, ['--max-old-space-size=16000', compiledCli, 'rank', path, '--method', 'harmonic', '--log2m', String(log2m), '--threads', String(threads), '--json', '--top', '1']);
        const json = JSON.parse(r.stdout) as { nodes: number; iterations: number; timings: { load: number; solve: number } };
        say(`| ${name} (${json.nodes} pages) | ${log2m} | ${threads} | ${json.iterations} | ${(json.timings.solve / json.iterations).toFixed(2)} | ${r.seconds.toFixed(1)} (load ${json.timings.load.toFixed(1)}, solve ${json.timings.solve.toFixed(1)}) | ${(r.peakKb / 1024).toFixed(0)} | ${2 * 2 ** log2m} |`);
      }
    }
  }

  // 2. Exact harmonic centrality: wga against igraph on 10^4 pages.
  const small = powerLawGraph({ nodes: 10_000, seed: 5 }).graph;
  const edgesFile = join(work, 'small.txt');
  writeEdges(small, edgesFile);
  const ours = timed(process.execPath, [compiledCli, 'rank', edgesFile, '--method', 'harmonic', '--exact', '--json', '--top', '1']);
  const oursSolve = (JSON.parse(ours.stdout) as { timings: { solve: number } }).timings.solve;
  const igraphScript = [
    'import igraph, sys, time',
    'edges = [tuple(map(int, l.split())) for l in open(sys.argv[1])]',
    'n = 1 + max(max(e) for e in edges)',
    'g = igraph.Graph(n=n, edges=edges, directed=True)',
    't = time.perf_counter(); g.harmonic_centrality(mode="in", normalized=False); print(time.perf_counter() - t)',
  ].join('\n');
  const theirs = timed('/usr/bin/python3', ['-c', igraphScript, edgesFile]);
  const theirSolve = Number(theirs.stdout.trim());
  say('');
  say(`exact harmonic centrality, generated graph of ${small.nodeCount} pages and ${small.edgeCount} links: wga ${oursSolve.toFixed(3)} s, igraph 0.10 ${theirSolve.toFixed(3)} s (solve only), igraph / wga ${(theirSolve / oursSolve).toFixed(2)}`);
}

// 3. Accuracy on 10^5 pages.
const big = powerLawGraph({ nodes: 100_000, seed: 3 }).graph;
const exactStarted = performance.now();
const exact = distanceCentralities(big, undefined, 2);
const exactSeconds = (performance.now() - exactStarted) / 1000;
const truth = distanceStatistics(exactNeighbourhood(big));
say('');
say(`generated graph of ${big.nodeCount} pages and ${big.edgeCount} links (exact harmonic centrality: ${exactSeconds.toFixed(1)} s)`);
// The pages of one giant component share most of their balls: one run's errors are nearly one common
// factor (its mean relative error ~ |signed mean error|), a single draw of the counters' error. So
// several seeds are run and the error averaged over them, as the bound on the expected error is meant.
const SEEDS = [11, 12, 13, 14, 15];
say('| log2m | RSD | mean relative error of harmonic, mean of 5 seeds (per seed) | signed mean error per seed | average distance (exact ' + truth.averageDistance.toFixed(3) + '), per seed | effective diameter (exact ' + truth.effectiveDiameter.toFixed(2) + '), per seed | Kendall tau (mean) | seconds per run |');
say('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const log2m of [4, 6, 8]) {
  const errors: number[] = [];
  const signed: number[] = [];
  const averages: number[] = [];
  const diameters: number[] = [];
  const taus: number[] = [];
  let seconds = 0;
  let rsd = 0;
  for (const seed of SEEDS) {
    const started = performance.now();
    const estimate = hyperBall(big, { log2m, seed, threads: 2 });
    seconds += (performance.now() - started) / 1000;
    rsd = estimate.relativeStandardDeviation;
    let sum = 0;
    let bias = 0;
    let counted = 0;
    for (let v = 0; v < big.nodeCount; v++) {
      if (exact.harmonic[v]! === 0) continue;
      const relative = (estimate.harmonic[v]! - exact.harmonic[v]!) / exact.harmonic[v]!;
      sum += Math.abs(relative);
      bias += relative;
      counted++;
    }
    errors.push(sum / counted);
    signed.push(bias / counted);
    const stats = distanceStatistics(estimate.neighbourhood);
    averages.push(stats.averageDistance);
    diameters.push(stats.effectiveDiameter);
    taus.push(kendallTau(exact.harmonic, estimate.harmonic));
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  say(
    `| ${log2m} | ${pct(rsd)} | ${(100 * mean(errors)).toFixed(2)}% (${errors.map(pct).join(', ')}) | ${signed.map((x) => `${x >= 0 ? '+' : ''}${pct(x)}`).join(', ')} | ` +
      `${averages.map((x) => x.toFixed(3)).join(', ')} | ${diameters.map((x) => x.toFixed(2)).join(', ')} | ${mean(taus).toFixed(4)} | ${(seconds / SEEDS.length).toFixed(2)} |`,
  );
}
rmSync(work, { recursive: true, force: true });

function writeEdges(graph: Graph, path: string): void {
  const out: string[] = [];
  for (let v = 0; v < graph.nodeCount; v++) for (const w of graph.successors(v)) out.push(`${v} ${w}`);
  writeFileSync(path, `${out.join('\n')}\n`);
}
