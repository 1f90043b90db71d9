/**
 * Fault injection: the store fails in the middle of a crawl (PostgreSQL stopped, restarted,
 * paused with SIGSTOP; SQLite out of room), on loopback, every wait bounded. Each case ends with
 * a recovery or a one-line error, then with a store equal to what an undisturbed crawl gives.
 *
 * The site has no hazards (no 5xx to retry on a timer) and the crawls run one request at a time,
 * so that an undisturbed crawl is deterministic: the same fetch order, the same OPIC cash.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sharedCrawlInstances } from '../../src/app/shared-crawl.js';
import { Crawler, type CrawlReport } from '../../src/crawl/crawler.js';
import { type CrawlSettings, completeSettings } from '../../src/crawl/settings.js';
import { Website } from '../../src/experiments/website.js';
import { type ServedWebsite, serveWebsite } from '../../src/experiments/website-server.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { StoreFailureError } from '../../src/store/store-failure.js';
import { missingToolTest, temporaryDirectory } from '../helpers.js';
import { type TestServer, startTestServer } from '../store/postgres-server.js';
import { type CrawlSnapshot, assertCrawlInvariants, assertMatchesModel, isHostFile, modelCrawl, runCli, snapshot } from '../crawl/crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let stores = 0;
const newDbPath = (): string => join(dir.path, `faults-${stores++}.db`);

const site = new Website({ pages: 300, seed: 7, hazards: false });
/** Per answer: a crawl of about 3 s, long enough to break the store in its middle. */
const ANSWER_DELAY_MS = 8;

function settingsFor(served: ServedWebsite, extra: Partial<CrawlSettings> = {}): CrawlSettings {
  return completeSettings({
    seeds: [`${served.origin}/`],
    allowIp: ['127.0.0.1/32'],
    delayMs: 0,
    concurrency: 1,
    perHost: 1,
    checkpointMs: 100,
    live: false,
    ...extra,
  });
}

function pageRequests(served: ServedWebsite): number {
  let n = 0;
  for (const [path, count] of served.requests) if (!isHostFile(path)) n += count;
  return n;
}

/** Resolves once the site has answered `n` page requests (at most 30 s). */
async function afterRequests(served: ServedWebsite, n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (pageRequests(served) < n) {
    if (Date.now() > deadline) throw new Error(`the crawl made only ${pageRequests(served)} requests in 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The undisturbed crawl of `site`, once per store kind. */
async function reference(open: () => Promise<Store>): Promise<CrawlSnapshot> {
  const served = await serveWebsite(site, { delayMs: ANSWER_DELAY_MS });
  const store = await open();
  try {
    const report = await Crawler.run(store, settingsFor(served));
    assert.equal(report.stoppedBy, 'done');
    return withoutOrigin(await snapshot(store), served.origin);
  } finally {
    await store.close();
    await served.close();
  }
}

/** The snapshot with URLs relative to the site, to compare crawls of two servers. */
function withoutOrigin(snap: CrawlSnapshot, origin: string): CrawlSnapshot {
  const cut = (text: string): string => text.split(origin).join('');
  return {
    pages: new Map([...snap.pages].map(([url, page]) => [cut(url), { ...page, url: cut(url) }])),
    links: new Set([...snap.links].map(cut)),
    state: snap.state,
    counts: snap.counts,
  };
}

/**
 * The crawl equals the undisturbed one: the same pages with the same answers, links, fetch order
 * and OPIC state (cash and history to 1e-9) when `sameOrder`, else the same pages and links.
 */
function assertEqualCrawls(actual: CrawlSnapshot, expected: CrawlSnapshot, sameOrder: boolean): void {
  assert.deepEqual(new Set(actual.pages.keys()), new Set(expected.pages.keys()), 'the same pages');
  assert.deepEqual(actual.links, expected.links, 'the same links');
  for (const [url, want] of expected.pages) {
    const got = actual.pages.get(url)!;
    assert.equal(got.status, want.status, `${url}: status`);
    if (!sameOrder) continue;
    assert.equal(got.fetchSeq, want.fetchSeq, `${url}: fetch order`);
    assert.ok(Math.abs(got.opic.cash - want.opic.cash) < 1e-9, `${url}: cash ${got.opic.cash} vs ${want.opic.cash}`);
    assert.ok(Math.abs(got.opic.history - want.opic.history) < 1e-9, `${url}: history ${got.opic.history} vs ${want.opic.history}`);
  }
  for (const key of ['pages', 'links', 'fetched', 'failed', 'frontier'] as const) assert.equal(actual.counts[key], expected.counts[key], key);
}

/** Every page was asked for once: no write was lost (a lost write would make a resume ask again). */
function assertEachPageAskedOnce(served: ServedWebsite): void {
  for (const [path, count] of served.requests) if (!isHostFile(path)) assert.equal(count, 1, `${path} requested ${count} times`);
}

const pgServer = await startTestServer();
if (typeof pgServer === 'string') {
  missingToolTest('the store fails during a crawl (PostgreSQL)', 'postgres', pgServer);
} else {
  const server: TestServer = pgServer;
  after(() => server.stop());
  const urlWith = (url: string, params: string): string => `${url}${url.includes('?') ? '&' : '?'}${params}`;

  describe('PostgreSQL fails in the middle of a crawl', () => {
    let expected: CrawlSnapshot;

    it('an undisturbed crawl, twice, gives the same store (the reference is deterministic)', { timeout: 60_000 }, async () => {
      expected = await reference(async () => PostgresStore.open(await server.createDatabase()));
      const again = await reference(async () => PostgresStore.open(await server.createDatabase()));
      assertEqualCrawls(again, expected, true);
      assertCrawlInvariants(again);
      assert.equal(expected.counts.fetched, 300);
    });

    /**
     * A crawl into a new database (URL parameters `params`) through an outage: `breakStore` once the
     * site has answered 80 pages, `mendStore` after `outageMs`. Returns the crawl's notices, after
     * checking that it ended as the undisturbed crawl, each page asked for once.
     */
    const crawlThroughOutage = async (params: string, breakStore: () => void, mendStore: () => void, outageMs: number): Promise<string[]> => {
      const served = await serveWebsite(site, { delayMs: ANSWER_DELAY_MS });
      const store = await PostgresStore.open(urlWith(await server.createDatabase(), params));
      const notices: string[] = [];
      let broken = false;
      try {
        const crawl = Crawler.run(store, settingsFor(served, { storeRetryMs: 60_000 }), { onNotice: (m) => notices.push(m) });
        await afterRequests(served, 80);
        breakStore();
        broken = true;
        await sleep(outageMs);
        mendStore();
        broken = false;
        const report: CrawlReport = await crawl;
        assert.equal(report.stoppedBy, 'done');
        for (const m of notices) assert.ok(!m.includes('\n'), 'notices are one line');
        const snap = await snapshot(store);
        assertCrawlInvariants(snap);
        assertEqualCrawls(withoutOrigin(snap, served.origin), expected, true);
        assertEachPageAskedOnce(served);
        return notices;
      } finally {
        if (broken) mendStore();
        await store.close();
        await served.close();
      }
    };

    for (const mode of ['fast', 'immediate'] as const) {
      it(`stopped (${mode}) and restarted: the crawl waits, goes on, and ends as the undisturbed crawl`, { timeout: 90_000 }, async () => {
        const notices = await crawlThroughOutage('connect_timeout=2', () => server.halt(mode), () => server.restart(), 1500);
        assert.ok(notices.some((m) => /did not take a checkpoint/.test(m)), notices.join('\n'));
        assert.ok(notices.some((m) => /answers again/.test(m)), notices.join('\n'));
      });
    }

    it('paused (SIGSTOP) past query_timeout, then thawed: the crawl waits, goes on, and ends as the undisturbed crawl', { timeout: 90_000 }, async () => {
      const notices = await crawlThroughOutage('connect_timeout=1&query_timeout=700', () => server.pause(), () => server.resume(), 2500);
      assert.ok(notices.some((m) => /did not take a checkpoint: .*(query_timeout|in time)/.test(m)), notices.join('\n'));
    });

    it('stopped for longer than --store-retry: one line naming the store and --resume; resumed later, the crawl ends as the undisturbed one', { timeout: 90_000 }, async () => {
      const served = await serveWebsite(site, { delayMs: ANSWER_DELAY_MS });
      const url = urlWith(await server.createDatabase(), 'connect_timeout=2');
      let halted = false;
      try {
        const crawl = runCli(['crawl', `${served.origin}/`, '--db', url, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--concurrency', '1', '--per-host', '1',
          '--checkpoint', '100', '--no-live', '--store-retry', '1.5', '-q']);
        await afterRequests(served, 80);
        server.halt('fast');
        halted = true;
        const result = await crawl;
        assert.equal(result.code, 75, result.stderr);
        // A notice when the trouble starts, then the error: one line each.
        const lines = result.stderr.trim().split('\n');
        assert.equal(lines.length, 2, result.stderr);
        assert.match(lines[0]!, /^wga: postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+\?connect_timeout=2: the store did not take a checkpoint: .*; trying again for up to 1\.5 s$/);
        assert.match(lines[1]!, /^wga: postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+\?connect_timeout=2: .*tried again for [\d.]+ s\. The crawl stopped; .*continue with wga crawl --resume --db postgres:/);
      } finally {
        if (halted) server.restart();
      }
      // Continued by a new process, as a user would (the stopped crawl's lock names a process now gone).
      const resumed = await runCli(['crawl', '--resume', '--db', url, '-q', '--json']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal((JSON.parse(resumed.stdout) as { stoppedBy: string }).stoppedBy, 'done');
      const again = await PostgresStore.open(url);
      try {
        const snap = await snapshot(again);
        assertCrawlInvariants(snap);
        // Fetches after the last checkpoint taken were not stored: they are made again, so the
        // order (and OPIC's cash) may differ; the pages and links are the same.
        assertEqualCrawls(withoutOrigin(snap, served.origin), expected, false);
      } finally {
        await again.close();
        await served.close();
      }
    });
  });

  describe('PostgreSQL stops in the middle of a shared crawl', () => {
    it('each instance stops with one line saying how to rejoin; instances joining later finish the crawl to the same pages and links', { timeout: 120_000 }, async () => {
      const served = await serveWebsite(site, { delayMs: ANSWER_DELAY_MS });
      const url = urlWith(await server.createDatabase(), 'connect_timeout=2');
      const common = ['--allow-ip', '127.0.0.1/32', '--delay', '0', '--checkpoint', '100', '--no-live', '-q'];
      let halted = false;
      try {
        // The first process creates the shared crawl and works on it; a second joins it.
        const instances = [runCli(['crawl', `${served.origin}/`, '--shared', '--lease', '1000', '--db', url, ...common])];
        await afterRequests(served, 10);
        instances.push(runCli(['crawl', '--join', '--db', url, '-q']));
        // The second instance has joined (registered in the store) before the server stops: on a
        // loaded machine its start can take longer than the first instance's next 50 pages.
        for (let waited = 0; (await sharedCrawlInstances(url)).length < 2; waited += 50) {
          if (waited > 60_000) throw new Error('the second instance did not join within 60 s');
          await sleep(50);
        }
        await afterRequests(served, pageRequests(served) + 20);
        server.halt('fast');
        halted = true;
        for (const result of await Promise.all(instances)) {
          assert.equal(result.code, 75, result.stderr);
          const lines = result.stderr.trim().split('\n');
          assert.equal(lines.length, 1, result.stderr);
          assert.match(lines[0]!, /^wga: postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+\?connect_timeout=2: .*This instance stopped; .*join again: wga crawl --join --db postgres:/);
        }
        server.restart();
        halted = false;
        const rejoined = await runCli(['crawl', '--join', '--db', url, '-q', '--json']);
        assert.equal(rejoined.code, 0, rejoined.stderr);
        const store = await PostgresStore.open(url);
        try {
          const model = modelCrawl(site, { seed: `${served.origin}/` });
          assertMatchesModel(await snapshot(store), model);
        } finally {
          await store.close();
        }
      } finally {
        if (halted) server.restart();
        await served.close();
      }
    });
  });
}

describe('SQLite runs out of room in the middle of a crawl', () => {
  let expected: CrawlSnapshot;

  it('a size-limited database (max_page_count): one line naming the file and the remedy; resumed with room, the crawl ends as the undisturbed one', { timeout: 90_000 }, async () => {
    expected = await reference(async () => SqliteStore.open(newDbPath()));
    const served = await serveWebsite(site, { delayMs: ANSWER_DELAY_MS });
    const path = newDbPath();
    const store = SqliteStore.open(path);
    // max_page_count is a setting of one connection: the checkpoints are written on the store's own
    // (an inline writer) so that it applies to them. The writer thread's failures on a full file
    // system are the tmpfs test's below.
    process.env.WGA_SQLITE_WRITER = 'inline';
    try {
      const pages = Number((store as unknown as { db: { pragma(q: string, o: { simple: true }): unknown } }).db.pragma('page_count', { simple: true }));
      // Room for about a third of the crawl (which grows the file from 17 to 56 pages of 4 kB).
      (store as unknown as { db: { pragma(q: string): unknown } }).db.pragma(`max_page_count = ${pages + 15}`);
      await assert.rejects(Crawler.run(store, settingsFor(served)), (error: unknown) => {
        assert.ok(error instanceof StoreFailureError, String(error));
        assert.equal(error.exitCode, 1);
        assert.equal(error.message.split('\n').length, 1);
        assert.ok(error.message.startsWith(`${path}: the disk (or the database's size limit) is full (SQLITE_FULL). The crawl stopped; `), error.message);
        assert.match(error.message, /continue with wga crawl --resume --db /);
        return true;
      });
    } finally {
      delete process.env.WGA_SQLITE_WRITER;
      await store.close();
    }
    const again = SqliteStore.open(path);
    try {
      const before = await snapshot(again);
      assertCrawlInvariants(before);
      assert.ok(before.counts.fetched > 0 && before.counts.fetched < 300, `stopped in the middle (${before.counts.fetched} fetched)`);
      const report = await Crawler.run(again, settingsFor(served), { resume: true });
      assert.equal(report.stoppedBy, 'done');
      const snap = await snapshot(again);
      assertCrawlInvariants(snap);
      assertEqualCrawls(withoutOrigin(snap, served.origin), expected, false);
    } finally {
      await again.close();
      await served.close();
    }
  });

  for (const failingWrite of [3, 10]) {
  it(`a checkpoint lost to a full disk (the ${failingWrite === 3 ? 'third, robots.txt and the sitemap probe in flight' : 'tenth, pages in flight'}) is the last one written; resumed, the crawl ends as the undisturbed one`, { timeout: 90_000 }, async () => {
    const served = await serveWebsite(site, { delayMs: ANSWER_DELAY_MS });
    const path = newDbPath();
    const store = SqliteStore.open(path);
    // That checkpoint fails as a full disk does; every write is counted.
    let writes = 0;
    let writesAfterFailure = 0;
    const failing = new Proxy(store, {
      get(target, property) {
        if (property === 'writeCrawlBatch') {
          return async (batch: Parameters<Store['writeCrawlBatch']>[0]) => {
            writes++;
            if (writes > failingWrite) writesAfterFailure++;
            if (writes === failingWrite) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
            return target.writeCrawlBatch(batch);
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      // Four requests at a time and a checkpoint after every page: pages in flight when the write fails still finish.
      await assert.rejects(Crawler.run(failing, settingsFor(served, { concurrency: 4, perHost: 4, checkpointPages: 1, checkpointMs: 20 })), (error: unknown) => {
        assert.ok(error instanceof StoreFailureError, String(error));
        assert.match(error.message, /SQLITE_FULL/);
        return true;
      });
      assert.equal(writes, failingWrite);
      assert.equal(writesAfterFailure, 0);
      const before = await snapshot(store);
      assertCrawlInvariants(before);
      const report = await Crawler.run(store, settingsFor(served), { resume: true });
      assert.equal(report.stoppedBy, 'done');
      const snap = await snapshot(store);
      assertCrawlInvariants(snap);
      assertMatchesModel(snap, modelCrawl(site, { seed: `${served.origin}/` }));
    } finally {
      await store.close();
      await served.close();
    }
  });
  }

  it('a full file system (a 1 MB tmpfs): `wga crawl` fails with one line and exit 1; with room again it resumes to the undisturbed crawl', { timeout: 90_000 }, async (t) => {
    const mountPoint = join(dir.path, 'small-fs');
    mkdirSync(mountPoint);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'pipe' });
    } catch (error) {
      // The size-limited database above covers SQLITE_FULL without mounting; say plainly why this one did not run.
      t.skip(`cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}); the max_page_count case above ran instead`);
      return;
    }
    const served = await serveWebsite(new Website({ pages: 3000, seed: 11, hazards: false }), { delayMs: 0 });
    try {
      const path = join(mountPoint, 'crawl.db');
      const result = await runCli(['crawl', `${served.origin}/`, '--db', path, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--concurrency', '4', '--per-host', '4', '--no-live', '-q']);
      assert.equal(result.code, 1, result.stderr);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, /^wga: .*crawl\.db: (the disk .* is full \(SQLITE_FULL\)|input\/output error .*\(SQLITE_IOERR\w*\))\. The crawl stopped; .*--resume/);
      execFileSync('mount', ['-o', 'remount,size=200m', mountPoint]);
      const resumed = await runCli(['crawl', '--resume', '--db', path, '-q', '--json']);
      assert.equal(resumed.code, 0, resumed.stderr);
      const store = SqliteStore.open(path);
      try {
        const snap = await snapshot(store);
        assertCrawlInvariants(snap);
        assert.equal(snap.counts.frontier, 0);
        assertMatchesModel(snap, modelCrawl(new Website({ pages: 3000, seed: 11, hazards: false }), { seed: `${served.origin}/` }));
        // The store on the full file system is whole: a copy opens and checks.
        copyFileSync(path, join(dir.path, 'copied.db'));
        const copy = SqliteStore.open(join(dir.path, 'copied.db'));
        assert.equal((await copy.counts()).pages, snap.counts.pages);
        await copy.close();
      } finally {
        await store.close();
      }
    } finally {
      await served.close();
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });
});
