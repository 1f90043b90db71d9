/**
 * A plain, fast reader of a numeric edge list (`from<TAB>to` per line, any
 * white space; `#` and `%` lines are comments) into two Int32Arrays, dropping
 * self-links. graphology and ngraph have no file readers of their own, so the
 * benchmark gives both this one: it parses bytes straight into typed arrays,
 * which is the fastest a user of those libraries could reasonably do, and its
 * time counts as part of their load.
 */
import { readFileSync } from 'node:fs';

export interface EdgeText {
  sources: Int32Array;
  targets: Int32Array;
  /** Links kept (self-links dropped). */
  count: number;
  /** Lines with a link, self-links included. */
  raw: number;
  selfLinks: number;
  /** Largest page id + 1. */
  nodes: number;
}

export function readEdgeText(path: string): EdgeText {
  const bytes = readFileSync(path);
  let capacity = Math.max(1024, Math.ceil(bytes.length / 8));
  let sources = new Int32Array(capacity);
  let targets = new Int32Array(capacity);
  let count = 0;
  let raw = 0;
  let selfLinks = 0;
  let maxId = -1;
  const length = bytes.length;
  // Skips spaces, tabs and carriage returns; returns the position of the next other byte.
  const skipBlanks = (at: number): number => {
    while (at < length) {
      const c = bytes[at]!;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
      at++;
    }
    return at;
  };
  const fail = (at: number): never => {
    throw new Error(`${path}: not a numeric edge list (byte ${bytes[at]} at offset ${at})`);
  };
  let i = 0;
  while (i < length) {
    i = skipBlanks(i);
    if (i >= length) break;
    const first = bytes[i]!;
    if (first === 0x0a) {
      i++;
      continue;
    }
    if (first === 0x23 /* # */ || first === 0x25 /* % */) {
      while (i < length && bytes[i] !== 0x0a) i++;
      i++;
      continue;
    }
    let from = 0;
    let digits = 0;
    for (; i < length; i++, digits++) {
      const d = bytes[i]! - 0x30;
      if (d < 0 || d > 9) break;
      from = from * 10 + d;
    }
    if (digits === 0) fail(i);
    i = skipBlanks(i);
    let to = 0;
    digits = 0;
    for (; i < length; i++, digits++) {
      const d = bytes[i]! - 0x30;
      if (d < 0 || d > 9) break;
      to = to * 10 + d;
    }
    if (digits === 0) fail(i);
    // Further columns (weights, timestamps) are ignored.
    while (i < length && bytes[i] !== 0x0a) i++;
    i++;
    if (from > 0x7fffffff || to > 0x7fffffff) throw new Error(`${path}: page id above 2^31 near offset ${i}`);
    raw++;
    if (from > maxId) maxId = from;
    if (to > maxId) maxId = to;
    if (from === to) {
      selfLinks++;
      continue;
    }
    if (count === capacity) {
      capacity *= 2;
      const s = new Int32Array(capacity);
      s.set(sources);
      sources = s;
      const t = new Int32Array(capacity);
      t.set(targets);
      targets = t;
    }
    sources[count] = from;
    targets[count] = to;
    count++;
  }
  return { sources, targets, count, raw, selfLinks, nodes: maxId + 1 };
}
