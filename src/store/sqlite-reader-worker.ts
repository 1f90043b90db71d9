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
import { OutListPacker } from './out-lists.js';
import { errorReply, type FromReader, packPageRows, READER_PAGE_COLUMNS, type ReaderData, type ToReader, transferOf } from './reader-protocol.js';

const port = parentPort!;
const { path, batchSize, index, readers, read } = workerData as ReaderData;

let db: Database.Database | null = null;
let statement: Database.Statement | null = null;
let lastId = 0;
let batch = index;
let ended = false;

/** source * shift + target in one integer (exact while 2^bits squared stays below 2^53), or 0: two columns. */
let shift = 0;

function open(): void {
  db = new Database(path, { readonly: true, fileMustExist: true, timeout: 30_000 });
  lastId = (db.prepare('SELECT max(id) FROM pages').pluck().get() as number | null) ?? 0;
  if (read.what === 'pages') {
    statement = db.prepare(`SELECT ${READER_PAGE_COLUMNS} FROM pages WHERE id > ? AND id <= ? ORDER BY id`).raw();
    return;
  }
  // Kind codes are integers of ours, never text from outside.
  const kinds = read.kinds.map((kind) => Math.trunc(kind)).join(', ');
  const bits = Math.max(1, Math.ceil(Math.log2(lastId + 1)));
  shift = 2 * bits <= 53 ? 2 ** bits : 0;
  const where = `WHERE kind IN (${kinds}) AND source > ? AND source <= ? ORDER BY source, target`;
  statement = shift > 0 ? db.prepare(`SELECT source * ${shift} + target FROM links ${where}`).pluck() : db.prepare(`SELECT source, target FROM links ${where}`).raw();
}

function nextLinks(from: number): FromReader {
  const packer = new OutListPacker();
  if (shift > 0) {
    for (const value of statement!.all(from, from + batchSize) as number[]) {
      const source = Math.floor(value / shift);
      packer.add(source, value - source * shift);
    }
  } else {
    for (const [source, target] of statement!.all(from, from + batchSize) as Array<[number, number]>) packer.add(source, target);
  }
  return { type: 'links', links: packer.take() };
}

function nextBatch(): FromReader {
  if (db === null) open();
  const from = batch * batchSize;
  if (from >= lastId) return { type: 'end' };
  batch += readers;
  if (read.what === 'links') return nextLinks(from);
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
