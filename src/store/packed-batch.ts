/**
 * A crawl checkpoint's batch in columns, as it crosses to the SQLite writer
 * thread (sqlite-writer-thread.ts): the numbers of its new pages, links and
 * OPIC changes in Float64Arrays whose buffers are transferred (no copy), their
 * text in one string. A batch as objects, structured-cloned, became as many
 * objects again in the writer's heap: on the wide site (200 new URLs per
 * fetched page) that tripled the crawl's peak RSS (BENCHMARKS.md).
 */
import { roleCode } from './records.js';
import { LINK_KIND_CODES } from './schema.js';
import { type CrawlBatch, relOf } from './store.js';

/** Numbers per new page: id, depth, focus, role, then OPIC's cash, history, last read, reads, seen all/unread/focus, window history. */
export const PAGE_FIELDS = 12;
/** Numbers per link: source, target, kind code, rel bits. */
export const LINK_FIELDS = 4;
/** Numbers per OPIC change: id, cash, history, last read, reads, seen all/unread/focus, window history. */
export const OPIC_FIELDS = 9;
/** Separates the texts of `pageText`: no stored URL holds it (checkStorableUrl), nor its key or host. */
export const TEXT_SEPARATOR = '\u0000';

export interface PackedCrawlBatch {
  pageNumbers: Float64Array;
  /** url, key and host of each new page, each followed by TEXT_SEPARATOR, in UTF-8 (a buffer transferred, not a string copied). */
  pageText: Uint8Array;
  linkNumbers: Float64Array;
  /** The few links with an hreflang or a lastmod: [link index, hreflang, lastmod]. */
  linkExtras: Array<[number, string | null, number | null]>;
  opicNumbers: Float64Array;
  fetches: CrawlBatch['fetches'];
  replaceLinksOf: number[];
  depths: NonNullable<CrawlBatch['depths']>;
  state: Record<string, string>;
  sitemapProbes: NonNullable<CrawlBatch['sitemapProbes']>;
}

export function packCrawlBatch(batch: CrawlBatch): PackedCrawlBatch {
  const pageNumbers = new Float64Array(batch.pages.length * PAGE_FIELDS);
  const texts: string[] = [];
  batch.pages.forEach((page, i) => {
    const o = page.opic;
    pageNumbers.set([page.id, page.depth, page.focus ? 1 : 0, roleCode(page.role), o.cash, o.history, o.lastRead, o.reads, o.seenAll, o.seenUnread, o.seenFocus, page.windowHistory], i * PAGE_FIELDS);
    texts.push(page.url, page.key, page.host);
  });
  const linkNumbers = new Float64Array(batch.links.length * LINK_FIELDS);
  const linkExtras: PackedCrawlBatch['linkExtras'] = [];
  batch.links.forEach((link, i) => {
    const at = i * LINK_FIELDS;
    linkNumbers[at] = link.source;
    linkNumbers[at + 1] = link.target;
    linkNumbers[at + 2] = LINK_KIND_CODES[link.kind];
    linkNumbers[at + 3] = relOf(link);
    if ((link.hreflang ?? null) !== null || (link.lastmod ?? null) !== null) linkExtras.push([i, link.hreflang ?? null, link.lastmod ?? null]);
  });
  const opicNumbers = new Float64Array(batch.opic.length * OPIC_FIELDS);
  batch.opic.forEach(({ id, state: o, windowHistory }, i) => {
    opicNumbers.set([id, o.cash, o.history, o.lastRead, o.reads, o.seenAll, o.seenUnread, o.seenFocus, windowHistory], i * OPIC_FIELDS);
  });
  return {
    pageNumbers,
    pageText: new TextEncoder().encode(texts.length === 0 ? '' : texts.join(TEXT_SEPARATOR) + TEXT_SEPARATOR),
    linkNumbers,
    linkExtras,
    opicNumbers,
    fetches: batch.fetches,
    replaceLinksOf: batch.replaceLinksOf,
    depths: batch.depths ?? [],
    state: batch.state,
    sitemapProbes: batch.sitemapProbes ?? [],
  };
}

/** The buffers a packed batch hands over to the thread it is posted to. */
export function transferablesOf(packed: PackedCrawlBatch): ArrayBuffer[] {
  return [packed.pageNumbers.buffer as ArrayBuffer, packed.pageText.buffer as ArrayBuffer, packed.linkNumbers.buffer as ArrayBuffer, packed.opicNumbers.buffer as ArrayBuffer];
}
