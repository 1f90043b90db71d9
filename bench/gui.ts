/**
 * Does watching a crawl in the GUI slow it down? pages/s of a crawl of a generated site
 * (experiments/website.ts) run by `wga serve` (POST /api/crawl), once with nobody watching and
 * once with Chromium open on the Crawl view (live counters over SSE, a chart redrawn each second),
 * alternating, several times each; the medians are compared (target: at most 10 % slower).
 *
 *   npm run bench:gui -- [--pages 3000] [--repeats 3] [--concurrency 8]
 */
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

const TRAP_FENCE = '/calendar/[0-9]{2,}\\.html$';
const browser = await launchBrowser();

async function crawlOnce(watched: boolean): Promise<number> {
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
    );
    if (page !== null) await page.waitForSelector('[data-report]', { timeout: 30_000 });
    const r = report as unknown as NonNullable<CrawlStatus['report']>;
    return r.fetches / r.seconds;
  } finally {
    await page?.close();
    await server.close();
    await site.close();
    dir.cleanup();
  }
}

const alone: number[] = [];
const watched: number[] = [];
try {
  for (let i = 0; i < repeats; i++) {
    alone.push(await crawlOnce(false));
    progress(`run ${i + 1}: nobody watching ${alone[i]!.toFixed(0)} pages/s`);
    watched.push(await crawlOnce(true));
    progress(`run ${i + 1}: GUI watching   ${watched[i]!.toFixed(0)} pages/s`);
  }
} finally {
  await browser.close();
}
const a = median(alone);
const w = median(watched);
const slowdown = (100 * (a - w)) / a;
console.log(`site: ${pages} pages, concurrency ${concurrency}, ${repeats} crawls each`);
console.log(`pages/s, nobody watching: median ${a.toFixed(0)} (${alone.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`pages/s, GUI watching:    median ${w.toFixed(0)} (${watched.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`slowdown with the GUI open: ${slowdown.toFixed(1)} % (target: at most 10 %)`);
