/**
 * The checkpoint writer thread of a SQLite store: its own connection to the
 * store file, on which each checkpoint's transaction runs (sqlite-crawl-writer.ts),
 * one at a time in the order sent. better-sqlite3 blocks the thread it runs
 * on; here that is this thread, not the crawler's.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { configureConnection, SqliteCrawlWriter } from './sqlite-crawl-writer.js';
import type { FromWriter, ToWriter, WriterData, WriterError } from './sqlite-writer-protocol.js';

const port = parentPort!;
const { path } = workerData as WriterData;

function errorOf(error: unknown): WriterError {
  const e = error as { name?: unknown; message?: unknown; code?: unknown };
  return { name: typeof e.name === 'string' ? e.name : 'Error', message: typeof e.message === 'string' ? e.message : String(error), code: typeof e.code === 'string' ? e.code : null };
}

// Opened on the first write: a failure to open is that write's failure, as it would be on the store's thread.
let db: Database.Database | null = null;
let writer: SqliteCrawlWriter | null = null;

port.on('message', (message: ToWriter) => {
  if (message.type === 'close') {
    db?.close();
    db = null;
    port.postMessage({ type: 'closed' } satisfies FromWriter);
    port.close();
    return;
  }
  try {
    if (writer === null) {
      db = new Database(path, { timeout: 30_000, fileMustExist: true });
      configureConnection(db);
      writer = new SqliteCrawlWriter(db);
    }
    writer.write(message.batch);
    port.postMessage({ type: 'written', seq: message.seq } satisfies FromWriter);
  } catch (error) {
    port.postMessage({ type: 'failed', seq: message.seq, error: errorOf(error) } satisfies FromWriter);
  }
});
