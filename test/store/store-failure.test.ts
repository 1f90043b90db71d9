import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { StoreFailureError, storeFailure, withStoreFailures } from '../../src/store/store-failure.js';
import { StoreError } from '../../src/store/store.js';

/** An error as node-postgres reports a server's refusal: a DatabaseError with severity and SQLSTATE. */
function serverError(message: string, code: string): Error {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.severity = 'FATAL';
  error.code = code;
  return error;
}

function systemError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
}

describe('store failures', () => {
  it('classifies what waiting may cure and what it cannot, on one line', () => {
    const cases: Array<[Error, boolean, RegExp]> = [
      [systemError('ECONNREFUSED'), true, /^connection refused \(ECONNREFUSED\)$/],
      [systemError('ECONNRESET'), true, /^connection reset by the server \(ECONNRESET\)$/],
      [new Error('Connection terminated unexpectedly'), true, /^the connection to the server was lost: Connection terminated unexpectedly$/],
      [new Error('Query read timeout'), true, /^no answer within query_timeout/],
      [serverError('terminating connection due to administrator command', '57P01'), true, /\(SQLSTATE 57P01\)$/],
      [serverError('the database system is starting up', '57P03'), true, /SQLSTATE 57P03/],
      [serverError('could not serialize access', '40001'), true, /SQLSTATE 40001/],
      [serverError('could not extend file: No space left on device', '53100'), false, /^the server's disk is full: .*\(SQLSTATE 53100\)$/],
      [serverError('duplicate key value violates unique constraint', '23505'), false, /^duplicate key .*\(SQLSTATE 23505\)$/],
      [serverError('permission denied for table pages', '42501'), false, /SQLSTATE 42501/],
    ];
    for (const [error, transient, text] of cases) {
      const failure = storeFailure(error);
      assert.notEqual(failure, null, error.message);
      assert.equal(failure!.transient, transient, error.message);
      assert.match(failure!.text, text);
      assert.ok(!failure!.text.includes('\n'));
    }
    // Bugs are not the database's: they stay internal errors.
    assert.equal(storeFailure(new TypeError("Cannot read properties of undefined (reading 'id')")), null);
    assert.equal(storeFailure('a string'), null);
  });

  it('reads SQLite\'s own errors: a size limit reached is SQLITE_FULL, a locked file SQLITE_BUSY', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x BLOB)');
    db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true })) + 2}`);
    let full: unknown = null;
    try {
      for (let i = 0; i < 100; i++) db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(4096));
    } catch (error) {
      full = error;
    }
    db.close();
    assert.deepEqual(storeFailure(full), { transient: false, text: "the disk (or the database's size limit) is full (SQLITE_FULL)" });
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    assert.deepEqual(storeFailure(busy), { transient: true, text: 'the database file is locked by another process (SQLITE_BUSY)' });
    const io = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
    assert.equal(storeFailure(io)!.transient, false);
    assert.match(storeFailure(io)!.text, /^input\/output error on the database file: disk I\/O error \(SQLITE_IOERR_WRITE\)$/);
  });

  it('a store behind withStoreFailures names itself in every database failure, and passes everything else through', async () => {
    class FakeStore {
      readonly kind = 'fake';
      private readonly secret = 42;
      async counts(): Promise<number> {
        return this.secret;
      }
      async broken(): Promise<number> {
        throw systemError('ECONNREFUSED');
      }
      syncBroken(): number {
        throw serverError('permission denied for table pages', '42501');
      }
      async bug(): Promise<number> {
        throw new TypeError('a bug');
      }
      async refused(): Promise<number> {
        throw new StoreError('somewhere', 'already holds a crawl');
      }
    }
    const store = withStoreFailures(new FakeStore(), 'postgres://u:***@db/crawl');
    assert.equal(store.kind, 'fake');
    assert.equal(await store.counts(), 42, 'methods run on the store itself (its private state included)');
    await assert.rejects(store.broken(), (error: unknown) => {
      assert.ok(error instanceof StoreFailureError);
      assert.equal(error.message, 'postgres://u:***@db/crawl: connection refused (ECONNREFUSED)');
      assert.equal(error.transient, true);
      assert.equal(error.exitCode, 1);
      return true;
    });
    assert.throws(() => store.syncBroken(), /^StoreFailureError: postgres:\/\/u:\*\*\*@db\/crawl: permission denied for table pages \(SQLSTATE 42501\)$/);
    await assert.rejects(store.bug(), TypeError);
    await assert.rejects(store.refused(), (error: unknown) => error instanceof StoreError && !(error instanceof StoreFailureError) && error.message === 'somewhere: already holds a crawl');
  });
});
