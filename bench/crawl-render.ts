/**
 * Rendering benchmark (issue 27), two comparisons in one run on this machine's Chromium:
 * 1. A generated single-page application (test/crawl/app-site.ts, every page the same shell whose
 *    script builds the links from /routes.json), --pages routed pages: wga `--render always`
 *    against Crawlee's PlaywrightCrawler (bench/crawl/crawlee-playwright.ts, pinned in
 *    bench/crawlee/), both with CONCURRENCY browser pages and a 500 ms network-quiet wait. Pages/s
 *    and peak memory of each crawler's whole process tree (its Node process and every Chromium
 *    process), summed as PSS (proportional set size: pages shared between Chromium's processes
 *    counted once), sampled every 100 ms.
 * 2. The PostgreSQL manual (static HTML, no script), served on loopback: wga `--render auto`
 *    against `--render never`: auto renders nothing there, and should cost nothing.
 * Runs alternate the contenders' order; medians are reported.
 *
 *   npm run bench:render -- [--pages 500] [--concurrency 4] [--runs 3] [--only app|pgdoc]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveAppSite } from '../test/crawl/app-site.js';
import { serveDirectory } from '../test/crawl/static-server.js';
import { benchArguments } from './arguments.js';
import { compiledCli, compiledCrawlDir, crawleeDir } from './crawl/paths.js';
import { median } from './report.js';

let pages = 500;
let concurrency = 4;
let runs = 3;
let only: 'app' | 'pgdoc' | null = null;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--pages') pages = Number(value());
  else if (arg === '--concurrency') concurrency = Number(value());
  else if (arg === '--runs') runs = Number(value());
  else if (arg === '--only') only = value() as 'app' | 'pgdoc';
  else throw new Error(`unknown argument ${arg}`);
}
const browser = process.env.WGA_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(browser)) throw new Error(`no Chromium at ${browser} (apt-get install chromium)`);
const pgdoc = process.env.WGA_PGDOC_DIR ?? '/usr/share/doc/postgresql-doc-15/html';
const work = mkdtempSync(join(tmpdir(), 'wga-bench-render-'));

/** PSS of a process and all its descendants, bytes (Linux /proc). */
function treePss(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // Ended while listed.
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1');
      total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
    } catch {
      // Ended, or not ours to read.
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

interface Measured {
  seconds: number;
  peakBytes: number;
  stdout: string;
}

/** Runs a command, sampling its process tree's memory; its wall time is measured from spawn to exit. */
function measure(args: string[]): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const sampler = setInterval(() => {
      if (child.pid !== undefined) peak = Math.max(peak, treePss(child.pid));
    }, 100);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`${args.slice(0, 3).join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ seconds: (performance.now() - started) / 1000, peakBytes: peak, stdout });
    });
  });
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
let dbCounter = 0;

async function wgaCrawl(seed: string, extra: string[]): Promise<Measured & { report: { fetched: number; rendered: number; known: number; renderedLinks: number } }> {
  const db = join(work, `crawl-${++dbCounter}.sqlite`);
  const result = await measure([compiledCli, 'crawl', seed, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--no-live', '--browser', browser, '--json', '-q', ...extra]);
  rmSync(db, { force: true });
  return { ...result, report: JSON.parse(result.stdout) as { fetched: number; rendered: number; known: number; renderedLinks: number } };
}

const lines: string[] = [];
const say = (line: string): void => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};

if (only !== 'pgdoc') {
  if (!existsSync(join(crawleeDir(), 'node_modules/@crawlee/playwright'))) throw new Error(`Crawlee is not installed: npm ci --prefix ${crawleeDir()}`);
  const site = await serveAppSite(pages, { probes: false });
  const seed = `${site.origin}/p/0`;
  const wga: Array<{ seconds: number; peak: number; pages: number }> = [];
  const crawlee: Array<{ seconds: number; peak: number; pages: number }> = [];
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? ['wga', 'crawlee'] : ['crawlee', 'wga'];
    for (const who of order) {
      if (who === 'wga') {
        const r = await wgaCrawl(seed, ['--render', 'always', '--render-concurrency', String(concurrency), '--concurrency', String(2 * concurrency), '--render-quiet', '500']);
        wga.push({ seconds: r.seconds, peak: r.peakBytes, pages: r.report.rendered });
        say(`  run ${run + 1} wga:     ${r.report.rendered} pages rendered (${r.report.known} known) in ${r.seconds.toFixed(1)} s, peak ${mb(r.peakBytes)} MB`);
      } else {
        const r = await measure([join(compiledCrawlDir, 'crawlee-playwright.js'), seed, '--browser', browser, '--concurrency', String(concurrency)]);
        const out = JSON.parse(r.stdout) as { fetched: number; failed: number; version: string };
        crawlee.push({ seconds: r.seconds, peak: r.peakBytes, pages: out.fetched });
        say(`  run ${run + 1} Crawlee: ${out.fetched} pages rendered (${out.failed} failed; PlaywrightCrawler ${out.version}) in ${r.seconds.toFixed(1)} s, peak ${mb(r.peakBytes)} MB`);
      }
    }
  }
  await site.close();
  const rate = (xs: Array<{ seconds: number; pages: number }>): number => median(xs.map((x) => x.pages / x.seconds));
  const peak = (xs: Array<{ peak: number }>): number => median(xs.map((x) => x.peak));
  say('');
  say(`application site, ${pages} routed pages, ${concurrency} browser pages at once (medians of ${runs} runs, wall time from process start):`);
  say(`| crawler | pages/s | peak memory (PSS, MB) | per browser page (MB) |`);
  say(`|---|---:|---:|---:|`);
  say(`| wga --render always | ${rate(wga).toFixed(2)} | ${mb(peak(wga))} | ${mb(peak(wga) / concurrency)} |`);
  say(`| Crawlee PlaywrightCrawler | ${rate(crawlee).toFixed(2)} | ${mb(peak(crawlee))} | ${mb(peak(crawlee) / concurrency)} |`);
  say(`| wga / Crawlee | ${(rate(wga) / rate(crawlee)).toFixed(2)} | ${(peak(wga) / peak(crawlee)).toFixed(2)} | |`);
}

if (only !== 'app') {
  if (!existsSync(join(pgdoc, 'index.html'))) throw new Error(`${pgdoc}/index.html is missing (apt-get install postgresql-doc-15, or set WGA_PGDOC_DIR)`);
  const server = await serveDirectory(pgdoc);
  const seed = `${server.origin}/index.html`;
  const never: number[] = [];
  const auto: number[] = [];
  let renderedAuto = 0;
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? ['never', 'auto'] : ['auto', 'never'];
    for (const mode of order) {
      const r = await wgaCrawl(seed, ['--render', mode, '--concurrency', '8']);
      (mode === 'never' ? never : auto).push(r.report.fetched / r.seconds);
      if (mode === 'auto') renderedAuto += r.report.rendered;
      say(`  run ${run + 1} --render ${mode}: ${r.report.fetched} pages in ${r.seconds.toFixed(2)} s (${r.report.rendered} rendered)`);
    }
  }
  await server.close();
  say('');
  say(`PostgreSQL manual (static), medians of ${runs} runs: --render never ${median(never).toFixed(0)} pages/s, --render auto ${median(auto).toFixed(0)} pages/s, ratio ${(median(auto) / median(never)).toFixed(3)}; pages rendered by auto: ${renderedAuto}`);
}
rmSync(work, { recursive: true, force: true });
