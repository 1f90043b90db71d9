/**
 * A SQLite store's reader thread: reads a crawl's pages in id order on a connection of its own and
 * sends them packed (sqlite-page-reader-protocol.ts), a batch for each 'more' the store sends; or
 * the out-lists of its links, in source order (at 10^8 links, 25 s of a resume on one thread). Batches are ranges of ids (a crawl's are 1..n): several readers share the reading, each
 * every readers-th batch. Reading a row costs better-sqlite3 about 3 us (one JavaScript value per column): at
 * 10^7 pages that was half of a resume's time before its first request, on the crawler's thread.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { OutListPacker } from './out-lists.js';
import { NUMBERS, TEXTS, type FromReader, type PackedPages, type ReaderData, type ToReader } from './sqlite-page-reader-protocol.js';

const port = parentPort!;
const { path, batchSize, index, readers, read } = workerData as ReaderData;

// The key only when it is not the URL (the usual case), so that one string a page is made, not two.
const COLUMNS =
  'id, depth, focus, status, fetch_seq, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role, url, CASE WHEN url_key = url THEN NULL ELSE url_key END, host, content_type, fetch_error, etag, last_modified';

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
    statement = db.prepare(`SELECT ${COLUMNS} FROM pages WHERE id > ? AND id <= ? ORDER BY id`).raw();
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
    const transfer = reply.type === 'pages' ? [reply.pages.numbers.buffer] : reply.type === 'links' ? [reply.links.sources.buffer, reply.links.ends.buffer, reply.links.targets.buffer] : [];
    port.postMessage(reply, transfer as ArrayBuffer[]);
  } catch (error) {
    ended = true;
    const e = error as { message?: unknown; code?: unknown };
    port.postMessage({ type: 'error', message: typeof e.message === 'string' ? e.message : String(error), code: typeof e.code === 'string' ? e.code : null } satisfies FromReader);
  }
});
