/**
 * Politeness per host (per origin: scheme, host and port, the unit robots.txt
 * rules apply to): its robots.txt rules, the connections open to it, and when
 * the next request may start. A host may take a request when its robots.txt
 * is known, it has fewer than `perHost` requests running, and the delay since
 * the start of the previous request has passed (the larger of --delay and
 * the robots.txt Crawl-delay).
 */
import type { RobotsRules } from './robots.js';

export const enum RobotsState {
  /** Not asked for yet. */
  Unknown = 0,
  Fetching = 1,
  Known = 2,
}

export interface Host {
  readonly id: number;
  readonly origin: string;
  readonly hostname: string;
  robots: RobotsRules | null;
  robotsState: RobotsState;
  /** Requests running (robots.txt included). */
  active: number;
  /** performance.now() time before which no new request may start. */
  nextAt: number;
  delayMs: number;
  timer: NodeJS.Timeout | null;
  /** Sitemaps to read before the host's pages (robots.txt's Sitemap lines, or /sitemap.xml). */
  sitemapQueue: SitemapTask[];
  /** Sitemaps of this host asked for in this session (capped by --max-sitemaps). */
  sitemapsAsked: number;
}

/** A sitemap to read: a URL robots.txt named, one a sitemap index named, or the /sitemap.xml probe. */
export interface SitemapTask {
  url: URL;
  key: string;
  /** The sitemap index that named it (a page id), or -1. */
  parent: number;
  /** /sitemap.xml tried on a host whose robots.txt names no sitemap: kept only when it is one. */
  probe: boolean;
}

export class HostTable {
  private readonly byOrigin = new Map<string, number>();
  readonly hosts: Host[] = [];

  constructor(
    readonly perHost: number,
    readonly delayMs: number,
  ) {}

  get size(): number {
    return this.hosts.length;
  }

  /** The host of an origin, and whether it was created now. */
  intern(origin: string, hostname: string): { host: Host; created: boolean } {
    const known = this.byOrigin.get(origin);
    if (known !== undefined) return { host: this.hosts[known]!, created: false };
    const host: Host = {
      id: this.hosts.length,
      origin,
      hostname,
      robots: null,
      robotsState: RobotsState.Unknown,
      active: 0,
      nextAt: 0,
      delayMs: this.delayMs,
      timer: null,
      sitemapQueue: [],
      sitemapsAsked: 0,
    };
    this.hosts.push(host);
    this.byOrigin.set(origin, host.id);
    return { host, created: true };
  }

  /** The host of an origin, if known. */
  find(origin: string): Host | null {
    const known = this.byOrigin.get(origin);
    return known === undefined ? null : this.hosts[known]!;
  }

  /** Whether the host may take a request at `now`. */
  available(host: Host, now: number): boolean {
    return host.robotsState === RobotsState.Known && host.active < this.perHost && now >= host.nextAt;
  }

  /** Books a request starting at `now`. */
  start(host: Host, now: number): void {
    host.active++;
    host.nextAt = Math.max(host.nextAt, now + host.delayMs);
  }

  finish(host: Host): void {
    host.active--;
  }

  /** Cancels every politeness timer (the crawl stops). */
  clearTimers(): void {
    for (const host of this.hosts) {
      if (host.timer !== null) clearTimeout(host.timer);
      host.timer = null;
    }
  }
}
