/**
 * Crawl benchmark: pages per second, CPU per page and memory of `wga crawl`
 * (OPIC Greedy, the SQLite store on) crawling sites on loopback with
 * politeness off, side by side in the same run with Crawlee's CheerioCrawler
 * and with a bare loop (undici + htmlparser2 + a Set of seen URLs, no
 * storage, no ranking: bench/crawl/bare.ts), all at the same concurrency
 * (16). Targets (the issue's): wga at least 5 times Crawlee's pages/s, at
 * least a third of the bare loop's, memory flat as the crawl grows, and
 * under 300 bytes of memory per known but unfetched URL.
 *
 * Sites, each served by a process of its own (bench/crawl/serve.ts) so the
 * server's CPU is not in the crawler's process:
 * - generated: src/experiments/website.ts's Website of --pages pages (100,000),
 *   through src/experiments/website-server.ts; without its hazards (every
 *   page a 200 HTML page, so every contender may fetch them all) unless
 *   --hazards;
 * - pgdoc: the PostgreSQL 15 manual's HTML (1,169 pages), from memory;
 *   $WGA_PGDOC_DIR, else /tmp/pgdoc/x/usr/share/doc/postgresql-doc-15/html,
 *   else bench/.cache/pgdoc (apt-get download postgresql-doc-15 and
 *   dpkg-deb -x there, on first use);
 * - wide: every page links to --fanout (200) new pages, for the memory per
 *   known, unfetched URL (below).
 *
 * Contenders, each a fresh child process, every run capped by --pages pages
 * and --max-time seconds, repetitions interleaved (each repetition runs every
 * contender on a site, in an order rotated from one repetition to the next):
 * - wga: `node dist/src/cli/main.js crawl ORIGIN/ --db FILE.sqlite --allow-ip
 *   127.0.0.1/32 --delay 0 --per-host 16 --concurrency 16 -q --json
 *   --max-pages N --max-time S` (the build this file belongs to), its live
 *   PageRank on (the default); wga-nolive: the same with --no-live, for the
 *   live PageRank's cost (pages/s ratio, the worker's CPU per page and its
 *   memory, from wga's --json report); wga-inline: wga with its SQLite
 *   checkpoints written on the crawler's thread (WGA_SQLITE_WRITER=inline), for
 *   the writer thread's gain;
 * - bare: bench/crawl/bare.ts, 16 workers;
 * - crawlee: Crawlee's CheerioCrawler at a fixed concurrency of 16, storage
 *   in memory, no retries (bench/crawl/crawlee.ts); crawlee-lean: the same
 *   with its session pool and browser-header generator off. Crawlee is
 *   installed apart, in bench/crawlee/ (`npm ci --prefix bench/crawlee`, on
 *   first use), so wga's own install stays light.
 *
 * Measured per run: pages fetched (2xx HTML), from each crawler's own
 * report; crawl seconds, as each crawler times itself (process start-up and
 * module loading excluded; wall seconds of the whole process also given);
 * pages/s = pages / crawl seconds; CPU seconds of the crawler process (user +
 * system, from /usr/bin/time, start-up included) and CPU ms per page, which
 * the load other jobs put on the machine disturbs much less than pages/s;
 * peak RSS (/usr/bin/time's maximum resident set); RSS sampled every 200 ms
 * from /proc/PID/status, given at 25, 50, 75 and 100% of the run's wall time
 * (flat memory: the later quarters stay close). Tables give medians over the
 * repetitions; ratios are those of the medians.
 *
 * Memory per known, unfetched URL: wga crawls the wide site with
 * --max-pages k for each k of --wide (1,000 and 5,000): after k fetches about
 * 200 k URLs are known and not fetched, whatever the order of fetches. The
 * cost of one such URL is (peak RSS of the k2 run − peak RSS of the k1 run) /
 * (frontier after k2 − frontier after k1), the frontier from wga's --json
 * report: an upper bound, since a peak holds the garbage collector's headroom
 * and whatever the end of a crawl allocates. A second estimate follows the
 * k2 run as it goes: wga's progress reports (every 5 s, on stderr: -q is left
 * out of these runs) give the frontier, each paired with the RSS sample
 * nearest in time, and the least-squares slope of RSS on frontier is the
 * cost of one more URL. The bare loop's Set of URL strings and FIFO queue are
 * measured the same two ways, as a reference.
 *
 *   npm run bench:crawl                                 (3 repetitions; about 35 minutes on 2 cores)
 *   npm run bench:crawl -- 1 --max-time 40              (a quick look: about 5 minutes)
 *
 * Options: RUNS (3); --sites generated,pgdoc,wide; --crawlers
 * wga,bare,crawlee,crawlee-lean; --pages N (100000: the generated site's size
 * and every run's page cap); --max-time S (120); --concurrency C (16); --wide
 * K1,K2 (1000,5000); --wide-time S (300: the wide runs' time cap, so that
 * they stop by page count); --fanout F (200); --seed S (1); --hazards; --out FILE
 * (the markdown report, also printed; bench/.cache/crawl-report.md).
 * Environment: WGA_PGDOC_DIR (the manual's html/ folder), WGA_CRAWLEE_DIR
 * (another Crawlee installation), WGA_BENCH_NO_INSTALL=1 (never npm ci
 * Crawlee nor apt-get the manual: skip what is missing).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { compiledCli, compiledCrawlDir, crawleeDir, findRepoRoot, widePath } from './crawl/paths.js';
import { benchArguments } from './arguments.js';
import { median, progress } from './report.js';

const repoRoot = findRepoRoot();
const TIME = '/usr/bin/time';
const CLOCK_TICKS = 100;

// ---------------------------------------------------------------- options

const SITES = ['generated', 'pgdoc', 'wide'] as const;
type Site = (typeof SITES)[number];
const CRAWLERS = ['wga', 'wga-nolive', 'wga-inline', 'bare', 'crawlee', 'crawlee-lean'] as const;
type Crawler = (typeof CRAWLERS)[number];

interface Options {
  runs: number;
  sites: Site[];
  crawlers: Crawler[];
  pages: number;
  maxTime: number;
  concurrency: number;
  wide: number[];
  /** Time cap of the wide site's runs, seconds. */
  wideTime: number;
  fanout: number;
  seed: number;
  hazards: boolean;
  out: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    runs: 3,
    sites: [...SITES],
    crawlers: [...CRAWLERS],
    pages: 100_000,
    maxTime: 120,
    concurrency: 16,
    wide: [1000, 5000],
    wideTime: 300,
    fanout: 200,
    seed: 1,
    hazards: false,
    out: resolve(repoRoot, 'bench/.cache/crawl-report.md'),
  };
  for (const { arg, value } of benchArguments(argv)) {
    const positive = (): number => {
      const v = Number(value());
      if (!(Number.isFinite(v) && v > 0)) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    const list = <T extends string>(choices: readonly T[]): T[] => {
      const names = value().split(',');
      for (const name of names) if (!choices.includes(name as T)) throw new Error(`${arg}: unknown ${name} (${choices.join(', ')})`);
      return names as T[];
    };
    if (arg === '--sites') options.sites = list(SITES);
    else if (arg === '--crawlers') options.crawlers = list(CRAWLERS);
    else if (arg === '--pages') options.pages = Math.round(positive());
    else if (arg === '--max-time') options.maxTime = positive();
    else if (arg === '--concurrency') options.concurrency = Math.round(positive());
    else if (arg === '--wide') {
      options.wide = value().split(',').map(Number);
      if (options.wide.length !== 2 || !options.wide.every((k) => Number.isInteger(k) && k > 0) || options.wide[0]! >= options.wide[1]!) {
        throw new Error('--wide needs two increasing page counts, e.g. 1000,5000');
      }
    } else if (arg === '--wide-time') options.wideTime = positive();
    else if (arg === '--fanout') options.fanout = Math.round(positive());
    else if (arg === '--seed') options.seed = Math.round(positive());
    else if (arg === '--hazards') options.hazards = true;
    else if (arg === '--out') options.out = resolve(value());
    else if (/^\d+$/.test(arg) && Number(arg) >= 1) options.runs = Number(arg);
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

// ---------------------------------------------------------------- processes

/** The live PageRank's cost from wga's report: worker ms, its arrays' bytes, the pages it covered. */
function livePageRankOf(report: Record<string, unknown>): { liveCpuMs?: number; liveArrayBytes?: number; livePages?: number; liveUpdates?: number; liveInWorker?: boolean } {
  const live = report.live as { cpuMs?: number | null; bytes?: number; pages?: number; updates?: number; inWorker?: boolean } | null | undefined;
  if (live === null || live === undefined || typeof live.cpuMs !== 'number') return {};
  return { liveCpuMs: live.cpuMs, liveArrayBytes: live.bytes, livePages: live.pages, liveUpdates: live.updates, liveInWorker: live.inWorker };
}

/**
 * The resident memory of wga's report, when measured after a full collection: what the crawl's
 * state holds, without the collector's headroom. (Not heapUsed + arrayBuffers: the crawler's
 * columns are reserved ahead, src/util/typed-arrays.ts, so their byte lengths say nothing of RAM.)
 */
function liveBytesOf(report: Record<string, unknown>): number | undefined {
  const memory = report.memory as { rss?: number; collected?: boolean } | undefined;
  if (memory?.collected !== true || typeof memory.rss !== 'number') return undefined;
  return memory.rss;
}

interface Measured {
  /** The child's JSON report (its stdout). */
  result: Record<string, unknown>;
  wallSeconds: number;
  cpuSeconds: number | undefined;
  peakRss: number | undefined;
  /** RSS samples: seconds since the start, bytes. */
  rss: Array<[number, number]>;
  /** Progress lines on stderr ("N fetched, ..., frontier F, ..."): seconds since the start, frontier. */
  frontierOverTime: Array<[number, number]>;
}

/** wga's progress line (and the bare loop's, in the same words): "12,345 fetched, ... frontier 67,890, ...". */
const PROGRESS = /([\d,]+) fetched\b.*?\bfrontier ([\d,]+)/;

function procStatus(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds of a live process. */
function procCpu(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may hold spaces); utime and stime are fields 14 and 15.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

function childPid(parent: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/)[0];
    return first === undefined || first === '' ? undefined : Number(first);
  } catch {
    return undefined;
  }
}

/**
 * Runs `node script args` as a fresh process under /usr/bin/time (its exact
 * peak RSS and CPU time) while sampling its RSS every 200 ms; kills it after
 * `limitMs`.
 */
async function measure(script: string, args: string[], limitMs: number, nodeFlags: string[] = [], env: Record<string, string> = {}): Promise<Measured> {
  const timed = existsSync(TIME);
  const timeFile = join(work, 'time.out');
  rmSync(timeFile, { force: true });
  const command = timed ? TIME : process.execPath;
  const commandArgs = timed ? ['-f', '%e %U %S %M', '-o', timeFile, process.execPath, ...nodeFlags, script, ...args] : [...nodeFlags, script, ...args];
  const started = performance.now();
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const frontierOverTime: Array<[number, number]> = [];
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const match = PROGRESS.exec(line);
      if (match !== null) frontierOverTime.push([(performance.now() - started) / 1000, Number(match[2]!.replace(/,/g, ''))]);
    }
  });
  const rss: Array<[number, number]> = [];
  let pid = timed ? undefined : child.pid;
  let hwm = 0;
  let cpu: number | undefined;
  const sample = (): void => {
    if (pid === undefined && child.pid !== undefined) pid = childPid(child.pid);
    if (pid === undefined) return;
    const status = procStatus(pid);
    if (status === undefined || !Number.isFinite(status.rss)) return;
    rss.push([(performance.now() - started) / 1000, status.rss]);
    hwm = Math.max(hwm, status.hwm);
    cpu = procCpu(pid) ?? cpu;
  };
  const poll = setInterval(sample, 200);
  let killed = false;
  const signal = (name: NodeJS.Signals): void => {
    // The crawler itself (under /usr/bin/time, which then reports and exits), and its parent.
    if (pid !== undefined && pid !== child.pid) {
      try {
        process.kill(pid, name);
      } catch {
        // Already gone.
      }
    }
    child.kill(name);
  };
  const limit = setTimeout(() => {
    killed = true;
    signal('SIGTERM');
    setTimeout(() => signal('SIGKILL'), 10_000).unref();
  }, limitMs);
  const code = await new Promise<number | null>((resolvePromise) => child.on('close', (status) => resolvePromise(status)));
  clearInterval(poll);
  clearTimeout(limit);
  const wallSeconds = (performance.now() - started) / 1000;
  if (killed) throw new Error(`killed after ${(limitMs / 1000).toFixed(0)} s: ${stderr.slice(-2000)}`);
  if (code !== 0) throw new Error(`exit ${code}: ${stderr.slice(-2000)}`);
  // wga prints one indented JSON document; the others one JSON line, maybe after other output.
  let result: Record<string, unknown> | undefined;
  for (const text of [stdout, stdout.trim().split('\n').pop() ?? '']) {
    try {
      result = JSON.parse(text) as Record<string, unknown>;
      break;
    } catch {
      // Try the next reading.
    }
  }
  if (result === undefined) throw new Error(`no JSON report on stdout: ${stdout.slice(-500)} ${stderr.slice(-1000)}`);
  let cpuSeconds = cpu;
  let peakRss: number | undefined = hwm > 0 ? hwm : undefined;
  if (timed && existsSync(timeFile)) {
    const [, user, system, maxKb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    if (Number.isFinite(user) && Number.isFinite(system)) cpuSeconds = user! + system!;
    if (Number.isFinite(maxKb)) peakRss = maxKb! * 1024;
  }
  return { result, wallSeconds, cpuSeconds, peakRss, rss, frontierOverTime };
}

interface Server {
  kind: Site;
  origin: string;
  facts: Record<string, unknown>;
  process: ChildProcess;
}

const servers: Server[] = [];

async function startServer(kind: Site, args: string[]): Promise<Server> {
  const child = spawn(process.execPath, [join(compiledCrawlDir, 'serve.js'), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolvePromise, reject) => {
    let buffer = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end >= 0) resolvePromise(buffer.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`the ${kind} server exited (${code}) before it was ready`)));
  });
  const facts = JSON.parse(line) as Record<string, unknown>;
  const server: Server = { kind, origin: String(facts.origin), facts, process: child };
  servers.push(server);
  return server;
}

function stopServers(): void {
  for (const server of servers) {
    // Closing its stdin stops it too; SIGTERM is quicker.
    server.process.kill('SIGTERM');
  }
  servers.length = 0;
}

// ---------------------------------------------------------------- setup

function sh(command: string): boolean {
  return spawnSync('sh', ['-c', command], { stdio: ['ignore', 'inherit', 'inherit'] }).status === 0;
}

/** Crawlee's installation, installed on first use; or the reason it is missing. */
function ensureCrawlee(): { version: string } | { missing: string } {
  const dir = crawleeDir();
  const manifest = join(dir, 'node_modules/@crawlee/cheerio/package.json');
  if (!existsSync(manifest)) {
    if (process.env.WGA_BENCH_NO_INSTALL === '1') return { missing: `Crawlee is not installed in ${dir} (WGA_BENCH_NO_INSTALL=1: not installing it)` };
    const how = existsSync(join(dir, 'package-lock.json')) ? 'ci' : 'install';
    progress(`installing Crawlee: npm ${how} --prefix ${relative(process.cwd(), dir) || '.'}`);
    if (!sh(`npm ${how} --prefix '${dir}' --no-audit --no-fund --loglevel=error`) || !existsSync(manifest)) {
      return { missing: `npm ${how} --prefix ${dir} failed: Crawlee is not measured` };
    }
  }
  return { version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version };
}

function htmlFilesIn(dir: string): number {
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.html')).length;
  } catch {
    return 0;
  }
}

/** The PostgreSQL manual's html/ folder, fetched with apt-get on first use; or the reason it is missing. */
function findPgdoc(): { dir: string } | { missing: string } {
  const cache = resolve(repoRoot, 'bench/.cache/pgdoc');
  const inCache = (): string | undefined => {
    const docs = join(cache, 'usr/share/doc');
    if (!existsSync(docs)) return undefined;
    const found = readdirSync(docs).filter((name) => /^postgresql-doc-\d+$/.test(name)).sort().pop();
    return found === undefined ? undefined : join(docs, found, 'html');
  };
  const candidates = [process.env.WGA_PGDOC_DIR, '/tmp/pgdoc/x/usr/share/doc/postgresql-doc-15/html', inCache()];
  for (const dir of candidates) if (dir !== undefined && htmlFilesIn(dir) > 100) return { dir };
  if (process.env.WGA_BENCH_NO_INSTALL === '1') return { missing: 'the PostgreSQL manual is not there (WGA_BENCH_NO_INSTALL=1: not downloading it)' };
  mkdirSync(cache, { recursive: true });
  progress(`downloading the PostgreSQL manual: apt-get download postgresql-doc-15, dpkg-deb -x into ${relative(process.cwd(), cache)}`);
  const download = `cd '${cache}' && apt-get download -q postgresql-doc-15`;
  if (!sh(download) && !(sh('apt-get update -qq') && sh(download))) return { missing: 'apt-get download postgresql-doc-15 failed' };
  const deb = readdirSync(cache).find((name) => name.startsWith('postgresql-doc-') && name.endsWith('.deb'));
  if (deb === undefined || !sh(`dpkg-deb -x '${join(cache, deb)}' '${cache}'`)) return { missing: 'dpkg-deb -x of postgresql-doc-15 failed' };
  rmSync(join(cache, deb), { force: true });
  const dir = inCache();
  return dir !== undefined && htmlFilesIn(dir) > 100 ? { dir } : { missing: `no HTML manual found in ${cache} after dpkg-deb -x` };
}

/** The state of the crawler's code measured: the commit, and a digest of the crawler's sources as they are (uncommitted edits included). */
function codeState(): string {
  const git = (...args: string[]): string => spawnSync('git', ['-C', repoRoot, ...args], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD') || 'unknown';
  const changed = git('status', '--porcelain').split('\n').filter((line) => line !== '');
  const crawlerFiles = changed.filter((line) => /src\/(crawl|store|analysis)\/|src\/cli\/commands\/crawl/.test(line)).length;
  const hash = createHash('sha256');
  for (const folder of ['src/crawl', 'src/store', 'src/analysis']) {
    const dir = join(repoRoot, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  }
  const crawlCommand = join(repoRoot, 'src/cli/commands/crawl.ts');
  if (existsSync(crawlCommand)) hash.update(readFileSync(crawlCommand));
  return (
    `git ${head}, ${changed.length} files modified or untracked (${crawlerFiles} of them in src/crawl, src/store, src/analysis, the crawl command); ` +
    `digest of those sources ${hash.digest('hex').slice(0, 12)}`
  );
}

// ---------------------------------------------------------------- runs

interface Sample {
  liveCpuMs?: number;
  liveArrayBytes?: number;
  livePages?: number;
  liveUpdates?: number;
  liveInWorker?: boolean;
  rep: number;
  site: Site;
  crawler: Crawler;
  /** Wide site only: the --max-pages of the run. */
  k?: number;
  pages: number;
  crawlSeconds: number;
  wallSeconds: number;
  cpuSeconds: number | undefined;
  peakRss: number | undefined;
  quarters: Array<number | undefined>;
  /** Least-squares slope of sampled RSS on the frontier during the run (bytes per URL), and its number of points. */
  slope: number | undefined;
  slopePoints: number;
  known: number | undefined;
  frontier: number | undefined;
  /** wga on the wide site: resident memory after a full collection when the fetches ended (liveBytesOf). */
  liveBytes?: number | undefined;
  failed: number;
  stoppedBy: string;
  serverCpu: number | undefined;
  load: number;
  error?: string;
}

const samples: Sample[] = [];
let work = '';

/**
 * Bytes of RSS per frontier URL while the crawl runs: each progress report's
 * frontier paired with the RSS sample nearest in time, and the least-squares
 * slope of RSS on frontier. Unlike peak RSS, it leaves out the start-up and
 * the end (final checkpoint, exit), and averages over the garbage collector's
 * saw-tooth instead of taking its top.
 */
function rssSlope(m: Measured): { slope: number | undefined; slopePoints: number } {
  const points: Array<[number, number]> = [];
  for (const [time, frontier] of m.frontierOverTime) {
    if (frontier === 0 || m.rss.length === 0) continue;
    let best = m.rss[0]!;
    for (const point of m.rss) if (Math.abs(point[0] - time) < Math.abs(best[0] - time)) best = point;
    if (Math.abs(best[0] - time) <= 0.5) points.push([frontier, best[1]]);
  }
  if (points.length < 3) return { slope: undefined, slopePoints: points.length };
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return { slope: sxx === 0 ? undefined : sxy / sxx, slopePoints: n };
}

function rssAt(rss: Array<[number, number]>, fraction: number, total: number): number | undefined {
  if (rss.length === 0) return undefined;
  const target = fraction * total;
  let best = rss[0]!;
  for (const point of rss) if (Math.abs(point[0] - target) < Math.abs(best[0] - target)) best = point;
  return best[1];
}

/** `progress`: the crawler reports its frontier on stderr as it goes (the wide site's runs, for rssSlope). */
function commandFor(crawler: Crawler, origin: string, maxPages: number, maxTime: number, options: Options, db: string, progress: boolean): { script: string; args: string[]; env?: Record<string, string> } {
  const caps = ['--max-pages', String(maxPages), '--max-time', String(maxTime)];
  const c = String(options.concurrency);
  switch (crawler) {
    case 'wga':
    case 'wga-nolive':
    case 'wga-inline':
      return {
        ...(crawler === 'wga-inline' ? { env: { WGA_SQLITE_WRITER: 'inline' } } : {}),
        script: compiledCli,
        args: [
          'crawl', `${origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--per-host', c, '--concurrency', c,
          ...(progress ? [] : ['-q']), '--json', ...caps, ...(crawler === 'wga-nolive' ? ['--no-live'] : []),
        ],
      };
    case 'bare':
      return { script: join(compiledCrawlDir, 'bare.js'), args: [`${origin}/`, '--concurrency', c, ...caps, ...(progress ? ['--progress'] : [])] };
    case 'crawlee':
    case 'crawlee-lean':
      return { script: join(compiledCrawlDir, 'crawlee.js'), args: [`${origin}/`, '--concurrency', c, ...caps, ...(crawler === 'crawlee-lean' ? ['--lean'] : [])] };
    default:
      throw new Error(`unknown crawler ${crawler as string}`);
  }
}

async function runOne(rep: number, server: Server, crawler: Crawler, maxPages: number, options: Options, k?: number): Promise<void> {
  const db = join(work, `wga-${server.kind}-${rep}-${k ?? 0}.sqlite`);
  const maxTime = server.kind === 'wide' ? options.wideTime : options.maxTime;
  const { script, args, env } = commandFor(crawler, server.origin, maxPages, maxTime, options, db, server.kind === 'wide');
  const load = loadavg()[0]!;
  const serverBefore = procCpu(server.process.pid!);
  const label = `  rep ${rep + 1} ${server.kind}${k === undefined ? '' : ` k=${k}`} ${crawler}`;
  const base = { rep, site: server.kind, crawler, ...(k === undefined ? {} : { k }), load };
  try {
    // A run may take its --max-time, plus start-up and the final writes; beyond twice that and a minute it is stuck.
    // wga on the wide site runs with --expose-gc: its report then gives the memory its state holds after
    // a full collection (live bytes), beside the RSS figures that include the collector's headroom.
    const live = (crawler === 'wga' || crawler === 'wga-nolive') && server.kind === 'wide';
    const m = await measure(script, args, 2 * maxTime * 1000 + 60_000, live ? ['--expose-gc'] : [], env);
    const serverAfter = procCpu(server.process.pid!);
    const r = m.result;
    const num = (key: string): number | undefined => (typeof r[key] === 'number' ? (r[key] as number) : undefined);
    const sample: Sample = {
      ...base,
      pages: num('fetched') ?? 0,
      crawlSeconds: num('seconds') ?? m.wallSeconds,
      wallSeconds: m.wallSeconds,
      cpuSeconds: m.cpuSeconds,
      peakRss: m.peakRss,
      quarters: [0.25, 0.5, 0.75, 1].map((f) => rssAt(m.rss, f, m.wallSeconds)),
      ...rssSlope(m),
      known: num('known'),
      frontier: num('frontier'),
      liveBytes: liveBytesOf(r),
      ...livePageRankOf(r),
      failed: num('failed') ?? 0,
      stoppedBy: String(r.stoppedBy ?? ''),
      serverCpu: serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
    };
    samples.push(sample);
    progress(
      `${label}: ${sample.pages} pages in ${sample.crawlSeconds.toFixed(1)} s = ${(sample.pages / sample.crawlSeconds).toFixed(0)} pages/s, ` +
        `CPU ${sample.cpuSeconds?.toFixed(1) ?? '?'} s, peak ${mb(sample.peakRss)}${sample.frontier === undefined ? '' : `, frontier ${sample.frontier}`} (${sample.stoppedBy}; load ${load.toFixed(1)})`,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    samples.push({
      ...base,
      pages: 0,
      crawlSeconds: NaN,
      wallSeconds: NaN,
      cpuSeconds: undefined,
      peakRss: undefined,
      quarters: [],
      slope: undefined,
      slopePoints: 0,
      known: undefined,
      frontier: undefined,
      failed: 0,
      stoppedBy: 'error',
      serverCpu: undefined,
      error: message.split('\n')[0]!.slice(0, 300),
    });
    progress(`${label}: FAILED ${message.slice(0, 2000)}`);
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(db + suffix, { force: true });
  }
}

// ---------------------------------------------------------------- report

const mb = (bytes: number | undefined): string => (bytes === undefined || !Number.isFinite(bytes) ? '—' : `${(bytes / 1e6).toFixed(0)} MB`);
const fixed = (value: number | undefined, digits: number): string => (value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits));
const int = (value: number | undefined): string => (value === undefined || !Number.isFinite(value) ? '—' : Math.round(value).toLocaleString('en-US'));

/** The median of the finite values; undefined when there is none. */
function medianOf(values: Array<number | undefined>): number | undefined {
  const finite = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return finite.length === 0 ? undefined : median(finite);
}

const ok = (list: Sample[]): Sample[] => list.filter((s) => s.error === undefined);
const pagesPerSecond = (s: Sample): number => s.pages / s.crawlSeconds;
const cpuPerPage = (s: Sample): number | undefined => (s.cpuSeconds === undefined || s.pages === 0 ? undefined : (1000 * s.cpuSeconds) / s.pages);

const CRAWLER_LABEL: Record<Crawler, string> = {
  wga: 'wga (OPIC + live PageRank + SQLite store)',
  'wga-nolive': 'wga --no-live',
  'wga-inline': 'wga, checkpoints on the crawler\'s thread',
  bare: 'bare loop',
  crawlee: 'Crawlee CheerioCrawler',
  'crawlee-lean': 'Crawlee, lean',
};

const SITE_LABEL: Record<Site, string> = {
  generated: 'generated site',
  pgdoc: 'PostgreSQL manual',
  wide: 'wide site',
};

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || b === 0 ? '—' : `**${(a / b).toFixed(2)}**`;
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

function report(options: Options, argv: string[], facts: string[], skipped: string[]): string {
  const lines: string[] = [];
  const script = relative(process.cwd(), process.argv[1] ?? 'dist/bench/crawl.js') || process.argv[1]!;
  lines.push(
    `Command: \`node ${[script, ...argv].map(shellQuote).join(' ')}\` (= \`npm run bench:crawl --${argv.length === 0 ? '' : ` ${argv.map(shellQuote).join(' ')}`}\` with the default build)`,
    '',
    `${options.runs} interleaved repetition${options.runs === 1 ? '' : 's'} (medians); concurrency ${options.concurrency}; every run capped at ${int(options.pages)} pages and ${options.maxTime} s; politeness off`,
    ...facts,
    '',
  );
  for (const reason of skipped) lines.push(`SKIPPED: ${reason}`, '');

  const crawlSites = options.sites.filter((s) => s !== 'wide');
  if (crawlSites.length > 0) {
    lines.push(
      '| site | crawler | pages | crawl s | pages/s | CPU s | CPU ms/page | peak RSS | RSS at 25 / 50 / 75 / 100% of the run |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|',
    );
    for (const site of crawlSites) {
      for (const crawler of options.crawlers) {
        const all = samples.filter((s) => s.site === site && s.crawler === crawler);
        if (all.length === 0) continue;
        const list = ok(all);
        const failures = all.length - list.length;
        if (list.length === 0) {
          lines.push(`| ${SITE_LABEL[site]} | ${CRAWLER_LABEL[crawler]} | failed: ${all[0]!.error ?? ''} | | | | | | |`);
          continue;
        }
        const quarters = [0, 1, 2, 3].map((q) => mb(medianOf(list.map((s) => s.quarters[q])))).join(' / ');
        lines.push(
          `| ${SITE_LABEL[site]} | ${CRAWLER_LABEL[crawler]}${failures > 0 ? ` (${failures} run${failures > 1 ? 's' : ''} failed)` : ''} | ${int(medianOf(list.map((s) => s.pages)))} | ` +
            `${fixed(medianOf(list.map((s) => s.crawlSeconds)), 1)} | ${fixed(medianOf(list.map(pagesPerSecond)), 0)} | ${fixed(medianOf(list.map((s) => s.cpuSeconds)), 1)} | ` +
            `${fixed(medianOf(list.map(cpuPerPage)), 2)} | ${mb(medianOf(list.map((s) => s.peakRss)))} | ${quarters} |`,
        );
      }
    }
    lines.push('');
    const has = (crawler: Crawler): boolean => options.crawlers.includes(crawler);
    const columns: Array<[string, Crawler, string]> = [];
    if (has('crawlee')) columns.push(['wga / Crawlee', 'crawlee', '≥ 5']);
    if (has('crawlee-lean')) columns.push(['wga / Crawlee lean', 'crawlee-lean', '≥ 5']);
    if (has('bare')) columns.push(['wga / bare loop', 'bare', '≥ 0.33']);
    if (has('wga') && columns.length > 0) {
      lines.push(
        `| site | ${columns.map(([label, , target]) => `${label}, pages/s (target ${target})`).join(' | ')} | ${columns.map(([label]) => `${label}, pages per CPU second`).join(' | ')} |`,
        `|---|${columns.map(() => '---:|').join('')}${columns.map(() => '---:|').join('')}`,
      );
      for (const site of crawlSites) {
        const of = (crawler: Crawler): Sample[] => ok(samples.filter((s) => s.site === site && s.crawler === crawler));
        const rate = (crawler: Crawler): number | undefined => medianOf(of(crawler).map(pagesPerSecond));
        const perCpu = (crawler: Crawler): number | undefined => {
          const ms = medianOf(of(crawler).map(cpuPerPage));
          return ms === undefined ? undefined : 1000 / ms;
        };
        lines.push(
          `| ${SITE_LABEL[site]} | ${columns.map(([, other]) => ratio(rate('wga'), rate(other))).join(' | ')} | ${columns.map(([, other]) => ratio(perCpu('wga'), perCpu(other))).join(' | ')} |`,
        );
      }
      lines.push('');
    }
  }

  const liveSites = crawlSites.filter((site) => samples.some((s) => s.site === site && s.crawler === 'wga') && samples.some((s) => s.site === site && s.crawler === 'wga-nolive'));
  if (liveSites.length > 0) {
    lines.push(
      'Live PageRank cost (docs/live-importance.md): wga with it (the default) and with --no-live; update CPU per page fetched is the time of the updates run on the crawler\'s thread plus, once they moved to a worker thread (after --live-inline-edges links followed), that thread\'s CPU time (start-up included, /proc/thread-self/stat); the final solve included; memory is the engine\'s typed arrays at the end.',
      '',
      '| site | pages/s live on | pages/s --no-live | ratio (target ≥ 0.85) | CPU s live on / off | updates | runs moved to the worker | update CPU ms per page | engine arrays (bytes per page known) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const site of liveSites) {
      const on = ok(samples.filter((s) => s.site === site && s.crawler === 'wga'));
      const off = ok(samples.filter((s) => s.site === site && s.crawler === 'wga-nolive'));
      const rateOn = medianOf(on.map(pagesPerSecond));
      const rateOff = medianOf(off.map(pagesPerSecond));
      const perPage = medianOf(on.map((s) => (s.liveCpuMs === undefined || s.pages === 0 ? undefined : s.liveCpuMs / s.pages)));
      const bytes = medianOf(on.map((s) => s.liveArrayBytes));
      const perKnown = medianOf(on.map((s) => (s.liveArrayBytes === undefined || !s.livePages ? undefined : s.liveArrayBytes / s.livePages)));
      lines.push(
        `| ${SITE_LABEL[site]} | ${fixed(rateOn, 0)} | ${fixed(rateOff, 0)} | ${ratio(rateOn, rateOff)} | ${fixed(medianOf(on.map((s) => s.cpuSeconds)), 1)} / ${fixed(medianOf(off.map((s) => s.cpuSeconds)), 1)} | ` +
          `${int(medianOf(on.map((s) => s.liveUpdates)))} | ${on.filter((s) => s.liveInWorker === true).length} of ${on.length} | ${fixed(perPage, 3)} | ${int(bytes)} (${fixed(perKnown, 0)}) |`,
      );
    }
    lines.push('');
  }

  if (options.sites.includes('wide')) {
    const [k1, k2] = options.wide as [number, number];
    lines.push(
      `Memory per known, unfetched URL (wide site: every page links to ${options.fanout} new pages; runs with --max-pages ${int(k1)} and ${int(k2)}, --max-time ${options.wideTime}):`,
      '',
      `| crawler | pages fetched | URLs known | frontier (known, unfetched) | peak RSS | bytes per frontier URL: Δ peak RSS / Δ frontier | RSS on frontier slope during the ${int(k2)}-page run | resident bytes per frontier URL after a full GC: Δ RSS after the collection / Δ frontier |`,
      '|---|---|---|---|---|---:|---:|---:|',
    );
    for (const crawler of ['wga', 'wga-nolive', 'bare'] as const) {
      const at = (k: number): Sample[] => ok(samples.filter((s) => s.site === 'wide' && s.crawler === crawler && s.k === k));
      const a = at(k1);
      const b = at(k2);
      if (a.length === 0 && b.length === 0) continue;
      const m = (list: Sample[], pick: (s: Sample) => number | undefined): number | undefined => medianOf(list.map(pick));
      const frontier = (list: Sample[]): number | undefined => m(list, (s) => s.frontier);
      const per = (pick: (s: Sample) => number | undefined): string => {
        const dr = (m(b, pick) ?? NaN) - (m(a, pick) ?? NaN);
        const df = (frontier(b) ?? NaN) - (frontier(a) ?? NaN);
        return Number.isFinite(dr / df) && df > 0 ? `**${(dr / df).toFixed(0)}**` : '—';
      };
      const pair = (pick: (s: Sample) => number | undefined, format: (v: number | undefined) => string): string => `${format(m(a, pick))} → ${format(m(b, pick))}`;
      lines.push(
        `| ${CRAWLER_LABEL[crawler]} | ${pair((s) => s.pages, int)} | ${pair((s) => s.known, int)} | ${pair((s) => s.frontier, int)} | ${pair((s) => s.peakRss, mb)} | ${per((s) => s.peakRss)} | ` +
          `${b.length === 0 ? '—' : `**${fixed(m(b, (s) => s.slope), 0)}** (${int(m(b, (s) => s.slopePoints))} points)`} | ${per((s) => s.liveBytes)} |`,
      );
    }
    const failedWide = samples.filter((s) => s.site === 'wide' && s.error !== undefined);
    for (const s of failedWide) lines.push('', `FAILED: wide k=${s.k} ${s.crawler}: ${s.error}`);
    lines.push('', `Target: under 300 bytes per known, unfetched URL (the wide site's URLs are ${wideUrlLength} characters long on average).`, '');
  }

  lines.push('Every run (the load is the 1-minute load average when it started; server CPU is the site server process\'s CPU during the run):', '');
  lines.push(
    '| rep | site | crawler | pages | crawl s | wall s | pages/s | CPU s | peak RSS | RSS at 25 / 50 / 75 / 100% | frontier | failed | stopped by | server CPU s | load |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---:|',
  );
  for (const s of samples) {
    lines.push(
      `| ${s.rep + 1} | ${SITE_LABEL[s.site]}${s.k === undefined ? '' : ` k=${s.k}`} | ${s.crawler} | ${int(s.pages)} | ${fixed(s.crawlSeconds, 1)} | ${fixed(s.wallSeconds, 1)} | ` +
        `${s.error === undefined ? fixed(pagesPerSecond(s), 0) : `failed: ${s.error}`} | ${fixed(s.cpuSeconds, 1)} | ${mb(s.peakRss)} | ${s.quarters.map(mb).join(' / ')} | ${int(s.frontier)} | ${int(s.failed)} | ${s.stoppedBy} | ${fixed(s.serverCpu, 1)} | ${s.load.toFixed(1)} |`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

let wideUrlLength = 0;

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseOptions(argv);
  if (!existsSync(compiledCli)) throw new Error(`${compiledCli} is missing: build first (tsc -p tsconfig.json)`);
  const skipped: string[] = [];
  const facts: string[] = [];
  work = mkdtempSync(join(tmpdir(), 'wga-bench-crawl-'));
  const loadStart = loadavg();

  if (options.crawlers.some((c) => c.startsWith('crawlee'))) {
    const crawlee = ensureCrawlee();
    if ('missing' in crawlee) {
      skipped.push(crawlee.missing);
      options.crawlers = options.crawlers.filter((c) => !c.startsWith('crawlee'));
    } else facts.push(`Crawlee ${crawlee.version} (@crawlee/cheerio)`);
  }
  let pgdoc: string | undefined;
  if (options.sites.includes('pgdoc')) {
    const found = findPgdoc();
    if ('missing' in found) {
      skipped.push(found.missing);
      options.sites = options.sites.filter((s) => s !== 'pgdoc');
    } else pgdoc = found.dir;
  }

  const active: Array<[Site, Server]> = [];
  for (const site of options.sites) {
    if (site === 'generated') {
      progress(`generating and serving a ${options.pages}-page site`);
      const server = await startServer('generated', ['website', '--pages', String(options.pages), '--seed', String(options.seed), ...(options.hazards ? ['--hazards'] : [])]);
      facts.push(`generated site: ${int(Number(server.facts.pages))} pages, ${int(Number(server.facts.links))} links between them, seed ${options.seed}, ${options.hazards ? 'with' : 'without'} hazards`);
      active.push([site, server]);
    } else if (site === 'pgdoc') {
      const server = await startServer('pgdoc', ['static', pgdoc!]);
      facts.push(`PostgreSQL manual: ${int(Number(server.facts.files))} files, ${mb(Number(server.facts.bytes))}, from ${pgdoc}`);
      active.push([site, server]);
    } else {
      const server = await startServer('wide', ['wide', '--fanout', String(options.fanout)]);
      // URLs of pages around the last fetched ones' children: the frontier's typical length.
      wideUrlLength = `${server.origin}${widePath(options.fanout * options.wide[1]!)}`.length;
      active.push([site, server]);
    }
  }

  const crawlers = options.crawlers;
  for (let rep = 0; rep < options.runs; rep++) {
    progress(`repetition ${rep + 1} of ${options.runs}`);
    for (const [site, server] of active) {
      if (site === 'wide') {
        // wga and the bare loop, at both k, in an order rotated by repetition.
        const tasks: Array<[Crawler, number]> = [];
        for (const crawler of ['wga', 'wga-nolive', 'bare'] as const) if (crawlers.includes(crawler)) for (const k of options.wide) tasks.push([crawler, k]);
        for (let i = 0; i < tasks.length; i++) {
          const [crawler, k] = tasks[(i + rep) % tasks.length]!;
          await runOne(rep, server, crawler, k, options, k);
        }
      } else {
        for (let i = 0; i < crawlers.length; i++) await runOne(rep, server, crawlers[(i + rep) % crawlers.length]!, options.pages, options);
      }
    }
  }
  stopServers();
  rmSync(work, { recursive: true, force: true });

  const loadEnd = loadavg();
  facts.unshift(
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB; ` +
      `load average ${loadStart.map((l) => l.toFixed(1)).join(' ')} at the start, ${loadEnd.map((l) => l.toFixed(1)).join(' ')} at the end`,
    `wga: ${codeState()}`,
  );
  const text = report(options, argv, facts, skipped);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, text);
  process.stdout.write(`${text}\n`);
  progress(`report written to ${relative(process.cwd(), options.out)}`);
}

process.on('exit', stopServers);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopServers();
    process.exit(130);
  });
}

main().catch((error: unknown) => {
  stopServers();
  process.stderr.write(`bench:crawl: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
