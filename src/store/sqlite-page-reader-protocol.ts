/**
 * Messages between a SQLite store and its page reader thread (sqlite-page-reader.ts), and the
 * packed form of a batch of a crawl's pages: numbers in one Float64Array (transferred, not
 * copied), text in one array, NUMBERS and TEXTS values a page.
 */
export interface ReaderData {
  path: string;
  batchSize: number;
  /** This reader reads batches index, index + readers, ...: batch b holds ids (b * batchSize, (b + 1) * batchSize]. */
  index: number;
  readers: number;
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
  | { type: 'end' }
  | { type: 'error'; message: string; code: string | null };
