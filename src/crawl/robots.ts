/**
 * robots.txt of a site, parsed by robots-parser, with the answer rules of
 * RFC 9309 (Section 2.3): a 2xx answer is the rules (only its first 500 KiB
 * are read); 4xx means no rules (everything allowed); a 5xx answer or an
 * unreachable server means "assume complete disallow" until it can be read.
 * Crawl-delay is honoured as a lower bound of the delay between requests
 * to the host.
 */
import { createRequire } from 'node:module';

interface Robot {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getCrawlDelay(userAgent?: string): number | undefined;
  getSitemaps(): string[];
}

// robots-parser is CommonJS exporting the function itself; its typings declare an ES default export.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robot;

/** RFC 9309: crawlers must parse at least 500 KiB; we read exactly that much. */
export const MAX_ROBOTS_BYTES = 500 * 1024;
/** A Crawl-delay above this many seconds is taken as this (a hostile robots.txt must not stall the crawl). */
export const MAX_CRAWL_DELAY_SECONDS = 60;

/**
 * The product token of a User-Agent, which robots.txt groups name (RFC 9309, Section 2.2.1): its
 * leading letters, '_' and '-' ("wga" of "wga/0.1 (...)"). robots-parser only cuts at the first
 * '/', which a comment's URL also holds ("bot (+https://...)").
 */
function productToken(userAgent: string): string {
  return /^\s*([A-Za-z_-]+)/.exec(userAgent)?.[1] ?? userAgent;
}

export class RobotsRules {
  private readonly userAgent: string;

  private constructor(
    private readonly robot: Robot | null,
    /** Why every URL is refused, when it is. */
    readonly disallowAll: string | null,
    userAgent: string,
  ) {
    this.userAgent = productToken(userAgent);
  }

  /** The rules of a robots.txt body fetched from `robotsUrl`, for our User-Agent. */
  static parse(robotsUrl: string, text: string, userAgent: string): RobotsRules {
    return new RobotsRules(robotsParser(robotsUrl, text.slice(0, MAX_ROBOTS_BYTES)), null, userAgent);
  }

  static allowAll(userAgent: string): RobotsRules {
    return new RobotsRules(null, null, userAgent);
  }

  static refuseAll(reason: string, userAgent: string): RobotsRules {
    return new RobotsRules(null, reason, userAgent);
  }

  /** The rules an answer to GET /robots.txt gives (status null: the server could not be reached). */
  static fromAnswer(robotsUrl: string, status: number | null, text: string, userAgent: string): RobotsRules {
    if (status !== null && status >= 200 && status < 300) return RobotsRules.parse(robotsUrl, text, userAgent);
    // 4xx, and redirects beyond the five followed: "unavailable", so no rules.
    if (status !== null && status >= 300 && status < 500) return RobotsRules.allowAll(userAgent);
    return RobotsRules.refuseAll(status === null ? 'robots.txt unreachable' : `robots.txt answered ${status}`, userAgent);
  }

  /** Whether the URL may be fetched. */
  allows(url: string): boolean {
    if (this.disallowAll !== null) return false;
    if (this.robot === null) return true;
    // robots-parser answers undefined for URLs of another origin: those are not ours to judge.
    return this.robot.isAllowed(url, this.userAgent) !== false;
  }

  /** The URLs of its Sitemap lines (any group's: they are not for one agent), as written. */
  sitemaps(): string[] {
    return this.robot?.getSitemaps() ?? [];
  }

  /** The Crawl-delay for our User-Agent in milliseconds (0 when none), capped at MAX_CRAWL_DELAY_SECONDS. */
  crawlDelayMs(): number {
    const seconds = this.robot?.getCrawlDelay(this.userAgent);
    // NaN or not above 0: no delay; Infinity (or 1e999) is above the cap like any other huge value.
    if (seconds === undefined || !(seconds > 0)) return 0;
    return Math.min(seconds, MAX_CRAWL_DELAY_SECONDS) * 1000;
  }
}
