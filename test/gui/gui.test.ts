/**
 * The GUI in a real browser (Debian's Chromium driven by playwright-core), against `wga serve` on
 * loopback: a crawl of the demo site started from the form, watched live and finishing with the
 * counts of `wga crawl`; PageRank and Monte Carlo run from the GUI giving the CLI's top pages and
 * scores; search, links, deep links; deleting the data after confirming; the token check.
 * Skips with one line when Chromium is missing, unless CI requires it (WGA_REQUIRE_BROWSER=1).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { CrawlCounters } from '../../src/crawl/counters.js';
import { Website } from '../../src/experiments/website.js';
import { serveWebsite, type ServedWebsite } from '../../src/experiments/website-server.js';
import { missingToolTest, temporaryDirectory } from '../helpers.js';
import { browserMissing, launchBrowser, type RunningServer, startServer, until, wgaJson } from './harness.js';

/** The demo's fence around its spider trap (src/cli/commands/demo.ts). */
const TRAP_FENCE = '/calendar/[0-9]{2,}\\.html$';
const missing = browserMissing();

/** What `wga crawl --json` reports (the fields compared). */
interface CrawlJson extends CrawlCounters {
  stoppedBy: string;
}
interface RankJson {
  iterations: number;
  top: Array<{ rank: number; label: string; score: number; stdDev?: number }>;
}

/** The rows of the first table under `selector`, as cell texts. */
async function tableRows(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(`${selector} table tbody tr`, (rows) => (rows as unknown as Element[]).map((row) => Array.from(row.querySelectorAll('td'), (cell) => (cell.textContent ?? '').trim())));
}

/** The little of the DOM the page callbacks use (the tests compile without the DOM library). */
interface Element {
  textContent: string | null;
  querySelectorAll(selector: string): ArrayLike<Element>;
  getAttribute(name: string): string | null;
}

/**
 * Holds the demo site's answers past a number of requests until it is opened further: the crawl
 * test sees the counters at two points of a running crawl however fast or loaded the machine is.
 */
class Valve {
  private arrived = 0;
  private limit = Infinity;
  private readonly waiting: Array<() => void> = [];

  readonly hold = (): Promise<void> | undefined => {
    if (this.arrived < this.limit) {
      this.arrived++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  };

  /** Lets `more` requests (Infinity: all) be answered beyond those that arrived so far. */
  allow(more: number): void {
    this.limit = this.arrived + more;
    while (this.waiting.length > 0 && this.arrived < this.limit) {
      this.arrived++;
      this.waiting.shift()!();
    }
  }
}

/** Waits until `selector`'s text is `expected` (views fill in after their requests answer). */
async function waitForText(page: Page, selector: string, expected: string): Promise<void> {
  await until(async () => (await page.textContent(selector)) === expected, 120_000, `${selector} to read ${expected} (it reads ${await page.textContent(selector)})`);
}

function relativeDifference(a: number, b: number): number {
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);
}

if (missing !== null) {
  describe('the GUI in Chromium', () => missingToolTest('drives Chromium', 'browser', missing));
} else {
  describe('the GUI in Chromium', { timeout: 1_200_000 }, () => {
    let browser: Browser;
    let site: ServedWebsite;
    let server: RunningServer;
    let page: Page;
    const dir = temporaryDirectory();
    const db = join(dir.path, 'gui.sqlite');
    const cliDb = join(dir.path, 'cli.sqlite');
    const dialogs: string[] = [];
    const valve = new Valve();

    before(async () => {
      // 300 pages answered after 15 ms each, two at a time; the valve holds the crawl where the test watches it.
      site = await serveWebsite(new Website({ pages: 300, seed: 3 }), { delayMs: 15, hold: valve.hold });
      server = await startServer(db);
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // Generous waits for a loaded 2-core machine (each wait is for a condition, not a time).
      page.setDefaultTimeout(120_000);
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
    });
    after(async () => {
      await browser?.close();
      await server?.close();
      await site?.close();
      dir.cleanup();
    });

    it('refuses a POST or DELETE without the token, from outside and from the page', async () => {
      const bare = await fetch(`${server.origin}/api/crawl`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seeds: [`${site.origin}/`] }) });
      assert.equal(bare.status, 403);
      const body = (await bare.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'forbidden');
      const wrong = await fetch(`${server.origin}/api/reset`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wga-token': 'not-the-token' }, body: JSON.stringify({ confirm: 'delete all data' }) });
      assert.equal(wrong.status, 403);
      await page.goto(`${server.origin}/crawl`);
      const token = await page.getAttribute('meta[name="wga-token"]', 'content');
      assert.ok(token !== null && token.length >= 16, `the page carries a token: ${token}`);
      const statuses = await page.evaluate(async () => {
        const post = await fetch('/api/crawl', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"seeds":["http://127.0.0.1:9/"]}' });
        const del = await fetch('/api/runs/1', { method: 'DELETE' });
        return [post.status, del.status];
      });
      assert.deepEqual(statuses, [403, 403]);
      // A bad setting is refused with the server's message naming it, shown in the form.
      await page.fill('textarea[name=seeds]', `${site.origin}/`);
      await page.click('details[data-group="Options"] > summary');
      await page.fill('textarea[name=fence]', '(unclosed');
      await page.click('button[name=start]');
      await page.waitForSelector('form .notice.error');
      assert.match((await page.textContent('form .notice.error')) ?? '', /fence/);
      const info = await (await fetch(`${server.origin}/api/info`)).json() as { counts: { pages: number }; crawl: { running: boolean } };
      assert.equal(info.counts.pages, 0, 'nothing was crawled');
      assert.equal(info.crawl.running, false);
    });

    it('starts a crawl from the form, shows the counters moving, and ends with the counts of wga crawl', async () => {
      await page.goto(`${server.origin}/crawl`);
      await page.fill('textarea[name=seeds]', `${site.origin}/`);
      // The options panel is closed: a first crawl needs only the URL.
      assert.equal(await page.isVisible('textarea[name=fence]'), false);
      await page.click('details[data-group="Options"] > summary');
      await page.click('details[data-group="Addresses and countries"] > summary');
      await page.fill('textarea[name=allowIp]', '127.0.0.1/32');
      await page.fill('textarea[name=fence]', TRAP_FENCE);
      await page.fill('input[name=delay]', '0');
      await page.fill('input[name=perHost]', '2');
      await page.fill('input[name=concurrency]', '2');
      await page.click('details[data-group="Order and importance"] > summary');
      assert.equal(await page.isChecked('input[name=live]'), true, 'the live PageRank is on by default');
      await page.fill('input[name=liveInterval]', '100');
      // The site answers 100 requests, then holds the crawl until the GUI has shown it running.
      valve.allow(100);
      await page.click('button[name=start]');
      const seen: number[] = [];
      const fetchedWhileRunning = async (): Promise<number | null> => {
        const [running, fetched] = await Promise.all([page.getAttribute('[data-crawl-state]', 'data-running'), page.textContent('[data-counter=fetched]')]);
        const value = Number((fetched ?? '').replace(/,/g, ''));
        return running === 'true' && fetched !== '–' && Number.isInteger(value) ? value : null;
      };
      for (const step of [1, 2]) {
        await until(
          async () => {
            const value = await fetchedWhileRunning();
            if (value === null || value <= (seen[seen.length - 1] ?? 0)) return false;
            seen.push(value);
            return true;
          },
          120_000,
          `the running crawl's fetched counter to move (step ${step}, seen ${seen.join(', ')})`,
        );
        if (step === 2) {
          // Held by the site, still running: the live PageRank of the pages known so far is shown.
          await until(async () => (await tableRows(page, '[data-live-rank]')).length > 0, 60_000, 'the live PageRank to show while crawling');
          assert.equal(await page.getAttribute('[data-crawl-state]', 'data-running'), 'true');
          const rows = await tableRows(page, '[data-live-rank]');
          assert.ok(rows.length <= 10);
          const scores = rows.map((r) => Number(r[1]));
          for (let i = 1; i < scores.length; i++) assert.ok(scores[i - 1]! >= scores[i]!, `best first: ${scores.join(', ')}`);
          assert.match((await page.textContent('[data-live-rank] p')) ?? '', /pages known so far/);
          assert.ok(Number(await page.getAttribute('[data-live-rank] [data-live-pages]', 'data-live-pages')) >= 1);
        }
        valve.allow(step === 1 ? 100 : Infinity);
      }
      await until(async () => (await page.getAttribute('[data-crawl-state]', 'data-running')) === 'false' && (await page.$('[data-report]')) !== null, 240_000, 'the crawl to finish');
      assert.ok(seen.length === 2 && seen[1]! > seen[0]!, `the fetched counter took several values while the crawl ran: ${seen.join(', ')}`);
      const field = async (name: string): Promise<number> => Number(((await page.textContent(`[data-report-field=${name}]`)) ?? '').replace(/,/g, ''));
      const cli = await wgaJson<CrawlJson>(['crawl', `${site.origin}/`, '--db', cliDb, '--allow-ip', '127.0.0.1/32', '--fence', TRAP_FENCE, '--delay', '0', '--per-host', '2', '--concurrency', '2', '--quiet']);
      assert.equal(cli.stoppedBy, 'done');
      assert.equal(await page.textContent('[data-report-field=stoppedBy]'), 'done');
      for (const name of ['known', 'fetched', 'failed', 'excluded', 'redirects', 'other', 'frontier'] as const) {
        assert.equal(await field(name), cli[name], `${name}: GUI against wga crawl`);
      }
      assert.ok(cli.fetched > 250, `the demo site was crawled: ${cli.fetched} pages`);
      // The live counters end on the same figures.
      assert.equal(Number((await page.textContent('[data-counter=fetched]'))!.replace(/,/g, '')), cli.fetched);
      // The live PageRank ends as the exact PageRank of the crawled graph: the scores of wga top --score live
      // on the same site crawled by the CLI (same graph; URLs may tie, so the scores are compared).
      await until(async () => /end of the last crawl/.test((await page.textContent('[data-live-rank] p')) ?? ''), 60_000, 'the final live PageRank');
      const liveRows = await tableRows(page, '[data-live-rank]');
      const cliLive = await wgaJson<{ top: Array<{ url: string; score: number }> }>(['top', '--db', cliDb, '--score', 'live', '--top', '10']);
      assert.equal(liveRows.length, cliLive.top.length);
      liveRows.forEach((row, i) => {
        const shown = Number(row[1]);
        assert.ok(Math.abs(shown - cliLive.top[i]!.score) <= 1e-3 * cliLive.top[i]!.score, `live rank ${i + 1}: GUI ${row[1]}, wga top ${cliLive.top[i]!.score}`);
      });
      // Opened afresh after the crawl, the view shows the finished crawl from the store: its counters
      // (hosts and requests included) and its curve of page requests over time.
      await page.goto(`${server.origin}/crawl`);
      const counter = async (name: string): Promise<number> => Number(((await page.textContent(`[data-counter=${name}]`)) ?? '').replace(/,/g, ''));
      await until(async () => (await counter('fetched')) === cli.fetched, 30_000, 'the stored counters');
      assert.equal(await counter('hosts'), 1);
      assert.equal(await counter('redirects'), cli.redirects);
      await until(async () => (await page.$('.rate-chart .uplot')) !== null, 30_000, 'the curve of the finished crawl');
      assert.match((await page.textContent('.rate-chart')) ?? '', /pages requested/);
    });

    const rankFromGui = async (method: 'pagerank' | 'montecarlo', fill: Record<string, string>): Promise<string[][]> => {
      await page.goto(`${server.origin}/rank`);
      await page.selectOption('select[name=method]', method);
      for (const [name, value] of Object.entries(fill)) {
        if (name === 'solver') await page.selectOption('select[name=solver]', value);
        else await page.fill(`input[name=${name}]`, value);
      }
      await page.click('button[name=run]');
      await page.waitForSelector('[data-rank-result] table', { timeout: 120_000 });
      return tableRows(page, '[data-rank-result]');
    };

    it('runs PageRank by power iteration from the GUI: the top pages and scores of wga rank, and a convergence curve', async () => {
      const rows = await rankFromGui('pagerank', { solver: 'power', top: '10' });
      const cli = await wgaJson<RankJson>(['rank', '--db', db, '--method', 'pagerank', '--solver', 'power', '--top', '10']);
      assert.equal(rows.length, 10);
      rows.forEach((row, i) => {
        assert.equal(row[2], cli.top[i]!.label, `rank ${i + 1}`);
        assert.ok(relativeDifference(Number(row[1]), cli.top[i]!.score) < 1e-3, `score of ${row[2]}: ${row[1]} against ${cli.top[i]!.score}`);
      });
      assert.equal(await page.textContent('[data-fact=iterations]'), String(cli.iterations));
      const points = Number(await page.getAttribute('.convergence', 'data-points'));
      assert.ok(points >= Math.min(cli.iterations, 10), `the convergence curve has a point per iteration: ${points} of ${cli.iterations}`);
    });

    it('runs PageRank by Monte Carlo from the GUI: the same top pages and scores as wga rank with the same seed, with error bars', async () => {
      const rows = await rankFromGui('montecarlo', { walks: '20', seed: '7', top: '10' });
      const cli = await wgaJson<RankJson>(['rank', '--db', db, '--method', 'montecarlo', '--walks', '20', '--seed', '7', '--top', '10']);
      assert.equal(rows.length, 10);
      rows.forEach((row, i) => {
        assert.equal(row[4], cli.top[i]!.label, `rank ${i + 1}`);
        assert.ok(relativeDifference(Number(row[1]), cli.top[i]!.score) < 1e-3, `score of ${row[4]}`);
        assert.ok(relativeDifference(Number(row[2]), cli.top[i]!.stdDev!) < 1e-3, `standard deviation of ${row[4]}`);
      });
      assert.equal(await page.locator('[data-rank-result] svg.error-bars rect').count(), 10);
    });

    it('runs restricted PageRank (the pages within two clicks of the home page) as wga rank --root --max-level', async () => {
      await page.goto(`${server.origin}/rank`);
      await page.selectOption('select[name=method]', 'pagerank');
      await page.fill('textarea[name=root]', `${site.origin}/`);
      await page.fill('input[name=maxLevel]', '2');
      await page.fill('input[name=top]', '5');
      await page.click('button[name=run]');
      await page.waitForSelector('[data-rank-result] table', { timeout: 120_000 });
      const rows = await tableRows(page, '[data-rank-result]');
      const cli = await wgaJson<RankJson & { restricted: { nodes: number } }>(['rank', '--db', db, '--method', 'pagerank', '--root', `${site.origin}/`, '--max-level', '2', '--top', '5']);
      assert.equal(rows.length, 5);
      rows.forEach((row, i) => {
        assert.equal(row[2], cli.top[i]!.label);
        assert.ok(relativeDifference(Number(row[1]), cli.top[i]!.score) < 1e-3);
      });
      assert.match((await page.textContent('[data-fact="restricted to"]')) ?? '', new RegExp(`^${cli.restricted.nodes.toLocaleString('en-US')} pages within 2 clicks`));
    });

    it('lists the stored runs and compares two as wga compare does', async () => {
      await page.goto(`${server.origin}/rank`);
      await page.waitForSelector('button[name=compare]');
      const runs = await page.$$eval('select[name=a] option', (options) => options.map((o) => o.getAttribute('value')));
      assert.ok(runs.length >= 3, `the crawl's OPIC run and the two rankings are stored: ${runs.join(', ')}`);
      await page.click('button[name=compare]');
      await page.waitForSelector('[data-compare-result] table');
      const rows = await tableRows(page, '[data-compare-result]');
      const a = await page.inputValue('select[name=a]');
      const b = await page.inputValue('select[name=b]');
      const cli = await wgaJson<{ kendallTau: number; spearman: number }>(['compare', '--db', db, a, b]);
      const tau = rows.find((r) => r[0] === 'Kendall tau')!;
      assert.equal(tau[1], cli.kendallTau.toFixed(4));
      assert.equal(rows.find((r) => r[0] === 'Spearman')![1], cli.spearman.toFixed(4));
    });

    it('lists every page in the Pages table, sorted and filtered on the server as the store says, and exports it as CSV', async () => {
      await page.goto(`${server.origin}/pages`);
      await page.waitForSelector('[data-pages-table] table');
      const counts = await wgaJson<{ pages: number }>(['audit', '--db', db, '--check', 'slow']);
      assert.equal(Number(await page.getAttribute('[data-pages-total]', 'data-pages-total')), counts.pages);
      // Sort by links in, most first: the first row is the page with the most in-links of the store.
      await page.click('th[data-sort=inLinks]');
      await page.waitForURL(/sort=inLinks&order=desc/);
      await page.waitForSelector('th[data-sort=inLinks][aria-sort=descending]');
      const header = await page.$$eval('[data-pages-table] thead tr:first-child th', (cells) => cells.map((c) => c.getAttribute('data-sort')));
      const inAt = header.indexOf('inLinks');
      const sorted = await tableRows(page, '[data-pages-table]');
      const values = sorted.map((r) => Number(r[inAt]!.replace(/,/g, '')));
      assert.deepEqual(values, [...values].sort((a, b) => b - a));
      const degrees = await wgaJson<{ topIn: Array<{ degree: number }> }>(['degrees', '--db', db, '--top', '1']);
      assert.equal(values[0], degrees.topIn[0]!.degree);
      // Filter the status column to the broken pages: as many as wga pages lists.
      await page.fill('input[name="filter.status"]', '4xx');
      await page.press('input[name="filter.status"]', 'Enter');
      await page.waitForURL(/filter.status=4xx/);
      await page.waitForSelector('[data-pages-table] table');
      const broken = await wgaJson<{ total: number }>(['pages', '--db', db, '--status', '4xx']);
      assert.equal(Number(await page.getAttribute('[data-pages-total]', 'data-pages-total')), broken.total);
      const csvUrl = await page.getAttribute('[data-pages-csv]', 'href');
      const csv = await (await fetch(new URL(csvUrl!, server.origin))).text();
      assert.equal(csv.trim().split('\n').length, broken.total + 1, 'a header and one line per page shown');
    });

    it('searches pages by URL and follows their links to other pages', async () => {
      await page.goto(`${server.origin}/search`);
      await page.fill('input[name=q]', '/p/1');
      await page.press('input[name=q]', 'Enter');
      await page.waitForURL(/\/search\?q=%2Fp%2F1$/);
      await page.waitForSelector('[data-search-results] table');
      const urls = await page.$$eval('[data-search-results] a.page-link', (links) => links.map((a) => a.textContent));
      assert.ok(urls.length > 5 && urls.every((u) => u !== null && u.includes('/p/1')), `every result contains /p/1: ${urls.slice(0, 5).join(' ')}`);
      const target = `${site.origin}/p/1.html`;
      await page.click(`[data-search-results] a.page-link[title="${target}"]`);
      await page.waitForURL((url) => url.pathname === '/page' && url.searchParams.get('url') === target);
      await waitForText(page, '[data-page-title]', 'Page 1');
      // Page 1 links to its tree children 9..16 (website.ts): follow one.
      const child = `${site.origin}/p/9.html`;
      await page.click(`[data-links=out] a.page-link[title="${child}"]`);
      await page.waitForURL((url) => url.searchParams.get('url') === child);
      await waitForText(page, '[data-page-title]', 'Page 9');
      await page.waitForSelector(`[data-links=in] a.page-link[title="${target}"]`);
      await page.goBack();
      await page.waitForURL((url) => url.searchParams.get('url') === target);
      await waitForText(page, '[data-page-title]', 'Page 1');
      await page.waitForSelector('svg.neighbourhood circle');
      const drawn = await page.locator('svg.neighbourhood circle').count();
      assert.ok(drawn > 9, `the neighbourhood drawing shows page 1 and its neighbours: ${drawn}`);
    });

    it('opens deep links to a page and to a search when loaded directly', async () => {
      const fresh = await browser.newPage();
      fresh.setDefaultTimeout(120_000);
      try {
        await fresh.goto(`${server.origin}/page?url=${encodeURIComponent(`${site.origin}/`)}`);
        await fresh.waitForSelector('[data-page-title]');
        assert.equal(await fresh.textContent('[data-page-title]'), 'Page 0');
        assert.equal(await fresh.getAttribute('a[data-tab=pages]', 'aria-current'), 'page');
        await fresh.goto(`${server.origin}/search?q=${encodeURIComponent('/missing/')}`);
        await fresh.waitForSelector('[data-search-results] table');
        const statuses = await fresh.$$eval('[data-search-results] .status-badge', (badges) => badges.map((b) => b.textContent));
        assert.ok(statuses.length > 0 && statuses.every((s) => s === '404'), `the broken links are 404s: ${statuses.join(' ')}`);
      } finally {
        await fresh.close();
      }
    });

    it("shows the site audit as wga audit counts it, and a check's pages linking to their page view", async () => {
      await page.goto(`${server.origin}/audit`);
      await page.waitForSelector('[data-audit] table');
      const rows = await tableRows(page, '[data-audit]');
      const audit = await wgaJson<{ checks: Array<{ id: string; count: number; unavailable?: string }> }>(['audit', '--db', db]);
      assert.deepEqual(rows.map((r) => r[0]), audit.checks.map((c) => c.id));
      assert.deepEqual(rows.map((r) => (r[1] === 'not recorded' ? -1 : Number(r[1]!.replace(/,/g, '')))), audit.checks.map((c) => (c.unavailable === undefined ? c.count : -1)));
      const broken = audit.checks.find((c) => c.id === 'broken-links')!;
      assert.ok(broken.count > 0, 'the demo site has broken links');
      await page.click('a[data-check=broken-links]');
      await page.waitForSelector('[data-audit-check=broken-links] table');
      const pages = await tableRows(page, '[data-audit-check=broken-links]');
      assert.equal(pages.length, Math.min(broken.count, 500));
      assert.ok(pages.every((r) => /linked from|no page/.test(r[1]!)), 'each broken page with the pages linking to it');
      await page.click('[data-audit-check=broken-links] tbody tr:first-child td:first-child a');
      await page.waitForSelector('[data-page-title]');
      assert.equal(await page.getAttribute('a[data-tab=pages]', 'aria-current'), 'page');
    });

    it('shows what changed in the crawl session, as wga changes reports it, and the visits of a page', async () => {
      await page.goto(`${server.origin}/changes`);
      await page.waitForSelector('[data-changes] table');
      const shown = await page.$$eval('[data-changes-summary] tbody td', (cells) => cells.map((c) => Number((c.textContent ?? '').replace(/,/g, ''))));
      const { counts } = await wgaJson<{ counts: Record<string, number> }>(['changes', '--db', db]);
      assert.deepEqual(shown, [counts.new!, counts.gone!, counts.changed!, counts.unchanged!, counts.linksAdded!, counts.linksRemoved!]);
      assert.ok(counts.new! > 100, `a first session: every page is new (${counts.new})`);
      await page.goto(`${server.origin}/page?url=${encodeURIComponent(`${site.origin}/`)}`);
      await page.waitForSelector('[data-visits] table');
      assert.match((await page.textContent('[data-visits] tbody')) ?? '', /200\s*first visit/);
    });

    it('shows the graph: its size, the bow-tie as wga scc counts it, and the crawl tree', async () => {
      await page.goto(`${server.origin}/graph`);
      await page.waitForSelector('svg.bowtie');
      const scc = await wgaJson<{ bowTie: Record<string, number> }>(['scc', '--db', db]);
      const core = await page.textContent('svg.bowtie [data-part=core] .count');
      assert.equal(core, scc.bowTie.core!.toLocaleString('en-US'));
      await page.click('button[data-part=tree]');
      await page.waitForURL(/part=tree/);
      await page.waitForSelector('canvas.force-tree');
      const stats = await wgaJson<{ nodes: number }>(['stats', '--db', db]);
      assert.equal(Number(await page.getAttribute('canvas.force-tree', 'data-nodes')), stats.nodes);
      await page.waitForSelector('[data-tree-list] li');
    });

    it("exports a run's scores as TSV, best first", async () => {
      await page.goto(`${server.origin}/data`);
      await page.waitForSelector('select[name=run] option[value]:not([value=""])', { state: 'attached' });
      const run = await page.inputValue('select[name=run]');
      const href = await page.getAttribute('a[data-export]', 'href');
      assert.equal(href, `/api/runs/${run}/scores`);
      const text = await page.evaluate(async (url) => (await fetch(url)).text(), href!);
      const lines = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
      const top = (await (await fetch(`${server.origin}/api/runs/${run}?top=3`)).json()) as { top: Array<{ url: string; score: number }> };
      assert.deepEqual(lines.slice(0, 3).map((line) => line.split('\t')[0]), top.top.map((t) => t.url));
      assert.ok(lines.length > 250, `every page's score: ${lines.length} lines`);
    });

    it('deletes all the data only after the confirmation', async () => {
      await page.goto(`${server.origin}/data`);
      await page.click('button[name=reset]');
      await page.click('dialog.confirm button[name=cancel]');
      await page.waitForSelector('[data-reset-result] .notice.info');
      let info = (await (await fetch(`${server.origin}/api/info`)).json()) as { counts: { pages: number; runs: number } };
      assert.ok(info.counts.pages > 250, 'cancelled: nothing deleted');
      await page.click('button[name=reset]');
      await page.click('dialog.confirm button[name=confirm]');
      await page.waitForSelector('[data-reset-result] .notice.ok');
      info = (await (await fetch(`${server.origin}/api/info`)).json()) as { counts: { pages: number; runs: number } };
      assert.equal(info.counts.pages, 0);
      assert.equal(info.counts.runs, 0);
      // The store's facts are read again after the notice shows.
      await waitForText(page, '[data-fact=pages]', '0');
      assert.deepEqual(dialogs, [], 'no browser dialog was opened');
    });

    it('imports a graph file uploaded from the Data view', async () => {
      const file = join(dir.path, 'triangle.tsv');
      writeFileSync(file, 'http://a.example/\thttp://b.example/\nhttp://b.example/\thttp://c.example/\nhttp://c.example/\thttp://a.example/\nhttp://c.example/\thttp://b.example/\n');
      await page.goto(`${server.origin}/data`);
      await page.setInputFiles('input[name=file]', file);
      await page.click('button[name=import]');
      await page.waitForSelector('[data-import-result] .notice.ok', { timeout: 120_000 });
      assert.match((await page.textContent('[data-import-result]')) ?? '', /3 pages and 4 links added/);
      const info = (await (await fetch(`${server.origin}/api/info`)).json()) as { counts: { pages: number; links: number } };
      assert.deepEqual([info.counts.pages, info.counts.links], [3, 4]);
    });
  });
}
