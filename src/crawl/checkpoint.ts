/**
 * What a crawl has done since its last checkpoint, turned into one store
 * transaction (Store.writeCrawlBatch): new pages, fetch results, links, and
 * the OPIC state of every page it changed plus the global state. The batch
 * is a consistent snapshot, taken synchronously between two reads, so a
 * crawl killed at any moment resumes from its last checkpoint exactly: total
 * cash 1, every page stored once, each fetch recorded once.
 */
import type { AdaptiveOpic } from '../analysis/adaptive-opic.js';
import type { CrawlBatch, FetchRecord, LinkKind, NewLink, PageRole, SitemapProbe } from '../store/store.js';
import { CRAWL_STATE } from '../store/store.js';

/** Store page ids are OPIC ids + 1 (ids start at 1 in both databases). */
export const storeId = (id: number): number => id + 1;

export interface PageFacts {
  url(id: number): string;
  key(id: number): string;
  hostname(id: number): string;
  depth(id: number): number;
  role(id: number): PageRole;
}

export class PendingBatch {
  private fetches: CrawlBatch['fetches'] = [];
  private links: NewLink[] = [];
  private replaceLinksOf: number[] = [];
  private depths = new Map<number, number>();
  private sitemapProbes: SitemapProbe[] = [];
  /** Pages [0, persisted) are in the store. */
  private persisted: number;

  constructor(persistedPages: number) {
    this.persisted = persistedPages;
  }

  /** Fetch results waiting for the next checkpoint. */
  get size(): number {
    return this.fetches.length;
  }

  /** Links waiting for the next checkpoint. */
  get linkCount(): number {
    return this.links.length;
  }

  /** Pages found since the last checkpoint, of `known` pages known now. */
  newPages(known: number): number {
    return known - this.persisted;
  }

  /** Records a fetch; call before adding the page's links. A refetch replaces the page's stored links. */
  recordFetch(id: number, fetchSeq: number | null, record: FetchRecord, refetch: boolean): void {
    const source = storeId(id);
    this.fetches.push({ id: source, fetchSeq, record, first: !refetch });
    if (refetch) {
      this.replaceLinksOf.push(source);
      // Links of an earlier fetch of the page within this batch are stale too.
      if (this.links.some((l) => l.source === source)) this.links = this.links.filter((l) => l.source !== source);
    }
  }

  /** An origin's /sitemap.xml was tried. */
  sitemapProbe(origin: string, status: number | null): void {
    this.sitemapProbes.push({ origin, status, probedAt: Date.now() });
  }

  /** A page found by a shorter path: its depth is rewritten if it is already stored. */
  depth(id: number, depth: number): void {
    if (id < this.persisted) this.depths.set(storeId(id), depth);
  }

  link(source: number, target: number, kind: LinkKind, rel: number, hreflang: string | null = null, lastmod: number | null = null): void {
    this.links.push({ source: storeId(source), target: storeId(target), kind, nofollow: (rel & 1) !== 0, rel, hreflang, lastmod });
  }

  /** Takes everything pending as a batch, with OPIC's changes and the given crawl_state entries. */
  take(opic: AdaptiveOpic, facts: PageFacts, state: Record<string, string>): CrawlBatch {
    const pages: CrawlBatch['pages'] = [];
    const changedOpic: CrawlBatch['opic'] = [];
    const total = opic.pages;
    for (let id = this.persisted; id < total; id++) {
      const opicState = opic.opic.pageState(id);
      pages.push({
        id: storeId(id),
        url: facts.url(id),
        key: facts.key(id),
        host: facts.hostname(id),
        depth: facts.depth(id),
        focus: opicState.focus,
        role: facts.role(id),
        opic: opicState,
        windowHistory: opic.windowRate(id),
      });
    }
    for (const id of opic.opic.takeChanges()) {
      if (id >= this.persisted) continue;
      changedOpic.push({ id: storeId(id), state: opic.opic.pageState(id), windowHistory: opic.windowRate(id) });
    }
    this.persisted = total;
    const batch: CrawlBatch = {
      pages,
      fetches: this.fetches,
      replaceLinksOf: this.replaceLinksOf,
      links: this.links,
      opic: changedOpic,
      depths: Array.from(this.depths, ([id, depth]) => ({ id, depth })),
      state: {
        ...state,
        [CRAWL_STATE.opic]: JSON.stringify(opic.opic.globalState()),
        [CRAWL_STATE.recentRates]: JSON.stringify(opic.recentIntroductions),
        [CRAWL_STATE.window]: String(opic.window.kind === 'interpolation' ? opic.window.window : 0),
        [CRAWL_STATE.windowRates]: '1',
      },
      sitemapProbes: this.sitemapProbes,
    };
    this.sitemapProbes = [];
    this.fetches = [];
    this.links = [];
    this.replaceLinksOf = [];
    this.depths = new Map();
    return batch;
  }
}
