/**
 * Screenshots of what rendering adds to the GUI (docs/images/gui-page-rendered.png and
 * gui-crawl-render.png): a rendering crawl of the generated application (test/crawl/app-site.ts)
 * into a fresh store, `wga serve` on it, and Chromium on its page view and crawl form.
 *
 *   npm run build && node dist/scripts/render-shots.js [OUT_DIR]
 */
import { join } from 'node:path';
import { serveAppSite } from '../test/crawl/app-site.js';
import { launchBrowser, startServer, wga } from '../test/gui/harness.js';
import { temporaryDirectory } from '../test/helpers.js';

const out = process.argv[2] ?? 'docs/images';
const dir = temporaryDirectory();
const site = await serveAppSite(40);
try {
  const db = join(dir.path, 'app.sqlite');
  await wga(['crawl', `${site.origin}/p/0`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--render', 'always', '--render-quiet', '200', '--no-live', '-q']);
  const server = await startServer(db);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.origin}/page?url=${encodeURIComponent(`${site.origin}/p/0`)}`);
    await page.waitForSelector('[data-page-title]');
    await page.waitForTimeout(800);
    await page.screenshot({ path: join(out, 'gui-page-rendered.png') });
    await page.goto(`${server.origin}/crawl`);
    await page.waitForSelector('select[name=render]');
    await page.selectOption('select[name=render]', 'always');
    await page.locator('select[name=render]').scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(out, 'gui-crawl-render.png') });
  } finally {
    await browser.close();
    await server.close();
  }
} finally {
  await site.close();
  dir.cleanup();
}
