/**
 * A SQLite store's reader thread: reads a crawl's pages in id order on a connection of its own and
 * sends them packed (reader-protocol.ts), a batch for each 'more' the store sends; or
 * the out-lists of its links, in source order (at 10^8 links, 25 s of a resume on one thread).
 * Batches are ranges of ids (a crawl's are 1..n): several readers share the reading, each every
 * readers-th batch. Reading a row costs better-sqlite3 about 3 us (one JavaScript value per
 * column): at 10^7 pages that was half of a resume's time before its first request, on the
 * crawler's thread. pg-reader-worker.ts is PostgreSQL's twin.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { OutListBatch } from './out-lists.js';
import { sqliteOutListReader } from './sqlite-out-lists.js';
import { errorReply, type FromReader, packPageRows, READER_PAGE_COLUMNS, type ReaderData, type ToReader, transferOf } from './reader-protocol.js';

const port = parentPort!;
const { path, batchSize, index, readers, read } = workerData as ReaderData;

let db: Database.Database | null = null;
let statement: Database.Statement | null = null;
let lastId = 0;
let batch = index;
let ended = false;

let readLinks: ((from: number, to: number) => OutListBatch) | null = null;

function open(): void {
  db = new Database(path, { readonly: true, fileMustExist: true, timeout: 30_000 });
  lastId = (db.prepare('SELECT max(id) FROM pages').pluck().get() as number | null) ?? 0;
  if (read.what === 'pages') statement = db.prepare(`SELECT ${READER_PAGE_COLUMNS} FROM pages WHERE id > ? AND id <= ? ORDER BY id`).raw();
  else readLinks = sqliteOutListReader(db, read.kinds, lastId);
}

function nextBatch(): FromReader {
  if (db === null) open();
  const from = batch * batchSize;
  if (from >= lastId) return { type: 'end' };
  batch += readers;
  if (readLinks !== null) return { type: 'links', links: readLinks(from, from + batchSize) };
  return { type: 'pages', pages: packPageRows(statement!.all(from, from + batchSize) as unknown[][]) };
}

port.on('message', (message: ToReader) => {
  if (message.type !== 'more' || ended) return;
  try {
    const reply = nextBatch();
    if (reply.type === 'end') {
      ended = true;
      db?.close();
    }
    port.postMessage(reply, transferOf(reply));
  } catch (error) {
    ended = true;
    port.postMessage(errorReply(error));
  }
});
