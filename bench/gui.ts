/**
 * Does watching a crawl in the GUI slow it down? pages/s of a crawl of a generated site
 * (experiments/website.ts) run by `wga serve` (POST /api/crawl), once with nobody watching and
 * once with Chromium open on the Crawl view (live counters over SSE, a chart redrawn each second),
 * alternating, several times each; the medians are compared (target: at most 10 % slower).
 * On a loaded machine pages/s is noisy, so the CPU time the server process and Chromium spend
 * during each crawl is reported too (Linux: /proc/PID/stat): what watching costs, whatever the load.
 *
 *   npm run bench:gui -- [--pages 3000] [--repeats 3] [--concurrency 8]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Website } from '../src/experiments/website.js';
import { serveWebsite } from '../src/experiments/website-server.js';
import { temporaryDirectory } from '../test/helpers.js';
import { browserMissing, launchBrowser, startServer, until } from '../test/gui/harness.js';
import { benchArguments } from './arguments.js';
import { median, progress } from './report.js';

interface CrawlStatus {
  running: boolean;
  token?: string;
  report: { fetches: number; seconds: number; fetched: number } | null;
}

let pages = 3000;
let repeats = 3;
let concurrency = 8;
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--pages') pages = Number(value());
  else if (arg === '--repeats') repeats = Number(value());
  else if (arg === '--concurrency') concurrency = Number(value());
  else throw new Error(`unknown argument ${arg}`);
}
const missing = browserMissing();
if (missing !== null) throw new Error(missing);

/** CPU seconds (user + system) a process has used, from /proc (0 where there is no /proc). */
function cpuSeconds(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** This process's descendants (pids), from /proc. */
function descendants(root: number): string[] {
  const children = new Map<string, string[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  for (const pid of entries) {
    try {
      const parent = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]!;
      children.set(parent, [...(children.get(parent) ?? []), pid]);
    } catch {
      // gone meanwhile
    }
  }
  const out: string[] = [];
  const queue = [...(children.get(String(root)) ?? [])];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

interface Measure {
  pagesPerSecond: number;
  serverCpu: number;
  browserCpu: number;
  seconds: number;
}

const TRAP_FENCE = '/calendar/[0-9]{2,}\\.html$';
const browser = await launchBrowser();

async function crawlOnce(watched: boolean): Promise<Measure> {
  const dir = temporaryDirectory();
  const site = await serveWebsite(new Website({ pages, seed: 1 }));
  const server = await startServer(join(dir.path, 'bench.sqlite'));
  const page = watched ? await browser.newPage({ viewport: { width: 1280, height: 900 } }) : null;
  try {
    const html = await (await fetch(`${server.origin}/crawl`)).text();
    const token = /<meta name="wga-token" content="([^"]+)"/.exec(html)?.[1] ?? '';
    if (page !== null) {
      await page.goto(`${server.origin}/crawl`);
      await page.waitForSelector('[data-crawl-state]');
    }
    const serverPid = server.process.pid!;
    const browserPids = (): string[] => {
      const serverTree = new Set([String(serverPid), ...descendants(serverPid)]);
      return descendants(process.pid).filter((pid) => !serverTree.has(pid));
    };
    const browserCpu = (): number => browserPids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const before = { server: cpuSeconds(serverPid), browser: browserCpu() };
    const answer = await fetch(`${server.origin}/api/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wga-token': token },
      body: JSON.stringify({ seeds: [`${site.origin}/`], allowIp: ['127.0.0.1/32'], delay: 0, perHost: concurrency, concurrency, fence: [TRAP_FENCE] }),
    });
    if (answer.status !== 202 && answer.status !== 200) throw new Error(`POST /api/crawl: ${answer.status} ${await answer.text()}`);
    let report: CrawlStatus['report'] = null;
    await until(
      async () => {
        const status = ((await (await fetch(`${server.origin}/api/crawl`)).json()) as { crawl: CrawlStatus }).crawl;
        report = status.running ? null : status.report;
        return report !== null;
      },
      600_000,
      'the crawl to end',
      // Once a second, as the GUI's live status: both runs ask the server the same.
      1000,
    );
    const after = { server: cpuSeconds(serverPid), browser: browserCpu() };
    if (page !== null) await page.waitForSelector('[data-report]', { timeout: 30_000 });
    const r = report as unknown as NonNullable<CrawlStatus['report']>;
    return { pagesPerSecond: r.fetches / r.seconds, serverCpu: after.server - before.server, browserCpu: after.browser - before.browser, seconds: r.seconds };
  } finally {
    await page?.close();
    await server.close();
    await site.close();
    dir.cleanup();
  }
}

const alone: Measure[] = [];
const watched: Measure[] = [];
const line = (m: Measure): string =>
  `${m.pagesPerSecond.toFixed(0)} pages/s in ${m.seconds.toFixed(1)} s; CPU: server ${m.serverCpu.toFixed(2)} s, Chromium ${m.browserCpu.toFixed(2)} s`;
try {
  for (let i = 0; i < repeats; i++) {
    alone.push(await crawlOnce(false));
    progress(`run ${i + 1}: nobody watching: ${line(alone[i]!)}`);
    watched.push(await crawlOnce(true));
    progress(`run ${i + 1}: GUI watching:   ${line(watched[i]!)}`);
  }
} finally {
  await browser.close();
}
const m = (list: Measure[], key: keyof Measure): number => median(list.map((x) => x[key]));
const a = m(alone, 'pagesPerSecond');
const w = m(watched, 'pagesPerSecond');
const list = (xs: Measure[]): string => xs.map((x) => x.pagesPerSecond.toFixed(0)).join(', ');
console.log(`site: ${pages} pages, concurrency ${concurrency}, ${repeats} crawls each`);
console.log(`pages/s, nobody watching: median ${a.toFixed(0)} (${list(alone)})`);
console.log(`pages/s, GUI watching:    median ${w.toFixed(0)} (${list(watched)})`);
console.log(`slowdown with the GUI open: ${((100 * (a - w)) / a).toFixed(1)} % (target: at most 10 %)`);
console.log(`CPU seconds per crawl, nobody watching: server ${m(alone, 'serverCpu').toFixed(2)}`);
console.log(`CPU seconds per crawl, GUI watching:    server ${m(watched, 'serverCpu').toFixed(2)}, Chromium ${m(watched, 'browserCpu').toFixed(2)}`);
