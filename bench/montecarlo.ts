/**
 * Monte Carlo PageRank with one walk per page (m = 1, the Web Graph Analyzer
 * paper's Algorithm 2) on cnr-2000, against the exact PageRank: its time
 * beside one exact solve (wga's default solver, L1 1e-10) in the same
 * process, the largest relative error among the exact top 10, and how many
 * of the exact top 100 lie within two of their own reported standard
 * deviations. One line per seed.
 *
 *   npm run bench:montecarlo            (seeds 1..5)
 *   npm run bench:montecarlo -- 10      (seeds 1..10)
 *
 * Environment: WGA_SHARED (the shared/ folder; ../shared beside the repository).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monteCarloPageRank } from '../src/analysis/montecarlo.js';
import { pagerank } from '../src/analysis/pagerank.js';
import { topK } from '../src/analysis/top.js';
import { loadGraph } from '../src/formats/load.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const shared = process.env.WGA_SHARED ?? resolve(repoRoot, '../shared');
const seeds = Number(process.argv[2] ?? 5);
if (!(Number.isInteger(seeds) && seeds >= 1)) throw new Error(`the number of seeds must be a positive integer, got ${process.argv[2]}`);

const { graph } = await loadGraph(resolve(shared, 'data/cnr-2000/cnr-2000.graph'));
const exact = pagerank(graph, { tolerance: 1e-12, solver: 'power' }).scores;
const top10 = Array.from(topK(exact, 10));
const top100 = Array.from(topK(exact, 100));
console.log(`cnr-2000: ${graph.nodeCount} pages, ${graph.edgeCount} links; reference: power iteration to L1 1e-12`);
console.log('| seed | exact solve (default solver, 1e-10) | Monte Carlo m = 1 | time ratio | top 10: largest relative error | top 100 within 2 sd |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (let seed = 1; seed <= seeds; seed++) {
  let started = performance.now();
  pagerank(graph);
  const exactSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const mc = await monteCarloPageRank(graph, { walksPerPage: 1, seed });
  const mcSeconds = (performance.now() - started) / 1000;
  const worst = Math.max(...top10.map((v) => Math.abs(mc.scores[v]! - exact[v]!) / exact[v]!));
  const within = top100.filter((v) => Math.abs(mc.scores[v]! - exact[v]!) <= 2 * mc.standardDeviations[v]!).length;
  console.log(`| ${seed} | ${exactSeconds.toFixed(2)} s | ${mcSeconds.toFixed(2)} s | ${(exactSeconds / mcSeconds).toFixed(1)} | ${(100 * worst).toFixed(2)}% | ${within} |`);
}
