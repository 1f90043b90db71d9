/**
 * Compression benchmark: a real manual (the PostgreSQL 15 manual's HTML, 1,169
 * pages; or libstdc++'s with --site, from Debian's libstdc++-12-doc) served
 * from disk by nginx on loopback, once plain and once compressed (gzip, and
 * br when Debian's libnginx-mod-http-brotli-filter is installed), crawled
 * whole by:
 * - wga (this build) on the compressed server: it asks for gzip, deflate, br;
 * - wga --no-compression on the compressed server (identity asked, none sent);
 * - wga on the plain server (the plain crawl, after this change);
 * - wga as it was before this change (--before DIR: the dist/ of an older
 *   build, e.g. a `git worktree` of the commit before, built with tsc) on the
 *   plain server: the plain crawl before.
 * Repetitions interleave the contenders, in an order rotated each time.
 * Measured per run: pages fetched and crawl seconds (the crawler's own
 * report), pages/s, CPU seconds (/usr/bin/time), and the bytes nginx sent for
 * the run ($bytes_sent of its access log: headers and bodies on the wire).
 *
 *   npm run bench:compression -- [RUNS] [--site pgdoc|libstdcxx] [--before DIR]
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArguments } from './arguments.js';
import { compiledCli } from './crawl/paths.js';
import { manualNamed } from './manuals.js';
import { median } from './report.js';


let runs = 3;
let site = 'pgdoc';
let before: string | null = null;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--site') site = value();
  else if (arg === '--before') before = resolve(value());
  else if (/^\d+$/.test(arg)) runs = Number(arg);
  else throw new Error(`unknown argument ${arg}`);
}
const manual = manualNamed(site);
if (!existsSync(join(manual.dir, manual.start))) throw new Error(`${manual.dir}/${manual.start} is missing (apt-get install postgresql-doc-15, or set WGA_PGDOC_DIR)`);
const beforeCli = before === null ? null : join(before, 'src/cli/main.js');
if (beforeCli !== null && !existsSync(beforeCli)) throw new Error(`--before ${before}: no src/cli/main.js there (give the dist/ of a build)`);

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

// ---- nginx: one process, two servers (plain and compressed), each with its own access log ----
const work = mkdtempSync(join(tmpdir(), 'wga-bench-compression-'));
const plainPort = await freePort();
const zipPort = await freePort();
const brotli = existsSync('/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so');
const types = 'text/html text/css text/plain application/xml';
writeFileSync(
  join(work, 'nginx.conf'),
  `${brotli ? 'load_module /usr/lib/nginx/modules/ngx_http_brotli_filter_module.so;\n' : ''}daemon off;
worker_processes 1;
user root;
pid ${work}/nginx.pid;
error_log ${work}/error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  client_body_temp_path ${work}/body; proxy_temp_path ${work}/proxy; fastcgi_temp_path ${work}/fastcgi; uwsgi_temp_path ${work}/uwsgi; scgi_temp_path ${work}/scgi;
  log_format bytes '$bytes_sent $status';
  server { listen 127.0.0.1:${plainPort}; root ${manual.dir}; access_log ${work}/plain.log bytes; gzip off; }
  server {
    listen 127.0.0.1:${zipPort}; root ${manual.dir}; access_log ${work}/zip.log bytes;
    gzip on; gzip_comp_level 6; gzip_min_length 256; gzip_types ${types};
    ${brotli ? `brotli on; brotli_comp_level 5; brotli_types ${types};` : ''}
  }
}
`,
);
const nginx = spawn('/usr/sbin/nginx', ['-c', join(work, 'nginx.conf'), '-p', work], { stdio: ['ignore', 'ignore', 'pipe'] });
let nginxErrors = '';
nginx.stderr!.on('data', (d: Buffer) => (nginxErrors += d.toString()));
for (let i = 0; i < 100 && !existsSync(join(work, 'nginx.pid')); i++) await new Promise((r) => setTimeout(r, 50));
if (!existsSync(join(work, 'nginx.pid'))) throw new Error(`nginx did not start: ${nginxErrors}`);

/** Bytes nginx sent since `from` (a byte offset of the log), and the new offset. */
function bytesSent(log: string, from: number): { bytes: number; requests: number; next: number } {
  const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
  let bytes = 0;
  let requests = 0;
  for (const line of text.slice(from).split('\n')) {
    if (line === '') continue;
    bytes += Number(line.split(' ')[0]);
    requests++;
  }
  return { bytes, requests, next: text.length };
}

// ---- contenders ----
type Contender = 'compressed' | 'no-compression' | 'plain' | 'plain-before';
const contenders: Contender[] = ['compressed', 'no-compression', 'plain', ...(beforeCli === null ? [] : (['plain-before'] as Contender[]))];
interface Sample {
  contender: Contender;
  pages: number;
  seconds: number;
  cpu: number;
  bytes: number;
  requests: number;
  load: number;
}
const samples: Sample[] = [];
const logOffsets = { plain: 0, zip: 0 };

async function runOne(contender: Contender, rep: number): Promise<void> {
  const db = join(work, `crawl-${contender}-${rep}.sqlite`);
  const port = contender === 'compressed' || contender === 'no-compression' ? zipPort : plainPort;
  const cli = contender === 'plain-before' ? beforeCli! : compiledCli;
  const args = [
    cli, 'crawl', `http://127.0.0.1:${port}/${manual.start}`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--per-host', '16', '--concurrency', '16',
    '--json', '-q', ...(contender === 'no-compression' ? ['--no-compression'] : []),
    // This issue's changes alone: the build before it had no rendering (its cost on a static site is measured by bench/crawl-render.ts).
    ...(contender === 'plain-before' ? [] : ['--render', 'never']),
  ];
  const timeFile = join(work, 'time.out');
  const load = loadavg()[0]!;
  const result = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, process.execPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${contender}: exit ${result.status}: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as { fetched: number; seconds: number };
  const [user, system] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number) as [number, number];
  const log = port === zipPort ? 'zip' : 'plain';
  const sent = bytesSent(join(work, `${log}.log`), logOffsets[log]);
  logOffsets[log] = sent.next;
  samples.push({ contender, pages: report.fetched, seconds: report.seconds, cpu: user + system, bytes: sent.bytes, requests: sent.requests, load });
  process.stderr.write(`rep ${rep + 1} ${contender}: ${report.fetched} pages in ${report.seconds.toFixed(2)} s, ${(sent.bytes / 1e6).toFixed(2)} MB sent, load ${load.toFixed(2)}\n`);
  rmSync(db, { force: true });
  rmSync(`${db}-wal`, { force: true });
  rmSync(`${db}-shm`, { force: true });
}

try {
  for (let rep = 0; rep < runs; rep++) {
    const order = contenders.map((_, i) => contenders[(i + rep) % contenders.length]!);
    for (const contender of order) await runOne(contender, rep);
  }
} finally {
  nginx.kill('SIGQUIT');
  await new Promise((r) => nginx.on('close', r));
}

const med = (c: Contender, pick: (s: Sample) => number): number => median(samples.filter((s) => s.contender === c).map(pick));
const rows = contenders.map((c) => {
  const pps = med(c, (s) => s.pages / s.seconds);
  return `| ${c} | ${med(c, (s) => s.pages)} | ${med(c, (s) => s.requests)} | ${(med(c, (s) => s.bytes) / 1e6).toFixed(2)} | ${pps.toFixed(0)} | ${((1000 * med(c, (s) => s.cpu)) / med(c, (s) => s.pages)).toFixed(2)} |`;
});
const ratio = (a: Contender, b: Contender, pick: (s: Sample) => number): string => (med(a, pick) / med(b, pick)).toFixed(3);
const pagesPerSecond = (s: Sample): number => s.pages / s.seconds;
const manualBytes = Number(spawnSync('du', ['-sb', manual.dir], { encoding: 'utf8' }).stdout.split('\t')[0]);
const lines = [
  `${manual.label} (${manual.dir}, ${(manualBytes / 1e6).toFixed(1)} MB on disk) served by nginx ${spawnSync('/usr/sbin/nginx', ['-v'], { encoding: 'utf8' }).stderr.trim().split('/')[1]} on loopback, ` +
    `compressed: gzip level 6${brotli ? ' and br level 5 (br chosen when asked)' : ''}; ${runs} interleaved repetitions, medians; ${cpus().length} cores; ` +
    `wga --delay 0 --per-host 16 --concurrency 16.`,
  '',
  '| crawl | pages | requests | MB sent by nginx | pages/s | CPU ms per page |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
  `- bytes on the wire, compressed / not asked: ${ratio('compressed', 'no-compression', (s) => s.bytes)}; compressed / plain server: ${ratio('compressed', 'plain', (s) => s.bytes)}`,
  `- pages/s, compressed / not asked: ${ratio('compressed', 'no-compression', pagesPerSecond)}; compressed / plain server: ${ratio('compressed', 'plain', pagesPerSecond)}`,
  ...(beforeCli === null ? [] : [`- plain crawl, pages/s after / before: ${ratio('plain', 'plain-before', pagesPerSecond)} (pairs: ${pairs()})`]),
];
function pairs(): string {
  const out: string[] = [];
  for (let rep = 0; rep < runs; rep++) {
    const after = samples.filter((s) => s.contender === 'plain')[rep]!;
    const was = samples.filter((s) => s.contender === 'plain-before')[rep]!;
    out.push((pagesPerSecond(after) / pagesPerSecond(was)).toFixed(3));
  }
  return out.join(', ');
}
process.stdout.write(`${lines.join('\n')}\n`);
rmSync(work, { recursive: true, force: true });
