import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore, redactLocation } from '../../src/store/open.js';
import { PostgresStore, PostgresStoreError } from '../../src/store/postgres.js';
import { storeSuite } from './store-suite.js';
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

    it('names the server it cannot reach', async () => {
      await assert.rejects(PostgresStore.open('postgres://postgres:pw@127.0.0.1:1/none'), (error: unknown) => {
        assert.ok(error instanceof PostgresStoreError);
        assert.match((error as Error).message, /^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none: cannot open the store/);
        return true;
      });
    });
  });
}
