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

import { fmix32 } from '../util/fmix.js';

/** Characters of visible text read per page (the rest is neither counted nor hashed). */
export const MAX_TEXT_CHARS = 2_000_000;

// murmur3's finaliser spreads FNV's weak high bits, and derives the second 32 bits from the first.
const mix = fmix32;

/** A non-ASCII character of a word (a letter or a digit of any script). */
const WORD_CHAR = /^[\p{L}\p{N}]$/u;

export interface TextFingerprint {
  words: number;
  /** 16 hexadecimal digits; null for a text without words. */
  simhash: string | null;
}

/**
 * The word count and SimHash of a text (already decoded from HTML). One pass over its characters,
 * without a string per word: a word's lower-case characters are hashed as they come (FNV-1a), and
 * each word, as it ends, adds 1 to the sums of the bits its 64-bit hash has set (Charikar's SimHash,
 * each occurrence a feature: a word's weight is its count); bit b of the SimHash is set when more
 * than half the words have it.
 */
export function fingerprintText(text: string): TextFingerprint {
  // The 64 sums are counted 4 to a 32-bit word (a byte each), 16 words; each word's hash adds its
  // bits 4 at a time (NIBBLE_LANES), and the bytes are moved to the sums before they can overflow.
  const lanes = new Uint32Array(16);
  const sums = new Int32Array(64);
  let inLanes = 0;
  let words = 0;
  let h = 0x811c9dc5;
  let inWord = false;
  const flush = (): void => {
    for (let k = 0; k < 16; k++) {
      const v = lanes[k]!;
      sums[4 * k]! += v & 0xff;
      sums[4 * k + 1]! += (v >>> 8) & 0xff;
      sums[4 * k + 2]! += (v >>> 16) & 0xff;
      sums[4 * k + 3]! += v >>> 24;
      lanes[k] = 0;
    }
    inLanes = 0;
  };
  const end = (): void => {
    const low = mix(h);
    const high = mix(h ^ 0x9e3779b9);
    for (let k = 0; k < 8; k++) {
      lanes[k]! += NIBBLE_LANES[(low >>> (4 * k)) & 15]!;
      lanes[8 + k]! += NIBBLE_LANES[(high >>> (4 * k)) & 15]!;
    }
    if (++inLanes === 255) flush();
    words++;
    h = 0x811c9dc5;
    inWord = false;
  };
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x41 && c <= 0x5a) c += 0x20;
      if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
        h ^= c;
        h = Math.imul(h, 0x01000193);
        inWord = true;
      } else if (inWord) end();
      continue;
    }
    const point = text.codePointAt(i)!;
    if (point > 0xffff) i++;
    const char = String.fromCodePoint(point);
    if (WORD_CHAR.test(char)) {
      const lower = char.toLowerCase();
      for (let k = 0; k < lower.length; k++) {
        h ^= lower.charCodeAt(k);
        h = Math.imul(h, 0x01000193);
      }
      inWord = true;
    } else if (inWord) end();
  }
  if (inWord) end();
  if (words === 0) return { words: 0, simhash: null };
  flush();
  let low = 0;
  let high = 0;
  for (let b = 0; b < 32; b++) {
    if (2 * sums[b]! > words) low |= 1 << b;
    if (2 * sums[32 + b]! > words) high |= 1 << b;
  }
  return { words, simhash: (high >>> 0).toString(16).padStart(8, '0') + (low >>> 0).toString(16).padStart(8, '0') };
}

/** A nibble's 4 bits as 4 bytes of 0 or 1 (bit j of the nibble in byte j). */
const NIBBLE_LANES = Uint32Array.from({ length: 16 }, (_, n) => (n & 1) | ((n & 2) << 7) | ((n & 4) << 14) | ((n & 8) << 21));

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
