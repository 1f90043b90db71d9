/**
 * Benchmark of the foundation on LAW's cnr-2000 (325,557 pages, 3.1M links):
 * load time from the gzipped TSV and from the WebGraph BV files, PageRank
 * (power iteration to an L1 change of 1e-10), SCC and BFS times, and memory:
 * peak resident memory while loading, per link, and the built graph's size.
 *
 * Every run is a fresh child process, so the peak resident set (getrusage
 * maxrss) is that run's own. Prints a markdown table of medians.
 *
 *   npm run bench            (3 runs per format)
 *   npm run bench -- 5       (5 runs)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { levels } from '../src/analysis/levels.js';
import { pagerank } from '../src/analysis/pagerank.js';
import { stronglyConnectedComponents } from '../src/analysis/scc.js';
import { loadGraph } from '../src/formats/load.js';
import { median } from './report.js';

const here = fileURLToPath(import.meta.url);
const shared = process.env.WGA_SHARED ?? resolve(here, '../../../../shared');
const files = {
  tsv: resolve(shared, 'data/cnr-2000/cnr-2000.edges.tsv.gz'),
  bv: resolve(shared, 'data/cnr-2000/cnr-2000.graph'),
};

interface RunResult {
  format: string;
  nodes: number;
  edges: number;
  rawEdges: number;
  load: number;
  pagerank: number;
  iterations: number;
  scc: number;
  bfs: number;
  baselineRss: number;
  peakRssAfterLoad: number;
  peakRss: number;
  graphBytes: number;
}

async function child(format: 'tsv' | 'bv'): Promise<void> {
  const baselineRss = process.memoryUsage().rss;
  let t = performance.now();
  const { graph, report } = await loadGraph(files[format]);
  const load = (performance.now() - t) / 1000;
  const peakRssAfterLoad = process.resourceUsage().maxRSS * 1024;
  t = performance.now();
  const rank = pagerank(graph, { tolerance: 1e-10 });
  const pagerankSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const components = stronglyConnectedComponents(graph);
  const scc = (performance.now() - t) / 1000;
  // BFS from a page of the giant component, which reaches most of the graph.
  const root = components.component.indexOf(components.largestId);
  t = performance.now();
  levels(graph, [root]);
  const bfs = (performance.now() - t) / 1000;
  const result: RunResult = {
    format,
    nodes: graph.nodeCount,
    edges: graph.edgeCount,
    rawEdges: report.rawEdges,
    load,
    pagerank: pagerankSeconds,
    iterations: rank.iterations,
    scc,
    bfs,
    baselineRss,
    peakRssAfterLoad,
    peakRss: process.resourceUsage().maxRSS * 1024,
    graphBytes: graph.memoryBytes(),
  };
  process.stdout.write(JSON.stringify(result));
}

function parent(runs: number): void {
  const rows: string[] = [];
  for (const format of ['tsv', 'bv'] as const) {
    const results: RunResult[] = [];
    for (let i = 0; i < runs; i++) {
      const run = spawnSync(process.execPath, [here, '--child', format], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`child ${format} failed: ${run.stderr}`);
      results.push(JSON.parse(run.stdout) as RunResult);
    }
    const m = (key: keyof RunResult): number => median(results.map((r) => r[key] as number));
    const loadPeak = m('peakRssAfterLoad') - m('baselineRss');
    rows.push(
      `| ${format === 'tsv' ? 'edges.tsv.gz' : 'BV .graph'} | ${m('load').toFixed(3)} s | ${m('pagerank').toFixed(3)} s ` +
        `(${m('iterations')} it.) | ${m('scc').toFixed(3)} s | ${m('bfs').toFixed(3)} s | ${(m('peakRss') / 1e6).toFixed(0)} MB | ` +
        `${(loadPeak / 1e6).toFixed(0)} MB = ${(loadPeak / m('rawEdges')).toFixed(1)} B/link | ` +
        `${(m('graphBytes') / 1e6).toFixed(1)} MB = ${(m('graphBytes') / m('edges')).toFixed(2)} B/link |`,
    );
  }
  console.log(`cnr-2000: 325,557 pages, 3,128,710 links (3,216,152 read); medians of ${runs} runs, each in a fresh process`);
  console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`);
  console.log('| input | load | PageRank to L1 1e-10 | SCC | BFS | peak RSS | peak while loading (above baseline) | graph once built |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

if (process.argv[2] === '--child') await child(process.argv[3] as 'tsv' | 'bv');
else parent(Number(process.argv[2] ?? 3));
