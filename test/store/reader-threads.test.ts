/**
 * A resume's pages read on a reader thread (src/store/reader-threads.ts): the same pages, values
 * and batches as the store's own read (crawlPageFromRow over the same columns), from
 * THREAD_READ_MIN_PAGES pages on; a reader left early ends its thread; a file that is no store
 * fails with SQLite's message.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { CRAWL_PAGE_COLUMNS, crawlPageFromRow, type CrawlPageRow } from '../../src/store/records.js';
import { readCrawlPagesInThread, readOutListsInThread } from '../../src/store/reader-threads.js';
import { kindCodes } from '../../src/store/records.js';
import { SqliteStore, THREAD_READ_MIN_PAGES } from '../../src/store/sqlite.js';
import { type CrawlBatch, GRAPH_LINK_KINDS, type StoredCrawlPage } from '../../src/store/store.js';
import { Random } from '../../src/util/random.js';
import { temporaryDirectory } from '../helpers.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

/** A store of `pages` pages with every kind of value a page row holds: fetched or not, failed, keys unlike their URLs, focus, sitemaps, validators, NULL depths. */
async function storeOf(path: string, pages: number): Promise<void> {
  const store = SqliteStore.open(path);
  const random = new Random(11);
  try {
    for (let first = 1; first <= pages; first += 5000) {
      const batch: CrawlBatch = { pages: [], fetches: [], replaceLinksOf: [], links: [], opic: [], state: {} };
      for (let id = first; id < Math.min(pages + 1, first + 5000); id++) {
        const key = `http://h${id % 13}.test/p/${id}?é=${id % 7}`;
        const focus = random.next() < 0.2;
        batch.pages.push({
          id,
          url: id % 3 === 0 ? `${key}#f${id}` : key,
          key,
          host: `h${id % 13}.test`,
          depth: id % 5,
          focus,
          role: id % 17 === 0 ? 'sitemap' : 'page',
          opic: { cash: random.next() / pages, history: id % 4 === 0 ? random.next() : 0, lastRead: id % 4 === 0 ? id / 3 : 0, reads: id % 4, seenAll: random.next(), seenUnread: random.next() * 1e-9, seenFocus: focus ? random.next() : 0, focus },
          windowHistory: id % 6 === 0 ? random.next() : 0,
        });
        // Out-links of fetched pages to earlier pages (stored already): some of two kinds, a self-link, a kind outside the graph's.
        if (id % 4 === 0) {
          const targets = new Set<number>();
          for (let k = 0; k < 1 + (id % 5); k++) targets.add(1 + Math.floor(random.next() * id));
          for (const target of targets) batch.links.push({ source: id, target, kind: 'anchor', nofollow: false });
          if (id % 3 === 0) batch.links.push({ source: id, target: [...targets][0]!, kind: 'redirect', nofollow: false });
          if (id % 7 === 0) batch.links.push({ source: id, target: id, kind: 'anchor', nofollow: false });
          if (id % 11 === 0) batch.links.push({ source: id, target: 1, kind: 'canonical', nofollow: false });
        }
        if (id % 4 === 0) {
          const failed = id % 8 === 0 && id % 3 === 0;
          batch.fetches.push({
            id,
            fetchSeq: id * 2,
            record: { status: failed ? null : id % 9 === 0 ? 404 : 200, contentType: failed ? null : 'text/html', fetchedAt: 1_700_000_000_000 + id, size: 10, title: null, error: failed ? 'timeout after 30 s' : null, etag: id % 12 === 0 ? `"e${id}"` : null, lastModified: id % 20 === 0 ? 'Wed, 21 Oct 2015 07:28:00 GMT' : null },
            first: true,
          });
        }
      }
      await store.writeCrawlBatch(batch);
    }
  } finally {
    await store.close();
  }
  // Depth NULL, as an older store may hold.
  const db = new Database(path);
  db.prepare('UPDATE pages SET depth = NULL WHERE id % 101 = 0').run();
  db.close();
}

function referencePages(path: string): StoredCrawlPage[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT ${CRAWL_PAGE_COLUMNS} FROM pages ORDER BY id`).raw().all() as CrawlPageRow[]).map(crawlPageFromRow);
  } finally {
    db.close();
  }
}

describe("a resume's pages read on a reader thread", () => {
  const pages = THREAD_READ_MIN_PAGES + 4321;
  const path = join(dir.path, 'pages.db');
  const ready = storeOf(path, pages);

  it('gives the store its pages, values and batches as its own read does', async () => {
    await ready;
    const reference = referencePages(path);
    assert.equal(reference.length, pages);
    // Every kind of value is there to be compared.
    assert.ok(reference.some((p) => p.key !== p.url) && reference.some((p) => p.status === 404) && reference.some((p) => p.error !== null && p.status === null));
    assert.ok(reference.some((p) => p.etag !== null) && reference.some((p) => p.lastModified !== null) && reference.some((p) => p.role === 'sitemap') && reference.some((p) => p.focus));
    assert.ok(reference.some((p) => p.fetchSeq !== null) && reference.some((p) => p.depth === 0 && p.id % 101 === 0));
    const store = SqliteStore.open(path);
    try {
      const batches: StoredCrawlPage[][] = [];
      for await (const batch of store.crawlPageBatches(7000)) batches.push(batch);
      assert.deepEqual(batches.map((b) => b.length), [7000, 7000, 7000, 3321]);
      assert.deepEqual(batches.flat(), reference);
    } finally {
      await store.close();
    }
    for (const readers of [1, 2, 3]) {
      const threaded: StoredCrawlPage[] = [];
      for await (const batch of readCrawlPagesInThread(path, 999, readers)) threaded.push(...batch);
      assert.deepEqual(threaded, reference, `${readers} readers`);
    }
  });

  it("reads a crawl's out-lists on reader threads as SQL gives them: distinct, no self-links, the graph's kinds only", async () => {
    await ready;
    const codes = kindCodes(GRAPH_LINK_KINDS);
    const db = new Database(path, { readonly: true });
    const rows = db.prepare(`SELECT DISTINCT source, target FROM links WHERE kind IN (${codes.join(', ')}) AND source <> target ORDER BY source, target`).raw().all() as Array<[number, number]>;
    const stored = db.prepare('SELECT count(*) FROM links').pluck().get() as number;
    db.close();
    // The store holds what is to be left out: repeated pairs, self-links, canonical links.
    assert.ok(stored > rows.length + 1000, `${stored} links stored, ${rows.length} distinct graph links`);
    const expected = rows.map(([s, t]) => `${s}>${t}`);
    for (const readers of [1, 2, 3]) {
      const got: string[] = [];
      let batches = 0;
      for await (const batch of readOutListsInThread(path, codes, 1000, readers)) {
        batches++;
        for (let i = 0, start = 0; i < batch.sources.length; i++) {
          for (let e = start; e < batch.ends[i]!; e++) got.push(`${batch.sources[i]}>${batch.targets[e]}`);
          start = batch.ends[i]!;
        }
      }
      assert.ok(batches >= 20, `${batches} batches`);
      assert.deepEqual(got, expected, `${readers} readers`);
    }
    // The store's own method takes the threads at this size, and gives the same.
    const store = SqliteStore.open(path);
    try {
      let links = 0;
      for await (const batch of store.crawlOutLists(GRAPH_LINK_KINDS)) links += batch.targets.length;
      assert.equal(links, expected.length);
    } finally {
      await store.close();
    }
  });

  it('reads a store whose ids have gaps, whole ranges of them empty, in id order', async () => {
    await ready;
    const gaps = join(dir.path, 'gaps.db');
    await storeOf(gaps, 3000);
    const db = new Database(gaps);
    db.pragma('foreign_keys = OFF');
    db.prepare('DELETE FROM pages WHERE (id BETWEEN 1001 AND 1500) OR id % 7 = 0').run();
    db.close();
    const reference = referencePages(gaps);
    const threaded: StoredCrawlPage[] = [];
    for await (const batch of readCrawlPagesInThread(gaps, 250, 2)) threaded.push(...batch);
    // 3,000 pages less 500 in a row (two whole batches) and the other multiples of 7 (357).
    assert.equal(reference.length, 3000 - 500 - (428 - 72));
    assert.deepEqual(threaded, reference);
  });

  it('ends its thread when the reader stops early, and fails with SQLite\'s message on a file that is no store', async () => {
    await ready;
    let seen = 0;
    for await (const batch of readCrawlPagesInThread(path, 100)) {
      seen += batch.length;
      if (seen >= 300) break;
    }
    assert.equal(seen, 300);
    const notAStore = join(dir.path, 'missing.db');
    await assert.rejects(
      (async () => {
        for await (const _ of readCrawlPagesInThread(notAStore, 100)) assert.fail('no pages from a missing file');
      })(),
      /unable to open database file|no such/i,
    );
  });
});
