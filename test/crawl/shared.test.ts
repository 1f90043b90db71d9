/**
 * A crawl shared by several instances through one PostgreSQL store
 * (crawl/shared-crawler.ts): on a generated site of many hosts on loopback
 * (multi-host-site.ts), several instances store exactly the pages and links
 * of the site (which one instance stores too), no page is fetched twice (the
 * server's request log), the total cash is 1 after every checkpoint of
 * every instance (asserted while they run), a kill -9 of an instance loses
 * nothing, a late joiner gets work, and an instance started on a finished
 * crawl leaves at once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { joinSharedCrawl, startSharedCrawl } from '../../src/app/shared-crawl.js';
import { completeSettings, type CrawlSettings } from '../../src/crawl/settings.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SharedCrawlDb } from '../../src/store/shared-crawl-db.js';
import { cliPath, missingToolTest } from '../helpers.js';
import { type TestServer, startTestServer } from '../store/postgres-server.js';
import { isHostFile, runCli } from './crawl-fixtures.js';
import { type MultiHostSite, serveMultiHostSite } from './multi-host-site.js';

const server = await startTestServer();

function siteSettings(site: MultiHostSite, extra: Partial<CrawlSettings> = {}): CrawlSettings {
  return completeSettings({
    seeds: [site.url(0)],
    hosts: 'any',
    filters: [`^http://h\\d+\\.test:${site.port}/`],
    resolve: site.resolve,
    allowIp: ['127.0.0.1/32'],
    delayMs: 0,
    perHost: 2,
    concurrency: 8,
    checkpointMs: 100,
    retries: 0,
    ...extra,
  });
}

/** The stored pages (URL and status) and anchor links (source and target URLs). */
async function stored(url: string): Promise<{ pages: Map<string, number | null>; links: Set<string>; fetchSeqs: number[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const pages = await client.query<{ url: string; status: number | null; fetch_seq: string | null }>('SELECT url, status, fetch_seq FROM pages');
    const links = await client.query<{ s: string; t: string }>('SELECT ps.url AS s, pt.url AS t FROM links l JOIN pages ps ON ps.id = l.source JOIN pages pt ON pt.id = l.target');
    return {
      pages: new Map(pages.rows.map((r) => [r.url, r.status])),
      links: new Set(links.rows.map((r) => `${r.s} ${r.t}`)),
      fetchSeqs: pages.rows.filter((r) => r.fetch_seq !== null).map((r) => Number(r.fetch_seq)).sort((a, b) => a - b),
    };
  } finally {
    await client.end();
  }
}

async function totalCash(url: string): Promise<number> {
  const db = await SharedCrawlDb.open(url, 'test');
  try {
    return (await db.totalCash()).total;
  } finally {
    await db.close();
  }
}

/** Asserts what every finished crawl of the site must hold: every page fetched once with 200, every link, fetch order 1..n. */
async function assertWholeSite(url: string, site: MultiHostSite): Promise<void> {
  const { pages, links, fetchSeqs } = await stored(url);
  assert.equal(pages.size, site.pages);
  for (let n = 0; n < site.pages; n++) assert.equal(pages.get(site.url(n)), 200, site.url(n));
  assert.deepEqual(links, site.links());
  assert.deepEqual(fetchSeqs, Array.from({ length: site.pages }, (_, i) => i + 1));
  assert.ok(Math.abs((await totalCash(url)) - 1) < 1e-9);
}

/**
 * Requests asked more than once: pages, and each host's /sitemap.xml (tried once per crawl, whichever
 * instance holds the host); robots.txt aside (each holder of a host reads it).
 */
function repeated(site: MultiHostSite): string[] {
  return [...site.requests].filter(([key, n]) => n > 1 && (!isHostFile(key) || key.endsWith(' /sitemap.xml'))).map(([key]) => key);
}

/** A `wga crawl --join` process; `done` resolves with its exit code and output. */
function joinProcess(url: string): { pid: number; kill: () => void; done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [cliPath, 'crawl', '--join', '--db', url, '-q', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { pid: child.pid!, kill: () => child.kill('SIGKILL'), done };
}

/** Polls `condition` every 50 ms, at most `limitMs`. */
async function until(condition: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`waited ${limitMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function queryOne(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(sql);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

if (typeof server === 'string') {
  missingToolTest('shared crawl', 'postgres', server);
} else {
  const running: TestServer = server;
  after(() => running.stop());

  describe('shared crawl on PostgreSQL', () => {
    it('3 instances store the pages and links 1 instance stores, fetch each page once, and keep the total cash 1 at every checkpoint', async () => {
      const site = await serveMultiHostSite({ pages: 600, hosts: 24 });
      try {
        const one = await running.createDatabase();
        await startSharedCrawl(one, siteSettings(site), { partitions: 16, leaseMs: 15_000 });
        const alone = await joinSharedCrawl(one);
        assert.equal(alone.stoppedBy, 'done');
        assert.equal(alone.run, 1);
        await assertWholeSite(one, site);
        const single = await stored(one);
        assert.deepEqual(repeated(site), []);

        site.requests.clear();
        const three = await running.createDatabase();
        await startSharedCrawl(three, siteSettings(site), { partitions: 16, leaseMs: 15_000 });
        const cashes: number[] = [];
        const check = async (): Promise<void> => {
          cashes.push(await totalCash(three));
        };
        const reports = await Promise.all([0, 1, 2].map(() => joinSharedCrawl(three, { onCheckpoint: check })));
        for (const r of reports) assert.equal(r.stoppedBy, 'done');
        assert.equal(reports.filter((r) => r.run !== null).length, 1);
        await assertWholeSite(three, site);
        const shared = await stored(three);
        assert.deepEqual(new Set(shared.pages.keys()), new Set(single.pages.keys()));
        assert.deepEqual(shared.links, single.links);
        assert.deepEqual(repeated(site), []);
        // Every host's /sitemap.xml tried once, its answer kept for the crawl.
        assert.equal(await queryOne(three, 'SELECT count(*) AS n FROM sitemap_probes WHERE status = 404'), 24);
        // Every instance did part of the work, and paid pages of others' partitions by transfers.
        for (const r of reports) assert.ok(r.pages > 0, `${r.instance} recorded no page`);
        assert.ok(reports.reduce((s, r) => s + r.transfersSent, 0) > 0);
        assert.ok(cashes.length > 10);
        for (const cash of cashes) assert.ok(Math.abs(cash - 1) < 1e-9, `total cash ${cash}`);
        // Exactly one OPIC run saved, scoring every page, summing to about 1 (the estimates are (H + C) / (G + 1)).
        const store = await PostgresStore.open(three);
        try {
          const runs = await store.runs();
          assert.equal(runs.length, 1);
          assert.equal(runs[0]!.pages, site.pages);
          const top = await store.topPages(runs[0]!.id, site.pages);
          const sum = top.reduce((s, t) => s + t.value, 0);
          assert.ok(Math.abs(sum - 1) < 1e-6, `estimates sum to ${sum}`);
        } finally {
          await store.close();
        }
        // `wga top` and `wga stats` sum over the instances and give each one's share.
        const top = await runCli(['top', '--db', three, '--score', 'opic', '--top', '3', '--json']);
        assert.equal(top.code, 0, top.stderr);
        const topJson = JSON.parse(top.stdout) as { live: boolean; top: unknown[]; instances: Array<{ pages: number; share: number; state: string }> };
        assert.equal(topJson.live, true);
        assert.equal(topJson.top.length, 3);
        assert.equal(topJson.instances.length, 3);
        assert.deepEqual(topJson.instances.map((i) => i.pages).sort(), reports.map((r) => r.pages).sort());
        assert.ok(Math.abs(topJson.instances.reduce((s, i) => s + i.share, 0) - 1) < 1e-12);
        assert.ok(topJson.instances.every((i) => i.state === 'finished'));
        const stats = await runCli(['stats', '--db', three, '--json']);
        assert.equal(stats.code, 0, stats.stderr);
        const statsJson = JSON.parse(stats.stdout) as { fetched: number; frontier: number; instances: Array<{ pages: number }> };
        assert.equal(statsJson.fetched, site.pages);
        assert.equal(statsJson.frontier, 0);
        assert.equal(statsJson.instances.reduce((s, i) => s + i.pages, 0), site.pages);
        const text = await runCli(['stats', '--db', three]);
        assert.match(text.stdout, /Instances of the shared crawl/);
      } finally {
        await site.close();
      }
    });

    it('after a kill -9 of one instance mid-crawl the others finish it: nothing lost, no page fetched more than twice', async (t) => {
      const site = await serveMultiHostSite({ pages: 600, hosts: 24, delayMs: 100 });
      try {
        const url = await running.createDatabase();
        // A lease far longer than any stall of a loaded machine (a live instance that outstays its lease
        // leaves with an error); the others take the killed one's partitions when it has run out.
        await startSharedCrawl(url, siteSettings(site, { perHost: 1, concurrency: 2, checkpointMs: 200 }), { partitions: 16, leaseMs: 15_000 });
        const instances = [joinProcess(url), joinProcess(url), joinProcess(url)];
        const victim = instances[0]!;
        // Kill it once it holds partitions and the crawl is well under way.
        await until(
          async () =>
            (await queryOne(url, 'SELECT fetch_seq AS n FROM shared_crawl')) >= 100 &&
            (await queryOne(url, `SELECT count(*) AS n FROM shared_partitions p JOIN shared_instances i ON i.id = p.owner WHERE i.pid = ${victim.pid}`)) > 0 &&
            (await queryOne(url, `SELECT count(*) AS n FROM shared_instances WHERE pid = ${victim.pid} AND pages > 0`)) > 0,
          300_000,
          'the crawl to get under way',
        );
        victim.kill();
        const killed = await victim.done;
        assert.equal(killed.signal, 'SIGKILL');
        const cashAfterKill = await totalCash(url);
        assert.ok(Math.abs(cashAfterKill - 1) < 1e-9, `total cash after the kill: ${cashAfterKill}`);
        for (const other of instances.slice(1)) {
          const result = await other.done;
          assert.equal(result.code, 0, result.stderr);
          assert.equal((JSON.parse(result.stdout) as { stoppedBy: string }).stoppedBy, 'done');
        }
        await assertWholeSite(url, site);
        const counts = [...site.requests].filter(([key]) => !isHostFile(key)).map(([, n]) => n);
        assert.equal(counts.length, site.pages);
        assert.ok(Math.max(...counts) <= 2, 'a page fetched three times');
        // Only what the killed instance fetched since its last committed checkpoint is fetched again:
        // a few seconds of its work at most (a checkpoint can wait for the lock on a loaded machine),
        // not its partitions over again.
        const again = counts.filter((n) => n === 2).length;
        const victimRecorded = await queryOne(url, `SELECT pages AS n FROM shared_instances WHERE pid = ${victim.pid}`);
        t.diagnostic(`${again} pages fetched twice; the killed instance had recorded ${victimRecorded}`);
        assert.ok(again <= site.pages / 4, `${again} pages fetched twice`);
      } finally {
        await site.close();
      }
    });

    it('a late joiner gets work from the instance that has it all', async () => {
      const site = await serveMultiHostSite({ pages: 400, hosts: 16, delayMs: 40 });
      try {
        const url = await running.createDatabase();
        // The late joiner gets partitions by the balancing, not by leases running out: a lease far longer
        // than any stall of a loaded machine.
        await startSharedCrawl(url, siteSettings(site, { perHost: 1, concurrency: 2, checkpointMs: 200 }), { partitions: 16, leaseMs: 15_000 });
        const first = joinProcess(url);
        await until(async () => (await queryOne(url, 'SELECT fetch_seq AS n FROM shared_crawl')) >= 40, 300_000, 'the first instance to get going');
        assert.equal(await queryOne(url, 'SELECT count(*) AS n FROM shared_partitions WHERE owner IS NOT NULL'), 16);
        const late = joinProcess(url);
        const [a, b] = [await first.done, await late.done];
        assert.equal(a.code, 0, a.stderr);
        assert.equal(b.code, 0, b.stderr);
        const lateReport = JSON.parse(b.stdout) as { pages: number; stoppedBy: string };
        assert.equal(lateReport.stoppedBy, 'done');
        assert.ok(lateReport.pages > 0, 'the late joiner recorded no page');
        await assertWholeSite(url, site);
        assert.deepEqual(repeated(site), []);
      } finally {
        await site.close();
      }
    });

    it("a host's sitemaps are read and recorded once though its partition passes to a joiner while they are read", async () => {
      // Sitemaps answered slowly: the second instance takes half the partitions while the first is
      // reading them. A sitemap read by an instance whose partition had passed used to be lost.
      const site = await serveMultiHostSite({ pages: 160, hosts: 16, sitemapDelayMs: 300 });
      try {
        const url = await running.createDatabase();
        await startSharedCrawl(url, siteSettings(site, { perHost: 1, concurrency: 16, checkpointMs: 100, sitemaps: true }), { partitions: 16, leaseMs: 15_000 });
        const first = joinProcess(url);
        await until(async () => (await queryOne(url, 'SELECT count(*) AS n FROM shared_partitions WHERE owner IS NOT NULL')) === 16, 300_000, 'the first instance to hold the partitions');
        const late = joinProcess(url);
        const [a, b] = [await first.done, await late.done];
        assert.equal(a.code, 0, a.stderr);
        assert.equal(b.code, 0, b.stderr);
        const read = [a, b].map((r) => (JSON.parse(r.stdout) as { sitemaps: number }).sitemaps);
        assert.equal(read[0]! + read[1]!, 2 * site.hosts, `sitemaps read by the instances: ${read.join(' + ')}`);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const rows = await client.query<{ url: string; status: number | null }>("SELECT url, status FROM pages WHERE role = 1 ORDER BY url");
          const expected = Array.from({ length: site.hosts }, (_, k) => [`http://h${k}.test:${site.port}/sitemap-index.xml`, `http://h${k}.test:${site.port}/sitemaps/pages.xml`]).flat().sort();
          assert.deepEqual(rows.rows.map((r) => r.url), expected);
          for (const r of rows.rows) assert.equal(r.status, 200, r.url);
          const listed = await client.query<{ n: string }>("SELECT count(*) AS n FROM links WHERE kind = 8");
          // Each index links its sitemap, each sitemap its host's pages.
          assert.equal(Number(listed.rows[0]!.n), site.hosts + site.pages);
        } finally {
          await client.end();
        }
        for (const [key, n] of site.requests) if (key.includes('sitemap')) assert.equal(n, 1, key);
      } finally {
        await site.close();
      }
    });

    it('an instance started on a finished crawl leaves at once saying so', async () => {
      const site = await serveMultiHostSite({ pages: 30, hosts: 3 });
      try {
        const url = await running.createDatabase();
        await startSharedCrawl(url, siteSettings(site), { partitions: 4, leaseMs: 3000 });
        await joinSharedCrawl(url);
        const requestsBefore = [...site.requests.values()].reduce((a, b) => a + b, 0);
        const result = await runCli(['crawl', '--join', '--db', url]);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /is finished \(30 pages, 30 fetches\); nothing to do/);
        assert.equal([...site.requests.values()].reduce((a, b) => a + b, 0), requestsBefore);
      } finally {
        await site.close();
      }
    });

    it('an instance with only the data rights docs/distributed-crawling.md grants can join', async () => {
      const site = await serveMultiHostSite({ pages: 40, hosts: 4 });
      try {
        const url = await running.createDatabase();
        await startSharedCrawl(url, siteSettings(site), { partitions: 4, leaseMs: 15_000 });
        const database = new URL(url).pathname.slice(1);
        const role = `crawler_${database}`;
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          await admin.query(`CREATE ROLE ${role} LOGIN`);
          await admin.query(`GRANT CONNECT ON DATABASE ${database} TO ${role}`);
          await admin.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
          await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
          await admin.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
        } finally {
          await admin.end();
        }
        const asCrawler = new URL(url);
        asCrawler.username = role;
        const report = await joinSharedCrawl(asCrawler.href);
        assert.equal(report.stoppedBy, 'done');
        await assertWholeSite(url, site);
      } finally {
        await site.close();
      }
    });

    it("upgrades a store whose shared tables an older wga made (no news table, unread index, commit function or lock_ms) when joining it", async () => {
      const site = await serveMultiHostSite({ pages: 40, hosts: 4 });
      try {
        const url = await running.createDatabase();
        await startSharedCrawl(url, siteSettings(site), { partitions: 4, leaseMs: 15_000 });
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          await admin.query('DROP FUNCTION shared_checkpoint_commit');
          await admin.query('DROP TABLE shared_news');
          await admin.query('DROP INDEX pages_unread');
          await admin.query('ALTER TABLE shared_instances DROP COLUMN lock_ms');
        } finally {
          await admin.end();
        }
        const report = await joinSharedCrawl(url);
        assert.equal(report.stoppedBy, 'done');
        await assertWholeSite(url, site);
        assert.deepEqual(repeated(site), []);
      } finally {
        await site.close();
      }
    });

    it('refuses a SQLite store for several processes, naming PostgreSQL', async () => {
      const result = await runCli(['crawl', 'http://example.test/', '--instances', '3', '--db', '/tmp/wga-shared-refused.sqlite']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /--instances: several crawler processes need a PostgreSQL store/);
    });
  });
}

