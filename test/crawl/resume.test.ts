/**
 * A crawl killed with SIGKILL resumes from its last checkpoint (crawl/checkpoint.ts)
 * and ends exactly as an uninterrupted crawl: same pages, same links, nothing
 * that was committed fetched again, every page read by OPIC once, total cash 1.
 * The crawl runs in a child process (`wga crawl`), the site in this one, so the
 * site's request log spans the kill.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Crawler } from '../../src/crawl/crawler.js';
import { completeSettings } from '../../src/crawl/settings.js';
import { WgaError } from '../../src/errors.js';
import { Website } from '../../src/experiments/website.js';
import { serveWebsite } from '../../src/experiments/website-server.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { CRAWL_STATE, type CrawlLock } from '../../src/store/store.js';
import { cliPath, temporaryDirectory } from '../helpers.js';
import { type CrawlSnapshot, assertCrawlInvariants, assertMatchesModel, modelCrawl, requestedPaths, runCli, snapshot, withoutOrigin } from './crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

const FENCE = '/calendar/';
/** Fetches committed before the kill: enough to be mid-crawl, far from the end. */
const KILL_AFTER = 400;

async function read(path: string): Promise<CrawlSnapshot> {
  const store = SqliteStore.open(path);
  try {
    return await snapshot(store);
  } finally {
    await store.close();
  }
}

/** The fetches committed to a store being written by another process, or -1 while it has no pages table. */
function committedFetches(db: Database.Database | null): number {
  if (db === null) return -1;
  try {
    return db.prepare('SELECT count(*) FROM pages WHERE fetch_seq IS NOT NULL').pluck().get() as number;
  } catch {
    return -1;
  }
}

/** The store's tried /sitemap.xml origins and their answers. */
function probesOf(path: string): Array<{ origin: string; status: number | null }> {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT origin, status FROM sitemap_probes ORDER BY origin').all() as Array<{ origin: string; status: number | null }>;
  } finally {
    db.close();
  }
}

function total(requests: Map<string, number>): number {
  return [...requests.values()].reduce((a, b) => a + b, 0);
}

/** A page's stored answer, for comparing crawls of two servers. */
function answers(snap: CrawlSnapshot): Map<string, [number | null, string | null, string | null]> {
  return new Map([...snap.pages.values()].map((p) => [withoutOrigin(p.url), [p.status, p.contentType, p.error]]));
}

describe('a crawl killed with SIGKILL', () => {
  // Two crawls of 2,000 pages and four `wga` processes: minutes on a loaded 2-core machine.
  it('resumes to the same crawl as an uninterrupted one, fetching nothing committed again', { timeout: 600_000 }, async () => {
    const site = new Website({ pages: 2000, seed: 11 });

    // The reference: one uninterrupted crawl of the same site, on a server of its own.
    const referenceServer = await serveWebsite(site);
    const referenceStore = SqliteStore.open(join(dir.path, 'reference.db'));
    let reference: CrawlSnapshot;
    try {
      await Crawler.run(referenceStore, completeSettings({ seeds: [`${referenceServer.origin}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, fences: [FENCE] }));
      reference = await snapshot(referenceStore);
      assertMatchesModel(reference, modelCrawl(site, { seed: `${referenceServer.origin}/`, fences: [new RegExp(FENCE)] }));
    } finally {
      await referenceStore.close();
      await referenceServer.close();
    }

    // Each answer waits a little, so the crawl takes a few seconds and is killed in its middle.
    const served = await serveWebsite(site, { delayMs: 2 });
    const db = join(dir.path, 'killed.db');
    let child: ChildProcess | null = null;
    try {
      const origin = served.origin;
      child = spawn(
        process.execPath,
        [cliPath, 'crawl', `${origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--checkpoint', '50', '--fence', FENCE, '--per-host', '2', '-q'],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let childErr = '';
      child.stderr!.on('data', (d: Buffer) => (childErr += d.toString()));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child!.on('exit', (code, signal) => resolve(signal ?? code)));
      let exitedEarly: NodeJS.Signals | number | null | undefined;
      void exited.then((how) => (exitedEarly = how));

      // Watch the store (read-only) until enough fetches are committed, then kill.
      let reader: Database.Database | null = null;
      const deadline = Date.now() + 300_000;
      while (committedFetches(reader) < KILL_AFTER) {
        assert.equal(exitedEarly, undefined, `the crawl ended (${String(exitedEarly)}) before it could be killed: ${childErr}`);
        assert.ok(Date.now() < deadline, `${committedFetches(reader)} fetches committed in 300 s`);
        if (reader === null && existsSync(db)) {
          try {
            reader = new Database(db, { readonly: true, fileMustExist: true });
          } catch {
            reader = null;
          }
        }
        await sleep(20);
      }
      reader?.close();
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      // Requests the crawler sent just before it died may still be unread: count them before the kill's.
      await served.idle();
      const phase1 = new Map(served.requests);

      // What the kill left: a consistent checkpoint, mid-crawl, still locked by the dead crawler.
      const killed = await read(db);
      const committed = [...killed.pages.values()].filter((p) => p.fetchSeq !== null);
      const killedProbes = probesOf(db);
      assert.ok(committed.length >= KILL_AFTER, `${committed.length} fetches committed`);
      assert.ok(killed.counts.frontier > 0, 'killed before the end');
      assertCrawlInvariants(killed);
      const deadLock = JSON.parse(killed.state[CRAWL_STATE.lock]!) as CrawlLock;
      assert.equal(deadLock.pid, child.pid);
      for (const [path, n] of phase1) assert.equal(n, 1, `${path} requested ${n} times before the kill`);

      // What `wga top --score opic` shows of a running crawl: the live estimates of the checkpoint sum to 1.
      const live = SqliteStore.open(db);
      const estimates = (await live.liveOpicTop(killed.pages.size))!;
      await live.close();
      assert.equal(estimates.length, killed.pages.size);
      const sum = estimates.reduce((s, e) => s + e.value, 0);
      assert.ok(Math.abs(sum - 1) < 1e-9, `live OPIC estimates sum to ${sum}`);

      // A lock held by a live process is respected: the resume is refused, nothing is requested or changed.
      const writer = new Database(db);
      const setLock = (value: string): void => void writer.prepare('UPDATE crawl_state SET value = ? WHERE key = ?').run(value, CRAWL_STATE.lock);
      const liveLock: CrawlLock = { owner: 'test', hostname: hostname(), pid: process.pid, heartbeat: Date.now() };
      setLock(JSON.stringify(liveLock));
      const refused = await runCli(['crawl', '--resume', '--db', db, '-q']);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, new RegExp(`another crawler \\(pid ${process.pid} on ${hostname().replace(/\./g, '\\.')}\\)`));
      assert.equal(total(served.requests), total(phase1), 'no request while refused');
      const untouched = await read(db);
      assert.deepEqual(untouched.pages, killed.pages);
      assert.deepEqual(untouched.links, killed.links);
      // The dead crawler's lock again: its process is gone, so the resume takes it over.
      setLock(killed.state[CRAWL_STATE.lock]!);
      writer.close();

      const resumed = await runCli(['crawl', '--resume', '--db', db, '--json', '-q']);
      assert.equal(resumed.code, 0, resumed.stderr);
      const report = JSON.parse(resumed.stdout) as { stoppedBy: string; fetches: number; totalCash: number };
      assert.equal(report.stoppedBy, 'done');
      const phase2 = new Map([...served.requests].map(([path, n]) => [path, n - (phase1.get(path) ?? 0)]));

      // Nothing committed before the kill is asked again; everything else is asked once.
      const final = await read(db);
      const committedPaths = new Set(committed.map((p) => new URL(p.url).pathname));
      for (const path of committedPaths) assert.equal(phase2.get(path) ?? 0, 0, `${path} was committed before the kill and requested again`);
      for (const page of final.pages.values()) {
        const path = new URL(page.url).pathname;
        const excluded = (page.error ?? '').startsWith('excluded:');
        const expected = committedPaths.has(path) || excluded ? 0 : 1;
        assert.equal(phase2.get(path) ?? 0, expected, `${path} requests after the kill`);
      }
      assert.equal(phase2.get('/robots.txt'), 1, 'robots.txt once per session');
      // The site has no sitemap: /sitemap.xml is tried once per crawl and leaves no page, only its
      // answer in sitemap_probes; a try the kill kept from the store is made again.
      const probedBefore = killedProbes.length === 1;
      if (probedBefore) assert.deepEqual(killedProbes, [{ origin: served.origin, status: 404 }]);
      assert.equal(phase2.get('/sitemap.xml') ?? 0, probedBefore ? 0 : 1, 'the /sitemap.xml probe once per crawl');
      assert.deepEqual(probesOf(db), [{ origin: served.origin, status: 404 }]);
      assert.equal(total(phase2), final.pages.size - committed.length - final.counts.excluded + (probedBefore ? 1 : 2), 'no other request');

      // The final store is the uninterrupted crawl's, with the committed fetches' order kept.
      assert.deepEqual(new Set([...final.pages.keys()].map(withoutOrigin)), new Set([...reference.pages.keys()].map(withoutOrigin)));
      assert.deepEqual(new Set([...final.links].map(withoutOrigin)), new Set([...reference.links].map(withoutOrigin)));
      assert.deepEqual(answers(final), answers(reference));
      assertCrawlInvariants(final);
      for (const page of committed) assert.equal(final.pages.get(page.url)!.fetchSeq, page.fetchSeq, page.url);
      assert.equal(report.fetches, requestedPaths(modelCrawl(site, { seed: `${origin}/`, fences: [new RegExp(FENCE)] })).length);
      assert.ok(Math.abs(report.totalCash - 1) < 1e-9);
      assert.equal(final.state[CRAWL_STATE.lock], undefined, 'the lock is released at the end');

      // Resuming a finished crawl does nothing: no request, the same pages, links and OPIC state.
      const again = await runCli(['crawl', '--resume', '--db', db, '--json', '-q']);
      assert.equal(again.code, 0, again.stderr);
      assert.equal((JSON.parse(again.stdout) as { stoppedBy: string }).stoppedBy, 'done');
      assert.equal(total(served.requests), total(phase1) + total(phase2), 'no request when resuming a finished crawl');
      const afterAgain = await read(db);
      assert.deepEqual(afterAgain.pages, final.pages);
      assert.deepEqual(afterAgain.links, final.links);
      assert.equal(afterAgain.state[CRAWL_STATE.opic], final.state[CRAWL_STATE.opic]);
    } finally {
      if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await served.close();
    }
  });
});

describe('the crawl lock', () => {
  it("of another machine is respected while its heartbeat is recent, taken over when it is stale", async () => {
    const site = new Website({ pages: 40, seed: 6 });
    const served = await serveWebsite(site);
    const store = SqliteStore.open(join(dir.path, 'locks.db'));
    try {
      const settings = completeSettings({ seeds: [`${served.origin}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, fences: [FENCE], maxPages: 5 });
      await Crawler.run(store, settings);
      const before = await snapshot(store);
      const requests = total(served.requests);
      // Another machine's crawler: its pid means nothing here, only its heartbeat tells whether it runs.
      const elsewhere: CrawlLock = { owner: 'elsewhere', hostname: 'crawler-2.example', pid: 1, heartbeat: Date.now() };
      assert.equal(await store.takeCrawlLock(elsewhere, () => true), null);
      await assert.rejects(Crawler.run(store, { ...settings, maxPages: null }, { resume: true }), (error: unknown) => {
        assert.ok(error instanceof WgaError);
        assert.match(error.message, /another crawler \(pid 1 on crawler-2\.example\)/);
        return true;
      });
      assert.equal(total(served.requests), requests);
      assert.deepEqual((await snapshot(store)).pages, before.pages);

      // Ten minutes without a checkpoint: that crawler is gone.
      assert.equal(await store.takeCrawlLock({ ...elsewhere, heartbeat: Date.now() - 600_000 }, () => true), null);
      const report = await Crawler.run(store, { ...settings, maxPages: null }, { resume: true });
      assert.equal(report.stoppedBy, 'done');
      const final = await snapshot(store);
      assertMatchesModel(final, modelCrawl(site, { seed: `${served.origin}/`, fences: [new RegExp(FENCE)] }));
      assertCrawlInvariants(final);
      assert.equal(final.state[CRAWL_STATE.lock], undefined);
    } finally {
      await store.close();
      await served.close();
    }
  });
});

describe('a store checkpointed before Adaptive OPIC kept rates', () => {
  it('resumes with its window histories read as H relative to the stored window, as a store of rates resumes', { timeout: 120_000 }, async () => {
    const site = new Website({ pages: 150, seed: 23 });
    const served = await serveWebsite(site);
    try {
      // A refreshing crawl stopped after 250 fetches: its pages have read histories worth comparing.
      const settings = completeSettings({ seeds: [`${served.origin}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, fences: [FENCE], refresh: true, maxPages: 250 });
      const current = join(dir.path, 'rates.db');
      let store = SqliteStore.open(current);
      await Crawler.run(store, settings).finally(() => store.close());
      // The same store as an older build left it: window_history = R x T, no opic_window_rates.
      const legacy = join(dir.path, 'legacy.db');
      const db = new Database(current);
      await db.backup(legacy);
      db.close();
      const old = new Database(legacy);
      const window = Number(old.prepare('SELECT value FROM crawl_state WHERE key = ?').pluck().get(CRAWL_STATE.window));
      assert.ok(window > 0, 'the crawl stored its window');
      assert.ok((old.prepare('SELECT count(*) FROM pages WHERE window_history > 0').pluck().get() as number) > 100);
      old.prepare('UPDATE pages SET window_history = window_history * ?').run(window);
      old.prepare('DELETE FROM crawl_state WHERE key = ?').run(CRAWL_STATE.windowRates);
      old.close();
      const adaptiveAfterResume = async (path: string): Promise<Float64Array> => {
        const s = SqliteStore.open(path);
        try {
          await Crawler.run(s, { ...settings, maxPages: 400 }, { resume: true });
          const run = await s.latestRun('opic-adaptive');
          assert.ok(run !== null);
          return await s.runScores(run.id, Float64Array.from({ length: 160 }, (_, i) => i + 1));
        } finally {
          await s.close();
        }
      };
      const fromRates = await adaptiveAfterResume(current);
      const fromLegacy = await adaptiveAfterResume(legacy);
      assert.ok(fromRates.some((x) => x > 0));
      for (let i = 0; i < fromRates.length; i++) {
        assert.ok(Math.abs(fromRates[i]! - fromLegacy[i]!) <= 1e-12 * Math.max(1e-3, fromRates[i]!), `page ${i + 1}: ${fromRates[i]} against ${fromLegacy[i]}`);
      }
      store = SqliteStore.open(legacy);
      await store.close();
    } finally {
      await served.close();
    }
  });
});
