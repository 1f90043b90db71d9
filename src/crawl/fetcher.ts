/**
 * Fetching one URL with undici over keep-alive connections, safely:
 * - the address connected to is checked against the IP rules, after DNS
 *   (a lookup that only offers allowed addresses) and again on the connected
 *   socket, so neither DNS tricks nor IP literals reach a refused network;
 *   redirects are not followed here (the crawler stores them as typed links
 *   and fetches the target as a page of its own, through the same checks);
 * - connect, header and idle-body timeouts, and a deadline for the whole
 *   page (a server dripping one byte a second cannot hold a connection);
 * - compression asked for (Accept-Encoding: gzip, deflate, br) and undone as
 *   the body streams in, also when the server compresses unasked
 *   (decode.ts); the size cap applies to the bytes on the wire and to the
 *   decoded ones, so a small compressed bomb stops at the cap;
 * - conditional requests (If-None-Match, If-Modified-Since) from the
 *   validators a page was stored with: an unchanged page costs a 304;
 * - HTML is decoded (charset of the Content-Type, else UTF-8) and parsed as
 *   it streams in (extract.ts), sitemaps likewise (sitemap.ts): the body is
 *   never held whole; its SHA-1 is taken on the way (a changed page is
 *   known as changed even without validators);
 * - with a recorder (WARC output), every request and response as exchanged.
 * Answers are classified for the crawler's retry policy: 5xx, 429, timeouts
 * and network errors may be retried; 4xx, refused addresses, unknown hosts,
 * oversized bodies and bodies that cannot be decoded are final.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { TextDecoder } from 'node:util';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { buildConnector } from 'undici';
import { REL_BITS } from '../store/store.js';
import { Connections, DEFAULT_KEEP_ALIVE_HOSTS, type ConnectionCounters } from './connections.js';
import { BodyDigest, bodyDigestLoaded, bodyDigestReady } from '../util/digest.js';
import { ACCEPT_ENCODING, type ContentCoding, decoderStreams, decodingProblem, isDecodingError, looksGzipped, parseContentEncoding } from './decode.js';
import type { DnsCache } from './dns-cache.js';
import type { IpRules } from './ip-rules.js';
import { DEFAULT_MAX_LINKS_PER_PAGE, type ExtractedPage, LinkExtractor } from './extract.js';
import { DEFAULT_MAX_SITEMAP_ENTRIES, type ExtractedSitemap, SitemapExtractor } from './sitemap.js';
import { FetchDeadline } from './fetch-deadline.js';

export const DEFAULT_USER_AGENT = 'wga/0.1 (web graph analyzer; +https://github.com/wga-project/wga)';

export interface FetcherOptions {
  userAgent?: string;
  ipRules: IpRules;
  /** Host name (lower case) to address, used instead of DNS (like curl --resolve). */
  resolve?: ReadonlyMap<string, string>;
  /** The crawl's DNS cache; without it, the system resolver is asked on every connection. */
  dns?: DnsCache;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Longest wait for the next piece of the body. */
  bodyTimeoutMs?: number;
  /** Longest time for a whole page, headers and body. */
  pageTimeoutMs?: number;
  /** Bodies larger than this are abandoned (the page fails). */
  maxBodyBytes?: number;
  /** Connections kept per origin. */
  connectionsPerOrigin?: number;
  /** Hosts whose idle keep-alive connections are kept open at most (--keep-alive-hosts; connections.ts). */
  keepAliveHosts?: number;
  /** Ask for compressed answers (Accept-Encoding: gzip, deflate, br): true. Answers compressed unasked are decoded either way. */
  compression?: boolean;
  /** Entries read of one sitemap (DEFAULT_MAX_SITEMAP_ENTRIES). */
  maxSitemapEntries?: number;
  /** Distinct targets kept per HTML page (extract.ts DEFAULT_MAX_LINKS_PER_PAGE). */
  maxLinksPerPage?: number;
  /** Told of every request and its answer (WARC output). */
  recorder?: ExchangeRecorder;
  /**
   * Keep the decoded text of HTML pages (FetchResult.html), for rendering them (--render): 'none'
   * (the default), 'all', or 'scripted' (only pages with a <script>: --render auto renders no other).
   */
  keepHtml?: KeepHtml;
}

/** One request and its answer, as exchanged: what a WARC file keeps. */
export interface HttpExchange {
  url: string;
  /** When the request was sent. */
  date: Date;
  /** Request headers as sent (Host first). */
  requestHeaders: Array<[string, string]>;
  status: number;
  statusText: string;
  /** Response headers as received, but Transfer-Encoding (the body is kept de-chunked). */
  responseHeaders: Array<[string, string]>;
  /** The body as received (still content-coded), maybe cut (see truncated). */
  body: Buffer[];
  /** Why the body kept is not all of it (WARC-Truncated): 'length', 'time' or 'disconnect'; null when whole. */
  truncated: 'length' | 'time' | 'disconnect' | null;
}

export interface ExchangeRecorder {
  record(exchange: HttpExchange): void;
}

/** The validators of a stored answer, for a conditional request. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type FailureKind = 'excluded' | 'retryable' | 'final';

/** How a body is read: parsed as HTML (page), as a sitemap, or kept as text (robots.txt). */
export type BodyMode = 'page' | 'sitemap' | 'text';

export interface FetchResult {
  /** HTTP status, or null when no answer came. */
  status: number | null;
  /** Media type of the Content-Type header, lower case, without parameters. */
  contentType: string | null;
  /** Body bytes as decoded (as received when not compressed). */
  size: number;
  /** Body bytes received on the wire. */
  wireSize: number;
  /** The content codings the body came in (gzip, deflate, br), in the order applied. */
  encoding: ContentCoding[];
  /** The parsed page, for a 2xx HTML answer. */
  page: ExtractedPage | null;
  /** Its decoded text, when the fetcher keeps it (FetcherOptions.keepHtml). */
  html?: string | null;
  /** The parsed sitemap, in sitemap mode, for a 2xx answer. */
  sitemap: ExtractedSitemap | null;
  /** The body as text, in text mode (robots.txt), for a 2xx answer. */
  text: string | null;
  /** Digest of the decoded body of a 2xx answer read whole ('xxh64:HEX', util/digest.ts BodyDigest). */
  contentHash: string | null;
  /** ETag and Last-Modified of a 2xx answer. */
  etag: string | null;
  lastModified: string | null;
  /** A 304 answer to a conditional request. */
  notModified: boolean;
  /** Location of a redirect, as sent. */
  location: string | null;
  /** Retry-After of a 429 or 503 answer, in milliseconds. */
  retryAfterMs: number | null;
  error: string | null;
  failure: FailureKind | null;
  /** X-Robots-Tag's directives for every robot or for wga: ROBOTS_NOINDEX | ROBOTS_NOFOLLOW. */
  robotsHeader: number;
  /** Milliseconds from the request's start to its body read, for an answer; null without one. */
  responseMs: number | null;
}

/** Bits of X-Robots-Tag and meta robots directives. */
export const ROBOTS_NOINDEX = 1;
export const ROBOTS_NOFOLLOW = 2;

/**
 * The bits of X-Robots-Tag header values: directives for all robots, or those after "wga:" (a
 * user-agent prefix names one robot; directives after another robot's name are not ours).
 */
export function xRobotsBits(value: string | string[] | undefined): number {
  if (value === undefined) return 0;
  let bits = 0;
  for (const line of Array.isArray(value) ? value : [value]) {
    let ours = true;
    for (const part of line.toLowerCase().split(',')) {
      let directive = part.trim();
      // "googlebot: noindex": the directives from here on are that robot's.
      const named = /^([a-z0-9_-]+)\s*:\s*(.*)$/.exec(directive);
      if (named !== null && !['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview'].includes(named[1]!)) {
        ours = named[1] === 'wga';
        directive = named[2]!.trim();
      }
      if (!ours) continue;
      if (directive === 'noindex' || directive === 'none') bits |= ROBOTS_NOINDEX;
      if (directive === 'nofollow' || directive === 'none') bits |= ROBOTS_NOFOLLOW;
    }
  }
  return bits;
}

/** Which HTML pages' text a fetch keeps (FetcherOptions.keepHtml). */
export type KeepHtml = 'none' | 'all' | 'scripted';

/** A subresource's answer, for a browser (Fetcher.fetchResource). */
export interface ResourceAnswer {
  /** null: no answer (refused, unreachable, timed out). */
  status: number | null;
  /** Headers to give the browser (Content-Encoding, Content-Length and Set-Cookie left out). */
  headers: Array<{ name: string; value: string }>;
  /** The body decoded, or null on an error. */
  body: Buffer | null;
  error: string | null;
}

/** Undoes one content coding of a whole body, the output capped at `limit` bytes. */
function decodeSync(coding: ContentCoding, body: Buffer, limit: number): Buffer {
  const options = { maxOutputLength: limit };
  if (coding === 'gzip') return gunzipSync(body, options);
  if (coding === 'br') return brotliDecompressSync(body, options);
  // deflate: zlib-wrapped as the standard says, raw as some servers send it.
  try {
    return inflateSync(body, options);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw error;
    return inflateRawSync(body, options);
  }
}

/** Media types parsed as HTML (a missing Content-Type is parsed too). */
export const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);
export const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** What is read of a body we do not use, to keep the connection alive; beyond that it is closed. */
const DRAIN_LIMIT = 64 * 1024;

/** Raised inside the connector when the address is refused; the fetch reports it as 'excluded'. */
class AddressRefused extends Error {
  readonly code = 'WGA_ADDRESS_REFUSED';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function mediaType(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === '' ? null : type;
}

function charsetOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value === undefined ? null : /charset\s*=\s*"?([^";\s]+)/i.exec(value);
  return match === null ? 'utf-8' : match[1]!.toLowerCase();
}

function decoderFor(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset);
  } catch {
    return new TextDecoder('utf-8');
  }
}

export function headerText(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  return value === undefined ? null : value;
}

function retryAfter(header: string | string[] | undefined): number | null {
  const value = headerText(header);
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 60) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - Date.now()), 60_000);
}

export const EMPTY_RESULT: FetchResult = {
  status: null, contentType: null, size: 0, wireSize: 0, encoding: [], page: null, sitemap: null, text: null, contentHash: null, etag: null,
  lastModified: null, notModified: false, location: null, retryAfterMs: null, error: null, failure: null, robotsHeader: 0, responseMs: null,
};

function failed(error: string, failure: FailureKind, partial: Partial<FetchResult> = {}): FetchResult {
  return { ...EMPTY_RESULT, ...partial, error, failure };
}

/** The Accept header of each body mode. */
const ACCEPT: Record<BodyMode, string> = {
  page: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
  sitemap: 'application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5',
  text: 'text/plain,*/*;q=0.5',
};

/**
 * Reads what is cheap to read of a body not used (the connection stays alive), handing it to
 * `keep` (the recorder); beyond DRAIN_LIMIT, hangs up. Returns the bytes read.
 */
async function drainBody(body: AsyncIterable<Buffer> & { destroy(): void }, keep: (chunk: Buffer) => void, exchange: HttpExchange | null): Promise<number> {
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      keep(chunk);
      if (size > DRAIN_LIMIT) {
        if (exchange !== null) exchange.truncated = 'length';
        body.destroy();
        break;
      }
    }
  } catch {
    if (exchange !== null) exchange.truncated = 'disconnect';
  }
  return size;
}

/** What is done with a body's chunk when no recorder keeps it. */
const ignore = (): void => undefined;

/** A body past a size cap: on the wire, or once decoded. */
class BodyTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly decoded: boolean,
  ) {
    super(decoded ? `body larger than ${limit} bytes once decoded` : `body larger than ${limit} bytes`);
  }
}

/** Text mode has read as much as it keeps: the rest of the body is not wanted. */
class EnoughText extends Error {}

/** Response headers as name/value lines, Transfer-Encoding left out (the body is kept de-chunked). */
function headerLines(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'transfer-encoding') continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push([name, one]);
  }
  return lines;
}

/** Describes a network error in words, with how the crawler should take it. */
function classify(error: unknown, deadlineHit: boolean, pageTimeoutMs: number): { message: string; failure: FailureKind } {
  const code = (error as { code?: string }).code ?? '';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const causeCode = cause?.code ?? '';
  if (code === 'WGA_ADDRESS_REFUSED' || causeCode === 'WGA_ADDRESS_REFUSED') {
    return { message: `excluded: ${code === 'WGA_ADDRESS_REFUSED' ? (error as Error).message : cause!.message}`, failure: 'excluded' };
  }
  if (deadlineHit) return { message: `page not complete after ${pageTimeoutMs / 1000} s`, failure: 'retryable' };
  switch (code || causeCode) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { message: `host not found (${code || causeCode})`, failure: (code || causeCode) === 'EAI_AGAIN' ? 'retryable' : 'final' };
    case 'WGA_DNS_FAILED':
      // Remembered for --dns-negative-ttl: asking again at once would get the same answer.
      return { message: (code === 'WGA_DNS_FAILED' ? (error as Error).message : cause?.message) ?? 'DNS failed', failure: 'final' };
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { message: 'connect timeout', failure: 'retryable' };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { message: 'no answer headers in time (headers timeout)', failure: 'retryable' };
    case 'UND_ERR_BODY_TIMEOUT':
      return { message: 'body stalled (body timeout)', failure: 'retryable' };
    case 'ECONNREFUSED':
      return { message: 'connection refused', failure: 'retryable' };
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return { message: 'connection reset', failure: 'retryable' };
    default:
      return { message: `network error: ${(error as Error).message}${code ? ` (${code})` : ''}`, failure: 'retryable' };
  }
}

export class Fetcher {
  readonly userAgent: string;
  private readonly connections: Connections;
  private readonly rules: IpRules;
  private readonly resolve: ReadonlyMap<string, string>;
  private readonly dns: DnsCache | null;
  private readonly pageTimeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly compression: boolean;
  private readonly maxSitemapEntries: number;
  private readonly maxLinksPerPage: number;
  private readonly recorder: ExchangeRecorder | null;
  private readonly keepHtml: KeepHtml;

  constructor(options: FetcherOptions) {
    this.keepHtml = options.keepHtml ?? 'none';
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.compression = options.compression ?? true;
    this.maxSitemapEntries = options.maxSitemapEntries ?? DEFAULT_MAX_SITEMAP_ENTRIES;
    this.maxLinksPerPage = options.maxLinksPerPage ?? DEFAULT_MAX_LINKS_PER_PAGE;
    this.recorder = options.recorder ?? null;
    this.rules = options.ipRules;
    this.resolve = options.resolve ?? new Map();
    this.dns = options.dns ?? null;
    this.pageTimeoutMs = options.pageTimeoutMs ?? 60_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
    const connector = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, lookup: this.lookup } as buildConnector.BuildOptions);
    this.connections = new Connections(options.keepAliveHosts ?? DEFAULT_KEEP_ALIVE_HOSTS, options.connectionsPerOrigin ?? 1, {
      headersTimeout: options.headersTimeoutMs ?? 15_000,
      bodyTimeout: options.bodyTimeoutMs ?? 15_000,
      keepAliveTimeout: 10_000,
      connect: (connectOptions, callback) => {
        connector(connectOptions, (error, socket) => {
          if (error !== null) {
            callback(error, null);
            return;
          }
          // The authority: the address this socket is connected to (IP literals skip the lookup).
          const address = socket!.remoteAddress ?? '';
          const decision = this.rules.check(address);
          if (!decision.allowed) {
            socket!.destroy();
            callback(new AddressRefused(decision.reason), null);
            return;
          }
          callback(null, socket!);
        });
      },
    });
  }

  /** DNS (or --resolve) offering only the addresses the rules allow. */
  private readonly lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const finish = (addresses: LookupAddress[]): void => {
      const allowed = addresses.filter((a) => this.rules.check(a.address).allowed);
      if (allowed.length === 0) {
        const decision = addresses.length === 0 ? null : this.rules.check(addresses[0]!.address);
        const reason = decision !== null && !decision.allowed ? decision.reason : 'no address';
        callback(new AddressRefused(`${hostname}: ${reason}`) as NodeJS.ErrnoException, '', 0);
        return;
      }
      if (options.all === true) callback(null, allowed);
      else callback(null, allowed[0]!.address, allowed[0]!.family);
    };
    const override = this.resolve.get(hostname.toLowerCase());
    if (override !== undefined) {
      finish([{ address: override, family: isIP(override) === 6 ? 6 : 4 }]);
      return;
    }
    if (this.dns !== null) {
      const family = options.family ?? 0;
      this.dns.lookup(hostname.toLowerCase()).then(
        (answer) => {
          if (!answer.ok) {
            // No such name stays ENOTFOUND; a resolver that failed (timeout, refusal) is told apart from the web server's failures.
            const code = answer.code === 'ENODATA' || answer.code === 'ENOTFOUND' ? 'ENOTFOUND' : 'WGA_DNS_FAILED';
            callback(Object.assign(new Error(answer.message), { code, hostname }), '', 0);
          } else finish(answer.addresses.filter((a) => family === 0 || a.family === family));
        },
        (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
      );
      return;
    }
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error !== null) callback(error, '', 0);
      else finish(addresses);
    });
  };

  /**
   * Fetches `url`: in 'page' mode a 2xx HTML answer is parsed for links; in 'sitemap' mode a 2xx
   * answer is read as a sitemap; in 'text' mode (robots.txt) a 2xx body is returned as text, up
   * to `textLimit` bytes. With `validators`, the request is conditional.
   */
  async fetch(url: URL, mode: BodyMode = 'page', textLimit = 512 * 1024, validators: Validators | null = null): Promise<FetchResult> {
    const startedAt = performance.now();
    const result = await this.fetchTimed(url, mode, textLimit, validators);
    if (result.status !== null) result.responseMs = performance.now() - startedAt;
    return result;
  }

  private async fetchTimed(url: URL, mode: BodyMode, textLimit: number, validators: Validators | null): Promise<FetchResult> {
    if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) {
      const decision = this.rules.check(url.hostname);
      if (!decision.allowed) return failed(`excluded: ${decision.reason}`, 'excluded');
    }
    const deadline = new FetchDeadline(this.pageTimeoutMs);
    // Names and values in turn: undici takes such a list as it is (an object is walked and checked per request).
    const headers: string[] = ['user-agent', this.userAgent, 'accept', ACCEPT[mode], 'accept-encoding', this.compression ? ACCEPT_ENCODING : 'identity'];
    if (validators?.etag != null) headers.push('if-none-match', validators.etag);
    if (validators?.lastModified != null) headers.push('if-modified-since', validators.lastModified);
    const sentAt = new Date();
    // What the recorder is told at the end (the body's chunks as they came, up to the cap).
    let exchange: HttpExchange | null = null;
    let keptBytes = 0;
    const keep =
      this.recorder === null
        ? ignore
        : (chunk: Buffer): void => {
            if (exchange === null) return;
            if (keptBytes + chunk.length <= this.maxBodyBytes) {
              exchange.body.push(chunk);
              keptBytes += chunk.length;
            } else exchange.truncated = 'length';
          };
    try {
      const response = await this.connections.acquire(url.origin).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers,
        signal: deadline as unknown as AbortSignal,
      });
      const status = response.statusCode;
      if (this.recorder !== null) {
        exchange = {
          url: url.href,
          date: sentAt,
          requestHeaders: [['host', url.host], ...headers.flatMap((name, i) => (i % 2 === 0 ? [[name, headers[i + 1]!] as [string, string]] : []))],
          status,
          statusText: response.statusText || STATUS_CODES[status] || '',
          responseHeaders: headerLines(response.headers),
          body: [],
          truncated: null,
        };
      }
      const contentType = mediaType(response.headers['content-type']);
      // Written out rather than spread from EMPTY_RESULT: built for every page.
      const base: FetchResult = {
        status, contentType, size: 0, wireSize: 0, encoding: [], page: null, sitemap: null, text: null, contentHash: null, etag: null, lastModified: null,
        notModified: false, location: null, retryAfterMs: null, error: null, failure: null, robotsHeader: xRobotsBits(response.headers['x-robots-tag']), responseMs: null,
      };
      const body = response.body;
      const drain = (): Promise<number> => drainBody(body, keep, exchange);
      if (status === 304) {
        const wireSize = await drain();
        return { ...base, wireSize, notModified: true };
      }
      if (status >= 300 && status < 400) {
        const wireSize = await drain();
        const location = headerText(response.headers.location);
        if (REDIRECTS.has(status) && location === null) return { ...base, wireSize, error: `redirect ${status} without Location`, failure: 'final' };
        return { ...base, wireSize, location: REDIRECTS.has(status) ? location : null };
      }
      if (status >= 400) {
        const wireSize = await drain();
        const retryable = status >= 500 || status === 429 || status === 408;
        return {
          ...base,
          wireSize,
          error: `HTTP ${status}`,
          failure: retryable ? 'retryable' : 'final',
          retryAfterMs: status === 429 || status === 503 ? retryAfter(response.headers['retry-after']) : null,
        };
      }
      const isHtml = contentType === null || HTML_TYPES.has(contentType);
      if ((mode === 'page' && !isHtml) || status < 200) {
        const wireSize = await drain();
        return { ...base, wireSize };
      }
      const encoding = parseContentEncoding(response.headers['content-encoding']);
      if (!encoding.ok) {
        const wireSize = await drain();
        return { ...base, wireSize, error: encoding.problem, failure: 'final' };
      }
      const codings = encoding.codings;
      const read = await readBody(body, mode, codings, response.headers['content-type'], mode === 'text' ? textLimit : this.maxBodyBytes, keep, {
        maxBodyBytes: this.maxBodyBytes,
        maxSitemapEntries: this.maxSitemapEntries,
        maxLinksPerPage: this.maxLinksPerPage,
        keepHtml: this.keepHtml,
      });
      // The page's answer, filled in place (one object per fetch: this runs for every page).
      const answered = base;
      answered.encoding = codings;
      answered.wireSize = read.wireSize;
      answered.size = read.size;
      answered.etag = headerText(response.headers.etag);
      answered.lastModified = headerText(response.headers['last-modified']);
      if (read.problem !== null) {
        if (exchange !== null && read.tooLarge) exchange.truncated = 'length';
        answered.error = read.problem;
        answered.failure = 'final';
        return answered;
      }
      if (exchange !== null && read.cut) exchange.truncated = 'length';
      answered.page = read.page;
      if (read.page !== null && (answered.robotsHeader & ROBOTS_NOFOLLOW) !== 0) {
        // X-Robots-Tag: nofollow, as <meta name=robots content=nofollow>: every link is nofollow.
        read.page.nofollowAll = true;
        for (const link of read.page.links) {
          if (link.kind === 'alternate') continue;
          link.nofollow = true;
          link.rel |= REL_BITS.nofollow;
        }
      }
      if (read.html !== undefined) answered.html = read.html;
      answered.sitemap = read.sitemap;
      answered.text = read.text;
      answered.contentHash = read.cut ? null : read.hash;
      return answered;
    } catch (error) {
      if (exchange !== null) exchange.truncated = deadline.aborted ? 'time' : 'disconnect';
      const { message, failure } = classify(error, deadline.aborted, this.pageTimeoutMs);
      return failed(message, failure, exchange === null ? {} : { status: null });
    } finally {
      this.connections.release(url.origin);
      deadline.clear();
      if (exchange !== null) this.recorder!.record(exchange);
    }
  }

  /**
   * Fetches a page's subresource for a browser rendering it (render.ts): any media type, a redirect
   * answered as it came (the browser asks for its target, judged again), the body decoded from its
   * content codings and capped (wire and decoded) like a page's. Same connections, address rules
   * and timeouts as pages; recorded in the WARC file like them.
   */
  async fetchResource(url: URL, accept: string): Promise<ResourceAnswer> {
    if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) {
      const decision = this.rules.check(url.hostname);
      if (!decision.allowed) return { status: null, headers: [], body: null, error: `excluded: ${decision.reason}` };
    }
    const deadline = new FetchDeadline(this.pageTimeoutMs);
    const headers: string[] = ['user-agent', this.userAgent, 'accept', accept, 'accept-encoding', this.compression ? ACCEPT_ENCODING : 'identity'];
    let exchange: HttpExchange | null = null;
    try {
      const response = await this.connections.acquire(url.origin).request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers, signal: deadline as unknown as AbortSignal });
      const status = response.statusCode;
      if (this.recorder !== null) {
        exchange = {
          url: url.href,
          date: new Date(),
          requestHeaders: [['host', url.host], ...headers.flatMap((name, i) => (i % 2 === 0 ? [[name, headers[i + 1]!] as [string, string]] : []))],
          status,
          statusText: response.statusText || STATUS_CODES[status] || '',
          responseHeaders: headerLines(response.headers),
          body: [],
          truncated: null,
        };
      }
      // What the browser is told: the answer's headers but those of the wire (the body goes decoded).
      const kept: Array<{ name: string; value: string }> = [];
      for (const [name, value] of headerLines(response.headers)) {
        if (name === 'content-encoding' || name === 'content-length' || name === 'set-cookie') continue;
        kept.push({ name, value });
      }
      const chunks: Buffer[] = [];
      let wireSize = 0;
      for await (const chunk of response.body) {
        wireSize += (chunk as Buffer).length;
        if (wireSize > this.maxBodyBytes) {
          response.body.destroy();
          if (exchange !== null) exchange.truncated = 'length';
          return { status, headers: [], body: null, error: `body larger than ${this.maxBodyBytes} bytes` };
        }
        chunks.push(chunk as Buffer);
        exchange?.body.push(chunk as Buffer);
      }
      const encoding = parseContentEncoding(response.headers['content-encoding']);
      if (!encoding.ok) return { status, headers: [], body: null, error: encoding.problem };
      let body: Buffer = Buffer.concat(chunks);
      try {
        for (const coding of [...encoding.codings].reverse()) body = decodeSync(coding, body, this.maxBodyBytes);
      } catch (error) {
        const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
        return { status, headers: [], body: null, error: tooLarge ? `body larger than ${this.maxBodyBytes} bytes once decoded` : decodingProblem(encoding.codings, error) };
      }
      return { status, headers: kept, body, error: null };
    } catch (error) {
      if (exchange !== null) exchange.truncated = deadline.aborted ? 'time' : 'disconnect';
      return { status: null, headers: [], body: null, error: classify(error, deadline.aborted, this.pageTimeoutMs).message };
    } finally {
      this.connections.release(url.origin);
      deadline.clear();
      if (exchange !== null) this.recorder!.record(exchange);
    }
  }

  /** What the connections did (opened, closed idle under --keep-alive-hosts). */
  get connectionCounters(): ConnectionCounters {
    return { ...this.connections.counters };
  }

  /** Closes idle connections and waits for running requests. */
  async close(): Promise<void> {
    await this.connections.close();
  }

  /** Abandons every connection at once. */
  async destroy(): Promise<void> {
    await this.connections.destroy();
  }
}

/** What readBody gives. */
export interface BodyRead {
  wireSize: number;
  size: number;
  hash: string;
  page: ExtractedPage | null;
  sitemap: ExtractedSitemap | null;
  text: string | null;
  cut: boolean;
  problem: string | null;
  tooLarge: boolean;
  /** The page's decoded text, with caps.keepHtml. */
  html?: string;
}

/**
 * Reads a 2xx body through its decoders, the bytes on the wire and the decoded ones both capped
 * at `limit` (text mode: the decoded text is cut there instead), into the reader of `mode`: what a
 * fetch does with its answer, and what `wga import-warc` does with an archived one.
 */
export async function readBody(
  body: AsyncIterable<Buffer> & { destroy(): void },
  mode: BodyMode,
  codings: readonly ContentCoding[],
  contentTypeHeader: string | string[] | undefined,
  limit: number,
  keep: (chunk: Buffer) => void,
  caps: { maxBodyBytes: number; maxSitemapEntries: number; maxLinksPerPage?: number; keepHtml?: KeepHtml },
): Promise<BodyRead> {
  const wireLimit = mode === 'text' ? caps.maxBodyBytes : limit;
  let wireSize = 0;
  let size = 0;
  let cut = false;
  if (!bodyDigestLoaded()) await bodyDigestReady;
  const digest = new BodyDigest();
  const decoder = decoderFor(mode === 'page' ? charsetOf(contentTypeHeader) : 'utf-8');
  const extractor = mode === 'page' ? new LinkExtractor(caps.maxLinksPerPage) : null;
  // The page's text as decoded, for a browser to render (no more than the decoded cap).
  const html: string[] | null = mode === 'page' && caps.keepHtml !== undefined && caps.keepHtml !== 'none' ? [] : null;
  const sitemap = mode === 'sitemap' ? new SitemapExtractor(caps.maxSitemapEntries) : null;
  // A sitemap.xml.gz (gzip bytes without a Content-Encoding): gathered, then gunzipped under the cap.
  let gzipped: Buffer[] | null = null;
  let text = '';
  const wire = async function* (): AsyncGenerator<Buffer> {
    for await (const chunk of body) {
      wireSize += chunk.length;
      if (wireSize > wireLimit) throw new BodyTooLarge(wireLimit, false);
      keep(chunk);
      yield chunk;
    }
  };
  const consume = (chunk: Buffer): void => {
    if (mode === 'text') {
      if (size + chunk.length > limit) {
        const rest = chunk.subarray(0, limit - size);
        size = limit;
        text += decoder.decode(rest, { stream: true });
        cut = true;
        throw new EnoughText();
      }
      size += chunk.length;
      digest.update(chunk);
      text += decoder.decode(chunk, { stream: true });
      return;
    }
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge(limit, codings.length > 0);
    digest.update(chunk);
    if (sitemap !== null && (gzipped !== null || (size === chunk.length && looksGzipped(chunk)))) {
      (gzipped ??= []).push(chunk);
      return;
    }
    const decoded = decoder.decode(chunk, { stream: true });
    if (extractor !== null) {
      extractor.write(decoded);
      html?.push(decoded);
    } else sitemap!.write(decoded);
  };
  try {
    if (codings.length === 0) {
      // Most bodies: read as they come, without a generator or a stream pipeline between (a pipeline per page
      // costs an AbortSignal and, at its end, a DOMException; a generator, a promise per chunk).
      for await (const chunk of body) {
        wireSize += chunk.length;
        if (wireSize > wireLimit) throw new BodyTooLarge(wireLimit, false);
        keep(chunk);
        consume(chunk);
      }
    } else if (codings.length === 1) {
      // One coding (nearly every compressed body): raw chunks written to the decoder, its output read as it
      // comes; no stream pipeline (its AbortSignal and DOMException per page cost as much as a small page).
      // The decoder buffers what it has not decoded yet: at most the body's bytes on the wire, capped.
      const inflater = decoderStreams(codings)[0]!;
      let stopped = false;
      const decoded = (async () => {
        for await (const chunk of inflater as AsyncIterable<Buffer>) consume(chunk);
      })();
      decoded.catch(() => {
        stopped = true;
      });
      try {
        for await (const chunk of body) {
          if (stopped) break;
          wireSize += chunk.length;
          if (wireSize > wireLimit) throw new BodyTooLarge(wireLimit, false);
          keep(chunk);
          inflater.write(chunk);
        }
        inflater.end();
      } catch (error) {
        inflater.destroy(error as Error);
      }
      await decoded;
    } else {
      // pipeline's typings have no overload for a spread of transforms between a generator and a function.
      const run = pipeline as unknown as (...stages: unknown[]) => Promise<void>;
      await run(wire, ...decoderStreams(codings), async (decoded: AsyncIterable<Buffer>) => {
        for await (const chunk of decoded) consume(chunk);
      });
    }
  } catch (error) {
    const none = { page: null, sitemap: null, text: null, hash: '', cut: false };
    if (error instanceof EnoughText) {
      body.destroy();
      return { ...none, wireSize, size, text: text + decoder.decode(), cut: true, problem: null, tooLarge: false };
    }
    if (error instanceof BodyTooLarge) {
      body.destroy();
      if (mode === 'text') return { ...none, wireSize, size, text: text + decoder.decode(), cut: true, problem: null, tooLarge: true };
      return { ...none, wireSize, size, problem: error.message, tooLarge: true };
    }
    if (isDecodingError(error)) {
      body.destroy();
      return { ...none, wireSize, size, problem: decodingProblem(codings, error), tooLarge: false };
    }
    throw error;
  }
  const hash = digest.label();
  if (mode === 'text') return { wireSize, size, hash, page: null, sitemap: null, text: text + decoder.decode(), cut, problem: null, tooLarge: false };
  if (extractor !== null) {
    const last = decoder.decode();
    extractor.write(last);
    const read: BodyRead = { wireSize, size, hash, page: extractor.end(), sitemap: null, text: null, cut: false, problem: null, tooLarge: false };
    if (html !== null && (caps.keepHtml === 'all' || read.page!.scripts > 0)) read.html = html.join('') + last;
    return read;
  }
  if (gzipped !== null) {
    let inflated: Buffer;
    try {
      inflated = gunzipSync(Buffer.concat(gzipped), { maxOutputLength: limit });
    } catch (error) {
      const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
      const problem = tooLarge ? `sitemap larger than ${limit} bytes once gunzipped` : `broken gzip sitemap: ${(error as Error).message.slice(0, 120)}`;
      return { wireSize, size, hash, page: null, sitemap: null, text: null, cut: false, problem, tooLarge };
    }
    sitemap!.write(new TextDecoder('utf-8').decode(inflated));
  } else sitemap!.write(decoder.decode());
  return { wireSize, size, hash, page: null, sitemap: sitemap!.end(), text: null, cut: false, problem: null, tooLarge: false };
}
