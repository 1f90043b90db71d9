/**
 * A SQLite store's page reader thread: reads a crawl's pages in id order on a connection of its
 * own and sends them packed (sqlite-page-reader-protocol.ts), a batch for each 'more' the store
 * sends. Batches are ranges of ids (a crawl's are 1..n): several readers share the reading, each
 * every readers-th batch. Reading a row costs better-sqlite3 about 3 us (one JavaScript value per column): at
 * 10^7 pages that was half of a resume's time before its first request, on the crawler's thread.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { NUMBERS, TEXTS, type FromReader, type PackedPages, type ReaderData, type ToReader } from './sqlite-page-reader-protocol.js';

const port = parentPort!;
const { path, batchSize, index, readers } = workerData as ReaderData;

// The key only when it is not the URL (the usual case), so that one string a page is made, not two.
const COLUMNS =
  'id, depth, focus, status, fetch_seq, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role, url, CASE WHEN url_key = url THEN NULL ELSE url_key END, host, content_type, fetch_error, etag, last_modified';

let db: Database.Database | null = null;
let statement: Database.Statement | null = null;
let lastId = 0;
let batch = index;
let ended = false;

function nextBatch(): FromReader {
  if (db === null) {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 30_000 });
    statement = db.prepare(`SELECT ${COLUMNS} FROM pages WHERE id > ? AND id <= ? ORDER BY id`).raw();
    lastId = (db.prepare('SELECT max(id) FROM pages').pluck().get() as number | null) ?? 0;
  }
  const from = batch * batchSize;
  if (from >= lastId) return { type: 'end' };
  batch += readers;
  const rows = statement!.all(from, from + batchSize) as unknown[][];
  const numbers = new Float64Array(rows.length * NUMBERS);
  const texts = new Array<string | null>(rows.length * TEXTS);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let c = 0; c < NUMBERS; c++) {
      const value = row[c];
      numbers[i * NUMBERS + c] = value === null ? Number.NaN : Number(value);
    }
    for (let c = 0; c < TEXTS; c++) texts[i * TEXTS + c] = row[NUMBERS + c] as string | null;
  }
  const pages: PackedPages = { count: rows.length, numbers, texts };
  return { type: 'pages', pages };
}

port.on('message', (message: ToReader) => {
  if (message.type !== 'more' || ended) return;
  try {
    const reply = nextBatch();
    if (reply.type === 'end') {
      ended = true;
      db?.close();
    }
    port.postMessage(reply, reply.type === 'pages' ? [reply.pages.numbers.buffer] : []);
  } catch (error) {
    ended = true;
    const e = error as { message?: unknown; code?: unknown };
    port.postMessage({ type: 'error', message: typeof e.message === 'string' ? e.message : String(error), code: typeof e.code === 'string' ? e.code : null } satisfies FromReader);
  }
});
