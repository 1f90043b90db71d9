/**
 * A crawl shared by several processes, on one machine or many, through one
 * PostgreSQL store (crawl/shared-crawler.ts, store/shared-crawl-db.ts):
 * start it (the job and its seeds), join it, or start N local processes
 * that join it; and what each instance did, for `wga top` and `wga stats`.
 */
import { spawn } from 'node:child_process';
import { pgConfig } from '../store/pg-config.js';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { OptionError } from '../errors.js';
import type { CrawlSettings } from '../crawl/settings.js';
import { checkSharedSettings, DEFAULT_LEASE_MS, DEFAULT_PARTITIONS, SharedCrawler, type SharedReport, sharedSeeds } from '../crawl/shared-crawler.js';
import { isPostgresUrl, redactLocation } from '../store/open.js';
import { PostgresStore } from '../store/postgres.js';
import { SharedCrawlDb, type SharedInstanceRow, sharedInstances } from '../store/shared-crawl-db.js';
import { StoreError } from '../store/store.js';
import { withStoreFailures } from '../store/store-failure.js';
import type { AppContext } from './context.js';

export interface SharedStartOptions {
  partitions?: number;
  leaseMs?: number;
}

/** Refuses a store several crawler processes cannot share. */
export function requirePostgres(db: string, option: string): void {
  if (!isPostgresUrl(db)) {
    throw new OptionError(
      option,
      `several crawler processes need a PostgreSQL store (--db postgres://USER@HOST/DATABASE); ${db} is a SQLite file, which one crawler process writes at a time`,
    );
  }
}

/**
 * The shared-crawl tables of a store. Creating a crawl opens the store first (applying its
 * migrations, which needs the owner's rights); joining one needs only data rights on the tables.
 */
async function openShared(url: string, create: boolean): Promise<SharedCrawlDb> {
  if (create) {
    const store = await PostgresStore.open(url);
    await store.close();
  }
  try {
    return withStoreFailures(await SharedCrawlDb.open(url, redactLocation(url), { create }), redactLocation(url));
  } catch (error) {
    throw new StoreError(redactLocation(url), `cannot open the store: ${(error as Error).message}`);
  }
}

/** Creates the shared crawl job in an empty PostgreSQL store, with the seeds holding OPIC's initial cash. */
export async function startSharedCrawl(url: string, settings: CrawlSettings, options: SharedStartOptions = {}): Promise<void> {
  requirePostgres(url, '--db');
  checkSharedSettings(settings);
  const partitions = options.partitions ?? DEFAULT_PARTITIONS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!(Number.isInteger(partitions) && partitions >= 1 && partitions <= 65_535)) throw new OptionError('--partitions', `expected an integer from 1 to 65535, got ${partitions}`);
  if (!(Number.isInteger(leaseMs) && leaseMs >= 1000)) throw new OptionError('--lease', `expected at least 1000 ms, got ${leaseMs}`);
  if (leaseMs < 3 * settings.checkpointMs) throw new OptionError('--lease', `must be at least three checkpoints (${3 * settings.checkpointMs} ms) so that leases are renewed in time`);
  const seeds = sharedSeeds(settings, partitions);
  const db = await openShared(url, true);
  try {
    await db.createJob(JSON.stringify(settings), partitions, leaseMs, seeds);
  } finally {
    await db.close();
  }
}

/** Works on the shared crawl in the store until it is finished; at once if it is finished already. */
export async function joinSharedCrawl(url: string, context: AppContext & { onCheckpoint?: (instance: string) => Promise<void> | void } = {}): Promise<SharedReport> {
  requirePostgres(url, '--join');
  const db = await openShared(url, false);
  try {
    return await SharedCrawler.join(db, {
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      ...(context.onCheckpoint === undefined ? {} : { onCheckpoint: context.onCheckpoint }),
      ...(context.onNotice === undefined ? {} : { onNotice: context.onNotice }),
      ...(context.onProgress === undefined
        ? {}
        : {
            progressMs: 2000,
            onProgress: (p) =>
              context.onProgress!({
                phase: 'crawl',
                message: `${p.instance}: ${p.fetched} fetched, ${p.partitions} partitions, ${p.waiting} waiting, ${p.inFlight} in flight; crawl: ${p.crawlFetches} fetches, ${p.crawlPages} pages`,
                done: p.crawlFetches,
                total: p.crawlPages,
                data: { ...p },
              }),
          }),
    });
  } finally {
    await db.close();
  }
}

export interface InstancesResult {
  /** Exit code of each process, in start order. */
  exitCodes: Array<number | null>;
  reports: SharedReport[];
}

/**
 * Starts `count` local processes that join the crawl (`wga crawl --join`), and waits for them all;
 * an abort (Ctrl-C) is passed on to them as SIGINT (each stops at a checkpoint).
 */
export async function runInstances(url: string, count: number, context: AppContext = {}): Promise<InstancesResult> {
  requirePostgres(url, '--instances');
  if (!(Number.isInteger(count) && count >= 1 && count <= 256)) throw new OptionError('--instances', `expected an integer from 1 to 256, got ${count}`);
  const main = fileURLToPath(new URL('../cli/main.js', import.meta.url));
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, [main, 'crawl', '--join', '--db', url, '--json', '-q'], { stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  const onAbort = (): void => {
    for (const child of children) child.kill('SIGINT');
  };
  context.signal?.addEventListener('abort', onAbort);
  try {
    const results = await Promise.all(
      children.map(
        (child) =>
          new Promise<{ code: number | null; out: string }>((resolve) => {
            let out = '';
            child.stdout!.setEncoding('utf8');
            child.stdout!.on('data', (chunk: string) => (out += chunk));
            child.on('close', (code) => resolve({ code, out }));
          }),
      ),
    );
    const reports: SharedReport[] = [];
    for (const r of results) {
      try {
        reports.push(JSON.parse(r.out) as SharedReport);
      } catch {
        // A process that failed printed its error on stderr.
      }
    }
    return { exitCodes: results.map((r) => r.code), reports };
  } finally {
    context.signal?.removeEventListener('abort', onAbort);
  }
}

export interface InstanceShare extends SharedInstanceRow {
  /** Share of the crawl's recorded pages this instance recorded. */
  share: number;
}

/** The instances of the shared crawl in a PostgreSQL store, with each one's share of the pages; [] if none. */
export async function sharedCrawlInstances(url: string): Promise<InstanceShare[]> {
  if (!isPostgresUrl(url)) return [];
  const client = new pg.Client(pgConfig(url));
  await client.connect();
  try {
    const rows = await sharedInstances(client);
    const total = rows.reduce((sum, r) => sum + r.pages, 0);
    return rows.map((r) => ({ ...r, share: total > 0 ? r.pages / total : 0 }));
  } finally {
    await client.end();
  }
}
