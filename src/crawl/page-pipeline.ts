/**
 * The page pipeline both crawlers run: fetch → decode → extract → record.
 * The one-process crawler (crawler.ts) and an instance of a shared crawl
 * (shared-crawler.ts) extend it and differ only in coordination: which pages
 * are theirs to fetch, in what order (OPIC's Greedy from their own state or
 * the shared ledger's), and how results reach the store (a checkpoint batch,
 * or a shared checkpoint with money transfers). Everything else is here,
 * once: the known URLs and their scope, hosts and politeness, robots.txt,
 * sitemaps, fetches with retries, conditional requests, redirects (chains
 * followed for loops), and turning an answer into the links it holds, each
 * with its kind and rel.
 *
 * A host is read in this order: robots.txt, then its sitemaps (robots.txt's
 * Sitemap lines, or /sitemap.xml when it names none, and the sitemaps an
 * index names, up to --max-sitemaps), then its pages. A sitemap is a page of
 * its own (role 'sitemap'), fetched as soon as the host allows it, with a
 * 'sitemap' link to every URL it lists (lastmod kept); the /sitemap.xml probe
 * becomes a page only when it is a sitemap. Sitemap links are not links of
 * the web graph: OPIC reads a sitemap as a page without out-links, so its
 * pages are found sooner, not ranked higher.
 */
import { WgaError } from '../errors.js';
import { type FetchRecord, GRAPH_LINK_KINDS, type LinkKind, type PageRole, REL_BITS } from '../store/store.js';
import { type ColumnConstructor, grownColumn, reservedArrays } from '../util/typed-arrays.js';
import type { CrawlCounters } from './counters.js';
import { type ExtractedLink, type ExtractedPage } from './extract.js';
import { type FetchResult, Fetcher, HTML_TYPES, type ResourceAnswer, type Validators } from './fetcher.js';
import { BrowserMissingError, BROWSER_CANDIDATES, findBrowser, type RenderCounters, type RenderedPage, Renderer } from './render.js';
import { type HostRenderReport, RenderPolicy } from './render-policy.js';
import { DnsCache } from './dns-cache.js';
import { type Host, HostTable, RobotsState, type Server, type SitemapTask } from './hosts.js';
import { RobotsRules } from './robots.js';
import { auditOf, fetchRecordOf, fetchRobotsRules } from './robots-fetch.js';
import { type CompiledSettings, type CrawlSettings, dnsOptionsOf, ipDelayOf, pageCapacityOf, perIpOf, renderConcurrencyOf } from './settings.js';
import { UrlTable } from './url-table.js';
import { resolveUrl } from './url.js';
import type { WarcWriter } from '../formats/warc-writer.js';

/** Page states. */
export const WAITING = 0;
export const IN_FLIGHT = 1;
export const DONE = 2;
export const RETRY_WAIT = 3;
/** In a partition of a shared crawl this instance does not hold. */
export const FOREIGN = 4;

/** intern(): the URL is only out of scope because it is deeper than --max-depth. */
export const TOO_DEEP = -2;

/** Out-of-scope URLs remembered, so that their links are not judged again and again. */
const REJECTED_CACHE = 100_000;
/** Pages refused by robots.txt finished in one turn of the event loop before yielding. */
const REFUSALS_PER_TURN = 1000;
/** The counters a finished page counts in, by the class of its answer (see countFinished). */
const OUTCOMES = ['excluded', 'failed', 'redirects', 'fetched', 'other'] as const;
const NO_OUTCOME = 255;
const ROLES: readonly PageRole[] = ['page', 'sitemap'];
/** Bits of a page's render flags: its served HTML had scripts; it was rendered in this session. */
const SCRIPTED = 1;
const RENDERED = 2;
/** A small number per kind, for numeric keys (target * 16 + kind). */
const KIND_INDEX: Record<LinkKind, number> = { anchor: 0, area: 1, frame: 2, iframe: 3, refresh: 4, redirect: 5, canonical: 6, alternate: 7, sitemap: 8 };
/** 1 for the kinds of the web graph (GRAPH_LINK_KINDS), by KIND_INDEX. */
const IN_GRAPH = Uint8Array.from(Object.entries(KIND_INDEX).sort((a, b) => a[1] - b[1]), ([kind]) => (GRAPH_LINK_KINDS.includes(kind as LinkKind) ? 1 : 0));

/** Clicks a link of each kind adds to the depth of its target: a frame, a refresh or a redirect is no click. */
const DEPTH_STEP: Record<LinkKind, number> = { anchor: 1, area: 1, alternate: 1, sitemap: 1, frame: 0, iframe: 0, refresh: 0, redirect: 0, canonical: 0 };

/** A link found by a fetch, to a known page. */
export interface FoundLink {
  target: number;
  kind: LinkKind;
  /** REL_BITS. */
  rel: number;
  hreflang: string | null;
  lastmod: number | null;
}

/** What a finished page gives its crawler to record. */
export interface PageOutcome {
  record: FetchRecord;
  /** Its out-links in the web graph (GRAPH_LINK_KINDS), distinct, without itself: what OPIC reads. */
  out: number[];
  /** Every link found, with kind and rel. */
  links: FoundLink[];
  /** A page fetched before, fetched again. */
  refetch: boolean;
  /** A request was made (false: a rule refused it). */
  fetched: boolean;
}

/**
 * Typed-array columns that grow with the pages. A column with an `empty` value other than 0 stores
 * value XOR empty, so that a fresh (zeroed) array reads as empty without being filled: a column
 * reserved for many pages (reserve) then costs RAM only for the pages written.
 */
export class Column<T extends Int32Array | Uint8Array | Uint16Array | Float64Array> {
  /** `empty`: the value of entries never set (integer columns only, when not 0). */
  constructor(
    public data: T,
    private readonly empty = 0,
  ) {}
  /**
   * Room for `capacity` pages at once in each of `columns`, views of one buffer (util/typed-arrays.ts,
   * reservedArrays); they stay as they are when that is refused.
   */
  static reserve(capacity: number, columns: ReadonlyArray<Column<Int32Array | Uint8Array | Uint16Array | Float64Array>>): void {
    if (columns.some((column) => capacity <= column.data.length)) return;
    const reserved = reservedArrays(capacity, ...columns.map((column) => column.data.constructor as ColumnConstructor<Int32Array | Uint8Array | Uint16Array | Float64Array>));
    if (reserved === null) return;
    columns.forEach((column, i) => {
      reserved[i]!.set(column.data);
      column.data = reserved[i]!;
    });
  }
  set(i: number, value: number): void {
    if (i >= this.data.length) this.data = grownColumn(this.data, i + 1);
    this.data[i] = this.empty === 0 ? value : value ^ this.empty;
  }
  get(i: number): number {
    if (i >= this.data.length) return this.empty;
    return this.empty === 0 ? this.data[i]! : this.data[i]! ^ this.empty;
  }
}

/**
 * With --max-depth, the out-links of fetched pages (to pages, with the clicks they add), and the
 * links the depth limit cut. Only in memory: after --resume, pages fetched before are not re-examined.
 */
class DepthLinks {
  private readonly children = new Map<number, Array<[number, number]>>();
  private readonly cuts = new Map<number, Array<{ url: string; key: string; kind: LinkKind; rel: number; hreflang: string | null }>>();

  child(source: number, target: number, step: number): void {
    let list = this.children.get(source);
    if (list === undefined) this.children.set(source, (list = []));
    list.push([target, step]);
  }

  childrenOf(source: number): ReadonlyArray<[number, number]> {
    return this.children.get(source) ?? [];
  }

  cut(source: number, cut: { url: string; key: string; kind: LinkKind; rel: number; hreflang: string | null }): void {
    let list = this.cuts.get(source);
    if (list === undefined) this.cuts.set(source, (list = []));
    list.push(cut);
  }

  takeCut(source: number): Array<{ url: string; key: string; kind: LinkKind; rel: number; hreflang: string | null }> {
    const list = this.cuts.get(source) ?? [];
    this.cuts.delete(source);
    return list;
  }
}

export interface PipelineOptions {
  /** Keep each page's out-links and validators in memory, for re-reads (a crawl with --refresh or --recrawl). */
  rereads: boolean;
  /** Where every request and answer is archived (--warc), or null. */
  warc: WarcWriter | null;
  /** Where URL text the store holds already may be spilled (url-table.ts); null: it stays in RAM. */
  spillDir?: string | null;
}

export abstract class PagePipeline {
  protected readonly fetcher: Fetcher;
  protected readonly hosts: HostTable;
  /** Keys and URLs of the known pages, off the heap (url-table.ts); ids are the crawler's page ids. */
  protected readonly urls: UrlTable;
  /** Pages the per-page columns are reserved for (settings.ts, pageCapacityOf). */
  protected readonly pageCapacity: number;
  protected readonly hostOf = new Column(new Int32Array(1024), -1);
  protected readonly depth = new Column(new Uint16Array(1024));
  protected readonly state = new Column(new Uint8Array(1024));
  protected readonly attempts = new Column(new Uint8Array(1024));
  protected readonly hops = new Column(new Uint8Array(1024));
  protected readonly role = new Column(new Uint8Array(1024));
  /** The class of each finished page's answer (OUTCOMES), NO_OUTCOME before its first. */
  private readonly outcome = new Column(new Uint8Array(1024), NO_OUTCOME);
  /** Per page, RENDER_FLAGS: whether its served HTML had scripts, whether it was rendered (this session). */
  private readonly renderFlags = new Column(new Uint8Array(1024));
  /** The targets of the page being read that are in its out list (a set reused from page to page). */
  private readonly inOut = new Set<number>();
  /** pageLinks()'s links of the page being read, per target and kind (one map, emptied for each page). */
  private readonly foundLinks = new Map<number, FoundLink>();
  /** Redirects (and refreshes) followed: source to target, for loops. */
  protected readonly redirectTo = new Map<number, number>();
  private rejected = new Set<string>();
  private readonly robotsQueue: Host[] = [];
  protected readonly retryTimers = new Set<NodeJS.Timeout>();
  /** Origins whose /sitemap.xml this crawl has tried or queued (the store's, on resume). */
  protected readonly sitemapProbed = new Set<string>();
  /** The crawl's DNS (every connection asks it; hosts are grouped by its answers). */
  protected readonly dns: DnsCache;
  /** Hosts whose address is to be looked up, before their robots.txt. */
  private readonly toLookUp: Host[] = [];
  /** Hosts whose address is being looked up (before their robots.txt). */
  private addressesLooking = 0;
  /** Servers with robots.txt requests waiting for them. */
  private readonly robotsServers = new Set<Server>();
  /** Servers waiting out --ip-delay on a timer. */
  private readonly armedServers = new Set<Server>();
  /** Hosts with sitemaps waiting (read before their pages). */
  private readonly sitemapHosts = new Set<Host>();
  /** With --max-depth: the links of fetched pages, to lower depths found by a shorter path later. */
  private readonly depthLinks: DepthLinks | null;
  /** For re-reads: each page's graph out-links (what a 304 keeps) and its validators. */
  protected readonly outLinks: Map<number, Int32Array> | null;
  protected readonly validators: Map<number, Validators> | null;
  protected readonly counters: CrawlCounters = {
    known: 0, fetched: 0, failed: 0, excluded: 0, redirects: 0, other: 0, frontier: 0, inFlight: 0, requests: 0, retries: 0, invalidLinks: 0, hosts: 0,
    wireBytes: 0, bodyBytes: 0, notModified: 0, sitemaps: 0, rendered: 0, renderFailed: 0, renderedLinks: 0, pagesOverLinkCap: 0, servers: 0,
  };
  /** robots.txt fetches running. */
  protected robotsLoading = 0;
  protected stopping: string | null = null;
  /**
   * Stopping for good (Ctrl-C, --max-time, the memory budget): pages in flight are finished as
   * they are. At --max-pages no page is started any more, but the pages in flight are finished as
   * any other: rendered (with their subresources) when their host is.
   */
  protected get ending(): boolean {
    return this.stopping !== null && this.stopping !== 'max-pages';
  }
  protected failure: Error | null = null;
  /** A pump() put off to the next turn of the event loop (see pump). */
  private pumpLater: NodeJS.Immediate | null = null;
  protected readonly warc: WarcWriter | null;
  /** The browser pages are rendered in (--render), or null. */
  protected readonly renderer: Renderer | null;
  private readonly renderPolicy: RenderPolicy;
  /** Samples being rendered beside the crawl (render-policy.ts): the crawl does not end before their verdict. */
  private samplesRunning = 0;
  /** Per host rendered throughout after its pages were read as served: those pages, to read again, rendered. */
  private readonly rereads = new Map<Host, number[]>();
  /** Pages being read again to be rendered (not new fetches for --max-pages and the counts). */
  protected readonly rereading = new Set<number>();
  /** When the crawl started (performance.now()), for the render budget. */
  private readonly pipelineStartedAt = performance.now();
  /** --render auto without a browser on the machine: pages are read as served (the report says so). */
  protected readonly renderUnavailable: boolean;
  /** robots.txt of the hosts rendered pages load subresources from that are not hosts of the crawl. */
  private readonly subresourceRobots = new Map<string, Promise<RobotsRules>>();
  /** When the next subresource request to such a host may start (performance.now()). */
  private readonly subresourceNextAt = new Map<string, number>();

  protected constructor(
    protected readonly settings: CrawlSettings,
    protected readonly compiled: CompiledSettings,
    options: PipelineOptions,
  ) {
    this.pageCapacity = pageCapacityOf(settings);
    this.urls = new UrlTable({ spillDir: options.spillDir ?? null, capacity: this.pageCapacity });
    Column.reserve(this.pageCapacity, [this.hostOf, this.depth, this.state, this.attempts, this.hops, this.role, this.outcome, this.renderFlags]);
    this.hosts = new HostTable(settings.perHost, settings.delayMs, perIpOf(settings), ipDelayOf(settings));
    this.dns = new DnsCache(dnsOptionsOf(settings));
    this.depthLinks = settings.maxDepth === null ? null : new DepthLinks();
    this.outLinks = options.rereads ? new Map() : null;
    this.validators = options.rereads ? new Map() : null;
    this.warc = options.warc;
    let browserPath: string | null = null;
    if (settings.render !== 'never') {
      browserPath = findBrowser(settings.browser);
      // Asked for by name (always, or a --browser given): no browser is an error; auto reads pages as served.
      if (browserPath === null && (settings.render === 'always' || settings.browser !== null)) throw new BrowserMissingError(settings.browser === null ? BROWSER_CANDIDATES : [settings.browser]);
    }
    this.renderUnavailable = settings.render !== 'never' && browserPath === null;
    this.renderPolicy = new RenderPolicy(
      browserPath === null ? 'never' : settings.render,
      settings.renderBudget,
      renderConcurrencyOf(settings),
      () => ({ elapsedMs: performance.now() - this.pipelineStartedAt, known: this.counters.known, finished: this.finishedCount() }),
      () => this.renderer?.browserRunning() === true,
    );
    this.renderer =
      browserPath === null
        ? null
        : new Renderer({
            browserPath,
            userAgent: settings.userAgent,
            concurrency: renderConcurrencyOf(settings),
            timeoutMs: settings.renderTimeoutMs,
            quietMs: settings.renderQuietMs,
            resources: settings.renderResources,
            gate: { fetch: (url, accept) => this.fetchSubresource(url, accept) },
            idleMs: settings.renderIdleMs,
            maxLinks: settings.maxLinksPerPage,
          });
    this.fetcher = new Fetcher({
      userAgent: settings.userAgent,
      ipRules: compiled.ipRules,
      resolve: compiled.resolve,
      dns: this.dns,
      connectTimeoutMs: settings.connectTimeoutMs,
      headersTimeoutMs: settings.headersTimeoutMs,
      bodyTimeoutMs: settings.bodyTimeoutMs,
      pageTimeoutMs: settings.pageTimeoutMs,
      maxBodyBytes: settings.maxBodyBytes,
      connectionsPerOrigin: settings.perHost,
      keepAliveHosts: settings.keepAliveHosts,
      compression: settings.compression,
      maxSitemapEntries: settings.maxSitemapEntries,
      maxLinksPerPage: settings.maxLinksPerPage,
      ...(options.warc === null ? {} : { recorder: options.warc }),
      keepHtml: this.renderer === null ? 'none' : settings.render === 'always' ? 'all' : 'scripted',
    });
  }

  // ---- what the crawlers provide ------------------------------------------------

  /**
   * A new in-scope page at `id` (the URL table's id): the crawler makes it one of its own pages
   * (waiting for its fetch when `waiting`, else being fetched already) or notes it as another's.
   */
  protected abstract addPage(id: number, url: URL, focus: boolean, waiting: boolean): void;
  /** The next page to fetch among the hosts that may take a request, taken out of the waiting pages; -1 if none. */
  protected abstract nextPage(): number;
  /** A page of ours was taken to be fetched: a request goes out (`requested`), or a rule refuses it at once. */
  protected abstract pageStarted(id: number, refetch: boolean, requested: boolean): void;
  /** A sitemap read outside the selection became a page of ours, finished right after. */
  protected abstract sitemapStarted(id: number): void;
  /** A page's failed fetch waits for its retry (out of the waiting pages). */
  protected abstract retryWaits(id: number, refetch: boolean): void;
  /** The retry's wait is over: the page waits for its fetch again. */
  protected abstract retryReady(id: number, host: Host, refetch: boolean): void;
  /** A page is finished: the crawler records it (OPIC's read, the store). */
  protected abstract pageFinished(id: number, outcome: PageOutcome): void;
  /** A link of a page read before (a sitemap index's link to a sitemap read after it, a link --max-depth had cut). */
  protected abstract laterLink(source: number, link: FoundLink): void;
  /** Whether the pages of a host may be selected now (the crawler's selection structure). */
  protected abstract setHostSelectable(host: Host, selectable: boolean): void;
  /** A host was grouped under a server address (its cluster in the selection). */
  protected abstract setHostServer(host: Host, server: Server): void;
  /** Switches every host of a server on or off for selection. */
  protected abstract setServerSelectable(server: Server, selectable: boolean): void;
  /** Called at the end of every pump (the crawler checks whether it is over). */
  protected abstract afterPump(): void;
  /** Whether page `id` is the crawler's to fetch (a shared crawl's pages of other partitions are not). */
  protected ours(id: number): boolean {
    return this.state.get(id) !== FOREIGN;
  }

  // ---- pages ----------------------------------------------------------------------

  /** The URL a page is stored and fetched under: as found, without its fragment. */
  private static hrefOf(url: URL): string {
    return url.hash === '' ? url.href : url.href.slice(0, url.href.length - url.hash.length);
  }

  /**
   * The id of a URL's page, adding it if it is new and in scope; -1 when out of scope, TOO_DEEP
   * when only --max-depth keeps it out. `waiting: false` adds it as being fetched already.
   */
  protected intern(url: URL, key: string, depth: number, role: PageRole = 'page', waiting = true): number {
    const known = this.urls.id(key);
    if (known !== -1) {
      if (this.depthLinks !== null && depth < this.depth.get(known)) this.lowerDepth(known, depth);
      return known;
    }
    if (this.rejected.has(key)) return -1;
    const why = this.compiled.scope.exclusion(url, key, depth, role === 'sitemap');
    if (why !== null) {
      // Depth depends on the path a URL was found by: only other reasons are final.
      if (depth <= this.compiled.scope.maxDepth) {
        if (this.rejected.size >= REJECTED_CACHE) this.rejected = new Set();
        this.rejected.add(key);
        return -1;
      }
      return this.compiled.scope.exclusion(url, key, 0, role === 'sitemap') === null ? TOO_DEEP : -1;
    }
    const href = PagePipeline.hrefOf(url);
    const id = this.urls.add(key, href === key ? key : href);
    this.depth.set(id, Math.min(depth, 65_535));
    this.hops.set(id, 0);
    this.attempts.set(id, 0);
    this.role.set(id, ROLES.indexOf(role));
    this.counters.known++;
    const focus = this.compiled.focus.some((re) => re.test(key));
    this.addPage(id, url, focus, waiting);
    return id;
  }

  /** A page known from the store (resume, a shared crawl's pages of a partition taken): into the URL table. */
  protected restorePage(key: string, url: string, depth: number, role: PageRole): number {
    const id = this.urls.add(key, url);
    this.depth.set(id, Math.min(depth, 65_535));
    this.hops.set(id, 0);
    this.attempts.set(id, 0);
    this.role.set(id, ROLES.indexOf(role));
    this.counters.known++;
    return id;
  }

  /** The host of a page of ours (interned on first use), its robots.txt asked for. */
  protected hostFor(id: number, given?: URL): Host {
    const known = this.hostOf.get(id);
    if (known !== -1) return this.hosts.hosts[known]!;
    // Parsed only for a page whose host is not known yet (a default parameter would parse it on every call).
    const url = given ?? new URL(this.urls.url(id));
    const { host, created } = this.hosts.intern(url.origin, url.hostname);
    if (created) {
      this.setHostSelectable(host, false);
      this.counters.hosts = this.hosts.size;
    }
    this.hostOf.set(id, host.id);
    return host;
  }

  /**
   * hostFor for a page whose URL is at hand (a resume restores millions): a known host is found by
   * the URL's origin, cut from the normalised URL without parsing it; a new one parses it.
   */
  protected hostForUrl(id: number, href: string): Host {
    const known = this.hostOf.get(id);
    if (known !== -1) return this.hosts.hosts[known]!;
    const slash = href.indexOf('/', href.indexOf('//') + 2);
    const origin = slash < 0 ? href : href.slice(0, slash);
    // An origin never holds userinfo: such a URL is parsed.
    const host = origin.includes('@') ? null : this.hosts.find(origin);
    if (host === null) return this.hostFor(id, new URL(href));
    this.hostOf.set(id, host.id);
    return host;
  }

  /**
   * A known page found by a shorter path (Greedy does not find pages in breadth-first order): its
   * depth, and that of the pages reached through it, goes down, and links a --max-depth had cut
   * become pages and links now that they are within reach.
   */
  private lowerDepth(start: number, startDepth: number): void {
    const links = this.depthLinks!;
    const queue: Array<[number, number]> = [[start, startDepth]];
    for (let head = 0; head < queue.length; head++) {
      const [id, depth] = queue[head]!;
      if (depth >= this.depth.get(id)) continue;
      this.depth.set(id, depth);
      this.depthLowered(id, depth);
      for (const [child, step] of links.childrenOf(id)) queue.push([child, depth + step]);
      for (const cut of links.takeCut(id)) {
        const step = DEPTH_STEP[cut.kind];
        if (depth + step > this.compiled.scope.maxDepth) {
          links.cut(id, cut);
          continue;
        }
        const target = this.intern(new URL(cut.url), cut.key, depth + step);
        if (target < 0 || target === id) continue;
        // A link of a page already read: stored now, and followed by OPIC when the page is read again.
        this.laterLink(id, { target, kind: cut.kind, rel: cut.rel, hreflang: cut.hreflang, lastmod: null });
        links.child(id, target, step);
      }
    }
  }

  /** A page's depth went down (--max-depth): the crawler rewrites it in the store. */
  protected depthLowered(_id: number, _depth: number): void {}

  // ---- scheduling --------------------------------------------------------------

  protected needRobots(host: Host): void {
    if (host.robotsState !== RobotsState.Unknown) return;
    host.robotsState = RobotsState.Fetching;
    // Grouped under its server address first (looked up when the crawl pumps, never before it
    // runs): its robots.txt already counts against the address.
    if (host.server !== null) this.queueRobots(host);
    else this.toLookUp.push(host);
  }

  /** Looks up the addresses of the hosts waiting for theirs. */
  private startLookups(): void {
    for (const host of this.toLookUp.splice(0)) {
      this.addressesLooking++;
      void this.serverAddress(host.hostname).then((address) => {
        this.addressesLooking--;
        // A crawl stopping does not wait for lookups: one that ends after it changes nothing.
        if (this.stopping !== null) return;
        if (address !== null && host.server === null) this.setHostServer(host, this.hosts.assignServer(host, address));
        this.counters.servers = this.hosts.servers;
        this.queueRobots(host);
        this.pump();
      });
    }
  }

  /** The address a host's connections go to (the first the rules allow), or null when none is known. */
  private async serverAddress(hostname: string): Promise<string | null> {
    const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const override = this.compiled.resolve.get(name);
    if (override !== undefined) return override;
    const answer = await this.dns.lookup(name);
    if (!answer.ok) return null;
    return answer.addresses.find((a) => this.compiled.ipRules.check(a.address).allowed)?.address ?? null;
  }

  private queueRobots(host: Host): void {
    if (host.server === null) this.robotsQueue.push(host);
    else {
      host.server.robotsWaiting.push(host);
      this.robotsServers.add(host.server);
    }
  }

  /** Starts the robots.txt requests their servers can take now. */
  private startRobots(): void {
    while (this.counters.inFlight < this.settings.concurrency && this.robotsQueue.length > 0) void this.loadRobots(this.robotsQueue.shift()!);
    if (this.robotsServers.size === 0) return;
    const now = performance.now();
    for (const server of this.robotsServers) {
      while (server.robotsWaiting.length > 0 && this.counters.inFlight < this.settings.concurrency && this.hosts.serverFree(server, now)) void this.loadRobots(server.robotsWaiting.shift()!);
      if (server.robotsWaiting.length === 0) this.robotsServers.delete(server);
      else this.armServer(server, now);
      if (this.counters.inFlight >= this.settings.concurrency) return;
    }
  }

  /** A server held back by --ip-delay alone wakes its hosts when the delay ends. */
  private armServer(server: Server, now: number): void {
    if (server.timer !== null || this.stopping !== null || server.active >= this.hosts.perIp || now >= server.nextAt) return;
    this.armedServers.add(server);
    server.timer = setTimeout(() => {
      server.timer = null;
      this.armedServers.delete(server);
      this.serverFreed(server);
      this.pump();
    }, Math.max(1, Math.ceil(server.nextAt - now)));
  }

  /** A request to a server ended, or its delay did: its hosts come back into the selection when it is free. */
  private serverFreed(server: Server | null): void {
    if (server === null || !server.closed) return;
    const now = performance.now();
    if (this.hosts.serverFree(server, now)) {
      server.closed = false;
      this.setServerSelectable(server, true);
    } else this.armServer(server, now);
  }

  /** Books a request on a host and its server; a server that cannot take another closes its hosts. */
  private startOn(host: Host): void {
    this.hosts.start(host, performance.now());
    this.closeIfFull(host.server);
  }

  /**
   * A server that cannot take another request now (--per-ip reached, or --ip-delay running) takes its
   * hosts out of the selection until it can, all at once (the selection's cluster of the server).
   */
  private closeIfFull(server: Server | null): void {
    if (server === null || server.closed) return;
    const now = performance.now();
    if (this.hosts.serverFree(server, now)) return;
    server.closed = true;
    this.setServerSelectable(server, false);
    this.armServer(server, now);
  }

  /** A request to a host ended: the host and its server are free for another. */
  protected release(host: Host): void {
    this.hosts.finish(host);
    if (host.server === null && host.active === 0) this.groupLate(host);
    this.serverFreed(host.server);
  }

  /**
   * A host whose lookup had failed (its robots.txt and pages then fail on their own) is grouped
   * under its address once the DNS cache has one: a name that answers again after its negative TTL
   * would otherwise be crawled outside --per-ip. Done when none of its requests runs, so that each
   * request is counted on the server it was booked on.
   */
  private groupLate(host: Host): void {
    const answer = this.dns.peek(host.hostname.replace(/^\[|\]$/g, '').toLowerCase());
    if (answer === null || !answer.ok) return;
    const address = answer.addresses.find((a) => this.compiled.ipRules.check(a.address).allowed)?.address;
    if (address === undefined) return;
    this.setHostServer(host, this.hosts.assignServer(host, address));
    this.counters.servers = this.hosts.servers;
    this.closeIfFull(host.server);
  }

  /** Whether a limit of the crawler ends its selection now (--max-pages). */
  protected limitReached(): boolean {
    return false;
  }

  /** Starts as many fetches as concurrency and politeness allow, then lets the crawler check whether it is over. */
  protected pump(): void {
    if (this.stopping === null && this.failure === null) {
      if (this.toLookUp.length > 0) this.startLookups();
      this.startRobots();
      if (this.sitemapHosts.size > 0) this.startSitemaps();
      this.startRereads();
      // Pages a rule refuses finish at once, without a request; a bounded number per turn of the event
      // loop keeps a crawl whose pages are all refused (e.g. --refresh after robots.txt failed) from
      // spinning here without ever writing a checkpoint or hearing a signal.
      let refusedHere = 0;
      while (this.counters.inFlight < this.settings.concurrency && !this.limitReached()) {
        const id = this.nextPage();
        if (id < 0) break;
        if (!this.startPage(id) && ++refusedHere >= REFUSALS_PER_TURN) {
          this.pumpLater = setImmediate(() => {
            this.pumpLater = null;
            this.pump();
          });
          break;
        }
      }
    }
    this.afterPump();
  }

  /** Whether anything is still to happen: fetches, a pump put off, retries, robots.txt or politeness timers. */
  protected busy(): boolean {
    if (this.counters.inFlight > 0 || this.pumpLater !== null) return true;
    // Samples of --render auto are waited for only while their verdict could still change the crawl.
    if (this.samplesRunning > 0 && this.stopping === null && this.renderPolicy.samplesMatter()) return true;
    if (this.stopping !== null) return false;
    if (this.addressesLooking > 0 || this.toLookUp.length > 0 || this.robotsServers.size > 0 || this.armedServers.size > 0) return true;
    return this.rereads.size > 0 || this.retryTimers.size > 0 || this.robotsQueue.length > 0 || this.sitemapHosts.size > 0 || this.hosts.timersRunning > 0;
  }

  /** Switches a host on or off for selection; when only its delay holds it, wakes up when that ends. */
  protected refreshHost(host: Host): void {
    const now = performance.now();
    const free = this.hosts.hostFree(host, now);
    // A host's pages wait for its sitemaps. Its server's limits switch all its hosts at once (closeIfFull).
    this.setHostSelectable(host, free && host.sitemapQueue.length === 0);
    if (!free && host.robotsState === RobotsState.Known && host.active < this.hosts.perHost && host.timer === null && this.stopping === null) {
      this.hosts.timersRunning++;
      host.timer = setTimeout(() => {
        host.timer = null;
        this.hosts.timersRunning--;
        this.refreshHost(host);
        this.pump();
      }, Math.max(1, Math.ceil(host.nextAt - now)));
    }
  }

  /** Fetches a page, or finishes it at once when robots.txt refuses it (then returns false). */
  protected startPage(id: number): boolean {
    const host = this.hostFor(id);
    const refetch = this.state.get(id) === DONE;
    this.state.set(id, IN_FLIGHT);
    const refused = host.robots !== null && !host.robots.allows(this.urls.url(id));
    this.pageStarted(id, refetch, !refused);
    if (refused) {
      this.finishPage(id, { record: { status: null, contentType: null, fetchedAt: Date.now(), size: null, title: null, error: `excluded: ${host.robots!.disallowAll ?? 'robots.txt disallows it'}` }, out: [], links: [], refetch, fetched: false });
      return false;
    }
    this.counters.inFlight++;
    this.counters.requests++;
    this.startOn(host);
    this.refreshHost(host);
    const url = new URL(this.urls.url(id));
    const mode = this.role.get(id) === 1 ? 'sitemap' : 'page';
    const validators = refetch ? (this.validators?.get(id) ?? null) : null;
    const startedAt = performance.now();
    this.fetcher.fetch(url, mode, undefined, validators).then(
      (result) => {
        this.fetchTimed(performance.now() - startedAt);
        this.onFetched(id, host, refetch, result);
      },
      (error: unknown) => {
        // Out of flight before the stop, so that the crawl can end (afterPump waits for nothing in flight).
        this.counters.inFlight--;
        this.release(host);
        this.fail(error as Error);
      },
    );
    return true;
  }

  /** How long a fetch took, ms (a shared crawl keeps a running mean). */
  protected fetchTimed(_ms: number): void {}

  private onFetched(id: number, host: Host, refetch: boolean, result: FetchResult): void {
    this.release(host);
    this.countBytes(result);
    const html = result.html ?? null;
    // Dropped once handed on (only answers that carry it: adding the property to every answer would change their shape).
    if (html !== null) result.html = null;
    const retry = result.failure === 'retryable' && this.attempts.get(id) < this.settings.retries && this.stopping === null;
    if (!retry && html !== null && result.page !== null && !this.ending) {
      const choice = this.renderPolicy.choose(host.id, host.origin, result.page);
      if (choice === 'render' || choice === 'shell') {
        // Rendered: the page stays in flight (it holds its place in --concurrency), its host free for other requests.
        this.refreshHost(host);
        this.pump();
        this.renderer!.render({ url: this.urls.url(id), html }).then(
          (rendered) => {
            this.renderPolicy.spent(rendered.elapsedMs, choice === 'shell');
            if (choice === 'render') this.renderPolicy.renderedPage(host.id);
            this.answered(id, host, refetch, result, rendered);
          },
          (error: unknown) => {
            this.counters.inFlight--;
            this.fail(error as Error);
          },
        );
        return;
      }
      if (choice === 'sample') this.renderSample(id, host, html, result.page);
    }
    this.answered(id, host, refetch, result, null, retry);
  }

  /**
   * A sample of a host for --render auto (render-policy.ts), rendered beside the crawl: the page is
   * recorded as served; rendering tells which URLs only its scripts write that the crawl does not
   * know. When the verdict is to render the host, its pages read so far are read again, rendered.
   */
  private renderSample(id: number, host: Host, html: string, served: ExtractedPage): void {
    const url = this.urls.url(id);
    const depth = this.depth.get(id);
    this.samplesRunning++;
    this.renderer!.render({ url, html }).then(
      (rendered) => {
        this.samplesRunning--;
        this.renderPolicy.spent(rendered.elapsedMs, false);
        if (this.stopping !== null) {
          this.afterPump();
          return;
        }
        const fresh = rendered.page === null ? [] : this.unknownTargets(rendered.page, rendered.finalUrl ?? url, served, url, depth);
        // The pages it may still have to read: the crawl's waiting pages (exact for one host, more than its own otherwise).
        if (this.renderPolicy.sampled(host.id, fresh, this.counters.frontier)) this.renderHostAgain(host);
        this.pump();
      },
      (error: unknown) => {
        this.samplesRunning--;
        this.fail(error as Error);
      },
    );
  }

  /** The in-scope URLs a rendered page links to that the crawl does not know (and its served HTML does not hold). */
  private unknownTargets(page: ExtractedPage, url: string, served: ExtractedPage, servedUrl: string, depth: number): string[] {
    const known = new Set<string>();
    const servedBase = PagePipeline.baseOf(served, servedUrl);
    for (const link of served.links) {
      const resolved = resolveUrl(link.href, servedBase);
      if (resolved.ok) known.add(resolved.key);
    }
    const base = PagePipeline.baseOf(page, url);
    const fresh = new Set<string>();
    for (const link of page.links) {
      if (!IN_GRAPH[KIND_INDEX[link.kind]]) continue;
      const resolved = resolveUrl(link.href, base);
      if (!resolved.ok || known.has(resolved.key) || fresh.has(resolved.key) || this.urls.id(resolved.key) !== -1) continue;
      if (this.compiled.scope.exclusion(resolved.url, resolved.key, depth + DEPTH_STEP[link.kind], false) !== null) continue;
      fresh.add(resolved.key);
    }
    return [...fresh];
  }

  /** What a page's links resolve against: its <base href> when usable, else its URL. */
  private static baseOf(page: ExtractedPage, url: string): string | URL {
    if (page.base === null) return url;
    const resolved = resolveUrl(page.base, url);
    return resolved.ok ? resolved.url : url;
  }

  /** A host now rendered throughout: its pages with scripts read as served so far are read again, rendered. */
  private renderHostAgain(host: Host): void {
    const queue = this.rereads.get(host) ?? [];
    for (let id = 0; id < this.urls.size; id++) {
      if (this.hostOf.get(id) !== host.id || this.state.get(id) !== DONE) continue;
      if ((this.renderFlags.get(id) & (SCRIPTED | RENDERED)) === SCRIPTED) queue.push(id);
    }
    if (queue.length > 0) this.rereads.set(host, queue);
  }

  /** Starts the re-reads of hosts now rendered throughout, as politeness allows (before new pages). */
  private startRereads(): void {
    if (this.rereads.size === 0) return;
    const now = performance.now();
    for (const [host, queue] of this.rereads) {
      // The budget ran out: the host's pages are read as served from now on.
      if (this.renderPolicy.verdictOf(host.id) !== 'render') queue.length = 0;
      while (queue.length > 0 && this.counters.inFlight < this.settings.concurrency && this.hosts.available(host, now)) {
        const id = queue.shift()!;
        if (this.state.get(id) !== DONE) continue;
        this.rereading.add(id);
        this.startPage(id);
      }
      if (queue.length === 0) this.rereads.delete(host);
    }
  }

  /** Pages finished (read, or refused by a rule) in this session. */
  private finishedCount(): number {
    const c = this.counters;
    return c.fetched + c.failed + c.excluded + c.redirects + c.other;
  }

  /** Per host, what --render auto decided and why. */
  protected renderHostReport(): HostRenderReport[] {
    return this.renderPolicy.mode === 'auto' ? this.renderPolicy.report() : [];
  }

  /** A page's answer (and its rendering) is in: recorded, or its retry scheduled. */
  private answered(id: number, host: Host, refetch: boolean, result: FetchResult, rendered: RenderedPage | null, retry = false): void {
    this.counters.inFlight--;
    try {
      if (retry) this.scheduleRetry(id, host, refetch, result);
      else this.processAnswer(id, refetch, result, rendered);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    this.refreshHost(host);
    this.pump();
  }

  private countBytes(result: FetchResult): void {
    this.counters.wireBytes += result.wireSize;
    this.counters.bodyBytes += result.size;
  }

  /**
   * A failed fetch to try again after an exponential back-off (or the server's Retry-After): the page
   * waits out of the selection, then rejoins it and is chosen again on the usual terms (politeness).
   */
  private scheduleRetry(id: number, host: Host, refetch: boolean, result: FetchResult): void {
    const attempt = this.attempts.get(id) + 1;
    this.attempts.set(id, attempt);
    this.counters.retries++;
    this.state.set(id, RETRY_WAIT);
    this.retryWaits(id, refetch);
    const wait = result.retryAfterMs ?? this.settings.retryDelayMs * 2 ** (attempt - 1);
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (this.stopping !== null) return;
      this.state.set(id, refetch ? DONE : WAITING);
      this.retryReady(id, host, refetch);
      this.refreshHost(host);
      this.pump();
    }, wait);
    this.retryTimers.add(timer);
  }

  stop(reason: string): void {
    this.stopping ??= reason;
    this.hosts.clearTimers();
    this.armedServers.clear();
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    for (const host of this.sitemapHosts) {
      for (let n = host.sitemapQueue.length; n > 0; n--) this.sitemapPending(host, -1);
      host.sitemapQueue = [];
    }
    this.sitemapHosts.clear();
    this.afterPump();
  }

  protected fail(error: Error): void {
    this.failure ??= error;
    this.stop('stopped');
  }

  /** Ends what the pipeline holds: timers, connections, the WARC file. */
  protected async closePipeline(): Promise<void> {
    await this.renderer?.close();
    this.hosts.clearTimers();
    for (const timer of this.retryTimers) clearTimeout(timer);
    if (this.pumpLater !== null) clearImmediate(this.pumpLater);
    await this.fetcher.destroy().catch(() => undefined);
    this.urls.close();
  }

  // ---- answers ----------------------------------------------------------------

  protected processAnswer(id: number, refetch: boolean, result: FetchResult, rendered: RenderedPage | null = null): void {
    const record = fetchRecordOf(result);
    if (result.page !== null && result.error === null) this.notePageRender(id, result.page, rendered);
    if (rendered !== null) {
      record.rendered = rendered.outcome;
      const title = rendered.page?.title ?? null;
      if (title !== null) record.title = title.replace(/\u0000/g, '\uFFFD');
      if (rendered.outcome === 'failed') this.counters.renderFailed++;
      else this.counters.rendered++;
      if (rendered.page !== null) {
        record.linksDropped = Math.max(record.linksDropped ?? 0, rendered.page.droppedLinks);
        // The audit reads the page as the browser made it (its head, headings and text), the answer's time and header as served.
        record.audit = auditOf({ ...result, page: rendered.page });
      }
    }
    // A page read again to be rendered was counted at its first read.
    if ((record.linksDropped ?? 0) > 0 && !this.rereading.has(id)) this.counters.pagesOverLinkCap++;
    const out: number[] = [];
    const links: FoundLink[] = [];
    if (result.notModified) {
      // 304: the page is as stored; OPIC reads it with the out-links it had.
      this.counters.notModified++;
      const kept = this.outLinks?.get(id);
      if (kept !== undefined) for (const target of kept) out.push(target);
      this.finishPage(id, { record, out, links, refetch, fetched: true });
      return;
    }
    if (result.error === null && result.page !== null) this.pageLinks(id, result, out, links, rendered);
    else if (result.error === null && result.sitemap !== null) this.sitemapLinks(id, result, links);
    else if (result.error === null && result.location !== null) {
      const problem = this.follow(id, result.location, 'redirect', out, links);
      if (problem !== null) record.error = problem;
    }
    if (this.validators !== null && record.etag != null) this.validators.set(id, { etag: record.etag ?? null, lastModified: record.lastModified ?? null });
    else if (this.validators !== null && record.lastModified != null) this.validators.set(id, { etag: null, lastModified: record.lastModified });
    this.finishPage(id, { record, out, links, refetch, fetched: true });
  }

  /** What --render auto keeps of a read HTML page: whether it had scripts, was rendered; a page its host's verdict wants rendered is read again. */
  private notePageRender(id: number, page: ExtractedPage, rendered: RenderedPage | null): void {
    const reread = this.rereading.has(id);
    if (this.renderPolicy.mode !== 'auto') return;
    const scripted = page.scripts > 0;
    this.renderFlags.set(id, (scripted ? SCRIPTED : 0) | (rendered !== null && rendered.outcome !== 'failed' ? RENDERED : 0));
    const host = this.hostFor(id);
    if (!reread) this.renderPolicy.finished(host.id, host.origin, page);
    // Read as served while (or just before) its host was found to need rendering: read again.
    if (scripted && rendered === null && this.renderPolicy.verdictOf(host.id) === 'render') {
      const queue = this.rereads.get(host) ?? [];
      queue.push(id);
      this.rereads.set(host, queue);
    }
  }

  /**
   * The links of a fetched HTML page: resolved against its base, in scope, without self-links, one per
   * target and kind. A rendered page adds the links of its rendered DOM (resolved against the URL it
   * ended at); those the served HTML lacks carry REL_BITS.script, and a navigation its scripts
   * started is followed like a meta refresh.
   */
  private pageLinks(id: number, result: FetchResult, out: number[], links: FoundLink[], rendered: RenderedPage | null): void {
    const pageUrl = this.urls.url(id);
    const depth = this.depth.get(id);
    // Per target and kind: the rel bits every link to it carries (nofollow only if every link is), and hreflang.
    // One map for every page, emptied here (a Map per page showed in crawl profiles).
    const found = this.foundLinks;
    found.clear();
    const sources: Array<{ page: ExtractedPage; url: string; extraRel: number }> = [{ page: result.page!, url: pageUrl, extraRel: 0 }];
    if (rendered?.page != null) sources.push({ page: rendered.page, url: rendered.finalUrl ?? pageUrl, extraRel: REL_BITS.script });
    let canonical: { href: string; base: string | URL } | null = null;
    for (const { page, url, extraRel } of sources) {
      let base: string | URL = url;
      if (page.base !== null) {
        const resolved = resolveUrl(page.base, url);
        if (resolved.ok) base = resolved.url;
      }
      if (canonical === null && page.canonical !== null) canonical = { href: page.canonical, base };
      for (const link of page.links) {
        if (link.kind === 'refresh') {
          // A refresh is followed like a redirect (same depth; a loop is an error of the page's own); the rendered DOM repeats the served one's.
          if (extraRel !== 0) continue;
          const problem = this.follow(id, link.href, 'refresh', out, links, base);
          if (problem !== null) this.counters.invalidLinks++;
          continue;
        }
        const resolved = resolveUrl(link.href, base);
        if (!resolved.ok) {
          this.counters.invalidLinks++;
          continue;
        }
        const nofollow = (link.rel & REL_BITS.nofollow) !== 0;
        // --respect-nofollow: a nofollow link is kept when its target is known, but finds no page.
        if (nofollow && this.settings.respectNofollow && this.urls.id(resolved.key) === -1) continue;
        const step = DEPTH_STEP[link.kind];
        const target = this.intern(resolved.url, resolved.key, depth + step);
        if (target === TOO_DEEP && this.depthLinks !== null) {
          this.depthLinks.cut(id, { url: resolved.url.href, key: resolved.key, kind: link.kind, rel: link.rel | extraRel, hreflang: link.hreflang });
        }
        if (target < 0 || target === id) continue;
        PagePipeline.addFound(found, target, link, extraRel);
      }
    }
    if (canonical !== null) {
      const resolved = resolveUrl(canonical.href, canonical.base);
      if (resolved.ok && resolved.key !== this.urls.key(id)) {
        const target = this.intern(resolved.url, resolved.key, depth);
        if (target >= 0) PagePipeline.addFound(found, target, { kind: 'canonical', rel: 0, hreflang: null }, 0);
      }
    }
    // Where the page's scripts took it: the history API's URL, or a navigation they started, as a client-side redirect.
    if (rendered !== null) {
      for (const moved of [rendered.finalUrl, rendered.navigatedTo]) {
        if (moved === null || moved === pageUrl) continue;
        const resolved = resolveUrl(moved, pageUrl);
        if (!resolved.ok || resolved.key === this.urls.key(id) || links.some((l) => l.kind === 'refresh' && this.urls.key(l.target) === resolved.key)) continue;
        this.follow(id, moved, 'refresh', out, links);
      }
    }
    // A target of several kinds goes into out once.
    const inOut = this.inOut;
    inOut.clear();
    for (const target of out) inOut.add(target);
    let scripted = 0;
    for (const link of found.values()) {
      links.push(link);
      if ((link.rel & REL_BITS.script) !== 0) scripted++;
      this.depthLinks?.child(id, link.target, DEPTH_STEP[link.kind]);
      if (IN_GRAPH[KIND_INDEX[link.kind]] === 1 && !inOut.has(link.target)) {
        inOut.add(link.target);
        out.push(link.target);
      }
    }
    found.clear();
    if (rendered !== null) this.counters.renderedLinks += scripted;
  }

  /** A link to `target` into a page's links found, merged with one of the same kind found before. */
  private static addFound(found: Map<number, FoundLink>, target: number, link: ExtractedLink | { kind: LinkKind; rel: number; hreflang: string | null }, extraRel: number): void {
    const at = target * 16 + KIND_INDEX[link.kind];
    const before = found.get(at);
    if (before !== undefined) before.rel &= link.rel | extraRel;
    else found.set(at, { target, kind: link.kind, rel: link.rel | extraRel, hreflang: link.hreflang, lastmod: null });
  }

  /**
   * A redirect (a 3xx answer's Location) or a meta refresh: the target becomes a page at the same
   * depth (no click), linked with that kind; chains are followed for loops. Returns a problem, if any.
   */
  private follow(id: number, location: string, kind: 'redirect' | 'refresh', out: number[], links: FoundLink[], base: string | URL = this.urls.url(id)): string | null {
    const resolved = resolveUrl(location, base);
    if (!resolved.ok) return `${kind} to an unusable URL (${resolved.problem}): ${location.slice(0, 200)}`;
    if (resolved.key === this.urls.key(id)) return kind === 'redirect' ? 'redirect loop: the page redirects to itself' : null;
    const hops = this.hops.get(id) + 1;
    if (hops > this.settings.maxRedirects) return `more than ${this.settings.maxRedirects} redirects in a row`;
    const isNew = this.urls.id(resolved.key) === -1;
    const target = this.intern(resolved.url, resolved.key, this.depth.get(id));
    if (target < 0) return null;
    if (isNew) this.hops.set(target, hops);
    if (!out.includes(target)) out.push(target);
    links.push({ target, kind, rel: 0, hreflang: null, lastmod: null });
    this.depthLinks?.child(id, target, 0);
    this.redirectTo.set(id, target);
    // Follow the chain from the target: coming back here is a loop.
    let at = target;
    for (let step = 0; step <= this.settings.maxRedirects + 1; step++) {
      const next = this.redirectTo.get(at);
      if (next === undefined) return null;
      if (next === id) return `${kind} loop`;
      at = next;
    }
    return null;
  }

  /** A sitemap's entries: pages linked from it (kind 'sitemap', lastmod kept); an index's entries: more sitemaps to read. */
  private sitemapLinks(id: number, result: FetchResult, links: FoundLink[]): void {
    const sitemap = result.sitemap!;
    const base = this.urls.url(id);
    if (sitemap.kind === 'index') {
      const host = this.hostFor(id);
      for (const entry of sitemap.entries) {
        const resolved = resolveUrl(entry.loc, base);
        if (!resolved.ok) {
          this.counters.invalidLinks++;
          continue;
        }
        // An index names sitemaps of its own host (the protocol's rule): others are not followed.
        if (resolved.url.origin !== host.origin) continue;
        // A sitemap known already (an index read again) keeps its link; a new one is read, and linked then.
        const known = this.urls.id(resolved.key);
        if (known !== -1) {
          if (known !== id && !links.some((l) => l.target === known)) links.push({ target: known, kind: 'sitemap', rel: 0, hreflang: null, lastmod: entry.lastmod });
        } else this.queueSitemap(host, { url: resolved.url, key: resolved.key, parent: id, probe: false });
      }
      return;
    }
    const depth = this.depth.get(id) + 1;
    const found = new Map<number, FoundLink>();
    for (const entry of sitemap.entries) {
      const resolved = resolveUrl(entry.loc, base);
      if (!resolved.ok) {
        this.counters.invalidLinks++;
        continue;
      }
      const target = this.intern(resolved.url, resolved.key, depth);
      if (target < 0 || target === id || found.has(target)) continue;
      found.set(target, { target, kind: 'sitemap', rel: 0, hreflang: null, lastmod: entry.lastmod });
    }
    for (const link of found.values()) links.push(link);
  }

  private finishPage(id: number, outcome: PageOutcome): void {
    this.state.set(id, DONE);
    this.attempts.set(id, 0);
    // A page fetched before keeps its stored answer and links unless the server gave a definite new
    // one: a refresh while the server is down or robots.txt cannot be read must not erase the crawl
    // (the crawler does not record it; OPIC still reads it). A 304 stands for the stored answer.
    const keepsStored = outcome.refetch && (outcome.record.status === null || outcome.record.status >= 500);
    if (this.outLinks !== null && outcome.record.notModified !== true && !keepsStored) this.outLinks.set(id, Int32Array.from(outcome.out));
    this.pageFinished(id, outcome);
    this.rereading.delete(id);
    if (outcome.record.notModified !== true && !keepsStored) this.countFinished(id, outcome.record.status, outcome.record.error, outcome.record.contentType);
  }

  /**
   * Counts a finished page the way the store's counts() does (records.ts, COUNT_CONDITIONS); a page
   * fetched again moves from the class of its former answer to that of the new one.
   */
  protected countFinished(id: number, status: number | null, error: string | null, contentType: string | null): void {
    const before = this.outcome.get(id);
    if (before !== NO_OUTCOME) this.counters[OUTCOMES[before]!]--;
    let outcome: number;
    if (error !== null && error.startsWith('excluded:') && status === null) outcome = 0;
    else if (error !== null || (status !== null && status >= 400)) outcome = 1;
    else if (status !== null && status >= 300 && status < 400) outcome = 2;
    else if (status !== null && status >= 200 && status < 300 && (contentType === null || HTML_TYPES.has(contentType))) outcome = 3;
    else outcome = 4;
    this.outcome.set(id, outcome);
    this.counters[OUTCOMES[outcome]!]++;
  }

  // ---- subresources of rendered pages ------------------------------------------------

  /**
   * A subresource a rendered page asks for (render.ts ResourceGate), under the crawl's rules: its
   * host's robots.txt (read for it when the host is not one of the crawl's), the address rules and
   * size caps of every fetch, and the per-host delay (a host of the crawl shares its turns with its
   * pages). Counted in the session's requests.
   */
  private async fetchSubresource(url: URL, accept: string): Promise<ResourceAnswer> {
    const refused = (error: string): ResourceAnswer => ({ status: null, headers: [], body: null, error });
    if (this.ending) return refused('excluded: the crawl is stopping');
    const host = this.hosts.find(url.origin);
    let rules: RobotsRules;
    if (host !== null && host.robots !== null) rules = host.robots;
    else {
      let loading = this.subresourceRobots.get(url.origin);
      if (loading === undefined) {
        loading = fetchRobotsRules(this.fetcher, url.origin, {
          userAgent: this.settings.userAgent,
          retries: 0,
          retryDelayMs: this.settings.retryDelayMs,
          onRequest: () => this.robotsRequest(),
          stopping: () => this.ending,
        });
        this.subresourceRobots.set(url.origin, loading);
      }
      rules = await loading;
    }
    if (!rules.allows(url.href)) return refused(`excluded: ${rules.disallowAll ?? 'robots.txt disallows it'}`);
    if (host !== null && host.robotsState === RobotsState.Known) {
      // A host of the crawl: its turn like a page's (its delay, --per-host).
      while (!this.hosts.available(host, performance.now())) {
        if (this.ending) return refused('excluded: the crawl is stopping');
        await new Promise((resolve) => setTimeout(resolve, Math.max(5, Math.min(250, host.nextAt - performance.now()))));
      }
      this.startOn(host);
      this.refreshHost(host);
      try {
        this.counters.requests++;
        return await this.fetcher.fetchResource(url, accept);
      } finally {
        this.release(host);
        this.refreshHost(host);
        this.pump();
      }
    }
    const now = performance.now();
    const at = Math.max(now, this.subresourceNextAt.get(url.origin) ?? 0);
    this.subresourceNextAt.set(url.origin, at + Math.max(this.settings.delayMs, rules.crawlDelayMs()));
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
    if (this.ending) return refused('excluded: the crawl is stopping');
    this.counters.requests++;
    return this.fetcher.fetchResource(url, accept);
  }

  /** The renderer's counters (null when pages are not rendered). */
  protected renderCounters(): RenderCounters | null {
    return this.renderer === null ? null : { ...this.renderer.counters };
  }

  // ---- robots.txt and sitemaps ------------------------------------------------------

  private async loadRobots(host: Host): Promise<void> {
    this.counters.inFlight++;
    this.robotsLoading++;
    host.active++;
    this.hosts.startOnServer(host.server, performance.now());
    this.closeIfFull(host.server);
    let rules: RobotsRules;
    try {
      rules = await fetchRobotsRules(this.fetcher, host.origin, {
        userAgent: this.settings.userAgent,
        retries: this.settings.retries,
        retryDelayMs: this.settings.retryDelayMs,
        onRequest: () => this.robotsRequest(),
        stopping: () => this.stopping !== null,
      });
    } catch (error) {
      // Out of flight before the stop, so that the crawl can end (afterPump waits for nothing in flight).
      this.counters.inFlight--;
      this.robotsLoading--;
      this.release(host);
      this.fail(error as Error);
      return;
    }
    this.counters.inFlight--;
    this.robotsLoading--;
    this.release(host);
    host.robots = rules;
    host.delayMs = Math.max(this.settings.delayMs, rules.crawlDelayMs());
    host.robotsState = RobotsState.Known;
    host.nextAt = performance.now() + host.delayMs;
    if (this.settings.sitemaps && this.stopping === null) this.findSitemaps(host, rules);
    this.refreshHost(host);
    this.pump();
  }

  /** A request for robots.txt (the shared crawler counts it in its checkpoint too). */
  protected robotsRequest(): void {
    this.counters.requests++;
  }

  /**
   * Claims the try of an origin's /sitemap.xml for this crawler: the shared crawler asks the store,
   * where another instance may have claimed it first.
   */
  protected async claimSitemapProbe(_origin: string): Promise<boolean> {
    return true;
  }

  /** What an origin's /sitemap.xml answered (status null: no answer), for the store. */
  protected abstract sitemapProbeAnswered(origin: string, status: number | null): void | Promise<void>;

  /** A host's sitemaps, from its robots.txt, or /sitemap.xml to try when it names none. */
  private findSitemaps(host: Host, rules: RobotsRules): void {
    const named = rules.sitemaps();
    for (const text of named) {
      const resolved = resolveUrl(text, host.origin);
      // A Sitemap line may name another host's sitemap: it is read only when that host is this one.
      if (!resolved.ok || resolved.url.origin !== host.origin) continue;
      this.queueSitemap(host, { url: resolved.url, key: resolved.key, parent: -1, probe: false });
    }
    if (named.length === 0) {
      const resolved = resolveUrl('/sitemap.xml', host.origin);
      if (resolved.ok) this.queueSitemap(host, { url: resolved.url, key: resolved.key, parent: -1, probe: true });
    }
  }

  private queueSitemap(host: Host, task: SitemapTask): void {
    // A sitemap known already (read before this session, or listed twice) is not read again.
    if (this.urls.id(task.key) !== -1 || host.sitemapQueue.some((t) => t.key === task.key)) return;
    if (host.sitemapsAsked + host.sitemapQueue.length >= this.settings.maxSitemaps) return;
    // /sitemap.xml is tried once per crawl: not again on resume, nor by another instance of a shared crawl.
    if (task.probe) {
      if (this.sitemapProbed.has(host.origin)) return;
      this.sitemapProbed.add(host.origin);
    }
    host.sitemapQueue.push(task);
    this.sitemapHosts.add(host);
    this.sitemapPending(host, 1);
  }

  /**
   * A sitemap of the host is queued (+1), or read and recorded, or dropped (-1). The shared crawler
   * keeps the host's partition from passing to another instance meanwhile: a sitemap read by an
   * instance that no longer holds it would be lost, the next holder having read robots.txt already.
   */
  protected sitemapPending(_host: Host, _delta: 1 | -1): void {}

  /** Starts the sitemaps of hosts politeness lets take a request now. */
  private startSitemaps(): void {
    if (this.limitReached()) return;
    const now = performance.now();
    for (const host of this.sitemapHosts) {
      if (this.counters.inFlight >= this.settings.concurrency) return;
      if (!this.hosts.available(host, now)) continue;
      const task = host.sitemapQueue.shift();
      if (task === undefined) {
        this.sitemapHosts.delete(host);
        continue;
      }
      if (host.sitemapQueue.length === 0) this.sitemapHosts.delete(host);
      host.sitemapsAsked++;
      void this.readSitemap(host, task).finally(() => this.sitemapPending(host, -1));
    }
  }

  private async readSitemap(host: Host, task: SitemapTask): Promise<void> {
    if (this.urls.id(task.key) !== -1) {
      this.refreshHost(host);
      return;
    }
    if (host.robots !== null && !host.robots.allows(task.url.href)) {
      // A sitemap the site named but forbids: known, and excluded; the probe is just not tried.
      if (!task.probe) this.sitemapPage(host, task, { status: null, contentType: null, fetchedAt: Date.now(), size: null, title: null, error: 'excluded: robots.txt disallows it' }, null);
      this.refreshHost(host);
      return;
    }
    this.counters.inFlight++;
    const nextAt = host.nextAt;
    this.startOn(host);
    if (task.probe) {
      // Claimed before it is asked (the host's slot held meanwhile); a try claimed elsewhere frees the slot as it was.
      let claimed: boolean;
      try {
        claimed = await this.claimSitemapProbe(host.origin);
      } catch (error) {
        this.counters.inFlight--;
        this.release(host);
        this.fail(error as Error);
        return;
      }
      if (!claimed || this.stopping !== null) {
        this.counters.inFlight--;
        this.release(host);
        host.nextAt = nextAt;
        if (this.stopping !== null) this.afterPump();
        else {
          this.refreshHost(host);
          this.pump();
        }
        return;
      }
    }
    this.counters.requests++;
    let result: FetchResult;
    try {
      result = await this.fetcher.fetch(task.url, 'sitemap');
      if (task.probe) await this.sitemapProbeAnswered(host.origin, result.status);
    } catch (error) {
      this.counters.inFlight--;
      this.release(host);
      this.fail(error as Error);
      return;
    }
    this.counters.inFlight--;
    this.release(host);
    this.countBytes(result);
    // Stopped while it was read: the crawl may be waiting for this last request to end.
    if (this.stopping !== null) {
      this.afterPump();
      return;
    }
    try {
      const isSitemap = result.error === null && result.sitemap !== null && result.sitemap.kind !== 'empty';
      // The probe leaves no trace unless it found a sitemap (a missing /sitemap.xml is no broken page of the site).
      if (!task.probe || isSitemap) this.sitemapPage(host, task, fetchRecordOf(result), result);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    this.refreshHost(host);
    this.pump();
  }

  /** A sitemap read (or refused) becomes a page, finished at once, with its links. */
  private sitemapPage(host: Host, task: SitemapTask, record: FetchRecord, result: FetchResult | null): void {
    const id = this.intern(task.url, task.key, 0, 'sitemap', false);
    // Out of scope, or (a shared crawl) of a partition let go since its robots.txt was read.
    if (id < 0 || !this.ours(id)) return;
    // A sitemap named by another host's robots.txt is read as that host's: out of the selection
    // first (OPIC's heap finds a waiting page by its host), then moved.
    this.sitemapStarted(id);
    this.hostOf.set(id, host.id);
    this.state.set(id, IN_FLIGHT);
    const links: FoundLink[] = [];
    if (result !== null && result.error === null && result.sitemap !== null) {
      this.counters.sitemaps++;
      this.sitemapLinks(id, result, links);
    }
    // fetched: false, so that it takes no place in the order of page fetches (--max-pages counts pages of the site).
    this.finishPage(id, { record, out: [], links, refetch: false, fetched: false });
    if (task.parent >= 0) this.laterLink(task.parent, { target: id, kind: 'sitemap', rel: 0, hreflang: null, lastmod: null });
  }

  /** The page's role for the store. */
  protected roleOf(id: number): PageRole {
    return ROLES[this.role.get(id)] ?? 'page';
  }

  /** A page the crawler restored as finished (resume): counted in its class. */
  protected restoredFinished(id: number, status: number | null, error: string | null, contentType: string | null): void {
    this.state.set(id, DONE);
    this.countFinished(id, status, error, contentType);
  }

  /** The failure that stopped the crawl, thrown (one line: a WgaError, or the error as it came). */
  protected throwIfFailed(): void {
    if (this.failure === null) return;
    if (this.failure instanceof WgaError) throw this.failure;
    throw this.failure;
  }
}
