/**
 * A SQLite store's out-lists read by ranges of sources, in (source, target) order, packed
 * (out-lists.ts): what the store's own thread and its reader threads (sqlite-reader-worker.ts) run.
 */
import type Database from 'better-sqlite3';
import { type OutListBatch, OutListPacker } from './out-lists.js';

/**
 * A reader of the out-lists of the links whose kind codes are `kinds`, for sources in (from, to]
 * of a store whose largest page id is `maxId`: each link is one integer, source * 2^bits + target,
 * where that is exact (below 2^53), else two columns.
 */
export function sqliteOutListReader(db: Database.Database, kinds: readonly number[], maxId: number): (from: number, to: number) => OutListBatch {
  // Kind codes are integers of ours, never text from outside.
  const codes = kinds.map((kind) => Math.trunc(kind)).join(', ');
  const bits = Math.max(1, Math.ceil(Math.log2(maxId + 1)));
  const where = `WHERE kind IN (${codes}) AND source > ? AND source <= ? ORDER BY source, target`;
  if (2 * bits <= 53) {
    const shift = 2 ** bits;
    const statement = db.prepare(`SELECT source * ${shift} + target FROM links ${where}`).pluck();
    return (from, to) => {
      const packer = new OutListPacker();
      for (const value of statement.all(from, to) as number[]) {
        const source = Math.floor(value / shift);
        packer.add(source, value - source * shift);
      }
      return packer.take();
    };
  }
  const statement = db.prepare(`SELECT source, target FROM links ${where}`).raw();
  return (from, to) => {
    const packer = new OutListPacker();
    for (const [source, target] of statement.all(from, to) as Array<[number, number]>) packer.add(source, target);
    return packer.take();
  };
}
