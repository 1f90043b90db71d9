/**
 * The rendering benchmark's Crawlee contender (bench/crawl-render.ts): PlaywrightCrawler (Crawlee
 * 3.x and playwright, pinned in bench/crawlee/package.json) on Debian's Chromium, crawling one
 * single-page application at a fixed concurrency:
 * - minConcurrency = maxConcurrency = CONCURRENCY browser pages, so that the autoscaled pool runs
 *   as many as wga's --render-concurrency;
 * - storage in memory only, logging off, no retries;
 * - on every page: page.waitForLoadState('networkidle') (no request for 500 ms, what a Crawlee
 *   user writes for a page whose links arrive by fetch after the load event; wga's --render-quiet
 *   is 500 ms too), then enqueueLinks({ strategy: 'same-origin' });
 * - everything else Crawlee's default (browser fingerprints, session pool, its browser pool).
 *
 *   node dist/bench/crawl/crawlee-playwright.js SEED --browser PATH [--concurrency 4]
 *
 * Prints one JSON line: {fetched, failed, seconds, loadSeconds, version}.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crawleeDir } from './paths.js';

interface CrawleeModule {
  PlaywrightCrawler: new (options: Record<string, unknown>, config?: unknown) => { run(requests: string[]): Promise<{ requestsFinished: number; requestsFailed: number }> };
  Configuration: new (options: Record<string, unknown>) => unknown;
  log: { setLevel(level: number): void; LEVELS: Record<string, number> & { OFF: number } };
}

async function main(argv: string[]): Promise<void> {
  let seed = '';
  let browser = '/usr/bin/chromium';
  let concurrency = 4;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--concurrency') concurrency = Number(argv[++i]);
    else if (arg === '--browser') browser = argv[++i]!;
    else seed = arg;
  }
  const loading = performance.now();
  const require = createRequire(join(crawleeDir(), 'package.json'));
  const crawleePath = require.resolve('@crawlee/playwright');
  const version = (JSON.parse(readFileSync(join(dirname(crawleePath), 'package.json'), 'utf8')) as { version: string }).version;
  const crawlee = (await import(pathToFileURL(crawleePath).href)) as CrawleeModule;
  const storage = (await import(pathToFileURL(require.resolve('@crawlee/memory-storage')).href)) as { MemoryStorage: new (o: Record<string, unknown>) => unknown };
  const playwright = (await import(pathToFileURL(require.resolve('playwright')).href)) as { chromium: unknown };
  const started = performance.now();
  crawlee.log.setLevel(crawlee.log.LEVELS.OFF);
  const config = new crawlee.Configuration({ persistStorage: false, purgeOnStart: true, storageClient: new storage.MemoryStorage({ persistStorage: false, writeMetadata: false }) });
  let fetched = 0;
  let failed = 0;
  const crawler = new crawlee.PlaywrightCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestRetries: 0,
      headless: true,
      launchContext: { launcher: playwright.chromium, launchOptions: { executablePath: browser, args: ['--no-sandbox', '--disable-dev-shm-usage'] } },
      requestHandler: async (context: { page: { waitForLoadState(state: string): Promise<void> }; enqueueLinks: (options: Record<string, unknown>) => Promise<unknown> }) => {
        await context.page.waitForLoadState('networkidle');
        fetched++;
        await context.enqueueLinks({ strategy: 'same-origin' });
      },
      failedRequestHandler: () => {
        failed++;
      },
    },
    config,
  );
  await crawler.run([seed]);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ fetched, failed, seconds, loadSeconds: (started - loading) / 1000, version })}\n`);
  process.exit(0);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`crawlee-playwright: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
