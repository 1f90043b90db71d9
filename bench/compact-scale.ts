/**
 * Common Crawl's host graph on one machine (issue 29): a generated graph of its size in the compact
 * form, then each big-graph command in its own process, timed with its peak memory by
 * /usr/bin/time: `wga generate` (unless the file exists), `wga stats`, `wga rank --save`,
 * `wga levels` from the best host, `wga top --graph` and `wga page --graph`. Prints one markdown
 * table row per command and the bytes per page and per link of every structure the commands report.
 *
 *   npm run bench:compact-scale -- [--graph FILE.wgc] [--pages 335000000] [--links 2700000000] [--only stats,rank,...]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { benchArguments } from './arguments.js';

let graph = resolve('bench/.cache/cc-host-335m.wgc');
let pages = 335_000_000;
let links = 2_700_000_000;
let only: string[] | null = null;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--graph') graph = resolve(value());
  else if (arg === '--pages') pages = Number(value());
  else if (arg === '--links') links = Number(value());
  else if (arg === '--only') only = value().split(',');
  else throw new Error(`unknown argument ${arg}`);
}

const cli = resolve('dist/src/cli/main.js');

interface Measured {
  wall: number;
  peakGb: number;
  json: Record<string, unknown>;
}

/** Runs one wga command under /usr/bin/time; its JSON output and the wall time and peak RSS. */
function measure(args: string[]): Measured {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M', process.execPath, cli, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const times = /TIME ([0-9.]+) ([0-9]+)\s*$/.exec(run.stderr);
  if (run.status !== 0 || times === null) throw new Error(`wga ${args.join(' ')} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return { wall: Number(times[1]), peakGb: Number(times[2]) / 1024 / 1024, json: JSON.parse(run.stdout) as Record<string, unknown> };
}

function wanted(step: string): boolean {
  return only === null || only.includes(step);
}

type Structure = { name: string; bytes: number; bytesPerPage: number; bytesPerLink: number };
const rows: string[] = [];
const structures: Array<[string, Structure[]]> = [];

if (!existsSync(graph)) {
  const generated = measure(['generate', graph, '--pages', String(pages), '--links', String(links), '--json', '-q']);
  const header = generated.json['header'] as { nodes: number; links: number };
  const bytes = generated.json['bytes'] as { inLists: number; outLists: number; labels: number };
  rows.push(
    `| wga generate | ${generated.wall.toFixed(0)} | ${generated.peakGb.toFixed(2)} | ${header.nodes.toLocaleString('en-US')} hosts, ${header.links.toLocaleString('en-US')} links; in-lists ${(bytes.inLists / header.links).toFixed(2)} B/link, out-lists ${(bytes.outLists / header.links).toFixed(2)} B/link, names ${(bytes.labels / header.nodes).toFixed(2)} B/host; file ${(statSync(graph).size / 1e9).toFixed(2)} GB |`,
  );
}

if (wanted('stats')) {
  const stats = measure(['stats', graph, '--json', '-q']);
  const j = stats.json as { nodes: number; edges: number; danglingNodes: number; unreferencedNodes: number; scc: { count: number; largest: number }; maxInDegree: number; maxOutDegree: number; timings: { load: number; analysis: number }; memory: { structures: Structure[] } };
  rows.push(
    `| wga stats | ${stats.wall.toFixed(0)} | ${stats.peakGb.toFixed(2)} | load ${j.timings.load.toFixed(1)} s, analysis ${j.timings.analysis.toFixed(1)} s; dangling ${((100 * j.danglingNodes) / j.nodes).toFixed(1)}%, unreferenced ${((100 * j.unreferencedNodes) / j.nodes).toFixed(1)}%, ${j.scc.count.toLocaleString('en-US')} SCCs, giant ${((100 * j.scc.largest) / j.nodes).toFixed(1)}% (${j.scc.largest.toLocaleString('en-US')}), max in ${j.maxInDegree.toLocaleString('en-US')}, max out ${j.maxOutDegree.toLocaleString('en-US')} |`,
  );
  structures.push(['stats', j.memory.structures]);
}

let best: string | null = null;
if (wanted('rank')) {
  const rank = measure(['rank', graph, '--save', '--json', '-q']);
  const j = rank.json as { iterations: number; residual: number; converged: boolean; core: { pages: number; links: number } | null; top: Array<{ label: string }>; timings: { load: number; solve: number }; compact: { structures: Structure[] } };
  best = j.top[0]!.label;
  rows.push(
    `| wga rank --save | ${rank.wall.toFixed(0)} | ${rank.peakGb.toFixed(2)} | load ${j.timings.load.toFixed(1)} s, solve ${j.timings.solve.toFixed(1)} s; ${j.iterations} iterations, residual ${j.residual.toExponential(2)}${j.converged ? '' : ' NOT CONVERGED'}${j.core === null ? '' : `; core ${j.core.pages.toLocaleString('en-US')} pages, ${j.core.links.toLocaleString('en-US')} links`}; best ${best} |`,
  );
  structures.push(['rank', j.compact.structures]);
}

if (wanted('levels')) {
  // The root: the best host with out-links (the best ones of a host graph are often dangling).
  let root = best ?? '0';
  if (existsSync(`${graph}.pagerank`)) {
    const ranked = measure(['top', '--graph', graph, '--top', '50', '--json']).json as { top: Array<{ label: string }> };
    for (const { label } of ranked.top) {
      const page = measure(['page', label, '--graph', graph, '--json']).json as { outDegree: number };
      if (page.outDegree > 0) {
        root = label;
        break;
      }
    }
  }
  const levels = measure(['levels', graph, '--root', root, '--json', '-q']);
  const j = levels.json as { reached: number; unreachable: number; maxLevel: number; histogram: number[]; timings: { load: number; solve: number }; memory: { structures: Structure[] } };
  rows.push(
    `| wga levels --root ${root} | ${levels.wall.toFixed(0)} | ${levels.peakGb.toFixed(2)} | load ${j.timings.load.toFixed(1)} s, search ${j.timings.solve.toFixed(1)} s; reached ${j.reached.toLocaleString('en-US')} (${((100 * j.reached) / (j.reached + j.unreachable)).toFixed(1)}%), ${j.maxLevel} levels |`,
  );
  structures.push(['levels', j.memory.structures]);
}

if (wanted('top') && existsSync(`${graph}.pagerank`)) {
  const top = measure(['top', '--graph', graph, '--json']);
  const j = top.json as { top: Array<{ label: string }>; seconds: number };
  best ??= j.top[0]!.label;
  rows.push(`| wga top --graph | ${top.wall.toFixed(2)} | ${top.peakGb.toFixed(2)} | answered in ${(1000 * j.seconds).toFixed(1)} ms (the process: node's start included) |`);
  const page = measure(['page', best, '--graph', graph, '--json']);
  const p = page.json as { inDegree: number; outDegree: number; seconds: number };
  rows.push(`| wga page ${best} --graph | ${page.wall.toFixed(2)} | ${page.peakGb.toFixed(2)} | ${p.inDegree.toLocaleString('en-US')} in-links, ${p.outDegree.toLocaleString('en-US')} out, named in place, in ${(1000 * p.seconds).toFixed(1)} ms |`);
}

console.log('| command | wall s | peak RSS GB | figures |');
console.log('|---|---:|---:|---|');
for (const row of rows) console.log(row);
for (const [command, list] of structures) {
  console.log(`\n${command}:\n`);
  console.log('| structure | GB | bytes per page | bytes per link |');
  console.log('|---|---:|---:|---:|');
  for (const s of list) console.log(`| ${s.name} | ${(s.bytes / 1e9).toFixed(2)} | ${s.bytesPerPage.toFixed(2)} | ${s.bytesPerLink.toFixed(3)} |`);
}
