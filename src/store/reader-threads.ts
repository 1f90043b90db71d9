/**
 * A crawl's pages (and its links' out-lists) read back on threads of their own, for a resume: the
 * store's thread only unpacks them, while the readers read the next batches. The readers are
 * sqlite-reader-worker.ts and pg-reader-worker.ts. At 10^7 pages the reads took 31 of the 68 s
 * before the first request on the crawler's thread (BENCHMARKS.md). Each reader reads up to AHEAD
 * batches ahead of the one being used, so memory stays bounded.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { OutListBatch } from './out-lists.js';
import { roleOf } from './records.js';
import { NUMBERS, TEXTS, type FromReader, type PackedPages, type ReaderData } from './reader-protocol.js';
import type { StoredCrawlPage } from './store.js';

/** A resume reads its pages (and links) on reader threads from this many pages on (below, starting the thread costs more than it saves). */
export const THREAD_READ_MIN_PAGES = 20_000;

const AHEAD = 3;

/** Which store's reader thread: path is then a SQLite file or a postgres:// URL. */
export type ReaderBackend = 'sqlite' | 'postgres';

const READER_WORKERS: Record<ReaderBackend, URL> = {
  sqlite: new URL('./sqlite-reader-worker.js', import.meta.url),
  postgres: new URL('./pg-reader-worker.js', import.meta.url),
};

const nullable = (value: number): number | null => (value === value ? value : null);

/** The pages of a packed batch, as crawlPageFromRow gives them. */
export function unpackPages(packed: PackedPages): StoredCrawlPage[] {
  const { count, numbers: n, texts: t } = packed;
  const pages = new Array<StoredCrawlPage>(count);
  for (let i = 0; i < count; i++) {
    const a = i * NUMBERS;
    const s = i * TEXTS;
    const url = t[s]!;
    const focus = n[a + 2] === 1;
    pages[i] = {
      id: n[a]!,
      url,
      key: t[s + 1] ?? url,
      host: t[s + 2]!,
      depth: nullable(n[a + 1]!) ?? 0,
      focus,
      status: nullable(n[a + 3]!),
      contentType: t[s + 3]!,
      error: t[s + 4]!,
      fetchSeq: nullable(n[a + 4]!),
      opic: { cash: n[a + 5]!, history: n[a + 6]!, lastRead: n[a + 7]!, reads: n[a + 8]!, seenAll: n[a + 9]!, seenUnread: n[a + 10]!, seenFocus: n[a + 11]!, focus },
      windowHistory: n[a + 12]!,
      role: roleOf(n[a + 13]!),
      etag: t[s + 5]!,
      lastModified: t[s + 6]!,
    };
  }
  return pages;
}

/**
 * The pages of the store file at `path`, in id order, in batches of `batchSize` ids, read on
 * `readers` reader threads taking batches in turn (batch b on reader b % readers).
 */
export async function* readCrawlPagesInThread(path: string, batchSize: number, readers = defaultReaders(), backend: ReaderBackend = 'sqlite'): AsyncGenerator<StoredCrawlPage[]> {
  for await (const message of readInThreads(backend, path, batchSize, { what: 'pages' }, readers)) {
    // A range of ids with no page (ids are 1..n in a crawl's store, but not in every store).
    if (message.type === 'pages' && message.pages.count > 0) yield unpackPages(message.pages);
  }
}

/**
 * The out-lists of the links whose kind codes are `kinds` in the store file at `path`, in source
 * order, `batchSize` source ids a batch, read on `readers` reader threads in turn.
 */
export async function* readOutListsInThread(path: string, kinds: number[], batchSize: number, readers = defaultReaders(), backend: ReaderBackend = 'sqlite'): AsyncGenerator<OutListBatch> {
  for await (const message of readInThreads(backend, path, batchSize, { what: 'links', kinds }, readers)) {
    if (message.type === 'links' && message.links.sources.length > 0) yield message.links;
  }
}

/** The batches the reader threads send, in batch order, each reader AHEAD batches ahead. */
async function* readInThreads(backend: ReaderBackend, path: string, batchSize: number, read: ReaderData['read'], readers: number): AsyncGenerator<FromReader> {
  const arrived: FromReader[][] = [];
  const workers: Worker[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  const notify = (): void => {
    wake?.();
    wake = null;
  };
  try {
    for (let index = 0; index < readers; index++) {
      const data: ReaderData = { path, batchSize, index, readers, read };
      const worker = new Worker(READER_WORKERS[backend], { workerData: data });
      const queue: FromReader[] = [];
      arrived.push(queue);
      workers.push(worker);
      worker.on('message', (message: FromReader) => {
        queue.push(message);
        notify();
      });
      worker.on('error', (error) => {
        failure ??= error;
        notify();
      });
      worker.on('exit', (code) => {
        failure ??= new Error(`the store's reader thread exited with code ${code}`);
        notify();
      });
      for (let i = 0; i < AHEAD; i++) worker.postMessage({ type: 'more' });
    }
    for (let batch = 0; ; batch++) {
      const reader = batch % readers;
      const queue = arrived[reader]!;
      while (queue.length === 0) {
        if (failure !== null) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
      }
      const message = queue.shift()!;
      if (message.type === 'end') return;
      if (message.type === 'error') throw Object.assign(new Error(message.message), message.code === null ? {} : { code: message.code });
      workers[reader]!.postMessage({ type: 'more' });
      yield message;
    }
  } finally {
    for (const worker of workers) worker.removeAllListeners('exit');
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/** Two readers where there are two cores or more (the store's thread unpacks meanwhile). */
function defaultReaders(): number {
  return availableParallelism() >= 2 ? 2 : 1;
}
