/**
 * The GUI's screenshots in docs/images/gui-*.png (docs/gui.md shows them): a demo site is served
 * on loopback and crawled from the Crawl view, then every view is opened in headless Chromium as
 * a user would, and photographed.
 *
 *   npm run screenshots            (needs Chromium: /usr/bin/chromium or $WGA_CHROMIUM)
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Website } from '../src/experiments/website.js';
import { serveWebsite } from '../src/experiments/website-server.js';
import { repoRoot, sharedData, temporaryDirectory } from '../test/helpers.js';
import { browserMissing, launchBrowser, startGraphFileServer, startServer, until, wga } from '../test/gui/harness.js';

const TRAP_FENCE = '/calendar/[0-9]{2,}\\.html$';
const out = join(repoRoot, 'docs', 'images');
const missing = browserMissing();
if (missing !== null) throw new Error(missing);
mkdirSync(out, { recursive: true });

const dir = temporaryDirectory();
// About the PostgreSQL manual's size (1,169 pages): 1,000 generated pages, answered after 20 ms.
const site = await serveWebsite(new Website({ pages: 1000, seed: 1 }), { delayMs: 20 });
const server = await startServer(join(dir.path, 'screens.sqlite'));
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1 });

async function shot(name: string, fullPage = true): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(out, `gui-${name}.png`), fullPage });
  process.stderr.write(`docs/images/gui-${name}.png\n`);
}

async function rank(method: string, fill: Record<string, string>): Promise<void> {
  await page.goto(`${server.origin}/rank`);
  await page.selectOption('select[name=method]', method);
  for (const [name, value] of Object.entries(fill)) {
    if (name === 'solver') await page.selectOption('select[name=solver]', value);
    else await page.fill(`input[name=${name}]`, value);
  }
  await page.click('button[name=run]');
  await page.waitForSelector('[data-rank-result] table', { timeout: 120_000 });
}

try {
  await page.goto(`${server.origin}/crawl`);
  await page.fill('textarea[name=seeds]', `${site.origin}/`);
  await page.click('details[data-group="Addresses and countries"] > summary');
  await page.fill('textarea[name=allowIp]', '127.0.0.1/32');
  await page.fill('textarea[name=fence]', TRAP_FENCE);
  await page.fill('input[name=delay]', '0');
  await page.fill('input[name=perHost]', '4');
  await page.fill('input[name=concurrency]', '4');
  await page.click('button[name=start]');
  await until(async () => Number(((await page.textContent('[data-counter=fetched]')) ?? '0').replace(/\D/g, '')) > 400, 120_000, 'the crawl to be under way');
  await shot('crawl');
  await until(async () => (await page.$('[data-report]')) !== null, 300_000, 'the crawl to end');

  await rank('pagerank', { solver: 'power', top: '15' });
  await shot('rank');
  await rank('montecarlo', { walks: '10', seed: '1', top: '15' });
  await shot('rank-montecarlo');
  await page.goto(`${server.origin}/rank`);
  await page.waitForSelector('button[name=compare]');
  await page.click('button[name=compare]');
  await page.waitForSelector('[data-compare-result] table');
  await page.locator('[data-compare-result]').scrollIntoViewIfNeeded();
  await shot('runs');

  await page.goto(`${server.origin}/search?q=${encodeURIComponent('/p/1')}`);
  await page.waitForSelector('[data-search-results] table');
  await shot('search', false);
  await page.goto(`${server.origin}/page?url=${encodeURIComponent(`${site.origin}/p/1.html`)}`);
  await page.waitForSelector('svg.neighbourhood circle');
  await page.waitForTimeout(2500);
  await shot('page');

  await page.goto(`${server.origin}/graph`);
  await page.waitForSelector('svg.bowtie');
  await page.waitForSelector('.uplot');
  await shot('graph');
  await page.goto(`${server.origin}/graph?part=tree`);
  await page.waitForSelector('canvas.force-tree');
  await page.waitForTimeout(6000);
  await shot('graph-tree');
  await page.goto(`${server.origin}/graph?part=directories`);
  await page.waitForSelector('[data-directories] li');
  await shot('graph-directories', false);

  await page.goto(`${server.origin}/data`);
  await page.waitForSelector('[data-store] dl');
  await shot('data', false);
  await page.click('button[name=reset]');
  await page.waitForSelector('dialog.confirm');
  await shot('data-confirm', false);
  await page.click('dialog.confirm button[name=cancel]');

  // `wga serve --graph G.wgc`: Hollins as a compact graph file, with rankings and distances kept beside it.
  const graph = join(dir.path, 'hollins.wgc');
  await wga(['convert', sharedData('hollins', 'hollins.edges.txt'), graph, '--labels', sharedData('hollins', 'hollins.urls.txt'), '--quiet']);
  await wga(['rank', graph, '--method', 'pagerank,traffic,hotness,harmonic', '--save', '--quiet']);
  await wga(['distances', graph, '--save', '--quiet']);
  const fileServer = await startGraphFileServer(graph);
  try {
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${fileServer.origin}/ranks`);
    await page.waitForSelector('[data-graph-ranks] table');
    await shot('graph-file-ranks', false);
    await page.goto(`${fileServer.origin}/node?name=${encodeURIComponent('http://www.hollins.edu/')}`);
    await page.waitForSelector('[data-node-name]');
    await shot('graph-file-page', false);
    await page.goto(`${fileServer.origin}/distances`);
    await page.waitForSelector('[data-graph-distances] svg');
    await shot('graph-file-distances', false);
  } finally {
    await fileServer.close();
  }
} finally {
  await browser.close();
  await server.close();
  await site.close();
  dir.cleanup();
}
