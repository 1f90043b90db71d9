/**
 * Crawled content is hostile: a site whose titles, URLs and links carry `<script>`, `<img onerror>`,
 * `"><svg onload>` and `javascript:` payloads, and an imported graph whose page labels are such
 * payloads, are shown by the GUI as text. No script of theirs runs (the global they would set stays
 * undefined, no dialog opens), no element they describe appears in the DOM, and no link the GUI
 * draws has a javascript: address.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { missingToolTest, temporaryDirectory } from '../helpers.js';
import { browserMissing, launchBrowser, type RunningServer, startGraphFileServer, startServer, wga } from './harness.js';
import { PAYLOADS, serveHostileSite } from './hostile-site.js';

const missing = browserMissing();

/** Labels of an imported edge list (tab-separated, so they may hold spaces). */
const HOSTILE_LABELS = ['javascript:window.__wgaPwned=7;alert(7)', '<img src=x onerror="window.__wgaPwned=8">', '"><svg onload="window.__wgaPwned=9">', 'data:text/html,<script>alert(10)</script>'];

interface Evidence {
  pwned: unknown;
  injected: number;
  scriptLinks: string[];
  text: string;
}

/** What a page shows that would betray an injection. */
async function evidence(page: Page): Promise<Evidence> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }>; body: { innerText: string } } }).document;
    const links = Array.from(doc.querySelectorAll('a[href]'), (a) => a.getAttribute('href') ?? '');
    return {
      pwned: (globalThis as { __wgaPwned?: unknown }).__wgaPwned,
      // Inline scripts, images, frames and any element carrying an event-handler attribute.
      injected: doc.querySelectorAll('script:not([src]), img, iframe, [onerror], [onload], [onclick]').length,
      scriptLinks: links.filter((href) => !/^(https?:|\/)/i.test(href.trim())),
      text: doc.body.innerText,
    };
  });
}

if (missing !== null) {
  describe('hostile content in the GUI', () => missingToolTest('drives Chromium', 'browser', missing));
} else {
  describe('hostile content in the GUI', { timeout: 600_000 }, () => {
    let browser: Browser;
    let server: RunningServer;
    let page: Page;
    let origin = '';
    const dir = temporaryDirectory();
    const db = join(dir.path, 'hostile.sqlite');
    const dialogs: string[] = [];

    before(async () => {
      const site = await serveHostileSite();
      origin = site.origin;
      try {
        await wga(['crawl', `${origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--quiet']);
      } finally {
        await site.close();
      }
      const edges = join(dir.path, 'hostile.tsv');
      writeFileSync(edges, HOSTILE_LABELS.map((label, i) => `${label}\t${HOSTILE_LABELS[(i + 1) % HOSTILE_LABELS.length]}\n`).join('') + `${origin}/\t${HOSTILE_LABELS[0]}\n`);
      await wga(['import', edges, '--db', db, '--separator', 'tab']);
      server = await startServer(db);
      browser = await launchBrowser();
      page = await browser.newPage();
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
      dir.cleanup();
    });

    const visit = async (path: string, ready: string, at = server.origin): Promise<Evidence> => {
      await page.goto(`${at}${path}`);
      await page.waitForSelector(ready, { timeout: 120_000 });
      await page.waitForLoadState('networkidle');
      const seen = await evidence(page);
      assert.equal(seen.pwned, undefined, `${path}: no payload ran`);
      assert.equal(seen.injected, 0, `${path}: no element of a payload is in the DOM`);
      assert.deepEqual(seen.scriptLinks, [], `${path}: every link is http(s) or in-app`);
      return seen;
    };

    it('shows crawled titles and URLs with script payloads as text in search results', async () => {
      const seen = await visit(`/search?q=${encodeURIComponent('/evil/')}`, '[data-search-results] table');
      for (const payload of PAYLOADS) assert.ok(seen.text.includes(payload), `the title carrying ${payload} is shown as text`);
      const titles = await page.$$eval('[data-search-results] tbody tr td:nth-child(3)', (cells) => cells.map((c) => c.textContent));
      assert.equal(titles.length, PAYLOADS.length);
    });

    it("shows a hostile page's detail, links and neighbourhood as text", async () => {
      const seen = await visit(`/page?url=${encodeURIComponent(`${origin}/`)}`, 'svg.neighbourhood circle');
      assert.equal(await page.textContent('[data-page-title]'), `${PAYLOADS[0]} hostile home`);
      assert.ok(seen.text.includes('/evil/'), 'its out-links are listed');
      for (let i = 1; i < PAYLOADS.length; i++) {
        const link = page.locator('[data-links=out] a.page-link').filter({ hasText: `/evil/${i}/` });
        await link.first().click();
        await page.waitForFunction((title) => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('[data-page-title]')?.textContent === title, `${PAYLOADS[i]} hostile ${i}`);
        await page.waitForLoadState('networkidle');
        const after = await evidence(page);
        assert.equal(after.pwned, undefined);
        assert.equal(after.injected, 0);
        await page.goBack();
        // Back on the home page (its title shown, not the previous page's) before the next link is looked for.
        await page.waitForURL((url) => url.searchParams.get('url') === `${origin}/`);
        await page.waitForFunction((title) => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('[data-page-title]')?.textContent === title, `${PAYLOADS[0]} hostile home`);
        await page.waitForSelector('[data-links=out] a.page-link');
      }
    });

    it('never makes a javascript: or data: page a clickable link, and shows imported payload labels as text', async () => {
      for (const label of HOSTILE_LABELS) {
        const seen = await visit(`/page?url=${encodeURIComponent(label)}`, '[data-page-url]');
        assert.equal(await page.textContent('[data-page-url]'), label, 'the label is shown as it is');
        assert.equal(await page.locator('[data-page-url] a').count(), 0, `${label} is not a link`);
        assert.ok(seen.text.includes(label));
      }
      await visit(`/search?q=${encodeURIComponent('script')}`, '[data-search-results] table');
    });

    it('shows payloads as text in the graph views, the tree and the runs', async () => {
      await visit('/graph', 'svg.bowtie');
      await page.waitForSelector('.uplot');
      await visit('/graph?part=tree', '[data-tree-list] li');
      // A folded branch, when the tree has one, is opened (a click waiting for one that is not there would wait out its timeout).
      const folded = page.locator('[data-tree-list] button.toggle[aria-expanded=false]:visible');
      if ((await folded.count()) > 0) {
        await folded.first().click();
        await page.waitForLoadState('networkidle');
        const opened = await evidence(page);
        assert.equal(opened.pwned, undefined);
        assert.equal(opened.injected, 0);
      }
      await visit('/graph?part=directories', '[data-directories] li');
      await visit('/rank', 'button[data-run-view]');
      await page.click('button[data-run-view]');
      await page.waitForSelector('h3:has-text("Top pages of run")');
      const seen = await evidence(page);
      assert.equal(seen.pwned, undefined);
      assert.equal(seen.injected, 0);
      assert.deepEqual(dialogs, [], 'no dialog was opened');
    });

    it('shows payload names of a compact graph file (wga serve --graph) as text: rankings, a page, its neighbours', async () => {
      const graph = join(dir.path, 'hostile.wgc');
      await wga(['convert', join(dir.path, 'hostile.tsv'), graph, '--separator', 'tab', '--quiet']);
      await wga(['rank', graph, '--method', 'pagerank,traffic', '--save', '--quiet']);
      const fileServer = await startGraphFileServer(graph);
      try {
        const at = (path: string, ready: string): Promise<Evidence> => visit(path, ready, fileServer.origin);
        const ranks = await at('/ranks?method=traffic', '[data-graph-ranks] table');
        for (const label of HOSTILE_LABELS) assert.ok(ranks.text.includes(label), `${label} is listed as text`);
        for (const label of HOSTILE_LABELS) {
          const seen = await at(`/node?name=${encodeURIComponent(label)}`, '[data-node-name]');
          assert.equal(await page.textContent('[data-node-name]'), label, 'the name is shown as it is');
          // Its neighbour in the ring, as an in-app link named by the payload's text.
          const next = HOSTILE_LABELS[(HOSTILE_LABELS.indexOf(label) + 1) % HOSTILE_LABELS.length]!;
          assert.ok(seen.text.includes(next));
        }
        // Following a neighbour's link (the first payload links to the second) is an in-app navigation to its own view.
        await at(`/node?name=${encodeURIComponent(HOSTILE_LABELS[0]!)}`, '[data-node-name]');
        await page.locator('a.page-link').filter({ hasText: HOSTILE_LABELS[1]! }).first().click();
        await page.waitForFunction((name) => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('[data-node-name]')?.textContent === name, HOSTILE_LABELS[1]!);
        const followed = await evidence(page);
        assert.equal(followed.pwned, undefined);
        assert.equal(followed.injected, 0);
        assert.deepEqual(dialogs, [], 'no dialog was opened');
      } finally {
        await fileServer.close();
      }
    });
  });
}
