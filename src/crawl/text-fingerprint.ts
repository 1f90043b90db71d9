/**
 * A page's visible text reduced to what a site audit needs: its word count and a 64-bit SimHash
 * (Charikar 2002), the fingerprint Manku, Jain and Das Sarma ("Detecting near-duplicates for web
 * crawling", WWW 2007) showed to find near-duplicate web pages at 64 bits and k = 3 differing bits.
 *
 * Why SimHash and not MinHash: one 64-bit value per page, stored in a column, compared by Hamming
 * distance with a band index (analysis/audit.ts); MinHash needs about a hundred values per page for
 * the same job. Features are the page's words (lower case, letters and digits), weighted by their
 * count: a one-word edit of a 400-word page moves few of the 64 sums across zero, while unrelated
 * pages differ in about half their bits.
 */

/** Characters of visible text read per page (the rest is neither counted nor hashed). */
export const MAX_TEXT_CHARS = 2_000_000;

const WORD = /[\p{L}\p{N}]+/gu;

/** 32-bit FNV-1a of a string's UTF-16 units, with a seed folded in first. */
function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A final mix (murmur3's) spreads FNV's weak high bits.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface TextFingerprint {
  words: number;
  /** 16 hexadecimal digits; null for a text without words. */
  simhash: string | null;
}

/** The word count and SimHash of a text (already decoded from HTML). */
export function fingerprintText(text: string): TextFingerprint {
  const counts = new Map<string, number>();
  let words = 0;
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    counts.set(word, (counts.get(word) ?? 0) + 1);
    words++;
  }
  if (words === 0) return { words: 0, simhash: null };
  const sums = new Float64Array(64);
  for (const [word, weight] of counts) {
    const low = fnv1a(word, 0);
    const high = fnv1a(word, 0x9e3779b9);
    for (let b = 0; b < 32; b++) {
      sums[b]! += (low >>> b) & 1 ? weight : -weight;
      sums[32 + b]! += (high >>> b) & 1 ? weight : -weight;
    }
  }
  let low = 0;
  let high = 0;
  for (let b = 0; b < 32; b++) {
    if (sums[b]! > 0) low |= 1 << b;
    if (sums[32 + b]! > 0) high |= 1 << b;
  }
  return { words, simhash: (high >>> 0).toString(16).padStart(8, '0') + (low >>> 0).toString(16).padStart(8, '0') };
}

/** Bits in which two SimHashes (16 hexadecimal digits each) differ. */
export function simhashDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let count = 0;
  while (x !== 0n) {
    x &= x - 1n;
    count++;
  }
  return count;
}
