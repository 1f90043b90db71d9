/**
 * The order in which known pages are fetched, among the hosts that may take
 * a request now (hosts.ts switches them on and off):
 * - greedy: the page with the most OPIC cash first (the OPIC paper's Greedy),
 *   straight from OPIC's own class heaps; with refresh, pages already read
 *   compete too, so the most important pages are read again first;
 * - bfs: pages in the order they were found; dfs: the last found first;
 * - random: a seeded random order;
 * - buffer: the Web Graph Analyzer paper's crawler (Section 4.3): new pages
 *   enter a buffer of limited length while it has room; when the buffer is
 *   empty it is refilled with the oldest waiting pages. Length 1 walks chains
 *   of links like a depth-first search, an unlimited buffer is breadth-first.
 * Ids are page ids (OPIC ids), found in increasing order.
 */
import type { Opic } from '../analysis/opic.js';
import { OptionError } from '../errors.js';
import { PartitionedMaxHeap } from '../util/partitioned-heap.js';
import { Random } from '../util/random.js';

export type CrawlStrategy = 'greedy' | 'bfs' | 'dfs' | 'random' | 'buffer';
export const CRAWL_STRATEGIES: readonly CrawlStrategy[] = ['greedy', 'bfs', 'dfs', 'random', 'buffer'];

export interface FrontierOptions {
  strategy: CrawlStrategy;
  /** Greedy may choose pages already read (refresh). */
  refresh?: boolean;
  /** Length of the buffer strategy's buffer. */
  bufferSize?: number;
  seed?: number;
}

export class Frontier {
  readonly strategy: CrawlStrategy;
  private readonly refresh: boolean;
  private readonly order = new PartitionedMaxHeap(1);
  private readonly random: Random;
  private readonly bufferSize: number;
  /** Buffer strategy: pages waiting outside the buffer, oldest first from `backlogStart`. */
  private backlog: number[] = [];
  private backlogStart = 0;
  private readonly inBuffer = new Set<number>();

  constructor(
    private readonly opic: Opic,
    options: FrontierOptions,
  ) {
    this.strategy = options.strategy;
    this.refresh = options.refresh ?? false;
    this.bufferSize = options.bufferSize ?? 100;
    this.random = new Random(options.seed ?? 1);
    if (this.refresh && this.strategy !== 'greedy') {
      throw new OptionError('--refresh', `reads the most important pages again first, which is the greedy strategy, not ${this.strategy}`);
    }
    if (!(Number.isInteger(this.bufferSize) && this.bufferSize >= 1)) throw new OptionError('--buffer-size', `must be a positive integer, got ${this.bufferSize}`);
  }

  /** A page joins the waiting pages of `host` (greedy: OPIC already has it). */
  add(id: number, host: number): void {
    switch (this.strategy) {
      case 'greedy':
        return;
      case 'bfs':
        this.order.set(id, -id, host);
        return;
      case 'dfs':
        this.order.set(id, id, host);
        return;
      case 'random':
        this.order.set(id, this.random.next(), host);
        return;
      case 'buffer':
        if (this.inBuffer.size < this.bufferSize) this.admit(id, host);
        else this.backlog.push(id);
    }
  }

  /** The next page to fetch among enabled hosts, taken out of the waiting pages; -1 if none. */
  take(hostOf: (id: number) => number): number {
    if (this.strategy === 'greedy') {
      const id = this.opic.greediest(!this.refresh);
      if (id >= 0) this.opic.hold(id);
      return id;
    }
    if (this.strategy === 'buffer' && this.inBuffer.size === 0) this.refill(hostOf);
    const id = this.order.top();
    if (id < 0) return -1;
    this.order.remove(id);
    if (this.strategy === 'buffer') this.inBuffer.delete(id);
    return id;
  }

  /** A taken page goes back to the waiting pages (its fetch is retried later). */
  putBack(id: number, host: number): void {
    if (this.strategy === 'greedy') this.opic.release(id);
    else if (this.strategy === 'buffer') this.admit(id, host);
    else if (this.strategy === 'random') this.order.set(id, this.random.next(), host);
    else this.order.set(id, this.strategy === 'bfs' ? -id : id, host);
  }

  setHostEnabled(host: number, enabled: boolean): void {
    if (this.strategy === 'greedy') this.opic.setGroupEnabled(host, enabled);
    else this.order.setEnabled(host, enabled);
  }

  private admit(id: number, host: number): void {
    this.inBuffer.add(id);
    this.order.set(id, -id, host);
  }

  private refill(hostOf: (id: number) => number): void {
    while (this.inBuffer.size < this.bufferSize && this.backlogStart < this.backlog.length) {
      const id = this.backlog[this.backlogStart++]!;
      this.admit(id, hostOf(id));
    }
    if (this.backlogStart > 4096 && this.backlogStart * 2 > this.backlog.length) {
      this.backlog = this.backlog.slice(this.backlogStart);
      this.backlogStart = 0;
    }
  }
}
