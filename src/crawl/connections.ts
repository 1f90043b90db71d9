/**
 * The crawl's keep-alive connections, one client per origin (a pool when --per-host allows more than
 * one connection to a host), with a cap on the hosts whose connections stay open.
 *
 * Why a cap: a crawl of 10^4 hosts and more visits a host, then thousands of others before it comes
 * back. Every host leaves an idle socket behind for the keep-alive time, so the process's open
 * files grow with the hosts visited per keep-alive period: at 1,300 pages/s on 40,000 hosts they
 * passed 20,000 and the crawl died of EMFILE (its DNS sockets failed first). Beyond
 * `maxHosts`, the idle connections of the hosts used longest ago are closed (counted in
 * `closedIdle`); a host with a request running keeps its connection whatever the cap.
 *
 * The map is in order of last use (an entry is moved to the end when used), so the hosts closed are
 * found from its start, and requests running (at most the crawl's concurrency) are the only ones
 * skipped.
 */
import { Client, Pool, type Dispatcher } from 'undici';

/**
 * Hosts whose idle connections a crawl keeps open by default (--keep-alive-hosts): far below the
 * open-file limits of Linux (1,024 soft by default; Node raises it to the hard limit), and more
 * than the hosts a crawl of one site or a few uses.
 */
export const DEFAULT_KEEP_ALIVE_HOSTS = 512;

export interface ConnectionCounters {
  /** Hosts a client was opened for (again, after its connections were closed). */
  opened: number;
  /** Hosts whose idle connections were closed to keep under the cap. */
  closedIdle: number;
  /** The most hosts with a client at once. */
  maxOpen: number;
}

interface Entry {
  client: Dispatcher;
  running: number;
}

export class Connections {
  private readonly byOrigin = new Map<string, Entry>();
  readonly counters: ConnectionCounters = { opened: 0, closedIdle: 0, maxOpen: 0 };

  constructor(
    /** Hosts whose connections are kept open at most (hosts with a request running aside). */
    readonly maxHosts: number,
    private readonly perOrigin: number,
    private readonly options: Client.Options,
  ) {}

  /** The client for `origin`, for one request; `release(origin)` when its body is read or given up. */
  acquire(origin: string): Dispatcher {
    let entry = this.byOrigin.get(origin);
    if (entry === undefined) {
      entry = { client: this.perOrigin === 1 ? new Client(origin, this.options) : new Pool(origin, { ...this.options, connections: this.perOrigin }), running: 0 };
      this.counters.opened++;
    } else this.byOrigin.delete(origin);
    this.byOrigin.set(origin, entry);
    if (this.byOrigin.size > this.counters.maxOpen) this.counters.maxOpen = this.byOrigin.size;
    entry.running++;
    return entry.client;
  }

  release(origin: string): void {
    const entry = this.byOrigin.get(origin);
    if (entry === undefined) return;
    entry.running--;
    if (this.byOrigin.size > this.maxHosts) this.trim();
  }

  /** Hosts with a client now. */
  get open(): number {
    return this.byOrigin.size;
  }

  private trim(): void {
    for (const [origin, entry] of this.byOrigin) {
      if (this.byOrigin.size <= this.maxHosts) return;
      if (entry.running > 0) continue;
      this.byOrigin.delete(origin);
      this.counters.closedIdle++;
      // Nothing is running on it: close() ends its idle sockets.
      entry.client.close().catch(() => {});
    }
  }

  /** Closes idle connections and waits for running requests. */
  async close(): Promise<void> {
    const clients = [...this.byOrigin.values()].map((e) => e.client);
    this.byOrigin.clear();
    await Promise.all(clients.map((c) => c.close()));
  }

  /** Abandons every connection at once. */
  async destroy(): Promise<void> {
    const clients = [...this.byOrigin.values()].map((e) => e.client);
    this.byOrigin.clear();
    await Promise.all(clients.map((c) => c.destroy()));
  }
}
