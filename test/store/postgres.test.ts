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
