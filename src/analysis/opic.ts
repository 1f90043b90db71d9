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
 *
 * For a crawler: pages belong to groups (hosts) that can be switched off for
 * Greedy while the host is busy, a page being fetched is held out of the
 * selection, the pages changed since the last checkpoint are listed, and the
 * whole state can be saved and restored exactly (raw cash, pool marks).
 *
 * Memory (issue 38: a crawl knows ten times more pages than it reads). A page
 * that was never read has no history, no reads, and its last-read time is the
 * clock when it was found; what it owns is its cash. So per page there is one
 * number: its cash net of the pools, which is also Greedy's key and lives in
 * the heap (cash = key + what its pools have paid every page so far). History,
 * last read and reads live in rows given to pages at their first read, and the
 * found-at clocks of unread pages are steps of one table (they change only at
 * reads). A known page costs 6 bytes here plus the heap's entry.
 */
import { OptionError } from '../errors.js';
import { PartitionedMaxHeap } from '../util/partitioned-heap.js';
import { Random } from '../util/random.js';
import { StepTable } from '../util/step-table.js';
import { columnSize, grownColumn, reservedArrays } from '../util/typed-arrays.js';

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
  /** Whether Greedy may choose pages already read (refreshing): true. A crawl of new pages only says false. */
  reselectRead?: boolean;
  /** Keep the list of pages whose state changed, for checkpoints (takeChanges): false. */
  trackChanges?: boolean;
  /**
   * Pages the per-page arrays have room for from the start (a crawl's page capacity,
   * settings.ts; util/typed-arrays.ts, reservedArrays): only the pages added cost RAM. More still
   * fit: the arrays then grow. 0: start small.
   */
  capacity?: number;
  /**
   * The group of page i, from the owner's own column (a crawl's host of each page), so that OPIC
   * keeps none: it must answer, from the moment a page is added, the group it was added with.
   * Absent: OPIC keeps the groups (4 bytes a page).
   */
  groupOf?: (i: number) => number;
}

/** A page's state as stored: raw cash and the pool counters it had seen (see cashOf). */
export interface OpicPageState {
  cash: number;
  history: number;
  lastRead: number;
  reads: number;
  seenAll: number;
  seenUnread: number;
  seenFocus: number;
  focus: boolean;
}

/** The global state: the pools' counters, the clock, what the virtual page received, reads. */
export interface OpicGlobalState {
  all: number;
  unread: number;
  focused: number;
  clock: number;
  virtualReceived: number;
  reads: number;
}

const READ = 1;
const FOCUS = 2;
/** Being fetched: out of the selection until read or released. */
const HELD = 4;

export class Opic {
  readonly damping: number;
  readonly discoveryShare: number;
  readonly focusShare: number;
  private pageCount = 0;
  private flags: Uint8Array = new Uint8Array(16);
  /**
   * row[i]: page i's row in the read pages' arrays + 1, 0 while it has none (never read). Counting
   * from 1 keeps a reserved column free of RAM until written (util/typed-arrays.ts).
   */
  private row: Uint32Array = new Uint32Array(16);
  private rows = 0;
  // Per row (pages read at least once, or restored with a history):
  private history: Float64Array = new Float64Array(16);
  /** G-time of the page's last read. */
  private lastRead: Float64Array = new Float64Array(16);
  private readCount: Uint32Array = new Uint32Array(16);
  /** G-time at which each page without a row was found (steps: it changes only at reads). */
  private readonly foundAt = new StepTable(0);
  // Lazy payouts: every pool a page is in (all pages; the unread ones; the focus ones) has paid each
  // of its pages its counter so far. A page's key in the heap is its cash minus the counters of its
  // pools, so its cash is that key plus the counters (cashOf), and a payout to every page is one
  // addition. The unread and focus pools are only paid with a discovery or focus share.
  private all = 0;
  private unread = 0;
  private focused = 0;
  private unreadCount = 0;
  private focusCount = 0;
  private clock = 0;
  private virtualReceived = 0;
  private readsDone = 0;
  /**
   * Greedy's priority structure: one heap per (group, class), class = (read? 0 : 1) + (focus? 2 : 0),
   * keyed by cash minus what the class's pools already owe (the same offset for a whole class).
   */
  private readonly heap: PartitionedMaxHeap;
  /** The owner's answer to "which group is page i in" (OpicOptions.groupOf), or null: `groups` holds them. */
  private readonly groupOfPage: ((i: number) => number) | null;
  private groups: Int32Array = new Int32Array(16);
  private readonly reselectRead: boolean;
  private readonly trackChanges: boolean;
  /** The checkpoint's change marks, a bit per page (page i: bit i & 7 of byte i >>> 3). */
  private dirty: Uint8Array = new Uint8Array(16);
  private changed: number[] = [];
  /** A read's distinct children (a set reused from read to read, not a mark per page: issue 38). */
  private readonly children = new Set<number>();
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
    this.reselectRead = options.reselectRead ?? true;
    this.trackChanges = options.trackChanges ?? false;
    const capacity = options.capacity ?? 0;
    // The heap asks a page's part (group and class) instead of keeping it: the owner's group
    // column (a crawl's hosts) or OPIC's own.
    this.groupOfPage = options.groupOf ?? null;
    this.heap = new PartitionedMaxHeap(4, capacity, (i) => this.partOfPage(i));
    // Room for `capacity` pages at once, views of one buffer (util/typed-arrays.ts); refused, the
    // arrays start small and grow. The rows get room for as many: only the rows used cost RAM.
    const reserved =
      capacity > this.flags.length
        ? reservedArrays<[Float64Array, Float64Array, Uint32Array, Uint32Array, Uint8Array, Uint8Array]>(capacity, Float64Array, Float64Array, Uint32Array, Uint32Array, Uint8Array, Uint8Array)
        : null;
    if (reserved !== null) [this.history, this.lastRead, this.readCount, this.row, this.flags, this.dirty] = reserved;
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

  /**
   * Adds a page (with no cash) and returns its id; `focus` puts it in the focus pool, `group`
   * (e.g. its host) is what setGroupEnabled switches.
   */
  addPage(focus = false, group = 0): number {
    const id = this.pageCount++;
    if (id === this.flags.length) this.grow(columnSize(id, id + 1));
    this.flags[id] = focus ? FOCUS : 0;
    this.setGroup(id, group);
    this.foundAt.set(id, this.clock);
    this.unreadCount++;
    if (focus) this.focusCount++;
    // No cash: the key is minus what its pools have paid so far.
    this.heap.set(id, 0 - this.poolsOf(id), group * 4 + this.classOf(id));
    this.touch(id);
    return id;
  }

  /** Adds a page with a saved state (see pageState), after restoreGlobals. */
  restorePage(state: OpicPageState, group = 0): number {
    const id = this.pageCount++;
    if (id === this.flags.length) this.grow(columnSize(id, id + 1));
    this.flags[id] = (state.reads > 0 ? READ : 0) | (state.focus ? FOCUS : 0);
    this.setGroup(id, group);
    if (state.reads > 0 || state.history !== 0) {
      const row = this.rowOf(id);
      this.history[row] = state.history;
      this.lastRead[row] = state.lastRead;
      this.readCount[row] = state.reads;
    } else {
      this.foundAt.set(id, state.lastRead);
    }
    if (state.reads === 0) this.unreadCount++;
    if (state.focus) this.focusCount++;
    // The key as the heap had it: cash minus the marks of the pools the page is in.
    let key = state.cash - state.seenAll;
    if (state.reads === 0) key -= state.seenUnread;
    if (state.focus) key -= state.seenFocus;
    this.heap.set(id, key, group * 4 + this.classOf(id));
    if (!this.selectable(id)) this.heap.remove(id);
    return id;
  }

  /**
   * The raw state of page i, as restorePage takes it back: its key as its cash, with pool marks of
   * 0 (cash + the pools' counters - the marks is what it holds, as before).
   */
  pageState(i: number): OpicPageState {
    const row = this.row[i]! - 1;
    return {
      cash: this.heap.key(i),
      history: row >= 0 ? this.history[row]! : 0,
      lastRead: row >= 0 ? this.lastRead[row]! : this.foundAt.get(i),
      reads: row >= 0 ? this.readCount[row]! : 0,
      seenAll: 0,
      seenUnread: 0,
      seenFocus: 0,
      focus: (this.flags[i]! & FOCUS) !== 0,
    };
  }

  globalState(): OpicGlobalState {
    return { all: this.all, unread: this.unread, focused: this.focused, clock: this.clock, virtualReceived: this.virtualReceived, reads: this.readsDone };
  }

  /** Sets the global state of a restored OPIC; call before restorePage. */
  restoreGlobals(state: OpicGlobalState): void {
    if (this.pageCount > 0) throw new OptionError('state', 'globals must be restored before the pages');
    this.all = state.all;
    this.unread = state.unread;
    this.focused = state.focused;
    this.clock = state.clock;
    this.virtualReceived = state.virtualReceived;
    this.readsDone = state.reads;
  }

  /** Pages whose state changed since the last call (trackChanges), each once. */
  takeChanges(): number[] {
    const changed = this.changed;
    this.changed = [];
    for (const i of changed) this.dirty[i >>> 3]! &= ~(1 << (i & 7));
    return changed;
  }

  /** The group page i was added with. */
  groupOf(i: number): number {
    return this.groupOfPage !== null ? this.groupOfPage(i) : this.groups[i]!;
  }

  private setGroup(id: number, group: number): void {
    if (this.groupOfPage !== null) {
      if (this.groupOfPage(id) !== group) throw new Error(`internal error: page ${id} added to group ${group}, its owner says ${this.groupOfPage(id)}`);
      return;
    }
    if (id >= this.groups.length) this.groups = grownColumn(this.groups, id + 1);
    this.groups[id] = group;
  }

  /** Shows or hides a group's pages from Greedy (e.g. while their host is busy). */
  setGroupEnabled(group: number, enabled: boolean): void {
    for (let c = 0; c < 4; c++) this.heap.setEnabled(group * 4 + c, enabled);
  }

  /**
   * Puts a group in a cluster (e.g. a host under its server address), which setClusterEnabled
   * switches as a whole; every group starts in cluster 0.
   */
  setGroupCluster(group: number, cluster: number): void {
    for (let c = 0; c < 4; c++) this.heap.setCluster(group * 4 + c, cluster);
  }

  /** Shows or hides the pages of every group of a cluster from Greedy (e.g. while their server is busy). */
  setClusterEnabled(cluster: number, enabled: boolean): void {
    this.heap.setClusterEnabled(cluster, enabled);
  }

  /** Unread pages of a group still waiting in the selection. */
  unreadWaiting(group: number): number {
    return this.heap.partSize(group * 4 + 1) + this.heap.partSize(group * 4 + 3);
  }

  /** Takes page i out of the selection (it is being fetched) until it is read or released. */
  hold(i: number): void {
    this.flags[i]! |= HELD;
    this.heap.remove(i);
  }

  /** Puts a held page back into the selection. */
  release(i: number): void {
    if ((this.flags[i]! & HELD) === 0) return;
    this.flags[i]! &= ~HELD;
    if (this.selectable(i)) this.heap.set(i, this.heap.key(i), this.partOfPage(i));
  }

  isHeld(i: number): boolean {
    return (this.flags[i]! & HELD) !== 0;
  }

  /** Gives one unit of cash, in equal parts, to the given pages (only while no cash was given yet). */
  distributeInitialCash(pages: ArrayLike<number>): void {
    if (this.totalCash() > 0) throw new OptionError('cash', 'initial cash was already distributed');
    if (pages.length === 0) throw new OptionError('pages', 'needs at least one page to give the initial cash to');
    for (let i = 0; i < pages.length; i++) this.credit(pages[i]!, 1 / pages.length);
  }

  /** Cash page i holds now, what the virtual page owes it included. */
  cashOf(i: number): number {
    return this.heap.key(i) + this.poolsOf(i);
  }

  historyOf(i: number): number {
    const row = this.row[i]! - 1;
    return row >= 0 ? this.history[row]! : 0;
  }

  /** G-time of page i's last read (its creation time if never read). */
  lastReadTime(i: number): number {
    const row = this.row[i]! - 1;
    return row >= 0 ? this.lastRead[row]! : this.foundAt.get(i);
  }

  readsOf(i: number): number {
    const row = this.row[i]! - 1;
    return row >= 0 ? this.readCount[row]! : 0;
  }

  /** Page i's row among the read pages (see readRow), -1 if it has none. */
  readRow(i: number): number {
    return this.row[i]! - 1;
  }

  /** Rows given to read pages so far (0..rowsUsed - 1). */
  get rowsUsed(): number {
    return this.rows;
  }

  /** Bytes of the per-page state beyond the heap: the columns' lengths and the found-at steps. */
  get bytes(): number {
    return this.flags.byteLength + this.row.byteLength + this.dirty.byteLength + this.history.byteLength + this.lastRead.byteLength + this.readCount.byteLength + this.foundAt.bytes;
  }

  isRead(i: number): boolean {
    return (this.flags[i]! & READ) !== 0;
  }

  /** (H + C) / (G + 1): the importance estimate of page i. */
  estimate(i: number): number {
    return (this.historyOf(i) + this.cashOf(i)) / (this.clock + 1);
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
    const amount = this.cashOf(i);
    const row = this.rowOf(i);
    this.history[row]! += amount;
    this.clock += amount;
    this.lastRead[row] = this.clock;
    this.readCount[row]!++;
    this.readsDone++;
    // Out of its class's heap before its class changes (the heap asks partOfPage).
    this.heap.remove(i);
    if ((this.flags[i]! & READ) === 0) {
      this.flags[i]! |= READ;
      this.unreadCount--;
    }
    this.flags[i]! &= ~HELD;
    // No cash left: the key is minus what its pools (now without the unread one) have paid.
    const key = 0 - this.poolsOf(i);
    if (this.selectable(i)) {
      this.heap.set(i, key, this.partOfPage(i));
    } else {
      this.heap.remove(i);
      this.heap.changeKey(i, key);
    }
    this.touch(i);
    // Distinct children other than i itself, credited in the order of their first link.
    const children = this.children;
    children.clear();
    for (let k = 0; k < outLinks.length; k++) {
      const j = outLinks[k]!;
      if (j < 0 || j >= this.pageCount) throw new OptionError('outLinks', `page ${j} is not a known page (0..${this.pageCount - 1})`);
      if (j !== i) children.add(j);
    }
    let toVirtual = amount;
    if (children.size > 0 && amount > 0) {
      const share = (this.damping * amount) / children.size;
      for (const j of children) this.credit(j, share);
      toVirtual = amount - share * children.size;
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

  /**
   * The page with the most cash (Greedy) among enabled groups and pages not held, from the class
   * heaps: O(1). `unreadOnly` looks at pages never read (a crawl's first pass).
   */
  greediest(unreadOnly = false): number {
    let best = -1;
    let bestCash = -Infinity;
    for (let k = unreadOnly ? 1 : 0; k < 4; k += unreadOnly ? 2 : 1) {
      const top = this.heap.top(k);
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
    this.heap.changeKey(j, this.heap.key(j) + amount);
    this.touch(j);
  }

  private selectable(i: number): boolean {
    const flags = this.flags[i]!;
    return (flags & HELD) === 0 && (this.reselectRead || (flags & READ) === 0);
  }

  private partOfPage(i: number): number {
    return this.groupOf(i) * 4 + this.classOf(i);
  }

  private touch(i: number): void {
    if (!this.trackChanges) return;
    const bit = 1 << (i & 7);
    if ((this.dirty[i >>> 3]! & bit) !== 0) return;
    this.dirty[i >>> 3]! |= bit;
    this.changed.push(i);
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

  /** What the pools page i is in have paid each of their pages so far (its cash = its key + this). */
  private poolsOf(i: number): number {
    const flags = this.flags[i]!;
    let paid = this.all;
    if ((flags & READ) === 0) paid += this.unread;
    if ((flags & FOCUS) !== 0) paid += this.focused;
    return paid;
  }

  /** Page i's row among the read pages, given at its first read (or restore with a history). */
  private rowOf(i: number): number {
    const row = this.row[i]! - 1;
    if (row >= 0) return row;
    const next = this.rows++;
    if (next === this.history.length) {
      this.history = grownColumn(this.history, next + 1);
      this.lastRead = grownColumn(this.lastRead, next + 1);
      this.readCount = grownColumn(this.readCount, next + 1);
    }
    this.row[i] = next + 1;
    return next;
  }

  private classOf(i: number): number {
    return (this.flags[i]! & READ ? 0 : 1) + (this.flags[i]! & FOCUS ? 2 : 0);
  }

  /** Every per-page array at `size` entries; all or none are replaced (a refusal throws RangeError). */
  private grow(size: number): void {
    const copy = <T extends Uint32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    const flags = copy(this.flags);
    const row = copy(this.row);
    let dirty = this.dirty;
    if (this.trackChanges && dirty.length * 8 < size) {
      dirty = new Uint8Array(Math.ceil(size / 8));
      dirty.set(this.dirty);
    }
    this.flags = flags;
    this.row = row;
    this.dirty = dirty;
  }
}
