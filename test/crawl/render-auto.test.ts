/**
 * --render auto's verdicts in real crawls (src/crawl/render-policy.ts, page-pipeline.ts), on a
 * documentation-like site whose menu a script writes (menu-site.ts):
 * - a menu linking only to pages the crawl finds anyway: the host is sampled and read as served
 *   (the same pages and links as --render never, no link marked 'script');
 * - a menu that also links to routes no HTML links to: the host is rendered throughout, the pages
 *   read before the verdict read again, rendered: every page rendered, every link a browser sees;
 * - a short crawl under the default budget starts no browser at all;
 * - no Chromium process outlives a crawl killed with SIGKILL while rendering.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Crawler, type CrawlReport } from '../../src/crawl/crawler.js';
import { findBrowser } from '../../src/crawl/render.js';
import { type CrawlSettings, completeSettings } from '../../src/crawl/settings.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { PageRecord } from '../../src/store/store.js';
import { cliPath, missingToolTest, temporaryDirectory } from '../helpers.js';
import { runCli } from './crawl-fixtures.js';
import { HIDDEN, type MenuSite, serveMenuSite } from './menu-site.js';

const PAGES = 40;
const dir = temporaryDirectory();
after(() => dir.cleanup());
let counter = 0;
const newDb = (): string => join(dir.path, `auto-${++counter}.sqlite`);
const browser = findBrowser(process.env.WGA_CHROMIUM ?? null);

function settingsFor(site: MenuSite, extra: Partial<CrawlSettings> = {}): CrawlSettings {
  return completeSettings({ seeds: [`${site.origin}/p/0`], allowIp: ['127.0.0.1/32'], delayMs: 0, concurrency: 4, renderQuietMs: 100, live: false, browser, ...extra });
}

interface Stored {
  pages: Map<string, PageRecord>;
  /** "source target" of anchors, and those marked as found by rendering only. */
  anchors: Set<string>;
  scripted: Set<string>;
}

async function crawlAndRead(settings: CrawlSettings): Promise<{ report: CrawlReport; stored: Stored }> {
  const path = newDb();
  const store = SqliteStore.open(path);
  try {
    const report = await Crawler.run(store, settings);
    const pages = new Map<string, PageRecord>();
    const urls = new Map<number, string>();
    for await (const batch of store.pageBatches()) for (const p of batch) (pages.set(p.url, p), urls.set(p.id, p.url));
    const anchors = new Set<string>();
    const scripted = new Set<string>();
    for await (const batch of store.linkBatches()) {
      for (const l of batch) {
        if (l.kind !== 'anchor') continue;
        const pair = `${urls.get(l.source)} ${urls.get(l.target)}`;
        anchors.add(pair);
        if (((l.rel ?? 0) & 8) !== 0) scripted.add(pair);
      }
    }
    return { report, stored: { pages, anchors, scripted } };
  } finally {
    await store.close();
  }
}

function assertSameSet(actual: Set<string>, expected: Set<string>, what: string): void {
  const missing = [...expected].filter((x) => !actual.has(x));
  const extra = [...actual].filter((x) => !expected.has(x));
  assert.deepEqual({ missing: missing.slice(0, 6), extra: extra.slice(0, 6), counts: [missing.length, extra.length] }, { missing: [], extra: [], counts: [0, 0] }, what);
}

/** Processes whose environment holds `tag` (a crawl's Chromium inherits the crawl's environment). */
function processesTagged(tag: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(tag)) pids.push(Number(entry));
    } catch {
      // Ended, or not ours to read.
    }
  }
  return pids;
}

if (browser === null) {
  describe('--render auto on a site whose menu a script writes', () => missingToolTest('judges hosts by rendering samples', 'browser', 'no Chromium (apt-get install chromium, or set WGA_CHROMIUM)'));
} else {
  describe('--render auto on a site whose menu a script writes', { timeout: 300_000 }, () => {
    it('a menu of pages found anyway: sampled, then read as served, as --render never reads it', async () => {
      const site = await serveMenuSite(PAGES, { hidden: false });
      try {
        // A budget large enough that this short crawl (10 ms between requests) affords its sample.
        const auto = await crawlAndRead(settingsFor(site, { render: 'auto', renderBudget: 100, delayMs: 10 }));
        const never = await crawlAndRead(settingsFor(site, { render: 'never' }));
        assert.deepEqual([...auto.stored.pages.keys()].sort(), [...never.stored.pages.keys()].sort());
        assertSameSet(auto.stored.anchors, never.stored.anchors, 'auto stores the links never stores');
        assert.equal(auto.stored.scripted.size, 0, 'no link found by rendering is stored');
        assert.equal([...auto.stored.pages.values()].filter((p) => p.rendered !== null).length, 0, 'no page recorded as rendered');
        const [host] = auto.report.renderHosts;
        assert.equal(auto.report.renderHosts.length, 1);
        assert.equal(host!.verdict, 'plain');
        assert.equal(host!.sampled, 3);
        assert.match(host!.reason, /read as served: rendering 3 pages found no URL the crawl did not find anyway; --render always renders every page/);
        assert.ok(auto.report.renderer!.rendered >= 3, 'the samples were rendered');
      } finally {
        await site.close();
      }
    });

    it('a menu with routes no HTML links to: the host rendered throughout, pages read before the verdict read again', async () => {
      const site = await serveMenuSite(PAGES, { hidden: true });
      try {
        const { report, stored } = await crawlAndRead(settingsFor(site, { render: 'auto', renderBudget: 100, delayMs: 10 }));
        assertSameSet(new Set(stored.pages.keys()), site.pages, 'every page a browser user reaches');
        assertSameSet(stored.anchors, site.links, 'every link a browser user sees');
        assertSameSet(stored.scripted, site.menuOnly, "the menu's links marked as found by rendering only");
        // All or none: every page of the host rendered.
        const notRendered = [...stored.pages.values()].filter((p) => p.rendered !== 'settled').map((p) => p.url);
        assert.deepEqual(notRendered, []);
        const [host] = report.renderHosts;
        assert.equal(host!.verdict, 'render');
        assert.equal(host!.newUrls, HIDDEN);
        assert.match(host!.reason, new RegExp(`rendered: rendering found ${HIDDEN} URLs the crawl did not know .*--render never`));
        // The pages read before the verdict were read again; the hidden ones once.
        const again = [...site.requests.entries()].filter(([, n]) => n > 1).map(([p]) => p);
        assert.ok(again.length >= 10, `pages read before the verdict read again (${again.length})`);
        assert.ok(again.every((p) => p.startsWith('/p/')), again.join(' '));
        assert.ok([...site.requests.values()].every((n) => n <= 2), 'no page read more than twice');
        assert.equal(report.fetched, site.pages.size, 'a page read again is counted once');
      } finally {
        await site.close();
      }
    });

    it('the default budget: a crawl of a few seconds starts no browser, and the CLI says per host what was decided', async () => {
      const site = await serveMenuSite(PAGES, { hidden: true });
      try {
        const db = newDb();
        const result = await runCli(['crawl', `${site.origin}/p/0`, '--db', db, '--browser', browser, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--no-live']);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /rendered \(--render auto\)\s+none/);
        assert.match(result.stdout, new RegExp(`${site.origin.replace(/[.]/g, '\\.')}\\s+not judged: the crawl's time did not afford a sample within --render-budget 0\\.25; --render always renders every page`));
        const json = await runCli(['crawl', `${site.origin}/p/0`, '--db', newDb(), '--browser', browser, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--no-live', '--json']);
        const report = JSON.parse(json.stdout) as CrawlReport;
        assert.equal(report.renderer?.launches ?? 0, 0, 'no browser started');
        assert.deepEqual(report.renderHosts.map((h) => [h.host, h.verdict]), [[site.origin, 'undecided']]);
      } finally {
        await site.close();
      }
    });

    it('no Chromium process outlives a crawl killed with SIGKILL while rendering', async () => {
      const site = await serveMenuSite(PAGES, { hidden: false });
      try {
        const tag = `WGA_TEST_TAG=kill-${process.pid}-${Date.now()}`;
        const child = spawn(process.execPath, [cliPath, 'crawl', `${site.origin}/p/0`, '--db', newDb(), '--render', 'always', '--browser', browser, '--allow-ip', '127.0.0.1/32', '--delay', '200', '--no-live', '-q'], {
          stdio: 'ignore',
          env: { ...process.env, [tag.split('=')[0]!]: tag.split('=')[1]! },
        });
        let seen: number[] = [];
        for (let i = 0; i < 600 && seen.length < 2; i++) {
          await new Promise((r) => setTimeout(r, 100));
          seen = processesTagged(tag).filter((pid) => pid !== child.pid);
        }
        assert.ok(seen.length >= 2, `the crawl's browser was running (${seen.length} processes)`);
        child.kill('SIGKILL');
        await new Promise((r) => child.on('close', r));
        let left = processesTagged(tag);
        for (let i = 0; i < 100 && left.length > 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
          left = processesTagged(tag);
        }
        assert.deepEqual(left, [], 'Chromium processes left 10 s after the crawl was killed');
      } finally {
        await site.close();
      }
    });
  });
}
