/**
 * Resuming a large crawl: how long `wga crawl --resume` takes from its start to its first request,
 * and its peak RSS, on a store that holds PAGES known pages of which a share were fetched (issue 38:
 * a crawl of 10^7 pages resumed in under a minute).
 *
 * The store is written as a crawl's checkpoints would leave it (Store.writeCrawlBatch, 100,000
 * pages a batch: URLs of one host, OPIC's state with the cash spread over the pages, fetch results
 * for the first --fetched share, --links out-links of each fetched page, the crawl's settings and
 * global state), unless it exists already. A server
 * on 127.0.0.1 answers every page with a page without links and records when the first request
 * came; the resumed crawl stops after --fetch N more pages (1,000).
 *
 *   npm run bench:resume -- 1000000                    (10^6 pages; about a minute)
 *   npm run bench:resume -- 10000000 --db /big/r.sqlite (10^7 pages: a 2 GB store, written once)
 *
 * Options: PAGES (1,000,000); --db FILE (bench/.cache/resume-PAGES[-fF][-lL].sqlite); --fetch N (1,000);
 * --fetched F (the share of the pages fetched before: 0.1); --links L (out-links of each fetched page:
 * 0; their targets drawn from a power law over all pages, a quarter of them the next pages);
 * --no-live (resume as `wga crawl --no-live`: no live PageRank, so no links read back);
 * --write-only (write the store, if missing, and stop: the resume measured later, on a quiet machine).
 * --db postgres://... : the store in PostgreSQL, written on each run (the database must hold no crawl
 * yet), resumed in place. Both report the store's bytes per page.
 *
 *   npm run bench:resume -- 1000000 --db postgres://postgres@127.0.0.1:55433/resume
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { completeSettings } from '../src/crawl/settings.js';
import { CRAWL_STATE, type CrawlBatch } from '../src/store/store.js';
import { isPostgresUrl, openStore } from '../src/store/open.js';
import { compiledCli, findRepoRoot } from './crawl/paths.js';

const BATCH = 100_000;

interface Options {
  pages: number;
  db: string;
  fetch: number;
  fetched: number;
  links: number;
  live: boolean;
  writeOnly: boolean;
}

function parse(argv: string[]): Options {
  let pages = 1_000_000;
  let db: string | null = null;
  let fetch = 1000;
  let fetched = 0.1;
  let links = 0;
  let live = true;
  let writeOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--db') db = argv[++i]!;
    else if (arg === '--fetch') fetch = Number(argv[++i]);
    else if (arg === '--fetched') fetched = Number(argv[++i]);
    else if (arg === '--links') links = Number(argv[++i]);
    else if (arg === '--no-live') live = false;
    else if (arg === '--write-only') writeOnly = true;
    else if (/^\d+$/.test(arg)) pages = Number(arg);
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!(fetched > 0 && fetched < 1)) throw new Error('--fetched must be between 0 and 1');
  if (!(Number.isInteger(links) && links >= 0)) throw new Error('--links must be a whole number');
  const name = `resume-${pages}${fetched === 0.1 ? '' : `-f${fetched}`}${links === 0 ? '' : `-l${links}`}.sqlite`;
  return { pages, db: db ?? join(findRepoRoot(), 'bench/.cache', name), fetch, fetched, links, live, writeOnly };
}

/**
 * Page `source`'s `count` out-links: a quarter to the pages after it (a site's neighbours), the rest
 * drawn from a power law over all pages (page p with weight about 1/sqrt(p): a few pages most linked
 * to), without repeats or self-links; a fixed pseudo-random sequence, so a store is the same each time.
 */
function linkTargets(source: number, count: number, pages: number): number[] {
  const targets = new Set<number>();
  let state = (source * 2654435761 + 1) >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const local = Math.floor(count / 4);
  for (let k = 1; targets.size < local && source + k < pages; k++) targets.add(source + k);
  for (let tries = 0; targets.size < count && tries < 20 * count; tries++) {
    const u = next();
    const target = Math.floor(pages * u * u);
    if (target !== source) targets.add(target);
  }
  return [...targets];
}

/** Writes a crawl of `pages` pages on `origin`, the first `fetched` of them fetched with `links` out-links each, as checkpoints would. */
async function writeCrawl(path: string, pages: number, fetched: number, links: number, origin: string): Promise<void> {
  if (!isPostgresUrl(path)) mkdirSync(dirname(path), { recursive: true });
  const store = await openStore(path);
  const settings = completeSettings({ seeds: [`${origin}/p/0`], allowIp: ['127.0.0.1/32'], delayMs: 0, perHost: 16, concurrency: 16 });
  try {
    for (let from = 0; from < pages; from += BATCH) {
      const to = Math.min(pages, from + BATCH);
      const batch: CrawlBatch = { pages: [], fetches: [], replaceLinksOf: [], links: [], opic: [], state: {} };
      for (let i = from; i < to; i++) {
        const url = `${origin}/p/${i}`;
        const read = i < fetched;
        batch.pages.push({
          id: i + 1,
          url,
          key: url,
          host: '127.0.0.1',
          depth: i === 0 ? 0 : 1 + Math.floor(Math.log2(i + 1)),
          focus: false,
          role: 'page',
          opic: { cash: 1 / pages, history: read ? 1 / pages : 0, lastRead: read ? i / pages : 0, reads: read ? 1 : 0, seenAll: 0, seenUnread: 0, seenFocus: 0, focus: false },
          windowHistory: read ? 1 / pages : 0,
        });
        if (read) batch.fetches.push({ id: i + 1, fetchSeq: i + 1, record: { status: 200, contentType: 'text/html', fetchedAt: Date.now(), size: 100, title: null, error: null }, first: true });
      }
      await store.writeCrawlBatch(batch);
      process.stderr.write(`\rwritten ${to.toLocaleString('en-US')} pages`);
    }
    // The links come after every page is written (a link's ends must be stored pages), the crawl's
    // state with the last batch.
    const sourcesPerBatch = Math.max(1, Math.floor((10 * BATCH) / Math.max(1, links)));
    for (let from = 0; from < (links === 0 ? 1 : fetched); from += sourcesPerBatch) {
      const to = Math.min(fetched, from + sourcesPerBatch);
      const batch: CrawlBatch = { pages: [], fetches: [], replaceLinksOf: [], links: [], opic: [], state: {} };
      if (links > 0) for (let i = from; i < to; i++) for (const target of linkTargets(i, links, pages)) batch.links.push({ source: i + 1, target: target + 1, kind: 'anchor', nofollow: false });
      if (to === fetched || links === 0) {
        batch.state = {
          [CRAWL_STATE.opic]: JSON.stringify({ all: 0, unread: 0, focused: 0, clock: fetched / pages, virtualReceived: 0, reads: fetched }),
          [CRAWL_STATE.settings]: JSON.stringify(settings),
          [CRAWL_STATE.sessions]: JSON.stringify([{ started: Date.now() - 1000, finished: Date.now() }]),
          [CRAWL_STATE.progress]: JSON.stringify({ fetches: fetched, updatedAt: Date.now() }),
        };
      }
      await store.writeCrawlBatch(batch);
      if (links > 0) process.stderr.write(`\rwritten the links of ${to.toLocaleString('en-US')} pages`);
    }
    process.stderr.write('\n');
  } finally {
    await store.close();
  }
}

/** The store's size in bytes: the SQLite file, or the PostgreSQL database. */
async function storeSize(spec: string): Promise<number> {
  if (!isPostgresUrl(spec)) return statSync(spec).size;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: spec });
  await client.connect();
  try {
    return Number((await client.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  let firstRequestAt = 0;
  let robotsAt = 0;
  let requests = 0;
  const server = createServer((request, response) => {
    if (request.url === '/robots.txt' && robotsAt === 0) robotsAt = performance.now();
    if (firstRequestAt === 0 && request.url !== '/robots.txt' && request.url !== '/sitemap.xml') firstRequestAt = performance.now();
    requests++;
    response.writeHead(request.url === '/robots.txt' || request.url === '/sitemap.xml' ? 404 : 200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>p</title>');
  });
  // The store's URLs name a fixed port, so that a store written once serves every later run.
  const port = 18_765;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const postgres = isPostgresUrl(options.db);
  const fetched = Math.floor(options.pages * options.fetched);
  if (postgres || !existsSync(options.db)) {
    const started = performance.now();
    await writeCrawl(options.db, options.pages, fetched, options.links, origin);
    console.log(`store written in ${((performance.now() - started) / 1000).toFixed(1)} s: ${options.db}`);
  }
  if (options.writeOnly) {
    server.close();
    return;
  }
  // Each run resumes a copy: the store written once stays as a checkpoint left it.
  const copy = postgres ? options.db : `${options.db}.run.sqlite`;
  if (!postgres) copyFileSync(options.db, copy);
  const storeBytes = await storeSize(options.db);
  const args = [compiledCli, 'crawl', '--resume', '--db', copy, '--max-pages', String(fetched + options.fetch), ...(options.live ? [] : ['--no-live']), '--json', '-q'];
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M %e %U %S', process.execPath, ...(process.env.WGA_BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ended = performance.now();
  server.close();
  if (!postgres) for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  if (code !== 0) throw new Error(`wga crawl --resume failed (${code}): ${stderr}`);
  const [maxKb, wall, user, system] = stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number, number];
  const report = JSON.parse(stdout) as { fetched: number; known: number; seconds: number; live: { pages: number; links: number; finalMs: number } | null };
  console.log(`pages known ${report.known.toLocaleString('en-US')}, fetched before ${fetched.toLocaleString('en-US')}, fetched now ${report.fetched}`);
  if (report.live !== null) console.log(`live PageRank: ${report.live.pages.toLocaleString('en-US')} pages, ${report.live.links.toLocaleString('en-US')} links; its final solve ${(report.live.finalMs / 1000).toFixed(1)} s`);
  console.log(`robots.txt asked ${((robotsAt - started) / 1000).toFixed(1)} s after the start`);
  console.log(`first request ${((firstRequestAt - started) / 1000).toFixed(1)} s after the start; whole run ${((ended - started) / 1000).toFixed(1)} s (wall ${wall} s, CPU ${(user + system).toFixed(1)} s)`);
  const linkCount = fetched * options.links;
  console.log(`store ${(storeBytes / 2 ** 20).toFixed(0)} MB before the resume: ${(storeBytes / report.known).toFixed(0)} bytes per known page, about ${linkCount.toLocaleString('en-US')} links; live PageRank ${options.live ? 'on' : 'off'}`);
  console.log(`peak RSS ${(maxKb / 1024).toFixed(0)} MB = ${((maxKb * 1024) / report.known).toFixed(0)} bytes per known page; ${requests} requests`);
}

await main();
