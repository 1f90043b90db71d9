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
 */

/** Defaults: the damping of pagerank(); the L1 tolerance of live updates and of the final solve. */
export const INCREMENTAL_PAGERANK_DEFAULTS = {
  damping: 0.85,
  /** While crawling: far below the estimate's error from the pages not yet seen. */
  tolerance: 1e-6,
  /** At the end (finish): as tight as pagerank()'s default. */
  finalTolerance: 1e-10,
} as const;

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
  n: number;
  z: Float64Array;
  r: Float64Array;
  mass: number;
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

export class IncrementalPageRank {
  readonly damping: number;
  private n = 0;
  /** Unnormalised scores: each page's teleport source is 1 - c (see the header). */
  private z = new Float64Array(1024);
  private r = new Float64Array(1024);
  /** Sum of z, kept as pushes change it. */
  private mass = 0;
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

  constructor(damping: number = INCREMENTAL_PAGERANK_DEFAULTS.damping) {
    if (!(damping >= 0 && damping < 1)) throw new RangeError(`damping must be in [0, 1), got ${damping}`);
    this.damping = damping;
  }

  get pages(): number {
    return this.n;
  }

  /** The whole state, arrays included without a copy (see IncrementalPageRankState). */
  exportState(): IncrementalPageRankState {
    const { damping, n, z, r, mass, start, degree, links, linksUsed, liveLinks, queue, head, queued, inQueue, totalPushes, totalEdgeVisits } = this;
    return { damping, n, z, r, mass, start, degree, links, linksUsed, liveLinks, queue, head, queued, inQueue, totalPushes, totalEdgeVisits };
  }

  /** An engine that carries on from an exported state (the same vector, residual and queue). */
  static fromState(state: IncrementalPageRankState): IncrementalPageRank {
    const engine = new IncrementalPageRank(state.damping);
    engine.n = state.n;
    engine.z = state.z as Float64Array<ArrayBuffer>;
    engine.r = state.r as Float64Array<ArrayBuffer>;
    engine.mass = state.mass;
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
    return this.z.byteLength + this.r.byteLength + this.start.byteLength + this.degree.byteLength + this.links.byteLength + this.queue.byteLength + this.inQueue.byteLength;
  }

  /** Adds pages until there are `total` (ids n .. total - 1), each with no out-links yet. */
  growTo(total: number): void {
    if (total <= this.n) return;
    if (total > this.z.length) {
      this.z = grownFloat(this.z, total);
      this.r = grownFloat(this.r, total);
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

  /** Sets (or replaces) the out-links of page u; targets must be pages already added, distinct, not u. */
  setLinks(u: number, targets: ArrayLike<number>): void {
    this.checkPage(u);
    const c = this.damping;
    const zu = this.z[u]!;
    const oldDegree = this.degree[u]!;
    if (oldDegree > 0 && zu !== 0) {
      const share = (c * zu) / oldDegree;
      const from = this.start[u]!;
      for (let e = from; e < from + oldDegree; e++) this.addResidual(this.links[e]!, -share);
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
   * Pushes until no residual is above threshold(tolerance), or after about `maxEdgeVisits` links
   * (then converged is false and the next call carries on).
   */
  solve(tolerance: number = INCREMENTAL_PAGERANK_DEFAULTS.tolerance, maxEdgeVisits = Infinity): PushReport {
    const theta = this.threshold(tolerance);
    const c = this.damping;
    const { z, r, start, degree, links, inQueue } = this;
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
      if (Math.abs(rv) <= theta) continue;
      r[v] = 0;
      z[v]! += rv;
      this.mass += rv;
      pushes++;
      const k = degree[v]!;
      if (k === 0) continue;
      const share = (c * rv) / k;
      const from = start[v]!;
      const end = from + k;
      for (let e = from; e < end; e++) {
        const w = links[e]!;
        const value = r[w]! + share;
        r[w] = value;
        if (inQueue[w] === 0 && Math.abs(value) > theta) this.enqueue(w);
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
    for (let v = 0; v < n; v++) if (this.inQueue[v] === 0) this.enqueue(v);
  }

  /** An upper bound of the normalised vector's L1 error: 2 ||r||_1 / ((1 - c) ||z||_1). */
  errorBound(): number {
    let total = 0;
    for (let v = 0; v < this.n; v++) total += Math.abs(this.r[v]!);
    const mass = Math.max(this.mass, 1e-300);
    return (2 * total) / ((1 - this.damping) * mass);
  }

  /** The PageRank estimate, normalised to sum 1 (a new array of `pages` entries). */
  scores(): Float64Array {
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

  private enqueue(v: number): void {
    const capacity = this.queue.length;
    this.queue[(this.head + this.queued) % capacity] = v;
    this.queued++;
    this.inQueue[v] = 1;
  }

  private dequeue(): number {
    const v = this.queue[this.head]!;
    this.head = (this.head + 1) % this.queue.length;
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
