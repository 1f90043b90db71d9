/**
 * The live PageRank as a crawl checkpoint stores it (crawl_state 'live_rank'):
 * the best pages of the latest vector with what the vector covered, so that
 * another process (`wga top --score live`, the GUI) sees the ranking while
 * the crawl runs. The whole vector is saved as a run ('live') when the crawl
 * ends.
 */
import { topK } from '../analysis/top.js';
import { storeId } from './checkpoint.js';
import type { LiveVector } from './live-rank-protocol.js';

/** Pages kept in a checkpoint's live ranking. */
export const LIVE_STATE_TOP = 1000;

export interface LiveRankState {
  version: number;
  /** Pages and links the vector covers. */
  pages: number;
  links: number;
  /** When the vector was published, ms since the epoch. */
  updatedAt: number;
  /** Fetches the crawl had recorded when it was stored. */
  fetches: number;
  converged: boolean;
  final: boolean;
  /** [store page id, score], best first. */
  top: Array<[number, number]>;
}

/** The k best pages of a vector, best first (ties: smaller id first). */
export function topOfVector(scores: Float64Array, k: number): Array<[number, number]> {
  return Array.from(topK(scores, k), (id) => [id, scores[id]!]);
}

export function liveRankState(vector: LiveVector, updatedAt: number, fetches: number): LiveRankState {
  return {
    version: vector.version,
    pages: vector.pages,
    links: vector.links,
    updatedAt,
    fetches,
    converged: vector.converged,
    final: vector.final,
    top: vector.top.slice(0, LIVE_STATE_TOP).map(([id, value]) => [storeId(id), value]),
  };
}

export function parseLiveRankState(text: string | undefined): LiveRankState | null {
  if (text === undefined) return null;
  const value = JSON.parse(text) as LiveRankState;
  return Array.isArray(value.top) ? value : null;
}
