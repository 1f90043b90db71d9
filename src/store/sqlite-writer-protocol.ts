/** Messages between a SQLite store and its checkpoint writer thread (sqlite-writer-thread.ts). */
import type { PackedCrawlBatch } from './packed-batch.js';

export interface WriterData {
  path: string;
}

export type ToWriter = { type: 'write'; seq: number; batch: PackedCrawlBatch } | { type: 'close' };

/** An error as it crosses the thread boundary: what store-failure.ts reads (code, message). */
export interface WriterError {
  name: string;
  message: string;
  code: string | null;
}

export type FromWriter = { type: 'written'; seq: number } | { type: 'failed'; seq: number; error: WriterError } | { type: 'closed' };
