import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FileNotFoundError } from '../../src/errors.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { StoreError } from '../../src/store/store.js';
import { temporaryDirectory } from '../helpers.js';
import { storeSuite } from './store-suite.js';
import { writeFileSync } from 'node:fs';
import { it } from 'node:test';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let count = 0;

storeSuite({
  name: 'SQLite',
  open: async () => SqliteStore.open(join(dir.path, `store-${count++}.db`)),
  concurrentWriters: async (writers, pagesEach) => {
    const path = join(dir.path, 'concurrent.db');
    SqliteStore.open(path).close();
    const script = fileURLToPath(new URL('./sqlite-writer.js', import.meta.url));
    await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, [script, path, `writer${w}`, String(pagesEach)], { stdio: 'inherit' });
          child.on('error', reject);
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${w} exited with ${code}`))));
        }),
      ),
    );
    const store = SqliteStore.open(path);
    const counts = await store.counts();
    await store.close();
    // Every writer's own pages, the shared ones once; one link per own page (to its shared twin).
    assert.equal(counts.pages, writers * pagesEach + pagesEach);
    assert.equal(counts.links, writers * pagesEach);
  },
});

it('names a file that is not a store', async () => {
  const path = join(dir.path, 'not-a-db.txt');
  writeFileSync(path, 'this is not an SQLite database, just some text that is long enough to have a header');
  assert.throws(() => SqliteStore.open(path), (error: unknown) => error instanceof StoreError && /not-a-db\.txt: /.test((error as Error).message));
  assert.throws(() => SqliteStore.open(join(dir.path, 'missing.db'), { create: false }), FileNotFoundError);
});
