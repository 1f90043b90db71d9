/**
 * How fast does `wga serve` answer the GUI on a big store? cnr-2000 (325,557 pages, 3,128,710
 * links) imported into a SQLite store with a PageRank run; `wga serve` started as a child process.
 * Timed over HTTP on loopback (what the browser waits for, without its rendering):
 *   - start: until `listening on`, and until the graph is loaded and the first analyses warmed;
 *   - the GUI's first page load (its default Crawl view): GET /, then its script and style, then
 *     the calls the view makes at once (/api/info, /api/crawl, the first event of /api/crawl/events);
 *   - a page-detail view: /api/page (50 links each way), /api/crawl, /api/scc?root=, /api/neighbourhood,
 *     all at once as the view sends them; for the best page by PageRank and the next ones.
 * Target (issue 12): the first page load and a page-detail view each within 200 ms.
 *
 *   npm run bench:serve -- [--repeats 9] [--db /tmp/wga-bench-serve/cnr-2000.sqlite]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { cliPath, repoRoot, sharedData } from '../test/helpers.js';
import { benchArguments } from './arguments.js';
import { median, progress } from './report.js';

let repeats = 9;
let db = '/tmp/wga-bench-serve/cnr-2000.sqlite';
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--repeats') repeats = Number(value());
  else if (arg === '--db') db = value();
  else throw new Error(`unknown argument ${arg}`);
}

function wga(args: string[]): string {
  return execFileSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
}

if (!existsSync(db)) {
  mkdirSync(dirname(db), { recursive: true });
  progress(`importing cnr-2000 into ${db} (a minute or two)`);
  wga(['import', sharedData('cnr-2000', 'cnr-2000.graph'), '--db', db, '-q']);
}
const runs = JSON.parse(wga(['runs', '--db', db, '--json'])) as { runs: Array<{ id: number; method: string }> };
if (!runs.runs.some((r) => r.method === 'pagerank')) {
  progress('saving a PageRank run');
  wga(['rank', '--db', db, '--save', '-q', '--json']);
}
const top = JSON.parse(wga(['top', '--db', db, '--score', 'pagerank', '--top', String(repeats + 1), '--json'])) as { top: Array<{ url: string }> };

async function time<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function getOk(url: string): Promise<string> {
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text.slice(0, 200)}`);
  return text;
}

/** Opens an SSE stream and resolves with the time to its first event. */
async function firstEvent(url: string): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers: { Accept: 'text/event-stream' } });
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  controller.abort();
}

const child: ChildProcess = spawn(process.execPath, [cliPath, 'serve', '--db', db], { stdio: ['ignore', 'pipe', 'inherit'] });
const spawned = performance.now();
const base = await new Promise<string>((resolve, reject) => {
  const lines = createInterface({ input: child.stdout! });
  lines.once('line', (line) => resolve(line.replace(/^listening on /, '')));
  child.once('exit', (code) => reject(new Error(`wga serve exited (${code})`)));
});
const listening = performance.now() - spawned;
for (;;) {
  const info = JSON.parse(await getOk(`${base}api/info`)) as { graphReady: boolean };
  if (info.graphReady) break;
  await new Promise((r) => setTimeout(r, 200));
}
// What the server warms at start (stats, components, the URL index); asking waits for it to finish.
await getOk(`${base}api/stats`);
await getOk(`${base}api/scc`);
await getOk(`${base}api/neighbourhood?url=${encodeURIComponent(top.top[repeats]!.url)}&limit=1`);
const ready = performance.now() - spawned;
progress(`listening after ${listening.toFixed(0)} ms, graph loaded and warmed after ${ready.toFixed(0)} ms`);

const html = await getOk(base);
const assets = [...html.matchAll(/(?:src|href)="\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);

const firstLoad: number[] = [];
const stages: Record<string, number[]> = { 'GET /': [], assets: [], 'first view API calls': [] };
const detailTop: number[] = [];
const detailOther: number[] = [];
const pageCall: number[] = [];
for (let r = 0; r < repeats; r++) {
  const page = await time(() => getOk(base));
  const files = await time(() => Promise.all(assets.map((a) => getOk(base + a))));
  const calls = await time(() => Promise.all([getOk(`${base}api/info`), getOk(`${base}api/crawl`), firstEvent(`${base}api/crawl/events`)]));
  stages['GET /']!.push(page.ms);
  stages['assets']!.push(files.ms);
  stages['first view API calls']!.push(calls.ms);
  firstLoad.push(page.ms + files.ms + calls.ms);
  // A different page each time (nothing memoised for it): the best by PageRank first, then the next ones.
  const url = encodeURIComponent(top.top[r]!.url);
  const detail = await time(() =>
    Promise.all([
      time(() => getOk(`${base}api/page?url=${url}&offset=0&limit=50`)),
      getOk(`${base}api/crawl`),
      getOk(`${base}api/scc?root=${url}`),
      getOk(`${base}api/neighbourhood?url=${url}&depth=1&limit=40`),
    ]),
  );
  (r === 0 ? detailTop : detailOther).push(detail.ms);
  pageCall.push(detail.value[0].ms);
}
child.kill('SIGTERM');

const commit = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const load = loadavg().map((x) => x.toFixed(1)).join(' ');
const ms = (x: number): string => `${x.toFixed(0)} ms`;
console.log(`wga serve on cnr-2000 (SQLite store ${db}); ${repeats} repetitions, medians`);
console.log(`${new Date().toISOString().slice(0, 10)}, node ${process.version}, commit ${commit}, load average ${load} at the end`);
console.log('');
console.log('| what | median | min | max | target |');
console.log('|---|---:|---:|---:|---:|');
const row = (name: string, values: number[], target = ''): void =>
  console.log(`| ${name} | ${ms(median(values))} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} | ${target} |`);
row('first page load (Crawl view): GET / + assets + API calls', firstLoad, '200 ms');
for (const [name, values] of Object.entries(stages)) row(`  ${name}`, values);
row('page-detail view, other top pages (API calls at once)', detailOther, '200 ms');
row('page-detail view, the best page by PageRank', detailTop, '200 ms');
row('  /api/page alone (50 links each way)', pageCall);
console.log('');
console.log(`start: listening after ${ms(listening)}; graph loaded and first analyses warmed after ${ms(ready)} (answers wait meanwhile)`);

