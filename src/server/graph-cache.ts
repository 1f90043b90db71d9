/**
 * The server keeps the store's graph loaded, with the analyses already answered, so that the
 * GUI's views answer in milliseconds instead of reloading the graph per request. The cache is
 * keyed by a stamp of the store's content: this server's own changes (import, reset, a crawl it
 * runs), the crawl state's last checkpoint (a crawl by another process) and the store's data
 * version (an import, reset or run of another process: CRAWL_STATE.dataVersion). While a crawl runs,
 * the graph is reloaded at most every RELOAD_MS, so analyses lag the crawl by a few seconds.
 */
import type { GraphSource } from '../app/graph-source.js';
import { storeGraphSource } from '../app/graph-source.js';
import { linkFilterOption } from '../app/values.js';
import { CRAWL_STATE, type Store, type StoreCounts } from '../store/store.js';

const RELOAD_MS = 5000;
/** The stamp is read from the store at most this often. */
const STAMP_MS = 1000;

interface Loaded {
  stamp: string;
  loadedAt: number;
  source: GraphSource;
  memo: Map<string, Promise<unknown>>;
}

export class GraphCache {
  private generation = 0;
  /** The graph of the default links (key ''), and those an analysis asked with `links` (values.ts linkFilterOption). */
  private readonly loadedBy = new Map<string, Loaded>();
  private readonly loadingBy = new Map<string, Promise<Loaded>>();
  private stampRead: { at: number; value: Promise<string> } | null = null;
  private countsGeneration = 0;
  private countsRead: { key: string; value: Promise<StoreCounts> } | null = null;

  constructor(private readonly store: Store) {}

  /** This server changed the store (import, reset): the next request reloads. */
  invalidate(): void {
    this.generation++;
    this.stampRead = null;
  }

  /** This server added or deleted a run: the counts are read again. */
  invalidateCounts(): void {
    this.countsGeneration++;
  }

  /**
   * The store's counts (pages, links, fetched, ..., runs), read again when the store changed:
   * counting 3 million links takes the better part of a second, too long for every status tick.
   * `checkpoint` is the crawl state's progress entry and data version when the caller has just read them (the crawl
   * status does, so that its counts belong to the same checkpoint as its running flag).
   */
  async counts(checkpoint?: string): Promise<StoreCounts> {
    const stamp = checkpoint === undefined ? await this.stamp() : `${this.generation}|${checkpoint}`;
    const key = `${stamp}|${this.countsGeneration}`;
    if (this.countsRead === null || this.countsRead.key !== key) {
      const read = { key, value: this.store.counts() };
      this.countsRead = read;
      read.value.catch(() => {
        if (this.countsRead === read) this.countsRead = null;
      });
    }
    return this.countsRead.value;
  }

  /** True when the default graph is loaded (analyses answer fast). */
  get ready(): boolean {
    return this.loadedBy.has('');
  }

  private async stamp(): Promise<string> {
    const now = Date.now();
    if (this.stampRead === null || now - this.stampRead.at > STAMP_MS) {
      const generation = this.generation;
      this.stampRead = {
        at: now,
        // Another process's crawl moves the progress entry; its import, reset or run the data version.
        value: this.store.crawlState().then((state) => `${generation}|${state[CRAWL_STATE.progress] ?? ''}|${state[CRAWL_STATE.dataVersion] ?? ''}`),
      };
    }
    return this.stampRead.value;
  }

  /** The loaded graph (of the links `links` selects, default the web graph's), reloaded if the store changed. */
  async source(links?: string): Promise<GraphSource> {
    return (await this.current(links ?? '')).source;
  }

  private async current(links: string): Promise<Loaded> {
    const stamp = await this.stamp();
    const loaded = this.loadedBy.get(links) ?? null;
    const fresh =
      loaded !== null &&
      (loaded.stamp === stamp ||
        // Another crawl's checkpoints: reload at most every RELOAD_MS (this server's own changes reload at once).
        (loaded.stamp.split('|')[0] === stamp.split('|')[0] && Date.now() - loaded.loadedAt < RELOAD_MS));
    if (fresh) return loaded!;
    let loading = this.loadingBy.get(links);
    if (loading === undefined) {
      // Graphs of other links than the default are few and rarely asked: only the last two are kept.
      if (links !== '' && this.loadedBy.size > 2) for (const key of [...this.loadedBy.keys()].filter((k) => k !== '' && k !== links).slice(0, 1)) this.loadedBy.delete(key);
      loading = storeGraphSource(this.store, links === '' ? undefined : linkFilterOption('links', links))
        .then((source) => {
          const next = { stamp, loadedAt: Date.now(), source, memo: new Map() };
          this.loadedBy.set(links, next);
          return next;
        })
        .finally(() => {
          this.loadingBy.delete(links);
        });
      this.loadingBy.set(links, loading);
    }
    return loading;
  }

  /**
   * The answer of `compute` for this graph, computed once per graph and key; `compute` gets the
   * same memo for the same graph (for parts shared between answers, e.g. the components of any root).
   */
  async memo<T>(
    key: string,
    compute: (source: GraphSource, memo: <U>(key: string, part: (source: GraphSource) => Promise<U> | U) => Promise<U>) => Promise<T> | T,
    links?: string,
  ): Promise<T> {
    return memoIn(await this.current(links ?? ''), key, compute);
  }
}

function memoIn<T>(
  loaded: Loaded,
  key: string,
  compute: (source: GraphSource, memo: <U>(key: string, part: (source: GraphSource) => Promise<U> | U) => Promise<U>) => Promise<T> | T,
): Promise<T> {
  let answer = loaded.memo.get(key) as Promise<T> | undefined;
  if (answer === undefined) {
    answer = Promise.resolve().then(() => compute(loaded.source, (k, part) => memoIn(loaded, k, (source) => part(source))));
    loaded.memo.set(key, answer);
    // A failed computation (a bad parameter) is not kept.
    answer.catch(() => loaded.memo.delete(key));
  }
  return answer;
}
