/**
 * The server keeps the store's graph loaded, with the analyses already answered, so that the
 * GUI's views answer in milliseconds instead of reloading the graph per request. The cache is
 * keyed by a stamp of the store's content: this server's own changes (import, reset, a crawl it
 * runs) and the crawl state's last checkpoint (a crawl by another process). While a crawl runs,
 * the graph is reloaded at most every RELOAD_MS, so analyses lag the crawl by a few seconds.
 */
import type { GraphSource } from '../app/graph-source.js';
import { storeGraphSource } from '../app/graph-source.js';
import { CRAWL_STATE, type Store } from '../store/store.js';

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
  private loaded: Loaded | null = null;
  private loading: Promise<Loaded> | null = null;
  private stampRead: { at: number; value: Promise<string> } | null = null;

  constructor(private readonly store: Store) {}

  /** This server changed the store (import, reset): the next request reloads. */
  invalidate(): void {
    this.generation++;
    this.stampRead = null;
  }

  /** True when a graph is loaded (analyses answer fast). */
  get ready(): boolean {
    return this.loaded !== null;
  }

  private async stamp(): Promise<string> {
    const now = Date.now();
    if (this.stampRead === null || now - this.stampRead.at > STAMP_MS) {
      const generation = this.generation;
      this.stampRead = {
        at: now,
        value: this.store.crawlState().then((state) => `${generation}|${state[CRAWL_STATE.progress] ?? ''}`),
      };
    }
    return this.stampRead.value;
  }

  /** The loaded graph, reloaded if the store changed. */
  async source(): Promise<GraphSource> {
    return (await this.current()).source;
  }

  private async current(): Promise<Loaded> {
    const stamp = await this.stamp();
    const loaded = this.loaded;
    const fresh =
      loaded !== null &&
      (loaded.stamp === stamp ||
        // Another crawl's checkpoints: reload at most every RELOAD_MS (this server's own changes reload at once).
        (loaded.stamp.split('|')[0] === stamp.split('|')[0] && Date.now() - loaded.loadedAt < RELOAD_MS));
    if (fresh) return loaded!;
    if (this.loading === null) {
      this.loading = storeGraphSource(this.store)
        .then((source) => {
          this.loaded = { stamp, loadedAt: Date.now(), source, memo: new Map() };
          return this.loaded;
        })
        .finally(() => {
          this.loading = null;
        });
    }
    return this.loading;
  }

  /** The answer of `compute` for this graph, computed once per graph and key. */
  async memo<T>(key: string, compute: (source: GraphSource) => Promise<T> | T): Promise<T> {
    const loaded = await this.current();
    let answer = loaded.memo.get(key) as Promise<T> | undefined;
    if (answer === undefined) {
      answer = Promise.resolve().then(() => compute(loaded.source));
      loaded.memo.set(key, answer);
      // A failed computation (a bad parameter) is not kept.
      answer.catch(() => loaded.memo.delete(key));
    }
    return answer;
  }
}
