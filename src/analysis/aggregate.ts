/**
 * Combining rankings of the same pages, and the TrafficRank paper's
 * evaluation (Tomlin, Section 5): the average rank position of a list of
 * pages chosen by experts, lower being better.
 */
import { OptionError } from '../errors.js';

/** Position of every page when sorted by decreasing score, 1 = best; equal scores share their average position. */
export function rankPositions(scores: ArrayLike<number>): Float64Array {
  const n = scores.length;
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  const positions = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const position = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) positions[order[k]!] = position;
    i = j + 1;
  }
  return positions;
}

export type AggregationMethod = 'best' | 'mean';
export const AGGREGATION_METHODS: readonly AggregationMethod[] = ['best', 'mean'];

/**
 * Aggregated rank positions of several rankings of the same pages: 'best'
 * takes each page's best position among the rankings (the paper's example),
 * 'mean' its mean position. Lower is better.
 */
export function aggregateRanks(rankings: ArrayLike<number>[], method: AggregationMethod = 'best'): Float64Array {
  if (rankings.length === 0) throw new OptionError('rankings', 'needs at least one ranking');
  const n = rankings[0]!.length;
  for (const r of rankings) if (r.length !== n) throw new OptionError('rankings', `rank ${n} and ${r.length} pages: not the same pages`);
  const positions = rankings.map(rankPositions);
  const result = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    if (method === 'best') {
      let best = Infinity;
      for (const p of positions) best = Math.min(best, p[j]!);
      result[j] = best;
    } else {
      let sum = 0;
      for (const p of positions) sum += p[j]!;
      result[j] = sum / positions.length;
    }
  }
  return result;
}

/** The average rank position of the given pages in a ranking (lower is better). */
export function averageRankPosition(scores: ArrayLike<number>, pages: ArrayLike<number>): number {
  if (pages.length === 0) throw new OptionError('pages', 'needs at least one page to evaluate');
  const positions = rankPositions(scores);
  let sum = 0;
  for (let i = 0; i < pages.length; i++) sum += positions[pages[i]!]!;
  return sum / pages.length;
}
