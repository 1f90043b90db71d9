/**
 * Adaptive OPIC (Abiteboul, Preda, Cobena, Section 3.3; NOTES section 3):
 * page importance over a recent window of the history, so that it follows a
 * changing graph. Reads, cash and the virtual page are OPIC's (opic.ts);
 * only the history kept per page differs.
 *
 * A measure is what a read credited: the cash c_r at G-time g_r, gathered
 * since the page's previous read at g_(r-1). A window of consecutive
 * measures a..b estimates the page's importance as a rate of cash per unit
 * of G-time, (sum of c_a..c_b + cash now) / (G now - g_(a-1)); rates of all
 * pages add up to about 1 because a unit of G-time moves a unit of cash.
 * The policies differ in which measures they keep:
 * - Fixed Window (T): the reads of the last T units of G-time;
 * - Variable Window (k): the last k reads;
 * - Improved Fixed Window (T, min): the reads of the last T, and at least the last `min`;
 * - Interpolation (T): no list, one measure: H[i] estimates the cash gathered
 *   during the T before the last read and G[i] is that read's time. On a read,
 *   with D = G - G[i]: H = H (T - D) / T + C if D < T, else H = C T / D. The
 *   estimate is H / T. What is kept is that estimate, R = H / T, updated as
 *   R = R (T - D) / T + C / T, or C / D: a crawler lengthens T as it learns
 *   the G-time of a pass, and with R kept a new T costs nothing, where
 *   rescaling every H was a loop over every known page at each checkpoint.
 * New pages get a default history: the mean rate of the pages most recently
 * read for the first time (recently introduced pages), as the paper does.
 * A page never read keeps that default as it was when the page was found; it
 * changes only at reads, so those defaults are steps of one table and R has a
 * column over the read pages' rows only (opic.ts, readRow; issue 38).
 */
import { OptionError } from '../errors.js';
import { StepTable } from '../util/step-table.js';
import { grownColumn, reservedArray } from '../util/typed-arrays.js';
import { Opic, type OpicOptions, type OpicPageState, type OpicStrategy } from './opic.js';

export type WindowPolicy =
  | { kind: 'fixed'; window: number }
  | { kind: 'variable'; measures: number }
  | { kind: 'improved-fixed'; window: number; minimumMeasures: number }
  | { kind: 'interpolation'; window: number };

/** How many recently introduced pages the default history averages. */
const RECENT_PAGES = 64;

export class AdaptiveOpic {
  readonly opic: Opic;
  private policy: WindowPolicy;
  /** Per page: the G-times g_(a-1), g_a, ..., g_b of the kept window, and the cash c_a..c_b. */
  private times: number[][] = [];
  private amounts: number[][] = [];
  /** Interpolation: R = H / T, the estimate of each read page, by its row (opic.ts, readRow). */
  private rowRates: Float64Array = new Float64Array(16);
  /** R of each page never read: the default rate when it was found (steps: it changes only at reads). */
  private readonly foundRates = new StepTable(0);
  private readonly recentRates: number[] = [];
  /** The median of recentRates, until they change (null: to compute). */
  private medianRate: number | null = null;

  constructor(policy: WindowPolicy, options: OpicOptions = {}) {
    checkPolicy(policy);
    this.policy = policy;
    this.opic = new Opic(options);
    const capacity = options.capacity ?? 0;
    if (capacity > this.rowRates.length) this.rowRates = reservedArray(Float64Array, capacity) ?? this.rowRates;
  }

  /** A graph of `pages` pages known from the start, each with cash 1/pages. */
  static withPages(pages: number, policy: WindowPolicy, options: OpicOptions = {}): AdaptiveOpic {
    const adaptive = new AdaptiveOpic(policy, options);
    for (let i = 0; i < pages; i++) adaptive.addPage();
    adaptive.opic.distributeInitialCash(Int32Array.from({ length: pages }, (_, i) => i));
    return adaptive;
  }

  get pages(): number {
    return this.opic.pages;
  }

  addPage(focus = false, group = 0): number {
    const id = this.opic.addPage(focus, group);
    this.addHistory();
    if (this.policy.kind === 'interpolation') this.foundRates.set(id, this.defaultRate());
    return id;
  }

  /** Adds a page with a saved OPIC state and, for Interpolation, its saved rate R (see windowRate). */
  restorePage(state: OpicPageState, windowRate: number, group = 0): number {
    const id = this.opic.restorePage(state, group);
    this.addHistory();
    const row = this.opic.readRow(id);
    if (row >= 0) {
      const at = this.rateRow(row); // first: it may replace the column
      this.rowRates[at] = windowRate;
    } else {
      this.foundRates.set(id, windowRate);
    }
    return id;
  }

  /** Interpolation's R of page i, H / T, as a checkpoint saves it (exactly what restorePage takes back). */
  windowRate(i: number): number {
    const row = this.opic.readRow(i);
    return row >= 0 ? this.rowRates[row]! : this.foundRates.get(i);
  }

  /** Interpolation's H of page i (the cash gathered over the window before its last read). */
  interpolatedHistory(i: number): number {
    return this.windowRate(i) * (this.policy.kind === 'interpolation' ? this.policy.window : 1);
  }

  /** Bytes of the rates beyond OPIC's: the rows' column and the found-at steps. */
  get bytes(): number {
    return this.rowRates.byteLength + this.foundRates.bytes;
  }

  /** The rates of the recently introduced pages, which new pages' default history comes from. */
  /** A copy of the introduction rates kept (the last RECENT_PAGES), to checkpoint. */
  get recentIntroductions(): readonly number[] {
    return this.recentRates.slice();
  }

  set recentIntroductions(rates: readonly number[]) {
    const kept = rates.slice(-RECENT_PAGES);
    this.recentRates.length = 0;
    this.recentRates.push(...kept);
    this.medianRate = null;
  }

  /**
   * Changes the length T of an Interpolation window (a crawler measures it in passes over the
   * pages, whose G-time it only learns as it goes). The H values follow (H = R T), in O(1).
   */
  setWindow(window: number): void {
    if (this.policy.kind !== 'interpolation') throw new OptionError('window', 'only an Interpolation window can be changed');
    const next: WindowPolicy = { kind: 'interpolation', window };
    checkPolicy(next);
    this.policy = next;
  }

  get window(): WindowPolicy {
    return this.policy;
  }

  private addHistory(): void {
    // Interpolation keeps one number per read page; only the list policies keep lists.
    if (this.policy.kind !== 'interpolation') {
      this.times.push([this.opic.time]);
      this.amounts.push([]);
    }
  }

  /** `row`, once the rates' column has room for it. */
  private rateRow(row: number): number {
    if (row >= this.rowRates.length) this.rowRates = grownColumn(this.rowRates, row + 1);
    return row;
  }

  next(strategy: OpicStrategy): number {
    return this.opic.next(strategy);
  }

  /** Reads page i (see Opic.read) and records the measure in its history. */
  read(i: number, outLinks: ArrayLike<number>): number {
    const previous = this.opic.lastReadTime(i);
    const firstRead = !this.opic.isRead(i);
    const rate = this.windowRate(i);
    const amount = this.opic.read(i, outLinks);
    const now = this.opic.time;
    const row = this.rateRow(this.opic.readRow(i));
    this.rowRates[row] = rate;
    if (this.policy.kind === 'interpolation') {
      const window = this.policy.window;
      const elapsed = now - previous;
      this.rowRates[row] = elapsed < window ? (rate * (window - elapsed)) / window + amount / window : amount / Math.max(elapsed, 1e-300);
    } else {
      const times = this.times[i]!;
      const amounts = this.amounts[i]!;
      times.push(now);
      amounts.push(amount);
      this.prune(times, amounts, now);
    }
    // The rate a new page is observed to gather: its first cash over the G-time since it was
    // introduced. (Not rate(i), which contains the default history it was given: feeding that back
    // into the default made it grow on itself, to many times the mean importance 1/n.)
    if (firstRead && now - previous > 0) {
      this.recentRates.push(amount / (now - previous));
      if (this.recentRates.length > RECENT_PAGES) this.recentRates.shift();
      this.medianRate = null;
    }
    return amount;
  }

  /** Page i's importance as a rate of cash per unit of G-time. */
  rate(i: number): number {
    const now = this.opic.time;
    if (this.policy.kind === 'interpolation') return this.windowRate(i);
    const times = this.times[i]!;
    const amounts = this.amounts[i]!;
    let sum = this.opic.cashOf(i);
    for (const c of amounts) sum += c;
    const span = now - times[0]!;
    if (span > 0) return sum / span;
    return this.defaultRate();
  }

  /** Estimates of all pages, normalised to add up to 1. */
  estimates(): Float64Array {
    const result = new Float64Array(this.pages);
    let total = 0;
    for (let i = 0; i < this.pages; i++) {
      result[i] = this.rate(i);
      total += result[i]!;
    }
    if (total > 0) for (let i = 0; i < this.pages; i++) result[i]! /= total;
    return result;
  }

  /** Measures stored per page on average (the paper's Figure 5): 1 for Interpolation. */
  measuresPerPage(): number {
    if (this.policy.kind === 'interpolation') return 1;
    let total = 0;
    for (const amounts of this.amounts) total += amounts.length;
    return this.pages === 0 ? 0 : total / this.pages;
  }

  /** The typical (median) observed rate of the pages most recently read for the first time. */
  private defaultRate(): number {
    if (this.recentRates.length === 0) return 0;
    // Kept until the rates change: every page found asks for it (a sort per new page showed in crawl profiles).
    if (this.medianRate !== null) return this.medianRate;
    // The median: a page read just after it was found (its first cash came in one payment, in little
    // G-time) shows a burst rate far above its long-run one, and a few such pages would rule a mean.
    // A typed array's own sort (numeric, native): a comparator sort of the 64 was 3% of a crawl's
    // main thread, since a page read for the first time changes the rates.
    const sorted = Float64Array.from(this.recentRates).sort();
    const middle = sorted.length >> 1;
    this.medianRate = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
    return this.medianRate;
  }

  /** Drops the measures the policy does not keep (times[0] is the start of the oldest kept one). */
  private prune(times: number[], amounts: number[], now: number): void {
    const policy = this.policy;
    let drop = 0;
    if (policy.kind === 'variable') {
      drop = Math.max(0, amounts.length - policy.measures);
    } else if (policy.kind === 'fixed' || policy.kind === 'improved-fixed') {
      // Keep the reads made within the last `window` of G-time.
      while (drop < amounts.length - 1 && times[drop + 1]! < now - policy.window) drop++;
      if (policy.kind === 'improved-fixed') drop = Math.min(drop, Math.max(0, amounts.length - policy.minimumMeasures));
    }
    if (drop > 0) {
      times.splice(0, drop);
      amounts.splice(0, drop);
    }
  }
}

function checkPolicy(policy: WindowPolicy): void {
  const positive = (name: string, value: number): void => {
    if (!(value > 0 && Number.isFinite(value))) throw new OptionError(name, `must be a positive number, got ${value}`);
  };
  if (policy.kind === 'variable') {
    if (!(Number.isInteger(policy.measures) && policy.measures >= 1)) {
      throw new OptionError('measures', `must be a positive integer, got ${policy.measures}`);
    }
  } else {
    positive('window', policy.window);
    if (policy.kind === 'improved-fixed' && !(Number.isInteger(policy.minimumMeasures) && policy.minimumMeasures >= 1)) {
      throw new OptionError('minimum-measures', `must be a positive integer, got ${policy.minimumMeasures}`);
    }
  }
}
