/**
 * PageRank on the compact graph (gap-encoded in-lists, src/graph/compact.ts) beside the plain CSR's
 * power iteration, in one process, one graph after the other: the bytes per link of each in-list
 * structure, the encoding time, the solve time on 1 and 2 threads (tolerance 1e-10), and the largest
 * difference between the two vectors; then strongly connected components and levels from page 0 on the
 * compact out-lists beside the plain graph's (Tarjan alone and `wga stats`' way, the pivot's searches
 * on two threads; levels on one thread and on two), with the equality of their results.
 *
 * With --rounds R, each solve runs R times, plain and compact in turn (the first of a round
 * alternating), and the table gives the medians and each round's ratio: on this machine the plain
 * solve's time at 10^8 links varies by up to 50% from one run to the next.
 *
 *   npm run bench:compact -- [--large bench/.cache/web-1e7.wgadj [--only-large]] [--threads 1,2] [--rounds R]
 */
import { compactPageRank } from '../src/analysis/pagerank-compact.js';
import { outDegrees } from '../src/analysis/degrees.js';
import { pagerank } from '../src/analysis/pagerank.js';
import { loadGraph } from '../src/formats/load.js';
import { compactBytes, compactFromGraph, compactOutListsFromGraph } from '../src/graph/compact.js';
import { compactLevels, compactScc } from '../src/analysis/compact-search.js';
import { levels } from '../src/analysis/levels.js';
import { stronglyConnectedComponents } from '../src/analysis/scc.js';
import { componentsOfLargeGraph } from '../src/analysis/scc-pivot.js';
import { testData } from '../test/helpers.js';
import { benchArguments } from './arguments.js';
import { median } from './report.js';

const graphs: Array<[string, string]> = [['cnr-2000', testData('cnr-2000', 'cnr-2000.graph')]];
let threadCounts = [1, 2];
let rounds = 1;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--large') graphs.push(['10^8-link graph', value()]);
  else if (arg === '--only-large') graphs.shift();
  else if (arg === '--threads') threadCounts = value().split(',').map(Number);
  else if (arg === '--rounds') rounds = Number(value());
  else throw new Error(`unknown argument ${arg}`);
}

console.log('| graph | pages | links | plain in-lists bytes/link | compact bytes/link | encode s | threads | plain power s | compact s | compact / plain | rounds: compact / plain | iterations | largest difference |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|');
for (const [name, path] of graphs) {
  const { graph } = await loadGraph(path);
  const m = graph.edgeCount;
  const plainBytes = (graph.inOffsets.byteLength + graph.inSources.byteLength) / m;
  let started = performance.now();
  const lists = compactFromGraph(graph);
  const encode = (performance.now() - started) / 1000;
  const degrees = outDegrees(graph);
  for (const threads of threadCounts) {
    const plainTimes: number[] = [];
    const compactTimes: number[] = [];
    let plain: ReturnType<typeof pagerank> | null = null;
    let compact: ReturnType<typeof compactPageRank> | null = null;
    for (let round = 0; round < rounds; round++) {
      for (const which of round % 2 === 0 ? ['plain', 'compact'] : ['compact', 'plain']) {
        started = performance.now();
        if (which === 'plain') plain = pagerank(graph, { solver: 'power', tolerance: 1e-10, threads });
        else compact = compactPageRank(lists, degrees, { tolerance: 1e-10, threads });
        (which === 'plain' ? plainTimes : compactTimes).push((performance.now() - started) / 1000);
      }
    }
    let largest = 0;
    for (let v = 0; v < graph.nodeCount; v++) largest = Math.max(largest, Math.abs(plain!.scores[v]! - compact!.scores[v]!));
    const plainSeconds = median(plainTimes);
    const compactSeconds = median(compactTimes);
    console.log(
      `| ${name} | ${graph.nodeCount} | ${m} | ${plainBytes.toFixed(2)} | ${(compactBytes(lists) / m).toFixed(3)} | ${encode.toFixed(1)} | ${threads} | ` +
        `${plainSeconds.toFixed(2)} | ${compactSeconds.toFixed(2)} | ${(compactSeconds / plainSeconds).toFixed(2)} | ${compactTimes.map((t, i) => (t / plainTimes[i]!).toFixed(2)).join(', ')} | ` +
        `${plain!.iterations} / ${compact!.iterations} | ${largest.toExponential(1)} |`,
    );
  }
}

console.log();
console.log('| graph | compact out-lists bytes/link (with offsets) | plain Tarjan s | plain stats SCCs (pivot, 2 threads) s | compact Tarjan s | same components | plain levels s (1 / 2 threads) | compact levels s | same levels |');
console.log('|---|---:|---:|---:|---:|---|---:|---:|---|');
for (const [name, path] of graphs) {
  const { graph } = await loadGraph(path);
  const out = compactOutListsFromGraph(graph);
  let started = performance.now();
  const tarjan = stronglyConnectedComponents(graph, { kernel: 'js' });
  const tarjanSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const pivot = componentsOfLargeGraph(graph, 2);
  const pivotSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const compact = compactScc(out);
  const compactSeconds = (performance.now() - started) / 1000;
  let same = compact.count === tarjan.count && compact.largest === pivot.largest && compact.count === pivot.count;
  for (let v = 0; same && v < graph.nodeCount; v++) same = compact.component[v] === tarjan.component[v];
  started = performance.now();
  const plainOne = levels(graph, [0], { threads: 1 });
  const levelsOne = (performance.now() - started) / 1000;
  started = performance.now();
  levels(graph, [0], { threads: 2 });
  const levelsTwo = (performance.now() - started) / 1000;
  started = performance.now();
  const compactLevel = compactLevels(out, [0]);
  const compactLevelSeconds = (performance.now() - started) / 1000;
  let sameLevels = true;
  for (let v = 0; sameLevels && v < graph.nodeCount; v++) sameLevels = compactLevel.level[v] === plainOne.level[v];
  console.log(
    `| ${name} | ${(compactBytes(out) / graph.edgeCount).toFixed(3)} | ${tarjanSeconds.toFixed(2)} | ${pivotSeconds.toFixed(2)} | ${compactSeconds.toFixed(2)} | ${same ? 'yes (ids too)' : 'NO'} | ` +
      `${levelsOne.toFixed(2)} / ${levelsTwo.toFixed(2)} | ${compactLevelSeconds.toFixed(2)} | ${sameLevels ? `yes (${compactLevel.reached} reached)` : 'NO'} |`,
  );
}
