/**
 * The crawl benchmark's Crawlee contender: CheerioCrawler (Crawlee 3.x,
 * installed apart in bench/crawlee/ by bench/crawl.ts so that wga's own
 * dependencies stay light) crawling one site at a fixed concurrency:
 * - minConcurrency = maxConcurrency = CONCURRENCY: the autoscaled pool does
 *   not ramp up or back off, so it runs as many requests at once as the
 *   others (on a busy 2-core machine its CPU probe would otherwise hold it
 *   far below);
 * - storage in memory only (MemoryStorage, persistStorage: false, no
 *   metadata files), logging off;
 * - no retries (maxRequestRetries 0), no per-domain delay, no robots.txt
 *   (Crawlee's defaults for the last two);
 * - links: enqueueLinks({ strategy: 'same-origin' }) on every page (<a href>,
 *   fragments dropped by Crawlee's unique keys), the same links the bare loop
 *   follows;
 * - maxRequestsPerCrawl = MAX_PAGES, and stop() (running requests finish)
 *   at MAX_TIME.
 * Everything else is Crawlee's default (session pool, got-scraping's
 * generated browser headers, the whole body parsed into a Cheerio DOM).
 * With --lean, two defaults that cost CPU on every request and buy nothing
 * on one's own site are off, as a user tuning Crawlee for speed would do:
 * the session pool (useSessionPool: false) and got-scraping's header
 * generator (useHeaderGenerator: false, set in a pre-navigation hook).
 *
 *   node dist/bench/crawl/crawlee.js ORIGIN/ [--concurrency 16] [--max-pages N] [--max-time SECONDS] [--lean]
 *
 * Prints one JSON line: {fetched, failed, requests, seconds, loadSeconds, stoppedBy, version, lean}.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crawleeDir } from './paths.js';

/** The little of Crawlee's API used here (its types live in bench/crawlee/node_modules, outside wga's build). */
interface CrawleeModule {
  CheerioCrawler: new (options: Record<string, unknown>, config?: unknown) => {
    run(requests: string[]): Promise<{ requestsFinished: number; requestsFailed: number; requestsTotal: number }>;
    stop(reason?: string): void;
  };
  Configuration: new (options: Record<string, unknown>) => unknown;
  log: { setLevel(level: number): void; LEVELS: Record<string, number> & { OFF: number } };
}

interface MemoryStorageModule {
  MemoryStorage: new (options: Record<string, unknown>) => unknown;
}

async function load(): Promise<{ crawlee: CrawleeModule; storage: MemoryStorageModule; version: string }> {
  const require = createRequire(join(crawleeDir(), 'package.json'));
  const cheerioPath = require.resolve('@crawlee/cheerio');
  const storagePath = require.resolve('@crawlee/memory-storage');
  const version = (JSON.parse(readFileSync(join(dirname(cheerioPath), 'package.json'), 'utf8')) as { version: string }).version;
  const crawlee = (await import(pathToFileURL(cheerioPath).href)) as CrawleeModule;
  const storage = (await import(pathToFileURL(storagePath).href)) as MemoryStorageModule;
  return { crawlee, storage, version };
}

async function main(argv: string[]): Promise<void> {
  let seed = '';
  let concurrency = 16;
  let maxPages: number | undefined;
  let maxTimeMs: number | undefined;
  let lean = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--concurrency') concurrency = Number(argv[++i]);
    else if (arg === '--max-pages') maxPages = Number(argv[++i]);
    else if (arg === '--max-time') maxTimeMs = 1000 * Number(argv[++i]);
    else if (arg === '--lean') lean = true;
    else seed = arg;
  }
  if (seed === '') throw new Error('a seed URL is needed');
  const loading = performance.now();
  const { crawlee, storage, version } = await load();
  // The crawl is timed from here: loading Crawlee's modules (a second or more) is reported apart, as loadSeconds.
  const started = performance.now();
  const loadSeconds = (started - loading) / 1000;
  // WGA_CRAWLEE_LOG=DEBUG (a Crawlee log level) shows what Crawlee does; the benchmark runs it silent.
  const level = process.env.WGA_CRAWLEE_LOG;
  crawlee.log.setLevel(level !== undefined && level in crawlee.log.LEVELS ? crawlee.log.LEVELS[level]! : crawlee.log.LEVELS.OFF);
  const config = new crawlee.Configuration({
    persistStorage: false,
    purgeOnStart: true,
    storageClient: new storage.MemoryStorage({ persistStorage: false, writeMetadata: false }),
  });
  let fetched = 0;
  let failed = 0;
  let stoppedBy = 'done';
  const crawler = new crawlee.CheerioCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestRetries: 0,
      ...(lean
        ? {
            useSessionPool: false,
            persistCookiesPerSession: false,
            preNavigationHooks: [
              (_context: unknown, gotOptions: Record<string, unknown>) => {
                gotOptions.useHeaderGenerator = false;
              },
            ],
          }
        : {}),
      ...(maxPages === undefined ? {} : { maxRequestsPerCrawl: maxPages }),
      requestHandler: async (context: { enqueueLinks: (options: Record<string, unknown>) => Promise<unknown> }) => {
        fetched++;
        await context.enqueueLinks({ strategy: 'same-origin' });
      },
      failedRequestHandler: () => {
        failed++;
      },
    },
    config,
  );
  const timer =
    maxTimeMs === undefined
      ? undefined
      : setTimeout(() => {
          stoppedBy = 'max-time';
          crawler.stop('max-time');
        }, Math.max(0, maxTimeMs - (performance.now() - started)));
  const stats = await crawler.run([seed]);
  if (timer !== undefined) clearTimeout(timer);
  if (stoppedBy === 'done' && maxPages !== undefined && stats.requestsFinished + stats.requestsFailed >= maxPages) stoppedBy = 'max-pages';
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ fetched, failed, requests: stats.requestsTotal, seconds, loadSeconds, stoppedBy, version, lean })}\n`);
  // Crawlee leaves timers (system status snapshots) behind; the measurement is over.
  process.exit(0);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`crawlee: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
