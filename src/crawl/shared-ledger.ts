/**
 * One crawler instance's share of a distributed OPIC computation (the OPIC
 * paper, Section 4.1): the cash and history of the pages of the partitions
 * it holds, kept in memory, and the money it owes elsewhere since its last
 * checkpoint. Reading a page pays its out-links in held partitions directly
 * (credit) and the others through buffered money transfers (`transfers`,
 * written by the next checkpoint in the same transaction as the read); the
 * rest goes to the virtual page (`virtual`).
 *
 * The virtual page's payouts are shared: the store keeps one accumulator
 * `all` ("every page has received `all` since the crawl began") and each
 * page the value of it it has already collected (seenAll), so a page's cash
 * is cash + (all - seenAll), as in analysis/opic.ts. Here `all` is the value
 * read at the last checkpoint; it only moves when a checkpoint commits, and
 * then every page collects the same amount, so the greedy heap (keyed by
 * cash - seenAll, per host) keeps its order.
 *
 * Page indices are this process's (url-table.ts ids); the store's ids are
 * kept beside them by the crawler.
 */
import { PartitionedMaxHeap } from '../util/partitioned-heap.js';
import { grown } from '../util/typed-arrays.js';

export class SharedLedger {
  private cash = new Float64Array(1024);
  private history = new Float64Array(1024);
  private seenAll = new Float64Array(1024);
  private lastRead = new Float64Array(1024);
  private reads = new Uint32Array(1024);
  private dirty = new Uint8Array(1024);
  private changed: number[] = [];
  private readonly heap = new PartitionedMaxHeap(1);
  /** The shared accumulator as of the last checkpoint. */
  all = 0;
  /** The shared clock G as of the last checkpoint, plus this instance's reads since. */
  clock = 0;
  /** Money owed to pages of other instances' partitions since the last checkpoint, by page index. */
  transfers = new Map<number, number>();
  /** Cash paid to the virtual page since the last checkpoint. */
  virtual = 0;
  /** Cash credited to histories (the clock's growth) and reads since the last checkpoint. */
  clockGrowth = 0;
  readsDone = 0;

  constructor(readonly damping: number) {}

  private ensure(i: number): void {
    if (i < this.cash.length) return;
    const size = Math.max(i + 1, this.cash.length * 2);
    this.cash = grown(this.cash, size);
    this.history = grown(this.history, size);
    this.seenAll = grown(this.seenAll, size);
    this.lastRead = grown(this.lastRead, size);
    this.reads = grown(this.reads, size);
    this.dirty = grown(this.dirty, size);
  }

  /** Sets a page's state (a page loaded from the store, or a new one with no cash). */
  setPage(i: number, state: { cash: number; history: number; seenAll: number; lastRead: number; reads: number }): void {
    this.ensure(i);
    this.cash[i] = state.cash;
    this.history[i] = state.history;
    this.seenAll[i] = state.seenAll;
    this.lastRead[i] = state.lastRead;
    this.reads[i] = state.reads;
    if (this.heap.has(i)) this.heap.changeKey(i, this.key(i));
  }

  /** A new page found by this instance: no cash yet, owed nothing by the virtual page until stored. */
  newPage(i: number): void {
    this.setPage(i, { cash: 0, history: 0, seenAll: this.all, lastRead: this.clock, reads: 0 });
    this.touch(i);
  }

  /** The page waits in the greedy selection of its host. */
  enqueue(i: number, host: number): void {
    this.heap.set(i, this.key(i), host);
  }

  /** Out of the selection (being fetched, or its partition is let go). */
  dequeue(i: number): void {
    this.heap.remove(i);
  }

  /** The unread page with the most cash among enabled hosts, or -1. */
  greediest(): number {
    return this.heap.top();
  }

  setHostEnabled(host: number, enabled: boolean): void {
    this.heap.setEnabled(host, enabled);
  }

  /** Puts a host's pages under a server (cluster 1, 2, ...), switched as a whole by setServerEnabled. */
  setHostServer(host: number, server: number): void {
    this.heap.setCluster(host, server);
  }

  setServerEnabled(server: number, enabled: boolean): void {
    this.heap.setClusterEnabled(server, enabled);
  }

  cashOf(i: number): number {
    return this.cash[i]! + (this.all - this.seenAll[i]!);
  }

  historyOf(i: number): number {
    return this.history[i]!;
  }

  state(i: number): { cash: number; history: number; seenAll: number; lastRead: number; reads: number } {
    return { cash: this.cash[i]!, history: this.history[i]!, seenAll: this.seenAll[i]!, lastRead: this.lastRead[i]!, reads: this.reads[i]! };
  }

  /** Adds cash to a page this instance holds (a direct payment, or an applied transfer). */
  credit(i: number, amount: number): void {
    this.cash[i]! += amount;
    if (this.heap.has(i)) this.heap.changeKey(i, this.key(i));
    this.touch(i);
  }

  /** Sets what a page has collected of the shared accumulator (when the store's value is learnt). */
  setSeenAll(i: number, value: number): void {
    this.seenAll[i] = value;
    if (this.heap.has(i)) this.heap.changeKey(i, this.key(i));
  }

  /** The shared accumulator moved (a checkpoint committed): every page is owed the difference. */
  advance(all: number, clock: number): void {
    this.all = all;
    // Reads made while the checkpoint was being written are not in the store's clock yet.
    this.clock = clock + this.clockGrowth;
  }

  /**
   * OPIC's read of page i with distinct out-links `children` (no i among them): its cash to its
   * history, a share `damping` split among the children (held ones credited, the others owed
   * through `transfers`), the rest to the virtual page. Returns the amount read.
   */
  read(i: number, children: readonly number[], held: (j: number) => boolean): number {
    const amount = this.cashOf(i);
    this.cash[i] = 0;
    this.seenAll[i] = this.all;
    this.history[i]! += amount;
    this.clock += amount;
    this.clockGrowth += amount;
    this.lastRead[i] = this.clock;
    this.reads[i]!++;
    this.readsDone++;
    this.heap.remove(i);
    this.touch(i);
    let toVirtual = amount;
    if (children.length > 0 && amount > 0) {
      const share = (this.damping * amount) / children.length;
      for (const j of children) {
        if (held(j)) this.credit(j, share);
        else this.transfers.set(j, (this.transfers.get(j) ?? 0) + share);
      }
      toVirtual = amount - share * children.length;
    }
    this.virtual += toVirtual;
    return amount;
  }

  /** Pages whose state changed since the last call, each once. */
  takeChanged(): number[] {
    const changed = this.changed;
    this.changed = [];
    for (const i of changed) this.dirty[i] = 0;
    return changed;
  }

  /** Takes the transfers, virtual payments and clock growth owed since the last call. */
  takeOutgoing(): { transfers: Map<number, number>; virtual: number; clockGrowth: number; reads: number } {
    const out = { transfers: this.transfers, virtual: this.virtual, clockGrowth: this.clockGrowth, reads: this.readsDone };
    this.transfers = new Map();
    this.virtual = 0;
    this.clockGrowth = 0;
    this.readsDone = 0;
    return out;
  }

  touch(i: number): void {
    if (this.dirty[i] === 1) return;
    this.dirty[i] = 1;
    this.changed.push(i);
  }

  private key(i: number): number {
    return this.cash[i]! - this.seenAll[i]!;
  }
}
