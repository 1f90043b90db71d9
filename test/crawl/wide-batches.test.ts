/**
 * A site whose every page links to many new ones (the wide site of bench/crawl): checkpoints come
 * when the batch holds a checkpoint's worth of links or new pages, not only of fetches, so that
 * what a batch holds in memory stays bounded (issue 38), and nothing is lost by the smaller batches.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Crawler } from '../../src/crawl/crawler.js';
import { completeSettings } from '../../src/crawl/settings.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { temporaryDirectory } from '../helpers.js';
import { assertCrawlInvariants, runCli, serveLogged, snapshot } from './crawl-fixtures.js';

const FANOUT = 30;
const dir = temporaryDirectory();
after(() => dir.cleanup());

/** Page n links to pages n * FANOUT + 1 .. n * FANOUT + FANOUT; / is page 0. */
function widePage(path: string): { status: number; headers: Record<string, string>; body: string } {
  const match = /^\/(?:p\/(\d+))?$/.exec(path);
  if (match === null) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no' };
  const n = Number(match[1] ?? 0);
  const links = Array.from({ length: FANOUT }, (_, i) => `<a href="/p/${n * FANOUT + i + 1}">${i}</a>`).join('\n');
  return { status: 200, headers: { 'content-type': 'text/html' }, body: `<html><body>${links}</body></html>` };
}

describe('checkpoints on a wide site', () => {
  it("writes a checkpoint once 10 x checkpointPages links or 2 x checkpointPages new pages wait, and stores every page and link", async () => {
    const server = await serveLogged((path) => widePage(path));
    const store = SqliteStore.open(join(dir.path, 'wide.db'));
    try {
      const fetches = 12;
      // 3 fetches a checkpoint, 30 links or 6 new pages: each page brings 30 of each.
      const report = await Crawler.run(
        store,
        completeSettings({ seeds: [`${server.origin}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, concurrency: 1, perHost: 1, maxPages: fetches, checkpointPages: 3, checkpointMs: 600_000, live: false }),
      );
      assert.equal(report.fetched, fetches);
      // One before the first fetch, one per page (its 30 links fill the batch), the last (no timer:
      // checkpointMs is long); by fetches alone, every 3, there would be about 6.
      assert.ok(report.checkpoints.count >= fetches + 1, `${report.checkpoints.count} checkpoints`);
      const snap = await snapshot(store);
      assertCrawlInvariants(snap);
      assert.equal(snap.counts.pages, 1 + fetches * FANOUT);
      assert.equal(snap.links.size, fetches * FANOUT);
      assert.equal(snap.counts.fetched, fetches);
    } finally {
      await store.close();
      await server.close();
    }
  });

  it('takes --checkpoint-pages from the command line, reports waits for the store, and refuses bad values', async () => {
    const server = await serveLogged((path) => widePage(path));
    try {
      const db = join(dir.path, 'cli.db');
      const run = await runCli(['crawl', `${server.origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--max-pages', '20', '--no-live', '--checkpoint-pages', '2', '--json', '-q']);
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout) as { fetched: number; settings: { checkpointPages: number }; checkpoints: { count: number; heldMs: number; held: number } };
      assert.equal(report.fetched, 20);
      assert.equal(report.settings.checkpointPages, 2);
      // 30 new pages a fetch fill 10 x 2 at every page: a checkpoint per page, and waits counted with their time.
      assert.ok(report.checkpoints.count >= 20, `${report.checkpoints.count} checkpoints`);
      assert.ok(report.checkpoints.held >= 0 && (report.checkpoints.held === 0) === (report.checkpoints.heldMs === 0));
    } finally {
      await server.close();
    }
    for (const [args, pattern] of [
      [['--db', join(dir.path, 'bad.db'), '--checkpoint-pages', '0'], /--checkpoint-pages: expected an integer of at least 1, got '0'/],
      [['--db', 'postgres://nobody@127.0.0.1:1/none', '--shared', '--checkpoint-pages', '5'], /--checkpoint-pages: bounds a single crawl's writes to its store/],
    ] as const) {
      const refused = await runCli(['crawl', 'http://127.0.0.1:9/', ...args]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, pattern);
      assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    }
  });
});
