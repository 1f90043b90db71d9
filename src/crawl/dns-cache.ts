/**
 * The crawler's own DNS: every connection of a crawl asks here, not the system resolver directly.
 * - Answers are cached for their TTL, held between a floor and a ceiling (--dns-min-ttl,
 *   --dns-max-ttl); getaddrinfo gives no TTL, so its answers are kept for UNKNOWN_TTL_S within them.
 * - Failures are cached too (--dns-negative-ttl): a dead name costs one lookup, not one per link.
 * - One lookup per name at a time (later askers wait for it), at most --dns-concurrency names
 *   looked up at once (getaddrinfo runs in libuv's 4-thread pool; a burst of 10^4 new hosts
 *   would otherwise queue behind it and starve file I/O), each bounded by --dns-timeout.
 * - With --dns SERVER[:PORT], names are asked of that resolver directly (c-ares, A and AAAA
 *   with their TTLs) instead of getaddrinfo: no /etc/hosts, no nsswitch, real TTLs.
 * - The cache holds at most --dns-cache names; the oldest entries are let go first (counted).
 * The address rules judge every answer afterwards (fetcher.ts): the cache holds answers as given.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

/** Seconds an answer without a TTL (getaddrinfo's) is kept, before the floor and ceiling. */
export const UNKNOWN_TTL_S = 300;

export interface DnsOptions {
  /** SERVER[:PORT] (IPv6 in brackets) to ask directly; null: the system resolver. */
  server: string | null;
  timeoutMs: number;
  minTtlS: number;
  maxTtlS: number;
  negativeTtlS: number;
  /** Names looked up at once. */
  concurrency: number;
  /** Names held. */
  cacheEntries: number;
}

export const DEFAULT_DNS: DnsOptions = { server: null, timeoutMs: 5000, minTtlS: 60, maxTtlS: 3600, negativeTtlS: 300, concurrency: 16, cacheEntries: 100_000 };

export interface DnsAddress {
  address: string;
  family: 4 | 6;
}

/** An answer: the addresses, or why there are none (a code such as ENOTFOUND, ETIMEOUT). */
export type DnsAnswer = { ok: true; addresses: DnsAddress[] } | { ok: false; code: string; message: string };

export interface DnsCounters {
  /** Lookups sent to a resolver. */
  lookups: number;
  /** Answers taken from the cache (a lookup already in flight counts as a hit). */
  cached: number;
  /** Lookups that failed (no such name, no answer, timeout...). */
  failed: number;
  timeouts: number;
  /** Entries let go because the cache was full (--dns-cache). */
  evicted: number;
  /** The most lookups in flight at once. */
  maxInFlight: number;
}

interface Entry {
  answer: DnsAnswer;
  /** performance.now() time it expires. */
  until: number;
}

/** A resolver: the addresses of a name, with their TTL in seconds (null: unknown). */
export type Resolve = (hostname: string) => Promise<{ addresses: DnsAddress[]; ttlS: number | null }>;

export class DnsCache {
  readonly counters: DnsCounters = { lookups: 0, cached: 0, failed: 0, timeouts: 0, evicted: 0, maxInFlight: 0 };
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<DnsAnswer>>();
  private readonly waiting: Array<() => void> = [];
  private inFlight = 0;
  private readonly resolve: Resolve;

  constructor(
    private readonly options: DnsOptions,
    resolve?: Resolve,
  ) {
    this.resolve = resolve ?? (options.server === null ? systemResolve : serverResolve(options.server, options.timeoutMs));
  }

  /** The answer for `hostname` (lower case), from the cache when it is fresh. */
  lookup(hostname: string): Promise<DnsAnswer> {
    if (isIP(hostname) !== 0) return Promise.resolve({ ok: true, addresses: [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }] });
    const entry = this.entries.get(hostname);
    if (entry !== undefined && entry.until > performance.now()) {
      this.counters.cached++;
      return Promise.resolve(entry.answer);
    }
    const running = this.pending.get(hostname);
    if (running !== undefined) {
      this.counters.cached++;
      return running;
    }
    const asked = this.ask(hostname).finally(() => this.pending.delete(hostname));
    this.pending.set(hostname, asked);
    return asked;
  }

  /** The cached answer for `hostname` while it is fresh, without asking anyone; null when there is none. */
  peek(hostname: string): DnsAnswer | null {
    const entry = this.entries.get(hostname);
    return entry !== undefined && entry.until > performance.now() ? entry.answer : null;
  }

  private async ask(hostname: string): Promise<DnsAnswer> {
    if (this.inFlight >= this.options.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight++;
    this.counters.maxInFlight = Math.max(this.counters.maxInFlight, this.inFlight);
    this.counters.lookups++;
    let answer: DnsAnswer;
    let ttlS: number;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`no answer in ${this.options.timeoutMs} ms`), { code: 'ETIMEOUT' })), this.options.timeoutMs);
      });
      const found = await Promise.race([this.resolve(hostname), timeout]);
      if (found.addresses.length === 0) throw Object.assign(new Error('no address'), { code: 'ENODATA' });
      answer = { ok: true, addresses: found.addresses };
      ttlS = Math.min(this.options.maxTtlS, Math.max(this.options.minTtlS, found.ttlS ?? UNKNOWN_TTL_S));
    } catch (error) {
      const code = String((error as NodeJS.ErrnoException).code ?? 'EDNS');
      this.counters.failed++;
      if (code === 'ETIMEOUT') this.counters.timeouts++;
      answer = { ok: false, code, message: describe(code, hostname, error as Error) };
      ttlS = this.options.negativeTtlS;
    } finally {
      clearTimeout(timer);
      this.inFlight--;
      this.waiting.shift()?.();
    }
    this.remember(hostname, { answer, until: performance.now() + ttlS * 1000 });
    return answer;
  }

  private remember(hostname: string, entry: Entry): void {
    this.entries.delete(hostname);
    if (this.entries.size >= this.options.cacheEntries) {
      // Maps iterate in insertion order, and an entry is re-inserted when it is renewed: the first is the oldest.
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) {
        this.entries.delete(oldest.value);
        this.counters.evicted++;
      }
    }
    this.entries.set(hostname, entry);
  }
}

function describe(code: string, hostname: string, error: Error): string {
  switch (code) {
    case 'ENOTFOUND':
      return `unknown host ${hostname}`;
    case 'ENODATA':
      return `${hostname} has no address`;
    case 'ETIMEOUT':
      return `DNS gave no answer for ${hostname} (${error.message})`;
    default:
      return `DNS failed for ${hostname} (${code})`;
  }
}

const systemResolve: Resolve = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true });
  return { addresses: found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })), ttlS: null };
};

/** Asks SERVER[:PORT] for A and AAAA records; the TTL is the smallest of the answers. */
function serverResolve(server: string, timeoutMs: number): Resolve {
  const resolver = new dns.Resolver({ timeout: Math.max(100, Math.round(timeoutMs / 2)), tries: 2 });
  resolver.setServers([server]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname, { ttl: true }), resolver.resolve6(hostname, { ttl: true })]);
    const addresses: DnsAddress[] = [];
    let ttlS = Infinity;
    if (v4.status === 'fulfilled') for (const r of v4.value) (addresses.push({ address: r.address, family: 4 }), (ttlS = Math.min(ttlS, r.ttl)));
    if (v6.status === 'fulfilled') for (const r of v6.value) (addresses.push({ address: r.address, family: 6 }), (ttlS = Math.min(ttlS, r.ttl)));
    if (addresses.length === 0) {
      // Both failed: the more telling failure (a timeout or refusal over "no such record").
      const reasons = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
      throw reasons.find((r) => r.code !== 'ENODATA' && r.code !== 'ENOTFOUND') ?? reasons[0] ?? Object.assign(new Error('no address'), { code: 'ENODATA' });
    }
    return { addresses, ttlS: Number.isFinite(ttlS) ? ttlS : null };
  };
}

/** Checks --dns SERVER[:PORT]; returns the text c-ares takes, or a reason it is not one. */
export function parseDnsServer(text: string): { ok: true; server: string } | { ok: false; reason: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const plain = /^([^:]+)(?::(\d+))?$/.exec(text);
  const host = bracketed?.[1] ?? (plain?.[1] ?? (isIP(text) === 6 ? text : null));
  const port = bracketed?.[2] ?? plain?.[2] ?? null;
  if (host === null || isIP(host) === 0) return { ok: false, reason: 'give the resolver as an IP address, with :PORT if not 53 (IPv6 in brackets)' };
  if (port !== null && !(Number(port) >= 1 && Number(port) <= 65535)) return { ok: false, reason: `port ${port} is not 1-65535` };
  return { ok: true, server: text };
}
