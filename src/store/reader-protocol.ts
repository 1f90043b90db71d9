/**
 * Messages between a store and its reader threads (reader-threads.ts), and the packed
 * form of a batch of a crawl's pages: numbers in one Float64Array (transferred, not copied), text
 * in one array, NUMBERS and TEXTS values a page. Readers read pages, or the out-lists of links of
 * some kinds (out-lists.ts, three Int32Arrays transferred).
 */
import type { OutListBatch } from './out-lists.js';

export interface ReaderData {
  /** The SQLite file, or the postgres:// URL (its password too: the thread connects with it). */
  path: string;
  batchSize: number;
  /** This reader reads batches index, index + readers, ...: batch b holds ids (b * batchSize, (b + 1) * batchSize] (of sources, for links). */
  index: number;
  readers: number;
  /** What is read: the crawl's pages, or the out-lists of the links whose kind codes are `kinds`. */
  read: { what: 'pages' } | { what: 'links'; kinds: number[] };
}

/** Per page in `numbers`: id, depth, focus, status, fetch_seq, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role (NaN for NULL). */
export const NUMBERS = 14;
/** Per page in `texts`: url, url_key (null when it is the URL), host, content_type, fetch_error, etag, last_modified. */
export const TEXTS = 7;

export interface PackedPages {
  count: number;
  numbers: Float64Array<ArrayBuffer>;
  texts: Array<string | null>;
}

/**
 * The columns a reader selects, NUMBERS then TEXTS (SQL both stores read alike); the key only when
 * it is not the URL (the usual case), so that one string a page is made, not two.
 */
export const READER_PAGE_COLUMNS =
  'id, depth, focus, status, fetch_seq, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role, url, CASE WHEN url_key = url THEN NULL ELSE url_key END, host, content_type, fetch_error, etag, last_modified';

/** Rows of READER_PAGE_COLUMNS, packed (NULL numbers as NaN; booleans as 0 and 1). */
export function packPageRows(rows: readonly unknown[][]): PackedPages {
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
  return { count: rows.length, numbers, texts };
}

export type ToReader = { type: 'more' };

export type FromReader =
  | { type: 'pages'; pages: PackedPages }
  | { type: 'links'; links: OutListBatch }
  | { type: 'end' }
  | { type: 'error'; message: string; code: string | null };

/** The buffers a reply moves to the store's thread instead of copying them. */
export function transferOf(reply: FromReader): ArrayBuffer[] {
  if (reply.type === 'pages') return [reply.pages.numbers.buffer];
  if (reply.type === 'links') return [reply.links.sources.buffer, reply.links.ends.buffer, reply.links.targets.buffer] as ArrayBuffer[];
  return [];
}

/** An error of a reader thread, as a message: its text and its code (SQLite's, or PostgreSQL's SQLSTATE). */
export function errorReply(error: unknown): FromReader {
  const e = error as { message?: unknown; code?: unknown };
  return { type: 'error', message: typeof e.message === 'string' ? e.message : String(error), code: typeof e.code === 'string' ? e.code : null };
}
