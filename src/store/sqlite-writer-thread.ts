/**
 * A SQLite store's checkpoint writer on a thread of its own. better-sqlite3
 * is synchronous: on the crawler's thread each checkpoint's transaction
 * stopped fetching, parsing and choosing for as long as it ran (31.9% of that
 * thread at 10^5 pages, BENCHMARKS.md). Here the batch is handed to a worker
 * with its own connection to the file, and the crawl goes on while it is
 * written. WAL mode lets the store's own connection read meanwhile; writes of
 * the two connections take turns through SQLite's lock (busy timeout 30 s).
 *
 * Each batch is still one transaction, written in the order sent, and a
 * write's promise settles only after its COMMIT (or its failure, with the
 * SQLite error code store-failure.ts reads), so a crawl killed at any moment
 * still resumes from the last batch that was committed.
 */
import { Worker } from 'node:worker_threads';
import type { FromWriter, ToWriter, WriterData } from './sqlite-writer-protocol.js';
import { packCrawlBatch, transferablesOf } from './packed-batch.js';
import type { CrawlBatch } from './store.js';

interface Waiting {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class SqliteWriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextSeq = 1;
  private exited: Error | null = null;
  private closing: Promise<void> | null = null;
  private lastWrite: Promise<void> = Promise.resolve();

  constructor(path: string) {
    const data: WriterData = { path };
    this.worker = new Worker(new URL('./sqlite-writer-worker.js', import.meta.url), { workerData: data });
    // Only a write in flight keeps the process alive (see write()).
    this.worker.unref();
    this.worker.on('message', (message: FromWriter) => this.received(message));
    this.worker.on('error', (error) => this.stopped(error));
    this.worker.on('exit', (code) => this.stopped(new Error(`the store's writer thread exited with code ${code}`)));
  }

  /** Writes a checkpoint's batch on the writer thread; settles after its COMMIT. */
  write(batch: CrawlBatch): Promise<void> {
    if (this.exited !== null) return Promise.reject(this.exited);
    if (this.closing !== null) return Promise.reject(new Error('the store is closing'));
    const seq = this.nextSeq++;
    const written = new Promise<void>((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.worker.ref();
      const packed = packCrawlBatch(batch);
      this.worker.postMessage({ type: 'write', seq, batch: packed } satisfies ToWriter, transferablesOf(packed));
    });
    this.lastWrite = written.catch(() => undefined);
    return written;
  }

  /** Waits for the writes sent, then closes the thread's connection and ends the thread. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Writes are done in the order sent: the last one settles last.
      await this.lastWrite;
      if (this.exited !== null) return;
      this.worker.ref();
      const ended = new Promise<void>((done) => this.worker.once('exit', () => done()));
      this.worker.postMessage({ type: 'close' } satisfies ToWriter);
      await ended;
    })();
    return this.closing;
  }

  private received(message: FromWriter): void {
    if (message.type === 'closed') return;
    const waiting = this.waiting.get(message.seq);
    if (waiting === undefined) return;
    this.waiting.delete(message.seq);
    if (this.waiting.size === 0 && this.closing === null) this.worker.unref();
    if (message.type === 'written') {
      waiting.resolve();
      return;
    }
    const error = new Error(message.error.message) as Error & { code?: string };
    error.name = message.error.name;
    if (message.error.code !== null) error.code = message.error.code;
    waiting.reject(error);
  }

  private stopped(error: Error): void {
    if (this.exited !== null) return;
    // A normal end after close() rejects nothing: every write had settled.
    this.exited = error;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
