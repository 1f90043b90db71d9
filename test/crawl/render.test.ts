/**
 * Rendering pages in Chromium while crawling (--render, src/crawl/render.ts) on a generated
 * single-page application (app-site.ts): every page and link a user reaches by clicking is
 * recorded with --render always and auto, only the seed with never; links only rendering found
 * carry the 'script' mark; subresources on refused addresses, robots-disallowed paths and of
 * blocked types are never requested; a crawl killed while rendering resumes to the same graph;
 * a shared crawl renders too; a missing browser is one line.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Crawler, type CrawlReport } from '../../src/crawl/crawler.js';
import { browserProcesses, findBrowser } from '../../src/crawl/render.js';
import { type CrawlSettings, completeSettings } from '../../src/crawl/settings.js';
import { joinSharedCrawl, startSharedCrawl } from '../../src/app/shared-crawl.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { PageRecord, Store } from '../../src/store/store.js';
import { cliPath, missingToolTest, temporaryDirectory } from '../helpers.js';
import { type AppSite, serveAppSite } from './app-site.js';
import { runCli } from './crawl-fixtures.js';
import { startTestServer } from '../store/postgres-server.js';

// Enough pages for every part of the application (the tree, cross links, the special routes) at any
// concurrency, few enough that the suite stays bounded on a loaded 2-core machine.
const PAGES = 80;
const dir = temporaryDirectory();
after(() => dir.cleanup());
let counter = 0;
const newDb = (): string => join(dir.path, `render-${++counter}.sqlite`);
const browser = findBrowser(process.env.WGA_CHROMIUM ?? null);

function settingsFor(site: AppSite, extra: Partial<CrawlSettings> = {}): CrawlSettings {
  return completeSettings({ seeds: [`${site.origin}/p/0`], allowIp: ['127.0.0.1/32'], delayMs: 0, concurrency: 8, // /p/never never settles: each crawl waits renderTimeoutMs for it, so it is kept short.
    renderTimeoutMs: 8000, renderQuietMs: 500, renderConcurrency: 4, live: false, ...extra });
}

async function crawl(path: string, settings: CrawlSettings): Promise<CrawlReport> {
  const store = SqliteStore.open(path);
  try {
    return await Crawler.run(store, settings);
  } finally {
    await store.close();
  }
}

interface Stored {
  pages: Map<string, PageRecord>;
  /** "kind source target" */
  links: Set<string>;
  /** "source target" of anchors with their rel tokens */
  rel: Map<string, string[]>;
}

async function stored(path: string): Promise<Stored> {
  const store: Store = path.startsWith('postgres') ? await PostgresStore.open(path) : SqliteStore.open(path);
  try {
    const pages = new Map<string, PageRecord>();
    const urls = new Map<number, string>();
    for await (const batch of store.pageBatches()) {
      for (const p of batch) {
        pages.set(p.url, p);
        urls.set(p.id, p.url);
      }
    }
    const links = new Set<string>();
    const rel = new Map<string, string[]>();
    for await (const batch of store.linkBatches()) {
      for (const l of batch) {
        const pair = `${urls.get(l.source)} ${urls.get(l.target)}`;
        links.add(`${l.kind} ${pair}`);
        if (l.kind === 'anchor') rel.set(pair, relNames(l.rel ?? 0));
      }
    }
    return { pages, links, rel };
  } finally {
    await store.close();
  }
}

function relNames(bits: number): string[] {
  return (['nofollow', 'ugc', 'sponsored', 'script'] as const).filter((_, i) => (bits & (1 << i)) !== 0);
}

/** What a browser user reaches from the seed, as the store should hold it (anchors, and the history API's move as a refresh). */
function expectedLinks(site: AppSite): Set<string> {
  const links = new Set([...site.links].map((pair) => `anchor ${pair}`));
  links.add(`anchor ${site.origin}/p/moved-to ${site.origin}/p/3`);
  links.add(`refresh ${site.origin}/p/moved ${site.origin}/p/moved-to`);
  return links;
}

function assertSameSet(actual: Set<string>, expected: Set<string>, what: string): void {
  const missing = [...expected].filter((x) => !actual.has(x));
  const extra = [...actual].filter((x) => !expected.has(x));
  assert.deepEqual({ missing: missing.slice(0, 8), extra: extra.slice(0, 8), counts: [missing.length, extra.length] }, { missing: [], extra: [], counts: [0, 0] }, what);
}

if (browser === null) {
  describe('rendering pages in Chromium', () => missingToolTest('renders pages', 'browser', 'no Chromium (apt-get install chromium, or set WGA_CHROMIUM)'));
} else {
  describe('rendering pages in Chromium (--render)', { timeout: 600_000 }, () => {
    let site: AppSite;
    before(async () => {
      site = await serveAppSite(PAGES);
    });
    after(async () => site.close());

    it('never: the application shell yields the seed alone', async () => {
      const db = newDb();
      const report = await crawl(db, settingsFor(site, { render: 'never' }));
      const s = await stored(db);
      assert.equal(report.fetched, 1);
      assert.deepEqual([...s.pages.keys()], [`${site.origin}/p/0`]);
      assert.equal(s.links.size, 0);
      assert.equal(s.pages.get(`${site.origin}/p/0`)!.rendered, null);
    });

    // The uninterrupted `always` crawl: checked by its own test, and the reference of the kill -9 test.
    let always: Promise<{ db: string; report: CrawlReport }> | null = null;
    const alwaysCrawl = (): Promise<{ db: string; report: CrawlReport }> => {
      always ??= (async () => {
        const db = newDb();
        return { db, report: await crawl(db, settingsFor(site, { render: 'always', browser })) };
      })();
      return always;
    };

    for (const mode of ['always', 'auto'] as const) {
      it(`${mode}: every page and link a user reaches by clicking, marked as found by rendering`, async () => {
        site.log.length = 0;
        site.refusedLog.length = 0;
        let db: string;
        let report: CrawlReport;
        if (mode === 'always') ({ db, report } = await alwaysCrawl());
        else {
          db = newDb();
          report = await crawl(db, settingsFor(site, { render: mode, browser }));
        }
        const s = await stored(db);
        const expected = expectedLinks(site);
        const anchorsAndRefreshes = new Set([...s.links].filter((l) => l.startsWith('anchor ') || l.startsWith('refresh ')));
        assertSameSet(anchorsAndRefreshes, expected, `${mode}: stored links = what a user reaches`);
        const pages = new Set([...expected].flatMap((l) => l.split(' ').slice(1)));
        assertSameSet(new Set(s.pages.keys()), pages, `${mode}: stored pages`);
        assert.ok(pages.size >= PAGES, `at least ${PAGES} pages (${pages.size})`);
        // Every routed link was written by the script: marked so; the static page's links were not.
        for (const [pair, rel] of s.rel) {
          const fromStatic = pair.startsWith(`${site.origin}/static.html `);
          assert.equal(rel.includes('script'), !fromStatic, `${pair}: ${rel.join(' ')}`);
        }
        assert.deepEqual(s.rel.get(`${site.origin}/p/0 ${site.origin}/p/1`), ['nofollow', 'script'], 'rel of a scripted link kept');
        // Rendered titles; the static page not rendered under auto (always renders every HTML page).
        assert.equal(s.pages.get(`${site.origin}/p/5`)!.title, 'App /p/5');
        assert.equal(s.pages.get(`${site.origin}/p/5`)!.rendered, 'settled');
        assert.equal(s.pages.get(`${site.origin}/p/never`)!.rendered, 'unsettled');
        assert.equal(s.pages.get(`${site.origin}/static.html`)!.rendered, mode === 'auto' ? null : 'settled');
        assert.equal(report.renderedLinks, [...s.rel.values()].filter((r) => r.includes('script')).length);
        assert.equal(report.rendered, mode === 'auto' ? pages.size - 1 : pages.size);
        // Never requested: the refused address, the robots-disallowed path, the image; the shell's own page once each.
        assert.deepEqual(site.refusedLog, [], 'nothing asked of 127.0.0.2');
        assert.equal(site.log.filter((l) => l.includes('/private/')).length, 0, 'robots.txt-disallowed fetch not requested');
        assert.equal(site.log.filter((l) => l.endsWith('/logo.png')).length, 0, 'image not requested');
        assert.equal(site.log.filter((l) => l.endsWith(' /p/7')).length, 1, 'a page is fetched once (the browser renders the body fetched)');
        // Subresources fetched once for the crawl, then reused.
        assert.equal(site.log.filter((l) => l.endsWith('/app.js')).length, 1);
        assert.equal(site.log.filter((l) => l.endsWith('/routes.json')).length, 1);
      });
    }

    it('auto renders none of the pages of a static site', async () => {
      const db = newDb();
      const report = await crawl(db, settingsFor(site, { seeds: [`${site.origin}/static.html`], render: 'auto', browser, maxDepth: 0 }));
      const s = await stored(db);
      assert.equal(report.rendered, 0);
      assert.equal(report.renderer?.launches ?? 0, 0, 'no browser started');
      assert.equal(s.pages.get(`${site.origin}/static.html`)!.rendered, null);
    });

    it('kill -9 while rendering, then --resume: the same pages and links as an uninterrupted crawl', async () => {
      const whole = (await alwaysCrawl()).db;
      const db = newDb();
      site.log.length = 0;
      const args = [cliPath, 'crawl', `${site.origin}/p/0`, '--db', db, '--render', 'always', '--browser', browser, '--allow-ip', '127.0.0.1/32', '--delay', '20',
        '--concurrency', '4', '--render-timeout', '8', '--render-quiet', '250', '--checkpoint', '50', '--no-live', '-q'];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      // Killed once some pages are stored and others are being rendered.
      for (let i = 0; i < 600; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const fetched = site.log.filter((l) => / \/p\/\d+$/.test(l)).length;
        if (fetched >= PAGES / 2) break;
      }
      child.kill('SIGKILL');
      await new Promise((r) => child.on('close', r));
      const partial = await stored(db);
      assert.ok(partial.pages.size > 0, 'some pages were stored before the kill');
      const resumed = await runCli(['crawl', '--resume', '--db', db, '--browser', browser, '-q']);
      assert.equal(resumed.code, 0, resumed.stderr);
      const a = await stored(whole);
      const b = await stored(db);
      assertSameSet(b.links, a.links, 'links after resume = uninterrupted');
      assertSameSet(new Set(b.pages.keys()), new Set(a.pages.keys()), 'pages after resume = uninterrupted');
      for (const [url, page] of a.pages) assert.equal(b.pages.get(url)!.rendered, page.rendered, url);
    });

    it('a page that hangs the browser fails alone, a killed browser is restarted: the crawl records everything', async (t) => {
      const hanging = await serveAppSite(40, { hang: true });
      try {
        const db = newDb();
        const settings = settingsFor(hanging, { render: 'always', browser, renderTimeoutMs: 5000, concurrency: 4, renderConcurrency: 2, delayMs: 30 });
        const store = SqliteStore.open(db);
        let report: CrawlReport;
        try {
          const running = Crawler.run(store, settings);
          // Kill every Chromium process of this test process once a few pages are rendered.
          let killed = 0;
          for (let i = 0; i < 600 && killed === 0; i++) {
            await new Promise((r) => setTimeout(r, 50));
            if (hanging.log.filter((l) => / \/p\/\d+$/.test(l)).length < 8) continue;
            for (const pid of browserProcesses()) {
              try {
                process.kill(pid, 'SIGKILL');
                killed++;
              } catch {
                // Gone.
              }
            }
          }
          assert.ok(killed > 0, 'the browser was killed during the crawl');
          report = await running;
        } finally {
          await store.close();
        }
        const s = await stored(db);
        const anchorsAndRefreshes = new Set([...s.links].filter((l) => l.startsWith('anchor ') || l.startsWith('refresh ')));
        const notRendered = [...s.pages.values()].filter((p) => p.rendered !== 'settled' && p.rendered !== 'unsettled').map((p) => `${p.url} ${p.rendered} ${p.error}`);
        t.diagnostic(`launches ${report!.renderer!.launches}, failed ${report!.renderer!.failed}; not rendered: ${notRendered.join('; ')}`);
        assertSameSet(anchorsAndRefreshes, expectedLinks(hanging), 'every link despite the hang and the kill');
        assert.equal(s.pages.get(`${hanging.origin}/p/hang`)!.rendered, 'failed');
        assert.deepEqual(s.rel.get(`${hanging.origin}/p/hang ${hanging.origin}/p/1`), [], "the hung page's HTML link stands, unmarked");
        assert.ok(report.renderer!.launches >= 2, `browser restarted (${report.renderer!.launches} launches)`);
        assert.equal(report.renderer!.failed, 1, 'only the hanging page failed');
        assert.equal([...s.pages.values()].filter((p) => p.rendered === 'settled' || p.rendered === 'unsettled').length, s.pages.size - 1);
      } finally {
        await hanging.close();
      }
    });

    it('the CLI reports what rendering did, and refuses --render with a missing browser in one line', async () => {
      const db = newDb();
      const ok = await runCli(['crawl', `${site.origin}/p/0`, '--db', db, '--render', 'always', '--browser', browser, '--allow-ip', '127.0.0.1/32', '--delay', '0',
        '--max-pages', '20', '--render-quiet', '100', '--render-timeout', '4', '--no-live', '-q']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /rendered in Chromium\s+20 pages/);
      assert.match(ok.stdout, /links only rendering found\s+\d+/);
      const missing = await runCli(['crawl', `${site.origin}/p/0`, '--db', join(dir.path, 'never-made.sqlite'), '--render', 'auto', '--browser', '/nonexistent/chromium']);
      assert.equal(missing.code, 2);
      assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
      assert.match(missing.stderr, /--render: no Chromium found \(looked for \/nonexistent\/chromium\): install it \(apt-get install chromium\) or give its path with --browser PATH/);
      const bad = await runCli(['crawl', `${site.origin}/p/0`, '--db', join(dir.path, 'never-made.sqlite'), '--render', 'sometimes']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--render/);
    });
  });
}

const postgres = browser === null ? 'no Chromium' : await startTestServer();
if (typeof postgres === 'string') {
  missingToolTest('a rendering crawl shared by two instances', browser === null ? 'browser' : 'postgres', postgres);
} else {
  after(() => postgres.stop());
  describe('a rendering crawl shared by two instances', { timeout: 600_000 }, () => {
    it('records the pages and links a single rendering crawl records', async () => {
      const site = await serveAppSite(60);
      try {
        const url = await postgres.createDatabase();
        await startSharedCrawl(url, settingsFor(site, { render: 'auto', browser, checkpointMs: 100 }), { partitions: 8 });
        const reports = await Promise.all([joinSharedCrawl(url), joinSharedCrawl(url)]);
        for (const r of reports) assert.equal(r.stoppedBy, 'done');
        const s = await stored(url);
        const anchorsAndRefreshes = new Set([...s.links].filter((l) => l.startsWith('anchor ') || l.startsWith('refresh ')));
        assertSameSet(anchorsAndRefreshes, expectedLinks(site), 'shared: stored links = what a user reaches');
        assert.equal(reports.reduce((n, r) => n + r.rendered, 0), s.pages.size - 1, 'every page rendered but the static one');
        assert.equal(s.pages.get(`${site.origin}/p/5`)!.rendered, 'settled');
        assert.deepEqual(site.refusedLog, []);
      } finally {
        await site.close();
      }
    });
  });
}
