/**
 * OPIC, On-line Page Importance Computation (Abiteboul, Preda, Cobena,
 * WWW 2003; NOTES section 3): page importance computed while the graph is
 * read, one page at a time, without storing the link matrix.
 *
 * Every page has cash C and history H; G = sum of the histories is the
 * clock. Reading page i credits its cash to its history (H[i] += C[i],
 * G += C[i]) and passes it on: a share c (the damping, 0.85) split equally
 * among its out-links, the rest (1 - c) to the virtual page; a page without
 * out-links gives everything to the virtual page. The importance estimate of
 * page k is (H[k] + C[k]) / (G + 1), with error factor 1/G (Theorem 2.1).
 *
 * The virtual page links to every page. Its cash is paid out at once, at
 * every read, by lazy accumulators: "everyone gets x more" adds x to a
 * counter and a page collects what it is owed the next time it is touched,
 * so a read costs O(out-degree) (O(out-degree log n) with Greedy) however
 * many pages there are. By default the payout is uniform over all known
 * pages; then the fixpoint is exactly PageRank with damping c, dangling
 * pages' mass and teleports spread uniformly (the estimates of a strongly
 * connected graph converge to pagerank() of the same graph). Two options
 * bend the payout, the levers the paper names: a `discoveryShare` of it goes
 * to pages never read (discovery against refresh), a `focusShare` to pages
 * matching a focus rule (the paper's "news" pages). Total cash stays 1.
 *
 * Pages can be added at any time, e.g. when first seen as a link target: such
 * a page receives cash before it is ever read and so has an estimate.
 */
import { OptionError } from '../errors.js';
import { IndexedMaxHeap } from '../util/indexed-heap.js';
import { Random } from '../util/random.js';

export type OpicStrategy = 'greedy' | 'random' | 'cycle';
export const OPIC_STRATEGIES: readonly OpicStrategy[] = ['greedy', 'random', 'cycle'];

export interface OpicOptions {
  /** c: share of a read page's cash passed along its out-links; 1 - c goes to the virtual page. 0.85. */
  damping?: number;
  /** Share of the virtual page's payout given to pages never read (discovery): 0. */
  discoveryShare?: number;
  /** Share of the virtual page's payout given to focus pages (see addPage): 0. */
  focusShare?: number;
  /** Seed of the Random strategy: 1. */
  seed?: number;
}

const READ = 1;
const FOCUS = 2;

export class Opic {
  readonly damping: number;
  readonly discoveryShare: number;
  readonly focusShare: number;
  private pageCount = 0;
  private cash: Float64Array = new Float64Array(16);
  private history: Float64Array = new Float64Array(16);
  /** G-time of each page's last read (its creation time before the first). */
  private lastRead: Float64Array = new Float64Array(16);
  private readCount: Uint32Array = new Uint32Array(16);
  private flags: Uint8Array = new Uint8Array(16);
  // Lazy payouts: a page is owed (accumulator - what it had seen) from each pool it is in.
  private seenAll: Float64Array = new Float64Array(16);
  private seenUnread: Float64Array = new Float64Array(16);
  private seenFocus: Float64Array = new Float64Array(16);
  private all = 0;
  private unread = 0;
  private focused = 0;
  private unreadCount = 0;
  private focusCount = 0;
  private clock = 0;
  private virtualReceived = 0;
  private readsDone = 0;
  /** One heap per (read?, focus?) class, keyed by cash minus what the class's pools already owe. */
  private readonly heaps = [new IndexedMaxHeap(), new IndexedMaxHeap(), new IndexedMaxHeap(), new IndexedMaxHeap()];
  private marks: Int32Array = new Int32Array(16);
  private markGeneration = 0;
  private readonly random: Random;
  private cyclePosition = 0;

  constructor(options: OpicOptions = {}) {
    this.damping = options.damping ?? 0.85;
    this.discoveryShare = options.discoveryShare ?? 0;
    this.focusShare = options.focusShare ?? 0;
    if (!(this.damping >= 0 && this.damping <= 1)) throw new OptionError('damping', `must be in [0, 1], got ${this.damping}`);
    for (const [name, share] of [
      ['discovery-share', this.discoveryShare],
      ['focus-share', this.focusShare],
    ] as const) {
      if (!(share >= 0 && share <= 1)) throw new OptionError(name, `must be in [0, 1], got ${share}`);
    }
    if (this.discoveryShare + this.focusShare > 1) {
      throw new OptionError('discovery-share', 'discovery and focus shares add up to more than 1');
    }
    this.random = new Random(options.seed ?? 1);
  }

  /** A graph of `pages` pages known from the start, each with cash 1/pages (the paper's initial state). */
  static withPages(pages: number, options: OpicOptions = {}): Opic {
    const opic = new Opic(options);
    for (let i = 0; i < pages; i++) opic.addPage();
    opic.distributeInitialCash(Int32Array.from({ length: pages }, (_, i) => i));
    return opic;
  }

  get pages(): number {
    return this.pageCount;
  }

  /** G, the sum of all histories: the clock of OPIC. */
  get time(): number {
    return this.clock;
  }

  /** 1/G, the paper's error factor (an upper bound of the error of the estimates, Theorem 2.1). */
  get errorFactor(): number {
    return this.clock > 0 ? 1 / this.clock : Infinity;
  }

  get reads(): number {
    return this.readsDone;
  }

  /** Total cash paid to the virtual page so far (its history). */
  get virtualHistory(): number {
    return this.virtualReceived;
  }

  /** Adds a page (with no cash) and returns its id; `focus` puts it in the focus pool. */
  addPage(focus = false): number {
    const id = this.pageCount++;
    if (id === this.cash.length) this.grow(2 * id);
    this.flags[id] = focus ? FOCUS : 0;
    this.seenAll[id] = this.all;
    this.seenUnread[id] = this.unread;
    this.seenFocus[id] = this.focused;
    this.lastRead[id] = this.clock;
    this.unreadCount++;
    if (focus) this.focusCount++;
    this.heaps[this.classOf(id)]!.set(id, this.heapKey(id));
    return id;
  }

  /** Gives one unit of cash, in equal parts, to the given pages (only while no cash was given yet). */
  distributeInitialCash(pages: ArrayLike<number>): void {
    if (this.totalCash() > 0) throw new OptionError('cash', 'initial cash was already distributed');
    if (pages.length === 0) throw new OptionError('pages', 'needs at least one page to give the initial cash to');
    for (let i = 0; i < pages.length; i++) this.credit(pages[i]!, 1 / pages.length);
  }

  /** Cash page i holds now, what the virtual page owes it included. */
  cashOf(i: number): number {
    const flags = this.flags[i]!;
    let owed = this.all - this.seenAll[i]!;
    if ((flags & READ) === 0) owed += this.unread - this.seenUnread[i]!;
    if ((flags & FOCUS) !== 0) owed += this.focused - this.seenFocus[i]!;
    return this.cash[i]! + owed;
  }

  historyOf(i: number): number {
    return this.history[i]!;
  }

  /** G-time of page i's last read (its creation time if never read). */
  lastReadTime(i: number): number {
    return this.lastRead[i]!;
  }

  readsOf(i: number): number {
    return this.readCount[i]!;
  }

  isRead(i: number): boolean {
    return (this.flags[i]! & READ) !== 0;
  }

  /** (H + C) / (G + 1): the importance estimate of page i. */
  estimate(i: number): number {
    return (this.history[i]! + this.cashOf(i)) / (this.clock + 1);
  }

  estimates(): Float64Array {
    const result = new Float64Array(this.pageCount);
    for (let i = 0; i < this.pageCount; i++) result[i] = this.estimate(i);
    return result;
  }

  /** Sum of all pages' cash (1 after the initial distribution, at every step: Lemma 2.2). */
  totalCash(): number {
    let total = 0;
    for (let i = 0; i < this.pageCount; i++) total += this.cashOf(i);
    return total;
  }

  /**
   * Reads page i whose out-links are `outLinks` (page ids; repeats and links
   * to itself are ignored): credits its cash to its history and passes it on.
   * Returns the cash credited.
   */
  read(i: number, outLinks: ArrayLike<number>): number {
    this.settle(i);
    const amount = this.cash[i]!;
    this.cash[i] = 0;
    this.history[i]! += amount;
    this.clock += amount;
    this.lastRead[i] = this.clock;
    this.readCount[i]!++;
    this.readsDone++;
    if ((this.flags[i]! & READ) === 0) {
      this.heaps[this.classOf(i)]!.remove(i);
      this.flags[i]! |= READ;
      this.unreadCount--;
    }
    this.heaps[this.classOf(i)]!.set(i, this.heapKey(i));
    // Distinct children other than i itself.
    const generation = ++this.markGeneration;
    this.marks[i] = generation;
    let children = 0;
    for (let k = 0; k < outLinks.length; k++) {
      const j = outLinks[k]!;
      if (j < 0 || j >= this.pageCount) throw new OptionError('outLinks', `page ${j} is not a known page (0..${this.pageCount - 1})`);
      if (this.marks[j] !== generation) {
        this.marks[j] = generation;
        children++;
      }
    }
    let toVirtual = amount;
    if (children > 0 && amount > 0) {
      const share = (this.damping * amount) / children;
      this.markGeneration++;
      const seen = this.markGeneration;
      this.marks[i] = seen;
      for (let k = 0; k < outLinks.length; k++) {
        const j = outLinks[k]!;
        if (this.marks[j] === seen) continue;
        this.marks[j] = seen;
        this.credit(j, share);
      }
      toVirtual = amount - share * children;
    }
    this.payOutVirtual(toVirtual);
    return amount;
  }

  /** The next page to read by a strategy: Greedy (largest cash), Random, or Cycle (fixed order). */
  next(strategy: OpicStrategy): number {
    if (this.pageCount === 0) return -1;
    if (strategy === 'random') return this.random.nextInt(this.pageCount);
    if (strategy === 'cycle') {
      const page = this.cyclePosition % this.pageCount;
      this.cyclePosition = page + 1;
      return page;
    }
    return this.greediest();
  }

  /** The page with the most cash (Greedy), from the class heaps: O(1). */
  greediest(): number {
    let best = -1;
    let bestCash = -Infinity;
    for (let k = 0; k < 4; k++) {
      const top = this.heaps[k]!.top();
      if (top < 0) continue;
      const cash = this.cashOf(top);
      if (cash > bestCash || (cash === bestCash && top < best)) {
        bestCash = cash;
        best = top;
      }
    }
    return best;
  }

  /** Adds cash to page j (a money transfer). */
  credit(j: number, amount: number): void {
    this.cash[j]! += amount;
    const heap = this.heaps[this.classOf(j)]!;
    heap.set(j, heap.key(j) + amount);
  }

  /** Pays out what the virtual page received: discovery and focus shares, the rest to every page. */
  private payOutVirtual(amount: number): void {
    if (amount === 0) return;
    this.virtualReceived += amount;
    let rest = amount;
    if (this.discoveryShare > 0 && this.unreadCount > 0) {
      this.unread += (this.discoveryShare * amount) / this.unreadCount;
      rest -= this.discoveryShare * amount;
    }
    if (this.focusShare > 0 && this.focusCount > 0) {
      this.focused += (this.focusShare * amount) / this.focusCount;
      rest -= this.focusShare * amount;
    }
    this.all += rest / this.pageCount;
  }

  /** Moves what the pools owe page i into its cash. */
  private settle(i: number): void {
    this.cash[i] = this.cashOf(i);
    this.seenAll[i] = this.all;
    this.seenUnread[i] = this.unread;
    this.seenFocus[i] = this.focused;
  }

  private classOf(i: number): number {
    return (this.flags[i]! & READ ? 0 : 1) + (this.flags[i]! & FOCUS ? 2 : 0);
  }

  /** Cash minus the pools' counters: differs from the cash by the same amount for every page of a class. */
  private heapKey(i: number): number {
    const flags = this.flags[i]!;
    let key = this.cash[i]! - this.seenAll[i]!;
    if ((flags & READ) === 0) key -= this.seenUnread[i]!;
    if ((flags & FOCUS) !== 0) key -= this.seenFocus[i]!;
    return key;
  }

  private grow(size: number): void {
    const f64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.cash = f64(this.cash);
    this.history = f64(this.history);
    this.lastRead = f64(this.lastRead);
    this.seenAll = f64(this.seenAll);
    this.seenUnread = f64(this.seenUnread);
    this.seenFocus = f64(this.seenFocus);
    const readCount = new Uint32Array(size);
    readCount.set(this.readCount);
    this.readCount = readCount;
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.flags = flags;
    const marks = new Int32Array(size);
    marks.set(this.marks);
    this.marks = marks;
  }
}
