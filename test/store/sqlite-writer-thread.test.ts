/**
 * The SQLite store's checkpoint writer thread (src/store/sqlite-writer-thread.ts): batches sent
 * without waiting are committed in order, a failed batch writes nothing and carries SQLite's code
 * (what the crawler's store-failure handling reads), close() waits for the writes sent, and an
 * in-memory store writes on its own connection.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite.js';
import { type CrawlBatch, REL_BITS } from '../../src/store/store.js';
import { storeFailure } from '../../src/store/store-failure.js';
import { temporaryDirectory } from '../helpers.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let count = 0;

/** A batch adding pages [first, first + n) (store ids), page `first` fetched, each new page linked from `first`. */
function batchOf(first: number, n: number, fetchedAt = 1_700_000_000_000): CrawlBatch {
  const pages: CrawlBatch['pages'] = [];
  for (let id = first; id < first + n; id++) {
    const url = `http://w.test/${id}`;
    pages.push({
      id,
      url,
      key: url,
      host: 'w.test',
      depth: id === 1 ? 0 : 1,
      focus: false,
      opic: { cash: 1 / (id + 1), history: 0, lastRead: 0, reads: 0, seenAll: 0, seenUnread: 0, seenFocus: 0, focus: false },
      windowHistory: 0,
    });
  }
  return {
    pages,
    fetches: [{ id: first, fetchSeq: first, record: { status: 200, contentType: 'text/html', fetchedAt, size: 10, title: `page ${first}`, error: null }, first: true }],
    replaceLinksOf: [],
    links: pages.slice(1).map((p) => ({ source: first, target: p.id, kind: 'anchor' as const, nofollow: false })),
    opic: [],
    state: { progress: String(first) },
  };
}

describe('the SQLite checkpoint writer thread', () => {
  it('commits batches sent without waiting, in order; a failed batch writes nothing and carries its SQLite code', async () => {
    const path = join(dir.path, `w-${count++}.db`);
    const store = SqliteStore.open(path);
    try {
      const writes = [store.writeCrawlBatch(batchOf(1, 100)), store.writeCrawlBatch(batchOf(101, 100)), store.writeCrawlBatch(batchOf(201, 50))];
      await Promise.all(writes);
      const counts = await store.counts();
      assert.equal(counts.pages, 250);
      assert.equal(counts.links, 99 + 99 + 49);
      assert.equal((await store.pageByUrl('http://w.test/101'))?.title, 'page 101');
      // The last batch's state is the one kept: they were written in the order sent.
      assert.equal(await store.crawlSummary().then((s) => s.state.progress), '201');
      // Page 150 exists already: the batch fails on its primary key, and none of its rows is written
      // (its new page 400 neither), on the writer thread's connection.
      const clash = batchOf(400, 2);
      clash.pages.push({ ...clash.pages[1]!, id: 150, url: 'http://w.test/dup', key: 'http://w.test/dup' });
      const failure = await store.writeCrawlBatch(clash).then(
        () => null,
        (error: unknown) => error as Error & { code?: string },
      );
      assert.ok(failure !== null, 'the clashing batch is refused');
      assert.match(failure.code ?? '', /^SQLITE_CONSTRAINT/);
      assert.equal(storeFailure(failure)?.transient, false);
      assert.equal(await store.pageByUrl('http://w.test/400'), null);
      assert.equal((await store.counts()).pages, 250);
      // Every column crosses to the thread: a page's OPIC state, depth and role, a link's kind, rel, hreflang and lastmod.
      const rich = batchOf(300, 3);
      rich.pages[1]!.opic = { cash: 0.125, history: 0.5, lastRead: 2.25, reads: 3, seenAll: 0.0625, seenUnread: 0, seenFocus: 0, focus: false };
      rich.pages[1]!.role = 'sitemap';
      rich.pages[1]!.depth = 7;
      rich.links = [
        { source: 300, target: 301, kind: 'alternate', nofollow: true, rel: REL_BITS.nofollow | REL_BITS.sponsored, hreflang: 'fr-CA', lastmod: null },
        { source: 300, target: 302, kind: 'sitemap', nofollow: false, lastmod: 1_600_000_000_000 },
      ];
      await store.writeCrawlBatch(rich);
      const out = await store.links(300, 'out');
      const byUrl = new Map(out.map((l) => [l.url, l]));
      assert.deepEqual(byUrl.get('http://w.test/301'), { url: 'http://w.test/301', kind: 'alternate', nofollow: true, rel: ['nofollow', 'sponsored'], hreflang: 'fr-CA', lastmod: null });
      assert.deepEqual(byUrl.get('http://w.test/302'), { url: 'http://w.test/302', kind: 'sitemap', nofollow: false, rel: [], hreflang: null, lastmod: 1_600_000_000_000 });
      const stored = (await store.crawlPageBatches()[Symbol.asyncIterator]().next()).value as Array<{ id: number; depth: number; role?: string; opic: { cash: number; history: number; lastRead: number; reads: number; seenAll: number } }>;
      const page301 = stored.find((p) => p.id === 301)!;
      assert.equal(page301.depth, 7);
      assert.equal(page301.role, 'sitemap');
      assert.deepEqual([page301.opic.cash, page301.opic.history, page301.opic.lastRead, page301.opic.reads, page301.opic.seenAll], [0.125, 0.5, 2.25, 3, 0.0625]);
      assert.equal((await store.counts()).pages, 253);
      // The thread goes on after a failure.
      await store.writeCrawlBatch(batchOf(251, 10));
      assert.equal((await store.counts()).pages, 263);
    } finally {
      await store.close();
    }
  });

  it('close() waits for the writes sent: a store closed right after a write holds it', async () => {
    const path = join(dir.path, `w-${count++}.db`);
    const store = SqliteStore.open(path);
    const written = store.writeCrawlBatch(batchOf(1, 5000));
    await store.close();
    await written;
    const again = SqliteStore.open(path);
    try {
      const counts = await again.counts();
      assert.equal(counts.pages, 5000);
      assert.equal(counts.links, 4999);
    } finally {
      await again.close();
    }
  });

  it('WGA_SQLITE_WRITER=inline and an in-memory store write the same rows on the store\'s own connection', async () => {
    process.env.WGA_SQLITE_WRITER = 'inline';
    const path = join(dir.path, `w-${count++}.db`);
    const inline = SqliteStore.open(path);
    const memory = SqliteStore.open(':memory:');
    try {
      for (const store of [inline, memory]) {
        await store.writeCrawlBatch(batchOf(1, 20));
        await store.writeCrawlBatch(batchOf(21, 20));
        const counts = await store.counts();
        assert.equal(counts.pages, 40);
        assert.equal(counts.links, 38);
        assert.equal(counts.fetched, 2);
      }
    } finally {
      delete process.env.WGA_SQLITE_WRITER;
      await inline.close();
      await memory.close();
    }
  });
});
