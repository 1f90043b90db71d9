/**
 * Comparing two rankings of the same pages: Kendall's tau-b (Knight's
 * O(n log n) algorithm, ties allowed), Spearman's rho (average ranks for
 * ties), the overlap of the top k, and the OPIC paper's error measure, the
 * mean over pages of 100 |X_j - Imp_j| / Imp_j against a reference Imp, over
 * all pages and over the reference's top 10% (Abiteboul, Preda, Cobena,
 * Section 6).
 */
import { OptionError } from '../errors.js';
import { topK } from './top.js';

function checkLengths(a: ArrayLike<number>, b: ArrayLike<number>): void {
  if (a.length !== b.length) throw new OptionError('scores', `the two rankings have ${a.length} and ${b.length} pages`);
}

/** Number of pairs within runs of equal values of a sorted sequence. */
function tiedPairs(length: number, equalToPrevious: (i: number) => boolean): number {
  let pairs = 0;
  let run = 1;
  for (let i = 1; i <= length; i++) {
    if (i < length && equalToPrevious(i)) run++;
    else {
      pairs += (run * (run - 1)) / 2;
      run = 1;
    }
  }
  return pairs;
}

/**
 * Kendall's tau-b: (concordant - discordant) / sqrt((n0 - ties in a)(n0 - ties in b)).
 * NaN when either ranking is constant.
 */
export function kendallTau(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkLengths(a, b);
  const n = a.length;
  if (n < 2) return Number.NaN;
  // Order by a, then b.
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((i, j) => a[i]! - a[j]! || b[i]! - b[j]!);
  const tiesA = tiedPairs(n, (i) => a[order[i]!] === a[order[i - 1]!]);
  const tiesBoth = tiedPairs(n, (i) => a[order[i]!] === a[order[i - 1]!] && b[order[i]!] === b[order[i - 1]!]);
  // Merge sort by b, counting the exchanges: each is a discordant pair.
  const values = Float64Array.from(order, (i) => b[i]!);
  const buffer = new Float64Array(n);
  let exchanges = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (values[j]! < values[i]!) {
          exchanges += mid - i;
          buffer[k++] = values[j++]!;
        } else {
          buffer[k++] = values[i++]!;
        }
      }
      while (i < mid) buffer[k++] = values[i++]!;
      while (j < hi) buffer[k++] = values[j++]!;
    }
    values.set(buffer);
  }
  const tiesB = tiedPairs(n, (i) => values[i] === values[i - 1]);
  const pairs = (n * (n - 1)) / 2;
  const numerator = pairs - tiesA - tiesB + tiesBoth - 2 * exchanges;
  const denominator = Math.sqrt((pairs - tiesA) * (pairs - tiesB));
  return denominator === 0 ? Number.NaN : numerator / denominator;
}

/** Ranks 1..n with ties given their average rank. */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((i, j) => values[i]! - values[j]!);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]!] = rank;
    i = j + 1;
  }
  return ranks;
}

/** Spearman's rho: the Pearson correlation of the average ranks. NaN when a ranking is constant. */
export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkLengths(a, b);
  const n = a.length;
  if (n < 2) return Number.NaN;
  const ra = averageRanks(a);
  const rb = averageRanks(b);
  const mean = (n + 1) / 2;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = ra[i]! - mean;
    const db = rb[i]! - mean;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return saa === 0 || sbb === 0 ? Number.NaN : sab / Math.sqrt(saa * sbb);
}

/** |top k of a ∩ top k of b| / k (ties broken by page order, as topK does). */
export function topOverlap(a: ArrayLike<number>, b: ArrayLike<number>, k: number): number {
  checkLengths(a, b);
  const size = Math.min(k, a.length);
  if (size <= 0) return Number.NaN;
  const inA = new Set(topK(a, size));
  let common = 0;
  for (const page of topK(b, size)) if (inA.has(page)) common++;
  return common / size;
}

export interface RelativeError {
  /** Mean of 100 |x - reference| / reference over the pages with a positive reference, in percent. */
  all: number;
  /** The same over the reference's top 10% of pages. */
  top10Percent: number;
}

/** The OPIC paper's error of an estimate against a reference importance, in percent. */
export function meanRelativeError(estimate: ArrayLike<number>, reference: ArrayLike<number>): RelativeError {
  checkLengths(estimate, reference);
  const n = reference.length;
  const error = (page: number): number => (100 * Math.abs(estimate[page]! - reference[page]!)) / reference[page]!;
  let sum = 0;
  let count = 0;
  for (let j = 0; j < n; j++) {
    if (reference[j]! > 0) {
      sum += error(j);
      count++;
    }
  }
  let topSum = 0;
  let topCount = 0;
  for (const page of topK(reference, Math.max(1, Math.ceil(n / 10)))) {
    if (reference[page]! > 0) {
      topSum += error(page);
      topCount++;
    }
  }
  return { all: count === 0 ? Number.NaN : sum / count, top10Percent: topCount === 0 ? Number.NaN : topSum / topCount };
}
