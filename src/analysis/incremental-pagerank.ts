/**
 * PageRank of a growing graph, kept up to date by residual pushes: the live
 * importance of a crawl (docs/live-importance.md). Pages are added at any
 * time; a page's out-links are set when it is fetched (and replaced when it
 * is fetched again). After each change only the pages whose residual the
 * change disturbed are worked on, starting from the previous vector.
 *
 * Convention: the same as pagerank() (damping c, uniform teleport, a
 * dangling page's mass spread like the teleport). A page not fetched yet has
 * no out-links, so it is a dangling page: at any moment the normalised vector
 * is the PageRank of the graph the crawl's store holds (`wga rank --db`).
 *
 * Method. With dangling mass following the teleport distribution, PageRank
 * is proportional to the solution of the sparse linear system
 *   z = c P^T z + (1 - c) 1
 * in which dangling rows of P are simply zero (Del Corso, Gulli, Romani,
 * "Fast PageRank computation via a sparse linear system", 2005, Section 3):
 * x = z / ||z||_1. In that form every change is local: a new page adds one
 * equation with its own source term (1 - c), and new out-links of page u
 * change only the equations of u's targets. We keep z and the residual
 *   r = (1 - c) 1 + c P^T z - z,
 * so that z* = z + (I - c P^T)^{-1} r. A push at page v moves r[v] into
 * z[v] and c r[v] / k onto each of v's k targets (Gauss-Southwell; Berkhin,
 * "Bookmark-coloring algorithm for personalized PageRank computing", 2006;
 * Andersen, Chung, Lang 2006). Since the columns of (I - c P^T)^{-1} sum to
 * at most 1 / (1 - c), ||z* - z||_1 <= ||r||_1 / (1 - c); pushing every page
 * whose |r| is above theta = tolerance (1 - c) ||z||_1 / (2 n) bounds the L1
 * error of the normalised vector by about `tolerance`.
 *
 * A page waiting to be fetched has no out-links, so a push there only moves its residual into its
 * score: the engine does that at once, and keeps for a waiting page its score alone (no residual,
 * no place in the queue, no link offsets), which is what a crawl's known, unfetched URL costs
 * here (issue 38). When it is fetched, its score moves back into its residual (nothing else's
 * equation held it) and its new links carry it on the next push.
 *
 * A waiting page's numbers are single precision, 8 bytes a page: its score z and its guess h
 * (float32), and once fetched NaN in the score's place and its slot in the guess's (an int32 view
 * of the same bytes); a fetched page's z and h are double precision in its slot. Why that is
 * enough: a waiting page's z is determined by the fetched pages' (its source plus what its
 * in-neighbours send, no equation of another page holds it), so the exact vector computes the
 * waiting pages' entries afresh, in double precision, from the fetched pages' scores
 * (exactScores(): what finish() publishes, to 1e-11), and refreshResidual() recomputes every
 * fetched page's residual from double-precision values. Only the live, guessed vectors read the
 * stored single-precision values: a relative error of about 6e-8 per waiting page, against the
 * live tolerance of 1e-5.
 *
 * A graph change updates r exactly: a new page gets its source 1 - c (waiting: in its score); setting u's
 * out-links to T (replacing T_old) adds c z[u] / |T| to r[t] for t in T and
 * subtracts c z[u] / |T_old| from r[t] for t in T_old. Rounding drifts r
 * slowly away from its definition; refreshResidual() recomputes it from z
 * (one pass over the links), which finish() does before the final solve.
 *
 * The links-seen guess (option `guessUnfetched`, the crawler's choice; see
 * links-seen-pagerank.ts and docs/live-importance.md). A page waiting to be
 * fetched has links nobody has seen; the guess sends its mass to each known
 * page v in proportion to cnt(v), the number of fetched pages linking to v
 * (L = sum of cnt = the links of fetched pages). Its estimate z* solves
 *   z* = c P^T z* + c U(z*) cnt / L + (1 - c) 1,   U(y) = sum of y over waiting pages,
 * a dense rank-one term that changes with every fetch. It splits: with z as
 * above (waiting pages dangling) and h the solution of h = c P^T h + cnt,
 *   z* = z + beta h,   beta = c U(z) / (L - c U(h))
 * (substitute and compare the cnt terms). cnt changes sparsely (+1 at each
 * target of a fetched page's links), so h is kept by the same pushes as z,
 * from its own residual r_h = cnt + c P^T h - h; a push moves both. The
 * guessed vector is combined when scores() is read; exactScores() is z alone,
 * the PageRank of the graph as stored (what finish() publishes). Once no page
 * waits, U = 0 and the two are the same.
 */

/** Defaults: the damping of pagerank(); the L1 tolerance of live updates and of the final solve. */
import { columnSize, grown, reservedArrays } from '../util/typed-arrays.js';
import { topKBy } from './top.js';

export const INCREMENTAL_PAGERANK_DEFAULTS = {
  damping: 0.85,
  /**
   * While crawling: far below the estimate's error from the pages not yet seen (its Kendall tau
   * against the final PageRank is 0.3-0.7 during a first pass). 1e-5 rather than 1e-6 since the
   * links-seen guess: a quarter fewer links followed on the generated 100,000-page site, which pays
   * for the guess's second vector (docs/live-importance.md, "Cost").
   */
  tolerance: 1e-5,
  /** At the end (finish): as tight as pagerank()'s default. */
  finalTolerance: 1e-10,
} as const;

/**
 * h (the guess) is solved this many times more loosely than z: an error in h only moves the
 * guessed share of the waiting pages' mass, itself a guess. Keeps the pushes mostly z's alone.
 */
const GUESS_TOLERANCE_FACTOR = 10;

export interface PushReport {
  /** Pages pushed. */
  pushes: number;
  /** Links followed by the pushes. */
  edgeVisits: number;
  /** True when no page's residual is above the threshold of the tolerance. */
  converged: boolean;
}

/**
 * Everything an IncrementalPageRank holds, to carry it to another thread (the typed arrays are
 * the engine's own: transfer them, and drop the engine they came from).
 */
export interface IncrementalPageRankState {
  damping: number;
  guessUnfetched: boolean;
  n: number;
  waitZ: Float32Array;
  word: Int32Array;
  fetchedZ: Float64Array;
  fetchedH: Float64Array;
  mass: number;
  hMass: number;
  fetchedCount: number;
  r: Float64Array;
  rh: Float64Array;
  seenLinks: number;
  start: Int32Array;
  degree: Int32Array;
  links: Int32Array;
  linksUsed: number;
  liveLinks: number;
  queue: Int32Array;
  head: number;
  queued: number;
  inQueue: Uint8Array;
  totalPushes: number;
  totalEdgeVisits: number;
}


export interface IncrementalPageRankOptions {
  /** Guess a waiting page's unseen links from the links seen (see the header): true in the crawler; false: waiting pages are dangling. */
  guessUnfetched?: boolean;
  /**
   * Pages the per-page arrays are reserved for at once (a crawl's page capacity; util/typed-arrays.ts,
   * reservedArrays): only the pages added cost RAM. More still fit: the arrays then grow. 0: start small.
   */
  capacity?: number;
}

export class IncrementalPageRank {
  readonly damping: number;
  /** True while the guess is kept (the option, until stopGuessing()). */
  private guessing: boolean;
  private n = 0;
  // Per page (every page known), 8 bytes (see the header):
  /**
   * A waiting page's unnormalised score (each page's teleport source is 1 - c, see the header);
   * NaN once the page is fetched, whose score is then fetchedZ[its slot].
   */
  private waitZ = new Float32Array(1024);
  /** A waiting page's guess h (as float32 bits, waitH is the view); a fetched page's slot. */
  private word = new Int32Array(1024);
  private waitH = new Float32Array(this.word.buffer);
  /** Sums of z and h, kept as they change. */
  private mass = 0;
  private hMass = 0;
  // Per fetched page (by slot): a waiting page has no out-links, so a push there would only move
  // its residual into its score; it is done at once (z[w] += the amount), and a waiting page needs
  // neither a residual nor a place in the queue.
  private fetchedCount = 0;
  /** Scores z and guesses h of the fetched pages (the guess's empty without it). */
  private fetchedZ = new Float64Array(1024);
  private fetchedH = new Float64Array(0);
  /** Residuals of z and of h. */
  private r = new Float64Array(1024);
  private rh = new Float64Array(0);
  /** L: links of the fetched pages (the sum of cnt). */
  private seenLinks = 0;
  /** Out-links of the page in slot s: links[start[s] .. start[s] + degree[s]). */
  private start = new Int32Array(1024);
  private degree = new Int32Array(1024);
  private links = new Int32Array(4096);
  private linksUsed = 0;
  /** Links of current lists (linksUsed minus the space of replaced lists). */
  private liveLinks = 0;
  /** FIFO of fetched pages (page ids) to push, each at most once: inQueue[slot]. */
  private queue = new Int32Array(1024);
  private head = 0;
  private queued = 0;
  private inQueue = new Uint8Array(1024);
  /** Totals since creation, for cost reports. */
  totalPushes = 0;
  totalEdgeVisits = 0;

  constructor(damping: number = INCREMENTAL_PAGERANK_DEFAULTS.damping, options: IncrementalPageRankOptions = {}) {
    if (!(damping >= 0 && damping < 1)) throw new RangeError(`damping must be in [0, 1), got ${damping}`);
    this.damping = damping;
    this.guessing = options.guessUnfetched ?? false;
    if (this.guessing) {
      this.fetchedH = new Float64Array(1024);
      this.rh = new Float64Array(1024);
    }
    const capacity = options.capacity ?? 0;
    if (capacity > this.waitZ.length) {
      // Room for `capacity` pages, fetched or not, views of one buffer each (util/typed-arrays.ts).
      const pages = reservedArrays<[Float32Array<ArrayBuffer>, Int32Array<ArrayBuffer>]>(capacity, Float32Array, Int32Array);
      const fetched = reservedArrays<[Float64Array<ArrayBuffer>, Float64Array<ArrayBuffer>, Float64Array<ArrayBuffer>, Float64Array<ArrayBuffer>, Int32Array<ArrayBuffer>, Int32Array<ArrayBuffer>, Uint8Array<ArrayBuffer>]>(
        capacity,
        Float64Array,
        Float64Array,
        Float64Array,
        Float64Array,
        Int32Array,
        Int32Array,
        Uint8Array,
      );
      if (pages !== null) {
        [this.waitZ, this.word] = pages;
        this.waitH = new Float32Array(this.word.buffer, this.word.byteOffset, this.word.length);
      }
      if (fetched !== null) {
        const [fetchedZ, fetchedH, r, rh, start, degree, inQueue] = fetched;
        [this.fetchedZ, this.r, this.start, this.degree, this.inQueue] = [fetchedZ, r, start, degree, inQueue];
        if (this.guessing) [this.fetchedH, this.rh] = [fetchedH, rh];
      }
    }
  }

  /** Page v's slot among the fetched pages, or -1 while it waits. */
  private slotOf(v: number): number {
    const z = this.waitZ[v]!;
    return z === z ? -1 : this.word[v]!;
  }

  /** Page v's score z (unnormalised). */
  private zOf(v: number): number {
    const z = this.waitZ[v]!;
    return z === z ? z : this.fetchedZ[this.word[v]!]!;
  }

  /** Page v's guess h (0 without the guess). */
  private hOf(v: number): number {
    if (!this.guessing) return 0;
    const z = this.waitZ[v]!;
    return z === z ? this.waitH[v]! : this.fetchedH[this.word[v]!]!;
  }

  /** Whether the vector guesses the waiting pages' links (the option; false after stopGuessing()). */
  get guessUnfetched(): boolean {
    return this.guessing;
  }

  /**
   * Drops the guess: from now on the engine keeps z alone (waiting pages dangling), and scores()
   * is exactScores(). For the final solve, whose vector is z: the guess's residual is then neither
   * recomputed nor pushed.
   */
  stopGuessing(): void {
    this.guessing = false;
    // Waiting pages' guesses stay in their words (nothing reads them any more); the fetched pages' go.
    this.fetchedH = new Float64Array(0);
    this.rh = new Float64Array(0);
    this.hMass = 0;
  }

  get pages(): number {
    return this.n;
  }

  /** The whole state, arrays included without a copy (see IncrementalPageRankState). */
  exportState(): IncrementalPageRankState {
    const { damping, guessing: guessUnfetched, n, waitZ, word, fetchedZ, fetchedH, mass, hMass, fetchedCount, r, rh, seenLinks, start, degree, links, linksUsed, liveLinks, queue, head, queued, inQueue, totalPushes, totalEdgeVisits } = this;
    return { damping, guessUnfetched, n, waitZ, word, fetchedZ, fetchedH, mass, hMass, fetchedCount, r, rh, seenLinks, start, degree, links, linksUsed, liveLinks, queue, head, queued, inQueue, totalPushes, totalEdgeVisits };
  }

  /** An engine that carries on from an exported state (the same vector, residual and queue). */
  static fromState(state: IncrementalPageRankState): IncrementalPageRank {
    const engine = new IncrementalPageRank(state.damping, { guessUnfetched: state.guessUnfetched });
    engine.n = state.n;
    engine.waitZ = state.waitZ as Float32Array<ArrayBuffer>;
    engine.word = state.word as Int32Array<ArrayBuffer>;
    engine.waitH = new Float32Array(engine.word.buffer, engine.word.byteOffset, engine.word.length);
    engine.fetchedZ = state.fetchedZ as Float64Array<ArrayBuffer>;
    engine.fetchedH = state.fetchedH as Float64Array<ArrayBuffer>;
    engine.mass = state.mass;
    engine.hMass = state.hMass;
    engine.fetchedCount = state.fetchedCount;
    engine.r = state.r as Float64Array<ArrayBuffer>;
    engine.rh = state.rh as Float64Array<ArrayBuffer>;
    engine.seenLinks = state.seenLinks;
    engine.start = state.start as Int32Array<ArrayBuffer>;
    engine.degree = state.degree as Int32Array<ArrayBuffer>;
    engine.links = state.links as Int32Array<ArrayBuffer>;
    engine.linksUsed = state.linksUsed;
    engine.liveLinks = state.liveLinks;
    engine.queue = state.queue as Int32Array<ArrayBuffer>;
    engine.head = state.head;
    engine.queued = state.queued;
    engine.inQueue = state.inQueue as Uint8Array<ArrayBuffer>;
    engine.totalPushes = state.totalPushes;
    engine.totalEdgeVisits = state.totalEdgeVisits;
    return engine;
  }

  /** The arrays of an exported state, each buffer once (views reserved together share one): to transfer. */
  static buffersOf(state: IncrementalPageRankState): ArrayBuffer[] {
    const arrays = [state.waitZ, state.word, state.fetchedZ, state.fetchedH, state.r, state.rh, state.start, state.degree, state.links, state.queue, state.inQueue];
    return [...new Set(arrays.map((array) => array.buffer as ArrayBuffer))];
  }

  get linkCount(): number {
    return this.liveLinks;
  }

  /** Bytes held by the typed arrays (their lengths: reserved room included). */
  get bytes(): number {
    return [this.waitZ, this.word, this.fetchedZ, this.fetchedH, this.r, this.rh, this.start, this.degree, this.links, this.queue, this.inQueue].reduce((sum, array) => sum + array.byteLength, 0);
  }

  /** Adds pages until there are `total` (ids n .. total - 1), each with no out-links yet. */
  growTo(total: number): void {
    if (total <= this.n) return;
    if (total > this.waitZ.length) {
      const size = columnSize(this.waitZ.length, total, Int32Array.BYTES_PER_ELEMENT);
      this.waitZ = grown(this.waitZ, size);
      this.word = grown(this.word, size);
      this.waitH = new Float32Array(this.word.buffer, this.word.byteOffset, this.word.length);
    }
    // A new page waits: its source 1 - c goes straight into its score (see the fields).
    const source = 1 - this.damping;
    const stored = Math.fround(source);
    for (let v = this.n; v < total; v++) this.waitZ[v] = stored;
    this.mass += stored * (total - this.n);
    this.n = total;
  }

  /**
   * Sets (or replaces) the out-links of page u, which no longer waits (an empty list: fetched
   * without links, or finished without a fetch); targets must be pages already added, distinct, not u.
   */
  setLinks(u: number, targets: ArrayLike<number>): void {
    this.checkPage(u);
    const c = this.damping;
    let s = this.slotOf(u);
    if (s < 0) s = this.startFetching(u);
    const zu = this.fetchedZ[s]!;
    const oldDegree = this.degree[s]!;
    if (oldDegree > 0 && zu !== 0) {
      const share = (c * zu) / oldDegree;
      const from = this.start[s]!;
      for (let e = from; e < from + oldDegree; e++) this.addResidual(this.links[e]!, -share);
    }
    if (this.guessing && oldDegree > 0) {
      // The old links leave cnt (source of h) and carry h[u] no more.
      const share = 1 + (c * this.fetchedH[s]!) / oldDegree;
      const from = this.start[s]!;
      for (let e = from; e < from + oldDegree; e++) this.addGuessResidual(this.links[e]!, -share);
      this.seenLinks -= oldDegree;
    }
    this.liveLinks -= oldDegree;
    const k = targets.length;
    if (k > oldDegree) {
      if (this.linksUsed + k > this.links.length) this.compactOrGrow(k);
      this.start[s] = this.linksUsed;
      this.linksUsed += k;
    }
    const from = this.start[s]!;
    for (let i = 0; i < k; i++) {
      const t = targets[i]!;
      this.checkPage(t);
      this.links[from + i] = t;
    }
    this.degree[s] = k;
    this.liveLinks += k;
    if (k > 0 && zu !== 0) {
      const share = (c * zu) / k;
      for (let e = from; e < from + k; e++) this.addResidual(this.links[e]!, share);
    }
    if (this.guessing && k > 0) {
      const share = 1 + (c * this.fetchedH[s]!) / k;
      for (let e = from; e < from + k; e++) this.addGuessResidual(this.links[e]!, share);
      this.seenLinks += k;
    }
  }

  /**
   * Page u waits no more: it gets a slot, and its scores move back into its residuals (z[u] and
   * h[u] to 0). That keeps r's definition (u has no out-links yet, so no other page's equation
   * holds z[u]), and its links then carry its whole mass when it is pushed.
   */
  private startFetching(u: number): number {
    const s = this.fetchedCount++;
    if (s === this.r.length) {
      const size = columnSize(this.r.length, s + 1, Uint8Array.BYTES_PER_ELEMENT);
      this.fetchedZ = grown(this.fetchedZ, size);
      this.r = grown(this.r, size);
      if (this.guessing) {
        this.fetchedH = grown(this.fetchedH, size);
        this.rh = grown(this.rh, size);
      }
      this.start = grown(this.start, size);
      this.degree = grown(this.degree, size);
      this.inQueue = grown(this.inQueue, size);
    }
    if (this.queue.length < this.fetchedCount) this.growQueue(Math.max(this.fetchedCount, 2 * this.queue.length));
    const z = this.waitZ[u]!;
    this.r[s] = z;
    this.mass -= z;
    this.fetchedZ[s] = 0;
    if (this.guessing) {
      const h = this.waitH[u]!;
      this.rh[s] = h;
      this.hMass -= h;
      this.fetchedH[s] = 0;
    }
    // Fetched: NaN in the score's place, the slot in the word (after the guess was read from it).
    this.waitZ[u] = Number.NaN;
    this.word[u] = s;
    if (this.r[s] !== 0 || (this.guessing && this.rh[s] !== 0)) this.enqueue(u, s);
    return s;
  }

  /** Adds out-links to page u's list (targets not in it yet). */
  addLinks(u: number, targets: ArrayLike<number>): void {
    if (targets.length === 0) return;
    const all = Array.from(this.outLinks(u));
    for (let i = 0; i < targets.length; i++) all.push(targets[i]!);
    this.setLinks(u, all);
  }

  /** The out-links of page u (a view: copy it to keep it). */
  outLinks(u: number): Int32Array {
    const s = this.slotOf(u);
    if (s < 0) return this.links.subarray(0, 0);
    const from = this.start[s]!;
    return this.links.subarray(from, from + this.degree[s]!);
  }

  /** The push threshold that bounds the normalised vector's L1 error by about `tolerance`. */
  threshold(tolerance: number): number {
    if (this.n === 0) return Infinity;
    // ||z||_1 >= (1 - c) n (every page holds at least its own source once pushed); use the larger.
    const mass = Math.max(this.mass, (1 - this.damping) * this.n);
    return (tolerance * (1 - this.damping) * mass) / (2 * this.n);
  }

  /**
   * The guess's push threshold: threshold() relative to h's sum (at least L, its sources). An
   * error d in h is an error beta d in z* = z + beta h, whose sum is at least beta ||h||_1: the
   * same relative accuracy as z's.
   */
  private guessThreshold(tolerance: number): number {
    if (!this.guessing || this.n === 0 || this.seenLinks === 0) return Infinity;
    return (tolerance * (1 - this.damping) * Math.max(this.hMass, this.seenLinks)) / (2 * this.n);
  }

  /**
   * Pushes until no residual is above threshold(tolerance), or after about `maxEdgeVisits` links
   * (then converged is false and the next call carries on). With the guess a push moves z's
   * residual, h's, or both along the page's links (visited once), each only when it is above its
   * own threshold: most pushes are z's alone (h is kept looser, GUESS_TOLERANCE_FACTOR) and cost
   * what they cost without the guess. What reaches a waiting page goes into its score at once.
   */
  solve(tolerance: number = INCREMENTAL_PAGERANK_DEFAULTS.tolerance, maxEdgeVisits = Infinity): PushReport {
    const theta = this.threshold(tolerance);
    const guess = this.guessing;
    const thetaH = this.guessThreshold(tolerance * GUESS_TOLERANCE_FACTOR);
    const c = this.damping;
    const { waitZ, waitH, word, fetchedZ, fetchedH, r, rh, start, degree, links, inQueue } = this;
    let pushes = 0;
    let edgeVisits = 0;
    while (this.queued > 0) {
      if (edgeVisits >= maxEdgeVisits) {
        this.totalPushes += pushes;
        this.totalEdgeVisits += edgeVisits;
        return { pushes, edgeVisits, converged: false };
      }
      const v = this.dequeue();
      const sv = word[v]!;
      inQueue[sv] = 0;
      const rv = r[sv]!;
      const hv = guess ? rh[sv]! : 0;
      const moveZ = Math.abs(rv) > theta;
      const moveH = Math.abs(hv) > thetaH;
      if (!moveZ && !moveH) continue;
      if (moveZ) {
        r[sv] = 0;
        fetchedZ[sv]! += rv;
        this.mass += rv;
      }
      if (moveH) {
        rh[sv] = 0;
        fetchedH[sv]! += hv;
        this.hMass += hv;
      }
      pushes++;
      const k = degree[sv]!;
      if (k === 0) continue;
      const from = start[sv]!;
      const end = from + k;
      const share = moveZ ? (c * rv) / k : 0;
      const shareH = moveH ? (c * hv) / k : 0;
      let toWaiting = 0;
      if (moveZ && !moveH) {
        for (let e = from; e < end; e++) {
          const w = links[e]!;
          const zw = waitZ[w]!;
          if (zw === zw) {
            waitZ[w] = zw + share;
            toWaiting++;
            continue;
          }
          const sw = word[w]!;
          const value = r[sw]! + share;
          r[sw] = value;
          if (inQueue[sw] === 0 && Math.abs(value) > theta) this.enqueue(w, sw);
        }
        this.mass += share * toWaiting;
      } else {
        // h moves (z too when moveZ; share is 0 otherwise).
        for (let e = from; e < end; e++) {
          const w = links[e]!;
          const zw = waitZ[w]!;
          if (zw === zw) {
            waitZ[w] = zw + share;
            waitH[w]! += shareH;
            toWaiting++;
            continue;
          }
          const sw = word[w]!;
          const value = r[sw]! + share;
          r[sw] = value;
          const valueH = rh[sw]! + shareH;
          rh[sw] = valueH;
          if (inQueue[sw] === 0 && (Math.abs(value) > theta || Math.abs(valueH) > thetaH)) this.enqueue(w, sw);
        }
        this.mass += share * toWaiting;
        this.hMass += shareH * toWaiting;
      }
      edgeVisits += k;
    }
    this.totalPushes += pushes;
    this.totalEdgeVisits += edgeVisits;
    return { pushes, edgeVisits, converged: true };
  }

  /**
   * Brings z near its solution by Gauss-Seidel sweeps over the fetched pages' in-links, before a
   * tight final solve (the crawl's end: finish()). Only fetched pages send mass (a waiting page is
   * dangling), so the fetched pages' scores solve a system of their own,
   *   z_F = (1 - c) 1 + c P_FF^T z_F,
   * and the waiting pages' scores follow from them in one pass (refreshResidual() does it, and
   * recomputes the residual, so that solve() after it bounds the error as always).
   *
   * Why: near a tight tolerance almost every page is above the push threshold, and each push
   * pays for the queue and a test per link. At 10^6 fetched pages and 6 x 10^6 links the crawl's
   * final solve by pushes followed 3.5 x 10^8 links at about 150 ns each (51 s); a sweep follows
   * the same links reading its in-neighbours' scores, with no queue (BENCHMARKS.md, issue 38).
   *
   * The in-lists of the fetched pages (slot numbers: 4 bytes per link between fetched pages, and
   * 36 bytes per fetched page with the scores) live only during the call. Sweeps stop when the sum
   * of a sweep's changes is a tenth of `tolerance`'s push threshold summed over the pages (the
   * error bound's residual, so that few pages are left above the threshold for solve()), or after
   * `maxSweeps`. Returns the sweeps made.
   */
  sweepFetched(tolerance: number, maxSweeps = 1000): number {
    const c = this.damping;
    const F = this.fetchedCount;
    if (F === 0) return 0;
    const { fetchedZ, start, degree, links } = this;
    // Each fetched page's share factor c / (its out-degree).
    const perLink = new Float64Array(F);
    const offsets = new Int32Array(F + 1);
    for (let s = 0; s < F; s++) {
      const k = degree[s]!;
      if (k > 0) perLink[s] = c / k;
      const from = start[s]!;
      for (let e = from; e < from + k; e++) {
        const t = this.slotOf(links[e]!);
        if (t >= 0) offsets[t + 1]!++;
      }
    }
    for (let s = 0; s < F; s++) offsets[s + 1]! += offsets[s]!;
    const sources = new Int32Array(offsets[F]!);
    const fill = offsets.slice(0, F);
    for (let s = 0; s < F; s++) {
      const k = degree[s]!;
      const from = start[s]!;
      for (let e = from; e < from + k; e++) {
        const t = this.slotOf(links[e]!);
        if (t >= 0) sources[fill[t]!++] = s;
      }
    }
    // The scores by slot, swept in place (Gauss-Seidel: each page sees this sweep's earlier values),
    // and what each sends along each of its links (score times c / k): one read per in-link.
    const x = new Float64Array(F);
    const sent = new Float64Array(F);
    for (let s = 0; s < F; s++) {
      x[s] = fetchedZ[s]!;
      sent[s] = x[s]! * perLink[s]!;
    }
    const stop = (this.threshold(tolerance) * this.n) / 10;
    const source = 1 - c;
    let sweeps = 0;
    while (sweeps < maxSweeps) {
      sweeps++;
      let change = 0;
      for (let s = 0; s < F; s++) {
        let sum = 0;
        for (let e = offsets[s]!, end = offsets[s + 1]!; e < end; e++) sum += sent[sources[e]!]!;
        const value = source + sum;
        change += Math.abs(value - x[s]!);
        x[s] = value;
        sent[s] = value * perLink[s]!;
      }
      if (change <= stop) break;
    }
    fetchedZ.set(x);
    return sweeps;
  }

  /** True when pages wait to be pushed (changes not worked in yet, at the last threshold). */
  get pending(): boolean {
    return this.queued > 0;
  }

  /**
   * Recomputes the residual from z and its definition (one pass over the links); queues every
   * fetched page. A waiting page's score is set to what its definition gives (its source and what
   * its fetched in-neighbours send), its residual being always zero.
   */
  refreshResidual(): void {
    const c = this.damping;
    const { waitZ, word, fetchedZ, r, start, degree, links } = this;
    const n = this.n;
    const F = this.fetchedCount;
    const source = Math.fround(1 - c);
    for (let s = 0; s < F; s++) r[s] = 1 - c - fetchedZ[s]!;
    for (let v = 0; v < n; v++) if (waitZ[v] === waitZ[v]) waitZ[v] = source;
    let mass = source * (n - F);
    for (let s = 0; s < F; s++) {
      mass += fetchedZ[s]!;
      const k = degree[s]!;
      if (k === 0 || fetchedZ[s] === 0) continue;
      const share = (c * fetchedZ[s]!) / k;
      const from = start[s]!;
      for (let e = from; e < from + k; e++) {
        const w = links[e]!;
        const zw = waitZ[w]!;
        if (zw === zw) {
          waitZ[w] = zw + share;
          mass += share;
        } else r[word[w]!]! += share;
      }
    }
    this.mass = mass;
    if (this.guessing) {
      const { waitH, fetchedH, rh } = this;
      for (let s = 0; s < F; s++) rh[s] = -fetchedH[s]!;
      for (let v = 0; v < n; v++) if (waitZ[v] === waitZ[v]) waitH[v] = 0;
      let hMass = 0;
      for (let s = 0; s < F; s++) {
        hMass += fetchedH[s]!;
        const k = degree[s]!;
        if (k === 0) continue;
        const share = 1 + (c * fetchedH[s]!) / k;
        const from = start[s]!;
        for (let e = from; e < from + k; e++) {
          const w = links[e]!;
          if (waitZ[w] === waitZ[w]) {
            waitH[w]! += share;
            hMass += share;
          } else rh[word[w]!]! += share;
        }
      }
      this.hMass = hMass;
    }
    for (let v = 0; v < n; v++) {
      if (waitZ[v] === waitZ[v]) continue;
      const s = word[v]!;
      if (this.inQueue[s] === 0) this.enqueue(v, s);
    }
  }

  /** An upper bound of the normalised vector's L1 error: 2 ||r||_1 / ((1 - c) ||z||_1). */
  errorBound(): number {
    let total = 0;
    for (let s = 0; s < this.fetchedCount; s++) total += Math.abs(this.r[s]!);
    const mass = Math.max(this.mass, 1e-300);
    return (2 * total) / ((1 - this.damping) * mass);
  }

  /**
   * What a vector's entry v is: (z[v] + beta h[v]) / total. With the guess, beta is the waiting
   * pages' share of the links seen (the header's beta); without it, or when it cannot be formed
   * (nothing seen or waiting yet; an unconverged h making the denominator non-positive), 0.
   */
  private combination(exact: boolean): { beta: number; total: number } {
    const { waitZ, waitH, fetchedZ, fetchedH } = this;
    const F = this.fetchedCount;
    let waitingZ = 0;
    let waitingH = 0;
    const guessed = !exact && this.guessing;
    for (let v = 0; v < this.n; v++) {
      const z = waitZ[v]!;
      if (z !== z) continue;
      waitingZ += z;
      if (guessed) waitingH += waitH[v]!;
    }
    let beta = 0;
    if (guessed && this.seenLinks > 0) {
      const denominator = this.seenLinks - this.damping * waitingH;
      // Positive for the exact vectors (the guessed chain is substochastic); an unconverged h could
      // break that, and then the guess is left out of this vector.
      if (waitingZ !== 0 && denominator > 0) beta = (this.damping * waitingZ) / denominator;
    }
    let total = waitingZ;
    for (let s = 0; s < F; s++) total += fetchedZ[s]!;
    if (beta !== 0) {
      total += beta * waitingH;
      for (let s = 0; s < F; s++) total += beta * fetchedH[s]!;
    }
    return { beta, total };
  }

  /** The vector (the guess combined in, while guessing), normalised to sum 1: a new array. */
  scores(): Float64Array {
    return this.vector(false);
  }

  /**
   * The k best pages of scores() (exactScores() if `exact`), best first, [page, score], without
   * building the guessed vector: what a crawl shows while it runs needs no more (issue 38: a vector
   * of every known page, published each second, was 8 to 24 bytes of the crawler's RAM per page).
   * The exact vector's (computed afresh, see exactScores) is the best of that vector; pass it as
   * `vector` when it is built already.
   */
  top(k: number, exact = false, vector: Float64Array | null = null): Array<[number, number]> {
    if (exact) {
      const x = vector ?? this.exactScores();
      return Array.from(topKBy(this.n, (v) => x[v]!, k), (v) => [v, x[v]!]);
    }
    const { beta, total } = this.combination(false);
    // Divided as vector() divides, so that the values are the vector's own, bit for bit.
    const divisor = total > 0 ? total : 1;
    const scoreOf = beta === 0 ? (v: number): number => this.zOf(v) / divisor : (v: number): number => (this.zOf(v) + beta * this.hOf(v)) / divisor;
    return Array.from(topKBy(this.n, scoreOf, k), (v) => [v, scoreOf(v)]);
  }

  private vector(exact: boolean): Float64Array {
    // Without the guess the vector is the exact one, computed afresh (the stored waiting scores are single precision).
    if (exact || !this.guessing) return this.exactVector();
    const { beta, total } = this.combination(false);
    const x = new Float64Array(this.n);
    for (let v = 0; v < this.n; v++) x[v] = beta === 0 ? this.zOf(v) : this.zOf(v) + beta * this.hOf(v);
    if (total > 0) for (let v = 0; v < this.n; v++) x[v]! /= total;
    return x;
  }

  /**
   * z with every waiting page's entry computed afresh in double precision from its definition
   * (its source 1 - c and what its fetched in-neighbours send: see the header), normalised.
   */
  private exactVector(): Float64Array {
    const c = this.damping;
    const { waitZ, word, fetchedZ, start, degree, links } = this;
    const n = this.n;
    const x = new Float64Array(n);
    for (let v = 0; v < n; v++) {
      const z = waitZ[v]!;
      x[v] = z === z ? 1 - c : fetchedZ[word[v]!]!;
    }
    for (let v = 0; v < n; v++) {
      const z = waitZ[v]!;
      if (z === z) continue;
      const s = word[v]!;
      const k = degree[s]!;
      if (k === 0 || fetchedZ[s] === 0) continue;
      const share = (c * fetchedZ[s]!) / k;
      const from = start[s]!;
      for (let e = from; e < from + k; e++) {
        const w = links[e]!;
        if (waitZ[w] === waitZ[w]) x[w]! += share;
      }
    }
    let total = 0;
    for (let v = 0; v < n; v++) total += x[v]!;
    if (total > 0) for (let v = 0; v < n; v++) x[v]! /= total;
    return x;
  }

  /** Pages waiting (added, links never set): those the guess is for. */
  get waiting(): number {
    return this.n - this.fetchedCount;
  }

  /** The PageRank of the graph as given (waiting pages dangling), normalised to sum 1 (a new array). */
  exactScores(): Float64Array {
    return this.vector(true);
  }

  private checkPage(v: number): void {
    if (!(Number.isInteger(v) && v >= 0 && v < this.n)) throw new RangeError(`page ${v} is not one of the ${this.n} pages`);
  }

  /** Adds to page w's residual (a waiting page: to its score at once). */
  private addResidual(w: number, amount: number): void {
    const s = this.slotOf(w);
    if (s < 0) {
      this.waitZ[w]! += amount;
      this.mass += amount;
      return;
    }
    this.r[s]! += amount;
    if (this.inQueue[s] === 0) this.enqueue(w, s);
  }

  private addGuessResidual(w: number, amount: number): void {
    const s = this.slotOf(w);
    if (s < 0) {
      this.waitH[w]! += amount;
      this.hMass += amount;
      return;
    }
    this.rh[s]! += amount;
    if (this.inQueue[s] === 0) this.enqueue(w, s);
  }

  // The queue is a ring; a wrap by comparison rather than % (an integer division per page).
  private enqueue(v: number, s: number): void {
    let at = this.head + this.queued;
    if (at >= this.queue.length) at -= this.queue.length;
    this.queue[at] = v;
    this.queued++;
    this.inQueue[s] = 1;
  }

  private dequeue(): number {
    const v = this.queue[this.head]!;
    this.head++;
    if (this.head === this.queue.length) this.head = 0;
    this.queued--;
    return v;
  }

  /** The queue holds each fetched page at most once: its length follows the fetched pages. */
  private growQueue(size: number): void {
    if (size <= this.queue.length) return;
    const next = new Int32Array(size);
    for (let i = 0; i < this.queued; i++) next[i] = this.queue[(this.head + i) % this.queue.length]!;
    this.queue = next;
    this.head = 0;
  }

  /** Room for k more links: drops the space of replaced lists when it is most of the pool, else grows. */
  private compactOrGrow(k: number): void {
    if (this.liveLinks + k <= this.links.length / 2) {
      const next = new Int32Array(this.links.length);
      let used = 0;
      for (let s = 0; s < this.fetchedCount; s++) {
        const from = this.start[s]!;
        const d = this.degree[s]!;
        next.set(this.links.subarray(from, from + d), used);
        this.start[s] = used;
        used += d;
      }
      this.links = next;
      this.linksUsed = used;
      return;
    }
    this.links = grown(this.links, columnSize(this.links.length, this.linksUsed + k, Int32Array.BYTES_PER_ELEMENT));
  }
}
