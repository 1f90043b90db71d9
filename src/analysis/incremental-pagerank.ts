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
 * A graph change updates r exactly: a new page gets r = 1 - c; setting u's
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
  z: Float64Array;
  r: Float64Array;
  mass: number;
  h: Float64Array;
  rh: Float64Array;
  hMass: number;
  fetched: Uint8Array;
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

function grownFloat(array: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

function grownInt(array: Int32Array, size: number, fill = 0): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(size, array.length * 2));
  if (fill !== 0) next.fill(fill, array.length);
  next.set(array);
  return next;
}

export interface IncrementalPageRankOptions {
  /** Guess a waiting page's unseen links from the links seen (see the header): true in the crawler; false: waiting pages are dangling. */
  guessUnfetched?: boolean;
}

export class IncrementalPageRank {
  readonly damping: number;
  /** True while the guess is kept (the option, until stopGuessing()). */
  private guessing: boolean;
  private n = 0;
  /** Unnormalised scores: each page's teleport source is 1 - c (see the header). */
  private z = new Float64Array(1024);
  private r = new Float64Array(1024);
  /** Sum of z, kept as pushes change it. */
  private mass = 0;
  /** The guess's vector and residual (see the header; empty without the guess), and the sum of h. */
  private h = new Float64Array(0);
  private rh = new Float64Array(0);
  private hMass = 0;
  /** 1 once a page's links were set (fetched, or finished without links): it no longer waits. */
  private fetched = new Uint8Array(1024);
  /** L: links of the fetched pages (the sum of cnt). */
  private seenLinks = 0;
  /** Out-links of page u: links[start[u] .. start[u] + degree[u]). */
  private start = new Int32Array(1024);
  private degree = new Int32Array(1024);
  private links = new Int32Array(4096);
  private linksUsed = 0;
  /** Links of current lists (linksUsed minus the space of replaced lists). */
  private liveLinks = 0;
  /** FIFO of pages to push (each at most once: queued[v]). */
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
      this.h = new Float64Array(1024);
      this.rh = new Float64Array(1024);
    }
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
    this.h = new Float64Array(0);
    this.rh = new Float64Array(0);
    this.hMass = 0;
  }

  get pages(): number {
    return this.n;
  }

  /** The whole state, arrays included without a copy (see IncrementalPageRankState). */
  exportState(): IncrementalPageRankState {
    const { damping, guessing: guessUnfetched, n, z, r, mass, h, rh, hMass, fetched, seenLinks, start, degree, links, linksUsed, liveLinks, queue, head, queued, inQueue, totalPushes, totalEdgeVisits } = this;
    return { damping, guessUnfetched, n, z, r, mass, h, rh, hMass, fetched, seenLinks, start, degree, links, linksUsed, liveLinks, queue, head, queued, inQueue, totalPushes, totalEdgeVisits };
  }

  /** An engine that carries on from an exported state (the same vector, residual and queue). */
  static fromState(state: IncrementalPageRankState): IncrementalPageRank {
    const engine = new IncrementalPageRank(state.damping, { guessUnfetched: state.guessUnfetched });
    engine.n = state.n;
    engine.z = state.z as Float64Array<ArrayBuffer>;
    engine.r = state.r as Float64Array<ArrayBuffer>;
    engine.mass = state.mass;
    engine.h = state.h as Float64Array<ArrayBuffer>;
    engine.rh = state.rh as Float64Array<ArrayBuffer>;
    engine.hMass = state.hMass;
    engine.fetched = state.fetched as Uint8Array<ArrayBuffer>;
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

  get linkCount(): number {
    return this.liveLinks;
  }

  /** Bytes held by the typed arrays. */
  get bytes(): number {
    return this.z.byteLength + this.r.byteLength + this.h.byteLength + this.rh.byteLength + this.fetched.byteLength + this.start.byteLength + this.degree.byteLength + this.links.byteLength + this.queue.byteLength + this.inQueue.byteLength;
  }

  /** Adds pages until there are `total` (ids n .. total - 1), each with no out-links yet. */
  growTo(total: number): void {
    if (total <= this.n) return;
    if (total > this.z.length) {
      this.z = grownFloat(this.z, total);
      this.r = grownFloat(this.r, total);
      if (this.guessing) {
        this.h = grownFloat(this.h, this.z.length);
        this.rh = grownFloat(this.rh, this.z.length);
      }
      const fetched = new Uint8Array(this.z.length);
      fetched.set(this.fetched);
      this.fetched = fetched;
      this.start = grownInt(this.start, total);
      this.degree = grownInt(this.degree, total);
      const inQueue = new Uint8Array(this.z.length);
      inQueue.set(this.inQueue);
      this.inQueue = inQueue;
      this.growQueue(this.z.length);
    }
    const source = 1 - this.damping;
    for (let v = this.n; v < total; v++) {
      this.r[v] = source;
      this.enqueue(v);
    }
    this.n = total;
  }

  /**
   * Sets (or replaces) the out-links of page u, which no longer waits (an empty list: fetched
   * without links, or finished without a fetch); targets must be pages already added, distinct, not u.
   */
  setLinks(u: number, targets: ArrayLike<number>): void {
    this.checkPage(u);
    const c = this.damping;
    const zu = this.z[u]!;
    const oldDegree = this.degree[u]!;
    this.fetched[u] = 1;
    if (oldDegree > 0 && zu !== 0) {
      const share = (c * zu) / oldDegree;
      const from = this.start[u]!;
      for (let e = from; e < from + oldDegree; e++) this.addResidual(this.links[e]!, -share);
    }
    if (this.guessing && oldDegree > 0) {
      // The old links leave cnt (source of h) and carry h[u] no more.
      const share = 1 + (c * this.h[u]!) / oldDegree;
      const from = this.start[u]!;
      for (let e = from; e < from + oldDegree; e++) this.addGuessResidual(this.links[e]!, -share);
      this.seenLinks -= oldDegree;
    }
    this.liveLinks -= oldDegree;
    const k = targets.length;
    if (k > oldDegree) {
      if (this.linksUsed + k > this.links.length) this.compactOrGrow(k);
      this.start[u] = this.linksUsed;
      this.linksUsed += k;
    }
    const from = this.start[u]!;
    for (let i = 0; i < k; i++) {
      const t = targets[i]!;
      this.checkPage(t);
      this.links[from + i] = t;
    }
    this.degree[u] = k;
    this.liveLinks += k;
    if (k > 0 && zu !== 0) {
      const share = (c * zu) / k;
      for (let e = from; e < from + k; e++) this.addResidual(this.links[e]!, share);
    }
    if (this.guessing && k > 0) {
      const share = 1 + (c * this.h[u]!) / k;
      for (let e = from; e < from + k; e++) this.addGuessResidual(this.links[e]!, share);
      this.seenLinks += k;
    }
  }

  /** Adds out-links to page u's list (targets not in it yet). */
  addLinks(u: number, targets: ArrayLike<number>): void {
    if (targets.length === 0) return;
    const from = this.start[u]!;
    const all = Array.from(this.links.subarray(from, from + this.degree[u]!));
    for (let i = 0; i < targets.length; i++) all.push(targets[i]!);
    this.setLinks(u, all);
  }

  /** The out-links of page u (a view: copy it to keep it). */
  outLinks(u: number): Int32Array {
    const from = this.start[u]!;
    return this.links.subarray(from, from + this.degree[u]!);
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
   * what they cost without the guess.
   */
  solve(tolerance: number = INCREMENTAL_PAGERANK_DEFAULTS.tolerance, maxEdgeVisits = Infinity): PushReport {
    const theta = this.threshold(tolerance);
    const guess = this.guessing;
    const thetaH = this.guessThreshold(tolerance * GUESS_TOLERANCE_FACTOR);
    const c = this.damping;
    const { z, r, h, rh, start, degree, links, inQueue } = this;
    let pushes = 0;
    let edgeVisits = 0;
    while (this.queued > 0) {
      if (edgeVisits >= maxEdgeVisits) {
        this.totalPushes += pushes;
        this.totalEdgeVisits += edgeVisits;
        return { pushes, edgeVisits, converged: false };
      }
      const v = this.dequeue();
      inQueue[v] = 0;
      const rv = r[v]!;
      const hv = guess ? rh[v]! : 0;
      const moveZ = Math.abs(rv) > theta;
      const moveH = Math.abs(hv) > thetaH;
      if (!moveZ && !moveH) continue;
      if (moveZ) {
        r[v] = 0;
        z[v]! += rv;
        this.mass += rv;
      }
      if (moveH) {
        rh[v] = 0;
        h[v]! += hv;
        this.hMass += hv;
      }
      pushes++;
      const k = degree[v]!;
      if (k === 0) continue;
      const from = start[v]!;
      const end = from + k;
      const share = moveZ ? (c * rv) / k : 0;
      const shareH = moveH ? (c * hv) / k : 0;
      if (moveZ && !moveH) {
        for (let e = from; e < end; e++) {
          const w = links[e]!;
          const value = r[w]! + share;
          r[w] = value;
          if (inQueue[w] === 0 && Math.abs(value) > theta) this.enqueue(w);
        }
      } else {
        // h moves (z too when moveZ; share is 0 otherwise).
        for (let e = from; e < end; e++) {
          const w = links[e]!;
          const value = r[w]! + share;
          r[w] = value;
          const valueH = rh[w]! + shareH;
          rh[w] = valueH;
          if (inQueue[w] === 0 && (Math.abs(value) > theta || Math.abs(valueH) > thetaH)) this.enqueue(w);
        }
      }
      edgeVisits += k;
    }
    this.totalPushes += pushes;
    this.totalEdgeVisits += edgeVisits;
    return { pushes, edgeVisits, converged: true };
  }

  /** True when pages wait to be pushed (changes not worked in yet, at the last threshold). */
  get pending(): boolean {
    return this.queued > 0;
  }

  /** Recomputes the residual from z and its definition (one pass over the links); queues every page. */
  refreshResidual(): void {
    const c = this.damping;
    const { z, r, start, degree, links } = this;
    const n = this.n;
    let mass = 0;
    for (let v = 0; v < n; v++) {
      r[v] = 1 - c - z[v]!;
      mass += z[v]!;
    }
    for (let u = 0; u < n; u++) {
      const k = degree[u]!;
      if (k === 0 || z[u] === 0) continue;
      const share = (c * z[u]!) / k;
      const from = start[u]!;
      for (let e = from; e < from + k; e++) r[links[e]!]! += share;
    }
    this.mass = mass;
    if (this.guessing) {
      const { h, rh } = this;
      let hMass = 0;
      for (let v = 0; v < n; v++) {
        rh[v] = -h[v]!;
        hMass += h[v]!;
      }
      for (let u = 0; u < n; u++) {
        const k = degree[u]!;
        if (k === 0) continue;
        const share = 1 + (c * h[u]!) / k;
        const from = start[u]!;
        for (let e = from; e < from + k; e++) rh[links[e]!]! += share;
      }
      this.hMass = hMass;
    }
    for (let v = 0; v < n; v++) if (this.inQueue[v] === 0) this.enqueue(v);
  }

  /** An upper bound of the normalised vector's L1 error: 2 ||r||_1 / ((1 - c) ||z||_1). */
  errorBound(): number {
    let total = 0;
    for (let v = 0; v < this.n; v++) total += Math.abs(this.r[v]!);
    const mass = Math.max(this.mass, 1e-300);
    return (2 * total) / ((1 - this.damping) * mass);
  }

  /**
   * The live estimate, normalised to sum 1 (a new array of `pages` entries): with the guess,
   * z + beta h (see the header); else, or while no fetched page has links, exactScores().
   */
  scores(): Float64Array {
    if (!this.guessing || this.seenLinks === 0) return this.exactScores();
    const c = this.damping;
    const { z, h, fetched } = this;
    let waitingZ = 0;
    let waitingH = 0;
    for (let v = 0; v < this.n; v++) {
      if (fetched[v] === 1) continue;
      waitingZ += z[v]!;
      waitingH += h[v]!;
    }
    const denominator = this.seenLinks - c * waitingH;
    // Positive for the exact vectors (the guessed chain is substochastic); an unconverged h could
    // break that, and then the guess is left out of this vector.
    if (waitingZ === 0 || !(denominator > 0)) return this.exactScores();
    const beta = (c * waitingZ) / denominator;
    const x = new Float64Array(this.n);
    let total = 0;
    for (let v = 0; v < this.n; v++) {
      x[v] = z[v]! + beta * h[v]!;
      total += x[v]!;
    }
    if (total > 0) for (let v = 0; v < this.n; v++) x[v]! /= total;
    return x;
  }

  /** Pages waiting (added, links never set): those the guess is for. */
  get waiting(): number {
    let count = 0;
    for (let v = 0; v < this.n; v++) if (this.fetched[v] === 0) count++;
    return count;
  }

  /** The PageRank of the graph as given (waiting pages dangling), normalised to sum 1 (a new array). */
  exactScores(): Float64Array {
    const x = this.z.slice(0, this.n);
    let total = 0;
    for (let v = 0; v < this.n; v++) total += x[v]!;
    if (total > 0) for (let v = 0; v < this.n; v++) x[v]! /= total;
    return x;
  }

  private checkPage(v: number): void {
    if (!(Number.isInteger(v) && v >= 0 && v < this.n)) throw new RangeError(`page ${v} is not one of the ${this.n} pages`);
  }

  private addResidual(w: number, amount: number): void {
    this.r[w]! += amount;
    if (this.inQueue[w] === 0) this.enqueue(w);
  }

  private addGuessResidual(w: number, amount: number): void {
    this.rh[w]! += amount;
    if (this.inQueue[w] === 0) this.enqueue(w);
  }

  // The queue is a ring; a wrap by comparison rather than % (an integer division per page).
  private enqueue(v: number): void {
    let at = this.head + this.queued;
    if (at >= this.queue.length) at -= this.queue.length;
    this.queue[at] = v;
    this.queued++;
    this.inQueue[v] = 1;
  }

  private dequeue(): number {
    const v = this.queue[this.head]!;
    this.head++;
    if (this.head === this.queue.length) this.head = 0;
    this.queued--;
    return v;
  }

  /** The queue holds each page at most once: capacity = page capacity. */
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
      for (let u = 0; u < this.n; u++) {
        const from = this.start[u]!;
        const d = this.degree[u]!;
        next.set(this.links.subarray(from, from + d), used);
        this.start[u] = used;
        used += d;
      }
      this.links = next;
      this.linksUsed = used;
      return;
    }
    this.links = grownInt(this.links, this.linksUsed + k);
  }
}
