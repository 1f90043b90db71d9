/**
 * Export costs on LAW's cnr-2000 (issue 15): the time and output size of
 * `wga export` in each format, against writing the same edge list as TSV
 * (the reference of every ratio), and the BV writer's bits per link against
 * LAW's own file (2.897). One process loads the BV graph once, then runs the
 * formats interleaved, each repetition in an order rotated from the last;
 * tables give the median wall time, the ratio to TSV's median, the output
 * bytes and bytes per link, and the process's peak resident memory.
 *
 *   npm run bench:export                 (1 repetition)
 *   npm run bench:export -- 3            (3)
 *   node dist/bench/export.js 3 --formats tsv,bv,parquet --scores pagerank
 *
 * Options: RUNS (1); --formats LIST (tsv,bv,gexf,graphml,parquet);
 * --scores NAME... (score columns, as `wga export --scores`: e.g. pagerank);
 * --keep (leave the files in bench/.cache/export).
 * Environment: WGA_SHARED (the shared/ folder; ../shared beside the repository).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPORT_FORMATS, type ExportFormat, exportGraph } from '../src/app/export.js';
import { loadGraph } from '../src/formats/load.js';
import { benchArguments } from './arguments.js';
import { median, progress } from './report.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const shared = process.env.WGA_SHARED ?? resolve(root, '../shared');
const cnr = join(shared, 'data', 'cnr-2000', 'cnr-2000');

let runs = 1;
let formats: ExportFormat[] = ['tsv', 'bv', 'gexf', 'graphml', 'parquet'];
const scores: string[] = [];
let keep = false;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (/^\d+$/.test(arg)) runs = Number(arg);
  else if (arg === '--formats') {
    formats = value().split(',') as ExportFormat[];
    for (const f of formats) if (!EXPORT_FORMATS.includes(f)) throw new Error(`--formats: unknown format ${f}`);
  } else if (arg === '--scores') scores.push(...value().split(','));
  else if (arg === '--keep') keep = true;
  else throw new Error(`unknown argument ${arg}`);
}

const out = join(root, 'bench', '.cache', 'export');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
progress(`loading ${cnr}`);
const loaded = await loadGraph(cnr);
const links = loaded.graph.edgeCount;
const pathOf = (format: ExportFormat): string => join(out, format === 'bv' ? 'cnr-2000' : format === 'parquet' ? 'parquet' : `cnr-2000.${format}`);

const times = new Map<ExportFormat, number[]>(formats.map((f) => [f, []]));
const bytes = new Map<ExportFormat, number>();
let bitsPerLink = Number.NaN;
for (let r = 0; r < runs; r++) {
  const order = formats.map((_, i) => formats[(i + r) % formats.length]!);
  for (const format of order) {
    progress(`run ${r + 1}/${runs}: ${format}`);
    const started = performance.now();
    const report = await exportGraph({ graph: loaded, format, out: pathOf(format), scores });
    times.get(format)!.push((performance.now() - started) / 1000);
    bytes.set(format, report.files.reduce((s, f) => s + f.bytes, 0));
    if (report.bitsPerLink !== undefined) bitsPerLink = report.bitsPerLink;
  }
}
if (!keep) rmSync(out, { recursive: true, force: true });

const tsv = median(times.get('tsv') ?? []);
const lines = [
  `cnr-2000: ${loaded.graph.nodeCount.toLocaleString('en-US')} pages, ${links.toLocaleString('en-US')} links; medians of ${runs} interleaved repetition(s)${scores.length > 0 ? `; score columns: ${scores.join(', ')}` : ''}`,
  `${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, load average ${loadavg()[0]!.toFixed(1)}; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  '',
  '| format | time | / TSV | output | bytes per link |',
  '|---|---:|---:|---:|---:|',
  ...formats.map((f) => {
    const t = median(times.get(f)!);
    const b = bytes.get(f)!;
    return `| ${f} | ${t.toFixed(2)} s | ${Number.isNaN(tsv) ? '—' : (t / tsv).toFixed(2)} | ${(b / 2 ** 20).toFixed(1)} MiB | ${(b / links).toFixed(2)} |`;
  }),
];
if (!Number.isNaN(bitsPerLink)) lines.push('', `BV: ${bitsPerLink.toFixed(3)} bits per link in the .graph file (LAW's cnr-2000.properties: 2.897).`);
process.stdout.write(`${lines.join('\n')}\n`);
