/**
 * COPY TO output of two integer columns, parsed on the bytes (no string a row): how a PostgreSQL
 * store reads links in bulk, on the store's thread or on a reader thread (pg-reader-worker.ts),
 * and the out-lists a resume reads, a range of sources a COPY.
 */
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { type OutListBatch, OutListPacker } from './out-lists.js';
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

/** The out-lists of the links whose kind codes are `kinds`, for sources in (from, to], in one COPY, packed. */
export async function copyOutListRange(client: pg.ClientBase, kinds: readonly number[], from: number, to: number): Promise<OutListBatch> {
  // Integers of ours (kind codes, id bounds), never text from outside: COPY takes no parameters.
  const codes = kinds.map((kind) => Math.trunc(kind)).join(', ');
  const [low, high] = [Math.trunc(from), Math.trunc(to)];
  const packer = new OutListPacker();
  await copyNumberPairs(client, `COPY (SELECT source, target FROM links WHERE kind IN (${codes}) AND source > ${low} AND source <= ${high} ORDER BY source, target) TO STDOUT`, (s, t) => packer.add(s, t));
  return packer.take();
}
