/**
 * Shared-crawl benchmark (issue 14): pages per second of a crawl worked on
 * by 1, 2, 4 and 8 instances (`wga crawl --join --instances N`, separate
 * processes) through one PostgreSQL store (a throwaway cluster, as the
 * tests start it), side by side in one run, on two sites:
 * - network-bound: test/crawl/multi-host-site.ts's generated site of
 *   --pages pages over --hosts hosts, every answer sent after --latency ms
 *   (50), with a politeness delay of --host-delay ms (200) per host and
 *   --concurrency (4) requests at once per instance: what a real crawl is
 *   limited by, so pages/s should grow with the instances;
 * - CPU-bound ("plain"): the same site answering at once, no politeness
 *   delay, 1 and 2 instances (this machine has 2 cores).
 *
 * Measured per run, from the store: crawl seconds = last fetch time - first
 * fetch time (process start-up excluded; wall seconds of the whole command
 * also given), pages/s, the instances' share of the pages, transfers per
 * page (money transfers written / pages) and rows written per page (pages,
 * links, fetch results, OPIC states, transfers, partitions, instance rows),
 * the database's share of the time: the instances' time in checkpoint
 * transactions / (instances x crawl seconds), and of it the job-lock share:
 * the time in the checkpoints' last statement (shared_checkpoint_commit),
 * the only one that waits for other instances (it takes the job row's lock).
 * Each run's figures are printed as it ends, and the load average at the
 * start and the end (this machine is shared: label figures taken under load).
 *
 *   npm run bench:crawl-shared                      (5,000 pages: a few minutes)
 *
 * The issue's configuration (100,000 pages of 200 hosts, 50 ms answers, a
 * per-host delay; each instance 12 requests at once, so that one instance is
 * network-bound, not CPU-bound: about 200 pages/s, a tenth of what one
 * instance does on the plain site; about 20 minutes on a quiet machine):
 *
 *   npm run bench:crawl-shared -- --pages 100000 --host-delay 100 --concurrency 12
 *
 * Options: --pages N (5000), --hosts N (200), --instances 1,2,4,8,
 * --latency MS (50), --host-delay MS (200), --concurrency N (4),
 * --plain-pages N (same as --pages), --no-plain, --checkpoint MS (1000: the
 * crawl's checkpoint interval), --timeline (pages fetched in each second of
 * every run, to see its start, steady state and end).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startSharedCrawl } from '../src/app/shared-crawl.js';
import { completeSettings } from '../src/crawl/settings.js';
import { serveMultiHostSite } from '../test/crawl/multi-host-site.js';
import { startTestServer } from '../test/store/postgres-server.js';
import { benchArguments } from './arguments.js';
import { progress } from './report.js';

interface Options {
  pages: number;
  hosts: number;
  instances: number[];
  latencyMs: number;
  hostDelayMs: number;
  concurrency: number;
  plainPages: number | null;
  plain: boolean;
  checkpointMs: number;
}

/** --timeline: print every run's pages per second. */
let timeline = false;

function parse(argv: readonly string[]): Options {
  const o: Options = { pages: 5000, hosts: 200, instances: [1, 2, 4, 8], latencyMs: 50, hostDelayMs: 200, concurrency: 4, plainPages: null, plain: true, checkpointMs: 1000 };
  for (const { arg, value } of benchArguments(argv)) {
    if (arg === '--pages') o.pages = Number(value());
    else if (arg === '--hosts') o.hosts = Number(value());
    else if (arg === '--instances') o.instances = value().split(',').map(Number);
    else if (arg === '--latency') o.latencyMs = Number(value());
    else if (arg === '--host-delay') o.hostDelayMs = Number(value());
    else if (arg === '--concurrency') o.concurrency = Number(value());
    else if (arg === '--plain-pages') o.plainPages = Number(value());
    else if (arg === '--no-plain') o.plain = false;
    else if (arg === '--checkpoint') o.checkpointMs = Number(value());
    else if (arg === '--timeline') timeline = true;
    else throw new Error(`unknown option ${arg}`);
  }
  return o;
}

interface Result {
  site: string;
  instances: number;
  pages: number;
  crawlSeconds: number;
  wallSeconds: number;
  pagesPerSecond: number;
  shares: number[];
  transfersPerPage: number;
  rowsPerPage: number;
  dbShare: number;
  lockShare: number;
}

const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

async function run(
  createDatabase: () => Promise<string>,
  site: string,
  instances: number,
  pages: number,
  hosts: number,
  latencyMs: number,
  hostDelayMs: number,
  concurrency: number,
  checkpointMs: number,
): Promise<Result> {
  const served = await serveMultiHostSite({ pages, hosts, delayMs: latencyMs });
  const url = await createDatabase();
  try {
    const settings = completeSettings({
      seeds: [served.url(0)],
      hosts: 'any',
      filters: [`^http://h\\d+\\.test:${served.port}/`],
      resolve: served.resolve,
      allowIp: ['127.0.0.1/32'],
      delayMs: hostDelayMs,
      perHost: 1,
      concurrency,
      retries: 0,
      checkpointMs,
    });
    await startSharedCrawl(url, settings, { partitions: 64 });
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'crawl', '--join', '--instances', String(instances), '--db', url, '-q', '--json'], { stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`wga crawl --instances ${instances} exited with ${code}`))));
    });
    const wallSeconds = (performance.now() - started) / 1000;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const span = await client.query<{ n: string; first: number; last: number }>('SELECT count(*) AS n, min(fetched_at) AS first, max(fetched_at) AS last FROM pages WHERE status IS NOT NULL');
      const inst = await client.query<{ pages: string; transfers_sent: string; rows_written: string; db_ms: number; lock_ms: number }>(
        'SELECT pages, transfers_sent, rows_written, db_ms, lock_ms FROM shared_instances',
      );
      if (timeline) {
        const t = await client.query<{ s: number; n: string }>('SELECT floor((fetched_at - $1) / 1000)::int AS s, count(*) AS n FROM pages WHERE status IS NOT NULL GROUP BY 1 ORDER BY 1', [span.rows[0]!.first]);
        console.log(`  timeline (pages per second): ${t.rows.map((r) => r.n).join(' ')}`);
      }
      const fetched = Number(span.rows[0]!.n);
      const crawlSeconds = (span.rows[0]!.last - span.rows[0]!.first) / 1000;
      const sum = (pick: (r: (typeof inst.rows)[number]) => number): number => inst.rows.reduce((s, r) => s + pick(r), 0);
      const recorded = sum((r) => Number(r.pages));
      return {
        site,
        instances,
        pages: fetched,
        crawlSeconds,
        wallSeconds,
        pagesPerSecond: fetched / crawlSeconds,
        shares: inst.rows.map((r) => Number(r.pages) / recorded).sort((a, b) => b - a),
        transfersPerPage: sum((r) => Number(r.transfers_sent)) / fetched,
        rowsPerPage: sum((r) => Number(r.rows_written)) / fetched,
        dbShare: sum((r) => r.db_ms) / 1000 / (instances * crawlSeconds),
        lockShare: sum((r) => r.lock_ms) / 1000 / (instances * crawlSeconds),
      };
    } finally {
      await client.end();
    }
  } finally {
    await served.close();
  }
}

function describe(r: Result): string {
  return `  ${r.pages} pages in ${r.crawlSeconds.toFixed(1)} s: ${r.pagesPerSecond.toFixed(0)} pages/s, DB share ${(100 * r.dbShare).toFixed(0)}%, job-lock share ${(100 * r.lockShare).toFixed(1)}%`;
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const loadStart = loadavg().map((l) => l.toFixed(1)).join(' ');
  const server = await startTestServer();
  if (typeof server === 'string') throw new Error(server);
  const results: Result[] = [];
  try {
    for (const n of o.instances) {
      progress(`network-bound site, ${n} instance(s)...`);
      results.push(await run(server.createDatabase, `network (${o.latencyMs} ms answers, ${o.hostDelayMs} ms per host)`, n, o.pages, o.hosts, o.latencyMs, o.hostDelayMs, o.concurrency, o.checkpointMs));
      progress(describe(results.at(-1)!));
    }
    if (o.plain) {
      for (const n of [1, 2]) {
        progress(`plain site, ${n} instance(s)...`);
        results.push(await run(server.createDatabase, 'plain (CPU-bound)', n, o.plainPages ?? o.pages, o.hosts, 0, 0, 16, o.checkpointMs));
        progress(describe(results.at(-1)!));
      }
    }
  } finally {
    server.stop();
  }
  const base = new Map<string, number>();
  console.log(
    `${o.pages} pages on ${o.hosts} hosts, 64 partitions, concurrency ${o.concurrency} per instance (plain: 16), checkpoints every ${o.checkpointMs} ms, PostgreSQL on loopback; load average ${loadStart} at the start, ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end\n`,
  );
  console.log('| site | instances | pages | crawl s | wall s | pages/s | speed-up | shares of pages | transfers/page | rows written/page | DB share of time | job-lock share |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|');
  for (const r of results) {
    if (!base.has(r.site)) base.set(r.site, r.pagesPerSecond);
    console.log(
      `| ${r.site} | ${r.instances} | ${r.pages} | ${r.crawlSeconds.toFixed(1)} | ${r.wallSeconds.toFixed(1)} | ${r.pagesPerSecond.toFixed(0)} | ${(r.pagesPerSecond / base.get(r.site)!).toFixed(2)}x | ${r.shares.map((s) => `${(100 * s).toFixed(0)}%`).join(' ')} | ${r.transfersPerPage.toFixed(2)} | ${r.rowsPerPage.toFixed(1)} | ${(100 * r.dbShare).toFixed(0)}% | ${(100 * r.lockShare).toFixed(1)}% |`,
    );
  }
}

await main();
