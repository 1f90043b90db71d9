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
 *   of links like a depth-first search, an unlimited buffer is breadth-first;
 * - pagerank: the page with the highest live PageRank estimate first
 *   (live-rank.ts): the latest vector of the worker, plus, for links found
 *   since that vector, the first push of the incremental solver: fetching
 *   page u with k out-links credits c x(u) / k to each of them, so a page
 *   found since is ranked by the importance flowing into it, like OPIC's
 *   cash between two vectors (docs/live-importance.md). A page the vector
 *   does not cover yet starts at (1 - c) / n, the least a page can have.
 * Ids are page ids (OPIC ids), found in increasing order.
 */
import type { Opic } from '../analysis/opic.js';
import { OptionError } from '../errors.js';
import { PartitionedMaxHeap } from '../util/partitioned-heap.js';
import { Random } from '../util/random.js';

function grownFloat(array: Float64Array, size: number): Float64Array {
  const next = new Float64Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

export type CrawlStrategy = 'greedy' | 'bfs' | 'dfs' | 'random' | 'buffer' | 'pagerank';
export const CRAWL_STRATEGIES: readonly CrawlStrategy[] = ['greedy', 'bfs', 'dfs', 'random', 'buffer', 'pagerank'];

export interface FrontierOptions {
  strategy: CrawlStrategy;
  /** Greedy may choose pages already read (refresh). */
  refresh?: boolean;
  /** Length of the buffer strategy's buffer. */
  bufferSize?: number;
  seed?: number;
  /** Damping c of the live PageRank (pagerank strategy): 0.85. */
  damping?: number;
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
  /** Pagerank strategy: the latest live vector, and what fetches since credited each page. */
  private live: Float64Array = new Float64Array(0);
  private credit: Float64Array = new Float64Array(1024);
  private readonly damping: number;

  constructor(
    private readonly opic: Opic,
    options: FrontierOptions,
  ) {
    this.strategy = options.strategy;
    this.refresh = options.refresh ?? false;
    this.bufferSize = options.bufferSize ?? 100;
    this.random = new Random(options.seed ?? 1);
    this.damping = options.damping ?? 0.85;
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
        return;
      case 'pagerank':
        this.order.set(id, this.estimate(id), host);
    }
  }

  /** Pagerank strategy: the live estimate the order uses. */
  estimate(id: number): number {
    const base = id < this.live.length ? this.live[id]! : (1 - this.damping) / Math.max(1, this.live.length);
    return base + (id < this.credit.length ? this.credit[id]! : 0);
  }

  /** A page was fetched with these out-links (pagerank strategy: they are credited; others: nothing). */
  fetched(id: number, out: ArrayLike<number>): void {
    if (this.strategy !== 'pagerank' || out.length === 0) return;
    const share = (this.damping * this.estimate(id)) / out.length;
    for (let i = 0; i < out.length; i++) {
      const target = out[i]!;
      if (target >= this.credit.length) this.credit = grownFloat(this.credit, target + 1);
      this.credit[target]! += share;
      if (this.order.has(target)) this.order.set(target, this.estimate(target), this.order.part(target));
    }
  }

  /** Pagerank strategy: a new live vector; credits start again from it and waiting pages are ordered by it. */
  liveVector(scores: Float64Array, knownPages: number): void {
    if (this.strategy !== 'pagerank') return;
    this.live = scores;
    this.credit.fill(0);
    for (let id = 0; id < knownPages; id++) if (this.order.has(id)) this.order.set(id, this.estimate(id), this.order.part(id));
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
    else if (this.strategy === 'pagerank') this.order.set(id, this.estimate(id), host);
    else this.order.set(id, this.strategy === 'bfs' ? -id : id, host);
  }

  setHostEnabled(host: number, enabled: boolean): void {
    if (this.strategy === 'greedy') this.opic.setGroupEnabled(host, enabled);
    else this.order.setEnabled(host, enabled);
  }

  /** Puts a host's pages under a server (cluster 1, 2, ...; 0 is no server), switched by setServerEnabled. */
  setHostServer(host: number, server: number): void {
    if (this.strategy === 'greedy') this.opic.setGroupCluster(host, server);
    else this.order.setCluster(host, server);
  }

  setServerEnabled(server: number, enabled: boolean): void {
    if (this.strategy === 'greedy') this.opic.setClusterEnabled(server, enabled);
    else this.order.setClusterEnabled(server, enabled);
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
