/**
 * COPY TO output of two integer columns, parsed on the bytes (no string a row): how a PostgreSQL
 * store reads links in bulk, on the store's thread or on a reader thread (pg-reader-worker.ts).
 */
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { submitCopy } from './pg-config.js';

/** Streams `sql` (a COPY ... TO STDOUT of two non-negative integer columns) to `onPair`. */
export async function copyNumberPairs(client: pg.ClientBase, sql: string, onPair: (a: number, b: number) => void): Promise<void> {
  let a = 0;
  let b = 0;
  let second = false;
  await pipeline(submitCopy(client, copyTo(sql)), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i]!;
        if (c === 10) {
          onPair(a, b);
          a = 0;
          b = 0;
          second = false;
        } else if (c === 9) {
          second = true;
        } else if (second) {
          b = b * 10 + (c - 48);
        } else {
          a = a * 10 + (c - 48);
        }
      }
    }
  });
}
