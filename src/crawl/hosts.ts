/**
 * Politeness per host (per origin: scheme, host and port, the unit robots.txt
 * rules apply to): its robots.txt rules, the connections open to it, and when
 * the next request may start. A host may take a request when its robots.txt
 * is known, it has fewer than `perHost` requests running, and the delay since
 * the start of the previous request has passed (the larger of --delay and
 * the robots.txt Crawl-delay).
 *
 * And per server address: shared hosting puts thousands of hosts on one
 * address, so hosts are grouped by the address they resolve to (the first the
 * address rules allow, looked up before their robots.txt), and the group has
 * limits of its own, as BUbiNG and Heritrix have: at most `perIp` requests at
 * once (--per-ip) and `ipDelayMs` between the starts of two (--ip-delay).
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
  /** The server address it was grouped under; null until looked up, or when the lookup failed. */
  server: Server | null;
}

/** The hosts served from one address, and the requests they have running together. */
export interface Server {
  /** 1, 2, ... in the order addresses were first seen (the selection's cluster; 0 is no server). */
  readonly id: number;
  readonly address: string;
  active: number;
  /** performance.now() time before which no new request to this address may start. */
  nextAt: number;
  /** Its hosts are out of the selection as a whole: it cannot take another request now. */
  closed: boolean;
  /** Hosts whose robots.txt waits for this address. */
  readonly robotsWaiting: Host[];
  timer: NodeJS.Timeout | null;
  /** Hosts grouped under it. */
  hosts: number;
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

  private readonly byAddress = new Map<string, Server>();
  /** Hosts waiting out their delay on a timer (counted, so that "anything waiting?" is no scan of every host). */
  timersRunning = 0;

  constructor(
    readonly perHost: number,
    readonly delayMs: number,
    readonly perIp: number = Number.MAX_SAFE_INTEGER,
    readonly ipDelayMs: number = 0,
  ) {}

  /** Server addresses known. */
  get servers(): number {
    return this.byAddress.size;
  }

  /** Groups a host under the address it resolved to. */
  assignServer(host: Host, address: string): Server {
    let server = this.byAddress.get(address);
    if (server === undefined) {
      server = { id: this.byAddress.size + 1, address, active: 0, nextAt: 0, closed: false, robotsWaiting: [], timer: null, hosts: 0 };
      this.byAddress.set(address, server);
    }
    server.hosts++;
    host.server = server;
    return server;
  }

  /** Whether a server may take a request at `now` (a host not grouped has no server limit). */
  serverFree(server: Server | null, now: number): boolean {
    return server === null || (server.active < this.perIp && now >= server.nextAt);
  }

  /** Whether the host alone (robots.txt, its connections, its delay) lets a request start at `now`. */
  hostFree(host: Host, now: number): boolean {
    return host.robotsState === RobotsState.Known && host.active < this.perHost && now >= host.nextAt;
  }

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
      server: null,
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
    return this.hostFree(host, now) && this.serverFree(host.server, now);
  }

  /** Books a request starting at `now`, on the host and its server. */
  start(host: Host, now: number): void {
    host.active++;
    host.nextAt = Math.max(host.nextAt, now + host.delayMs);
    this.startOnServer(host.server, now);
  }

  /** Books a request on a server alone (robots.txt, which a host's own delay does not wait for). */
  startOnServer(server: Server | null, now: number): void {
    if (server === null) return;
    server.active++;
    server.nextAt = Math.max(server.nextAt, now + this.ipDelayMs);
  }

  finish(host: Host): void {
    host.active--;
    if (host.server !== null) host.server.active--;
  }

  /** Cancels every politeness timer (the crawl stops). */
  clearTimers(): void {
    // Only when the crawl stops: the one scan of every host.
    for (const host of this.hosts) {
      if (host.timer !== null) clearTimeout(host.timer);
      host.timer = null;
    }
    this.timersRunning = 0;
    for (const server of this.byAddress.values()) {
      if (server.timer !== null) clearTimeout(server.timer);
      server.timer = null;
    }
  }
}

