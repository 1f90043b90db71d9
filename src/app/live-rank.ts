/**
 * The live PageRank of a crawl, as a user sees it (docs/live-importance.md):
 * the best pages of the crawl in a store by the live PageRank, while the
 * crawl runs (its last checkpoint's ranking) and after it (the 'live' run
 * saved at its end). The CLI (`wga top --score live`) and the HTTP server
 * call this; the GUI's crawl view shows it (app/crawl.ts: storedCrawlStatus).
 */
import { type AppContext, quietContext, throwIfAborted } from './context.js';
import { parseLiveRankState } from '../crawl/live-state.js';
import { ExitCode, OptionError, WgaError } from '../errors.js';
import { CRAWL_STATE, type Store } from '../store/store.js';

export interface LiveTopInput {
  /** How many pages: 10 (at most the 1000 a checkpoint keeps while crawling). */
  limit?: number;
}

export interface LiveTopPage {
  rank: number;
  pageId: number;
  url: string;
  /** Live PageRank (the vector sums to 1 over the pages it covers). */
  score: number;
  status: number | null;
  title: string | null;
}

export interface LiveTop {
  /** 'checkpoint': the running crawl's last checkpoint; 'run': the vector saved when the crawl ended. */
  source: 'checkpoint' | 'run';
  /** The run's id (source 'run'). */
  run: number | null;
  /** When the vector was computed, ms since the epoch. */
  updatedAt: number;
  /** Pages the vector covers. */
  pages: number;
  /** Fetches the crawl had made when the checkpoint was written (source 'checkpoint'). */
  fetches: number | null;
  /** True for the vector solved to the final tolerance at the end of a crawl. */
  final: boolean;
  top: LiveTopPage[];
}

/** The live PageRank's best pages of the crawl in `store`. */
export async function liveTop(store: Store, input: LiveTopInput = {}, context: AppContext = quietContext): Promise<LiveTop> {
  const live = await liveTopIfAny(store, input, context);
  if (live === null) {
    throw new WgaError(`${store.location}: no live PageRank: it is computed while crawling (wga crawl, without --no-live)`, ExitCode.usage);
  }
  return live;
}

/** The same, or null when the store has no live PageRank (no crawl yet, or crawls with --no-live only). */
export async function liveTopIfAny(store: Store, input: LiveTopInput = {}, context: AppContext = quietContext): Promise<LiveTop | null> {
  const limit = input.limit ?? 10;
  if (!(Number.isInteger(limit) && limit >= 1)) throw new OptionError('limit', `expected a positive integer, got ${limit}`);
  const state = parseLiveRankState((await store.crawlState())[CRAWL_STATE.liveRank]);
  const run = await store.latestRun('live');
  throwIfAborted(context);
  if (state !== null && (run === null || state.updatedAt > run.finishedAt)) {
    const top: LiveTopPage[] = [];
    for (const [pageId, score] of state.top.slice(0, limit)) {
      const page = await store.pageById(pageId);
      if (page === null) continue;
      top.push({ rank: top.length + 1, pageId, url: page.url, score, status: page.status, title: page.title });
    }
    return { source: 'checkpoint', run: null, updatedAt: state.updatedAt, pages: state.pages, fetches: state.fetches, final: state.final, top };
  }
  if (run === null) return null;
  const rows = await store.topPages(run.id, limit);
  return {
    source: 'run',
    run: run.id,
    updatedAt: run.finishedAt,
    pages: run.pages,
    fetches: null,
    final: true,
    top: rows.map((row, i) => ({ rank: i + 1, pageId: row.page.id, url: row.page.url, score: row.value, status: row.page.status, title: row.page.title })),
  };
}
