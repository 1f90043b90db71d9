import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore, redactLocation } from '../../src/store/open.js';
import { PostgresStore, PostgresStoreError } from '../../src/store/postgres.js';
import { storeSuite } from './store-suite.js';
import pg from 'pg';
import { pipeline } from 'node:stream/promises';
import { to as copyTo } from 'pg-copy-streams';
import { pgConfig, submitCopy } from '../../src/store/pg-config.js';
import { missingToolTest } from '../helpers.js';
import { type TestServer, startTestServer } from './postgres-server.js';
import { CRAWL_PAGE_COLUMNS, crawlPageFromRow, type CrawlPageRow, kindCodes } from '../../src/store/records.js';
import { readCrawlPagesInThread, THREAD_READ_MIN_PAGES } from '../../src/store/reader-threads.js';
import { type CrawlBatch, GRAPH_LINK_KINDS, type StoredCrawlPage } from '../../src/store/store.js';
import { Random } from '../../src/util/random.js';

// In CI (WGA_REQUIRE_POSTGRES=1) a server that cannot start fails the run instead of skipping.
const server = await startTestServer();
if (typeof server === 'string') {
  missingToolTest('PostgreSQL store', 'postgres', server);
} else {
  const running: TestServer = server;
  after(() => running.stop());

  storeSuite({
    name: 'PostgreSQL',
    open: async () => PostgresStore.open(await running.createDatabase()),
    concurrentWriters: async (writers, pagesEach) => {
      const url = await running.createDatabase();
      const stores = await Promise.all(Array.from({ length: writers }, () => PostgresStore.open(url)));
      await Promise.all(
        stores.map(async (store, w) => {
          for (let start = 0; start < pagesEach; start += 50) {
            const urls: string[] = [];
            for (let i = start; i < Math.min(pagesEach, start + 50); i++) urls.push(`http://writer${w}.example/${i}`, `http://shared.example/${i}`);
            const ids = await store.addPages(urls, urls);
            const links = [];
            for (let k = 0; k + 1 < ids.length; k += 2) links.push({ source: ids[k]!, target: ids[k + 1]!, kind: 'anchor' as const, nofollow: false });
            await store.addLinks(links);
          }
        }),
      );
      const counts = await stores[0]!.counts();
      await Promise.all(stores.map((s) => s.close()));
      assert.equal(counts.pages, writers * pagesEach + pagesEach);
      assert.equal(counts.links, writers * pagesEach);
    },
  });

  describe("PostgreSQL's reader threads (a large crawl's resume)", () => {
    it("read the pages and the out-lists a resume reads, as the store's own queries give them", { timeout: 120_000 }, async () => {
      const url = await running.createDatabase();
      const store = await PostgresStore.open(url);
      const pages = THREAD_READ_MIN_PAGES + 1234;
      const random = new Random(5);
      try {
        for (let first = 1; first <= pages; first += 5000) {
          const batch: CrawlBatch = { pages: [], fetches: [], replaceLinksOf: [], links: [], opic: [], state: {} };
          for (let id = first; id < Math.min(pages + 1, first + 5000); id++) {
            const key = `http://h${id % 13}.test/p/${id}?é=${id % 7}`;
            const read = id % 4 === 0;
            batch.pages.push({
              id, url: id % 3 === 0 ? `${key}#f${id}` : key, key, host: `h${id % 13}.test`, depth: id % 5, focus: id % 6 === 0, role: id % 17 === 0 ? 'sitemap' : 'page',
              opic: { cash: 1 / id, history: read ? 1 / (id + 1) : 0, lastRead: read ? id / 3 : 0, reads: read ? 1 : 0, seenAll: id * 1e-7, seenUnread: 0, seenFocus: 0, focus: id % 6 === 0 },
              windowHistory: id % 6 === 0 ? 0.5 : 0,
            });
            if (read) {
              batch.fetches.push({ id, fetchSeq: id * 2, record: { status: id % 9 === 0 ? 404 : 200, contentType: 'text/html', fetchedAt: 1_700_000_000_000 + id, size: 10, title: null, error: null, etag: id % 12 === 0 ? `"e${id}"` : null, lastModified: null }, first: true });
              // Links to earlier pages: some of two kinds, a self-link, a kind outside the graph's.
              const targets = [...new Set(Array.from({ length: 1 + (id % 5) }, () => 1 + Math.floor(random.next() * id)))];
              for (const target of targets) batch.links.push({ source: id, target, kind: 'anchor', nofollow: false });
              if (id % 3 === 0) batch.links.push({ source: id, target: targets[0]!, kind: 'redirect', nofollow: false });
              if (id % 7 === 0) batch.links.push({ source: id, target: id, kind: 'anchor', nofollow: false });
              if (id % 11 === 0) batch.links.push({ source: id, target: 1, kind: 'canonical', nofollow: false });
            }
          }
          await store.writeCrawlBatch(batch);
        }
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const reference = (await client.query<CrawlPageRow>({ text: `SELECT ${CRAWL_PAGE_COLUMNS} FROM pages ORDER BY id`, rowMode: 'array' })).rows.map(crawlPageFromRow);
        const codes = kindCodes(GRAPH_LINK_KINDS);
        const links = (await client.query<[string, string]>({ text: `SELECT DISTINCT source, target FROM links WHERE kind = ANY($1) AND source <> target ORDER BY source, target`, values: [codes], rowMode: 'array' })).rows.map(([s, t]) => `${s}>${t}`);
        await client.end();
        assert.equal(reference.length, pages);
        assert.ok(reference.some((p) => p.key !== p.url) && reference.some((p) => p.etag !== null) && reference.some((p) => p.focus) && reference.some((p) => p.fetchSeq !== null));
        // The store's methods take the threads at this size.
        const read: StoredCrawlPage[] = [];
        for await (const batch of store.crawlPageBatches(7000)) read.push(...batch);
        assert.deepEqual(read, reference);
        const got: string[] = [];
        for await (const batch of store.crawlOutLists(GRAPH_LINK_KINDS)) {
          for (let i = 0, start = 0; i < batch.sources.length; i++) {
            for (let e = start; e < batch.ends[i]!; e++) got.push(`${batch.sources[i]}>${batch.targets[e]}`);
            start = batch.ends[i]!;
          }
        }
        assert.ok(links.length > 10_000);
        assert.deepEqual(got, links);
        // Three readers, small batches: the same.
        const threaded: StoredCrawlPage[] = [];
        for await (const batch of readCrawlPagesInThread(url, 999, 3, 'postgres')) threaded.push(...batch);
        assert.deepEqual(threaded, reference);
      } finally {
        await store.close();
      }
    });

    it("fail with the server's message when the database is gone, and end their threads", async () => {
      const url = `${(await running.createDatabase()).replace(/\/[^/]*$/, '')}/wga_no_such_database`;
      await assert.rejects(
        (async () => {
          for await (const _ of readCrawlPagesInThread(url, 100, 2, 'postgres')) assert.fail('no pages from a missing database');
        })(),
        /does not exist/,
      );
    });
  });

  describe('PostgreSQL connection', () => {
    before(() => undefined);
    it('is chosen by a postgres:// URL and never shows the password', async () => {
      const store = await openStore(await running.createDatabase());
      assert.equal(store.kind, 'postgres');
      await store.close();
      assert.equal(redactLocation('postgres://me:secret@db.example:5432/wga'), 'postgres://me:***@db.example:5432/wga');
    });

    it('query_timeout from the URL fails a slow answer, but not a COPY that outlasts it, and leaves no timer behind', async () => {
      const url = await running.createDatabase();
      const client = new pg.Client(pgConfig(`${url}${url.includes('?') ? '&' : '?'}query_timeout=200`));
      await client.connect();
      try {
        await assert.rejects(client.query('SELECT pg_sleep(0.6)'), /Query read timeout/);
        // The timed-out query still runs on the server; a new connection keeps the test independent of it.
      } finally {
        await client.end().catch(() => undefined);
      }
      const copier = new pg.Client(pgConfig(`${url}${url.includes('?') ? '&' : '?'}query_timeout=200`));
      await copier.connect();
      try {
        const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
        let text = '';
        await pipeline(submitCopy(copier, copyTo('COPY (SELECT 7 AS n FROM pg_sleep(0.6)) TO STDOUT')), async (source: AsyncIterable<Buffer>) => {
          for await (const chunk of source) text += chunk.toString('utf8');
        });
        assert.equal(text, '7\n');
        const timersAfter = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
        assert.ok(timersAfter <= timersBefore, `timers before ${timersBefore}, after ${timersAfter}`);
        assert.equal((await copier.query('SELECT 1 AS one')).rows[0].one, 1, 'the timeout still holds for ordinary queries');
      } finally {
        await copier.end();
      }
    });

    it('names the server it cannot reach', async () => {
      await assert.rejects(PostgresStore.open('postgres://postgres:pw@127.0.0.1:1/none'), (error: unknown) => {
        assert.ok(error instanceof PostgresStoreError);
        assert.match((error as Error).message, /^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none: cannot open the store/);
        return true;
      });
    });
  });
}
