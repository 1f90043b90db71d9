/**
 * Messages between a SQLite store and its reader threads (sqlite-page-reader.ts), and the packed
 * form of a batch of a crawl's pages: numbers in one Float64Array (transferred, not copied), text
 * in one array, NUMBERS and TEXTS values a page. Readers read pages, or the out-lists of links of
 * some kinds (out-lists.ts, three Int32Arrays transferred).
 */
import type { OutListBatch } from './out-lists.js';

export interface ReaderData {
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

export type ToReader = { type: 'more' };

export type FromReader =
  | { type: 'pages'; pages: PackedPages }
  | { type: 'links'; links: OutListBatch }
  | { type: 'end' }
  | { type: 'error'; message: string; code: string | null };
