/**
 * Fetching one URL with undici over keep-alive connections, safely:
 * - the address connected to is checked against the IP rules, after DNS
 *   (a lookup that only offers allowed addresses) and again on the connected
 *   socket, so neither DNS tricks nor IP literals reach a refused network;
 *   redirects are not followed here (the crawler stores them as typed links
 *   and fetches the target as a page of its own, through the same checks);
 * - connect, header and idle-body timeouts, and a deadline for the whole
 *   page (a server dripping one byte a second cannot hold a connection);
 * - a body size cap, and a content-type check before reading the body;
 * - HTML is decoded (charset of the Content-Type, else UTF-8) and parsed as
 *   it streams in (extract.ts): the body is never held whole.
 * Answers are classified for the crawler's retry policy: 5xx, 429, timeouts
 * and network errors may be retried; 4xx, refused addresses, unknown hosts
 * and oversized bodies are final.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { TextDecoder } from 'node:util';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { IpRules } from './ip-rules.js';
import { type ExtractedPage, LinkExtractor } from './extract.js';

export const DEFAULT_USER_AGENT = 'wga/0.1 (web graph analyzer; +https://github.com/wga-project/wga)';

export interface FetcherOptions {
  userAgent?: string;
  ipRules: IpRules;
  /** Host name (lower case) to address, used instead of DNS (like curl --resolve). */
  resolve?: ReadonlyMap<string, string>;
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
}

export type FailureKind = 'excluded' | 'retryable' | 'final';

export interface FetchResult {
  /** HTTP status, or null when no answer came. */
  status: number | null;
  /** Media type of the Content-Type header, lower case, without parameters. */
  contentType: string | null;
  /** Body bytes received. */
  size: number;
  /** The parsed page, for a 2xx HTML answer. */
  page: ExtractedPage | null;
  /** The body as text, in text mode (robots.txt), for a 2xx answer. */
  text: string | null;
  /** Location of a redirect, as sent. */
  location: string | null;
  /** Retry-After of a 429 or 503 answer, in milliseconds. */
  retryAfterMs: number | null;
  error: string | null;
  failure: FailureKind | null;
}

/** Media types parsed as HTML (a missing Content-Type is parsed too). */
export const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** What is read of a body we do not use, to keep the connection alive; beyond that it is closed. */
const DRAIN_LIMIT = 64 * 1024;

/** Raised inside the connector when the address is refused; the fetch reports it as 'excluded'. */
class AddressRefused extends Error {
  readonly code = 'WGA_ADDRESS_REFUSED';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function mediaType(header: string | string[] | undefined): string | null {
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

function headerText(header: string | string[] | undefined): string | null {
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

function failed(error: string, failure: FailureKind, partial: Partial<FetchResult> = {}): FetchResult {
  return { status: null, contentType: null, size: 0, page: null, text: null, location: null, retryAfterMs: null, ...partial, error, failure };
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
  private readonly agent: Agent;
  private readonly rules: IpRules;
  private readonly resolve: ReadonlyMap<string, string>;
  private readonly pageTimeoutMs: number;
  private readonly maxBodyBytes: number;

  constructor(options: FetcherOptions) {
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.rules = options.ipRules;
    this.resolve = options.resolve ?? new Map();
    this.pageTimeoutMs = options.pageTimeoutMs ?? 60_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
    const connector = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, lookup: this.lookup } as buildConnector.BuildOptions);
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 1,
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
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error !== null) callback(error, '', 0);
      else finish(addresses);
    });
  };

  /**
   * Fetches `url`: in 'page' mode a 2xx HTML answer is parsed for links; in 'text' mode
   * (robots.txt) a 2xx body is returned as text, up to `textLimit` bytes.
   */
  async fetch(url: URL, mode: 'page' | 'text' = 'page', textLimit = 512 * 1024): Promise<FetchResult> {
    if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) {
      const decision = this.rules.check(url.hostname);
      if (!decision.allowed) return failed(`excluded: ${decision.reason}`, 'excluded');
    }
    const controller = new AbortController();
    let deadlineHit = false;
    const timer = setTimeout(() => {
      deadlineHit = true;
      controller.abort();
    }, this.pageTimeoutMs);
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { 'user-agent': this.userAgent, accept: mode === 'page' ? 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' : 'text/plain,*/*;q=0.5' },
        signal: controller.signal,
      });
      const status = response.statusCode;
      const contentType = mediaType(response.headers['content-type']);
      const base = { status, contentType, size: 0, page: null, text: null, location: null, retryAfterMs: null, error: null, failure: null } as FetchResult;
      const body = response.body;
      if (status >= 300 && status < 400) {
        await body.dump({ limit: DRAIN_LIMIT }).catch(() => undefined);
        const location = headerText(response.headers.location);
        if (REDIRECTS.has(status) && location === null) return { ...base, error: `redirect ${status} without Location`, failure: 'final' };
        return { ...base, location: REDIRECTS.has(status) ? location : null };
      }
      if (status >= 400) {
        await body.dump({ limit: DRAIN_LIMIT }).catch(() => undefined);
        const retryable = status >= 500 || status === 429 || status === 408;
        return {
          ...base,
          error: `HTTP ${status}`,
          failure: retryable ? 'retryable' : 'final',
          retryAfterMs: status === 429 || status === 503 ? retryAfter(response.headers['retry-after']) : null,
        };
      }
      const isHtml = contentType === null || HTML_TYPES.has(contentType);
      if (mode === 'page' && !isHtml) {
        await body.dump({ limit: DRAIN_LIMIT }).catch(() => undefined);
        return base;
      }
      if (status < 200) {
        await body.dump({ limit: DRAIN_LIMIT }).catch(() => undefined);
        return base;
      }
      const decoder = decoderFor(charsetOf(response.headers['content-type']));
      const limit = mode === 'page' ? this.maxBodyBytes : textLimit;
      const extractor = mode === 'page' ? new LinkExtractor() : null;
      let text = '';
      let size = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) {
          if (mode === 'text') {
            text += decoder.decode(chunk.subarray(0, chunk.length - (size - limit)));
            body.destroy();
            return { ...base, size: limit, text };
          }
          body.destroy();
          return { ...base, size, error: `body larger than ${limit} bytes`, failure: 'final' };
        }
        const decoded = decoder.decode(chunk, { stream: true });
        if (extractor !== null) extractor.write(decoded);
        else text += decoded;
      }
      const rest = decoder.decode();
      if (extractor !== null) {
        extractor.write(rest);
        return { ...base, size, page: extractor.end() };
      }
      return { ...base, size, text: text + rest };
    } catch (error) {
      const { message, failure } = classify(error, deadlineHit, this.pageTimeoutMs);
      return failed(message, failure);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes idle connections and waits for running requests. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Abandons every connection at once. */
  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}
