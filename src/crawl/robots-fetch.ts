/**
 * What the one-process crawler (crawler.ts) and an instance of a shared
 * crawl (shared-crawler.ts) do alike with a fetch: read a host's robots.txt
 * (RFC 9309) and turn a fetch's result into the record the store keeps.
 */
import type { FetchRecord, PageAudit } from '../store/store.js';
import { type FetchResult, type Fetcher, ROBOTS_NOFOLLOW, ROBOTS_NOINDEX } from './fetcher.js';
import { MAX_ROBOTS_BYTES, RobotsRules } from './robots.js';
import { resolveUrl } from './url.js';

export interface RobotsFetchOptions {
  userAgent: string;
  retries: number;
  retryDelayMs: number;
  /** Called before every request (for the crawler's counters). */
  onRequest: () => void;
  /** True once the crawler is stopping: no more retries. */
  stopping: () => boolean;
}

/** The robots.txt rules of the host at `origin`, retried like a page; allow-all when the host cannot be reached. */
export async function fetchRobotsRules(fetcher: Fetcher, origin: string, options: RobotsFetchOptions): Promise<RobotsRules> {
  const agent = options.userAgent;
  const robotsUrl = new URL('/robots.txt', origin);
  for (let attempt = 0; ; attempt++) {
    let url = robotsUrl;
    let result: FetchResult | null = null;
    // RFC 9309: follow at least five redirects.
    for (let hop = 0; hop <= 5; hop++) {
      options.onRequest();
      result = await fetcher.fetch(url, 'text', MAX_ROBOTS_BYTES);
      if (result.location === null) break;
      const next = resolveUrl(result.location, url);
      if (!next.ok) break;
      url = next.url;
    }
    if (result!.failure === 'retryable' && attempt < options.retries && !options.stopping()) {
      await new Promise((resolve) => setTimeout(resolve, result!.retryAfterMs ?? options.retryDelayMs * 2 ** attempt));
      continue;
    }
    // An address refused or a host not found: the pages will say so themselves.
    if (result!.failure === 'excluded' || result!.failure === 'final') return RobotsRules.allowAll(agent);
    const status = result!.failure === 'retryable' && result!.status === null ? null : result!.status;
    // RFC 9309: a robots.txt reached by redirects applies to the host that was asked, not to the target.
    return RobotsRules.fromAnswer(robotsUrl.href, status, result!.text ?? '', agent);
  }
}

/** The stored record of a fetch (the page's links aside). */
export function fetchRecordOf(result: FetchResult): FetchRecord {
  const ok = result.status !== null && result.status >= 200 && result.status < 300 && result.error === null;
  return {
    status: result.status,
    contentType: result.contentType,
    fetchedAt: Date.now(),
    size: result.status === null ? null : result.size,
    title: result.page?.title?.replace(/\u0000/g, '\uFFFD') ?? null,
    error: result.error,
    wireSize: result.status === null ? null : result.wireSize,
    contentHash: ok ? result.contentHash : null,
    // Validators are kept only for an answer whose body was read whole (a conditional request stands for it later).
    etag: ok && result.contentHash !== null ? safeHeader(result.etag) : null,
    lastModified: ok && result.contentHash !== null ? safeHeader(result.lastModified) : null,
    notModified: result.notModified,
    linksDropped: result.page?.droppedLinks ?? 0,
    audit: auditOf(result),
  };
}

/** What a site audit reads of an answer: its time, and of a page read its head and text (ExtractedPage). */
export function auditOf(result: FetchResult): PageAudit | null {
  if (result.status === null) return null;
  const page = result.page;
  const headerBits = result.robotsHeader;
  if (page === null) return { description: null, h1: null, h1Count: null, robots: headerBits === 0 ? null : headerBits, words: null, simhash: null, responseMs: result.responseMs };
  const metaBits = (page.noindex ? ROBOTS_NOINDEX : 0) | (page.nofollowAll ? ROBOTS_NOFOLLOW : 0);
  return {
    description: clean(page.description),
    h1: clean(page.h1),
    h1Count: page.h1Count,
    robots: metaBits | headerBits,
    words: page.words,
    simhash: page.simhash,
    responseMs: result.responseMs,
  };
}

/** Crawled text for the store: NUL (which PostgreSQL refuses in text) replaced. */
function clean(text: string | null): string | null {
  return text === null ? null : text.replace(/\u0000/g, '\uFFFD');
}

/** A header value kept to be sent back: bounded, and only what a header may hold. */
function safeHeader(value: string | null): string | null {
  if (value === null || value.length > 512 || /[^\t\x20-\x7e\x80-\xff]/.test(value)) return null;
  return value;
}
