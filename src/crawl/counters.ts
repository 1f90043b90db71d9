/**
 * The counters of a crawl, declared once for everything that shows them: the crawler's progress
 * events and report (crawler.ts), the server's crawl status (src/server/crawl-watch.ts) and the
 * browser GUI (web/src/types.ts imports this file's types; it must stay free of imports, since the
 * GUI is type-checked without Node's).
 */
export interface CrawlCounters {
  /** Pages in the store. */
  known: number;
  /** Pages fetched with a 2xx HTML answer (this session and before). */
  fetched: number;
  failed: number;
  excluded: number;
  redirects: number;
  /** Other answers: non-HTML 2xx, 1xx/304. */
  other: number;
  /** Known pages never fetched, waiting. */
  frontier: number;
  inFlight: number;
  /** HTTP requests made in this session (robots.txt and retries included). */
  requests: number;
  retries: number;
  /** Links that could not be followed: invalid, not http(s), too long. */
  invalidLinks: number;
  hosts: number;
  /** Server addresses the hosts were grouped under (--per-ip). */
  servers: number;
  /** Bytes of bodies received on the wire in this session (compressed or not). */
  wireBytes: number;
  /** Bytes of those bodies once decoded. */
  bodyBytes: number;
  /** Re-reads answered 304 Not Modified in this session. */
  notModified: number;
  /** Sitemaps read in this session. */
  sitemaps: number;
  /** Pages rendered in a browser in this session (--render), and those the browser could not render. */
  rendered: number;
  renderFailed: number;
  /** Links only the rendered pages have (their scripts wrote them), in this session. */
  renderedLinks: number;
  /** Pages read in this session that linked to more targets than --max-links-per-page (the rest not kept). */
  pagesOverLinkCap: number;
}
