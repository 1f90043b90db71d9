/**
 * Power iteration (the Web Graph Analyzer paper's Algorithm 1, as pagerank-power.ts) over the
 * compact in-lists of src/graph/compact.ts, decoding each page's gap-encoded in-list inside the
 * gather. The same iteration, the same stopping rule (||pi G - pi||_1 <= tolerance) and the same
 * order of summation as the plain kernel (in-lists sorted by source), so the vector is the plain
 * one's: what the compact form changes is memory, about a byte or two per link instead of four.
 * Uniform teleportation and dangling spread (Google's PageRank); threads own ranges of pages cut at
 * sampled offsets, balanced by encoded bytes.
 */
import { type CompactLists, CompactListsWriter, SAMPLE, forEachDecodedList, transposeDegrees } from '../graph/compact.js';
import { PAGERANK_DEFAULTS, normalise } from './pagerank.js';
import { powerLoop } from './pagerank-power.js';
import { type TaskContext, runParallel, warmUpWorkers } from '../parallel/pool.js';
import { sharedFloat64, sharedInt32 } from '../parallel/shared-memory.js';
import { decodeGaps, splitBySamples } from './compact-gather.js';
import { compactGaussSeidel } from './pagerank-compact-gs.js';
import { compactSccPageRank } from './pagerank-compact-scc.js';

/** The data of the compact kernel: powerLoop's, plus the encoded lists and the thread bounds. */
export interface CompactPowerData {
  segments: Uint8Array[];
  /** [segment bytes]. */
  layout: Float64Array;
  samples: Float64Array;
  /** Empty: the compact kernel divides by the out-degree instead (4 bytes per page, not 8). */
  share: Float64Array;
  /** Out-degree of every page, 0 for dangling pages. */
  outDegree: Int32Array;
  /**
   * Lumped iteration only (empty otherwise): per page of the core, its links to dangling pages
   * (the bound of the dangling pages' change, see compactLumpedPageRank).
   */
  toDangling: Int32Array;
  x: Float64Array;
  y: Float64Array;
  zA: Float64Array;
  zB: Float64Array;
  /** Thread t pulls pages bounds[t] .. bounds[t+1] (multiples of SAMPLE but the last). */
  bounds: Int32Array;
  /** [damping, tolerance, maximum iterations, pages of the whole graph, its dangling pages, the pull kernel (PULL_KERNELS)]. */
  params: Float64Array;
  partials: Float64Array;
  /** [iterations, residual, 1 if the result is in y, lumped: the dangling mass of the iterate before the last]. */
  result: Float64Array;
}

export interface CompactPowerRun {
  scores: Float64Array;
  iterations: number;
  residual: number;
}

/**
 * PageRank by power iteration on compact in-lists, from the uniform vector. `outDegree[u]` is u's
 * out-degree (compactOutDegrees computes it from the in-lists), on shared memory for threads > 1.
 * Memory: the lists, the degrees and four vectors (36 bytes per page).
 */
export function compactPowerIteration(
  lists: CompactLists,
  outDegree: Int32Array,
  damping: number,
  tolerance: number,
  maxIterations: number,
  requestedThreads: number,
  onIteration?: (iteration: number, residual: number) => void,
  lumped?: { toDangling: Int32Array; pages: number; danglingPages: number },
  kernel: PullKernel = 'auto',
): CompactPowerRun & { data: CompactPowerData } {
  const n = lists.nodeCount;
  if (outDegree.length !== n) throw new RangeError(`outDegree has ${outDegree.length} entries for ${n} pages`);
  const threads = lists.linkCount < 200_000 || n < 2 * SAMPLE * requestedThreads ? 1 : Math.max(1, requestedThreads);
  if (threads > 1) warmUpWorkers(threads);
  const alloc = threads > 1 ? sharedFloat64 : (length: number) => new Float64Array(length);
  const data: CompactPowerData = {
    segments: lists.segments,
    layout: alloc(1).fill(lists.segmentBytes),
    samples: lists.samples,
    share: new Float64Array(0),
    outDegree,
    toDangling: lumped?.toDangling ?? new Int32Array(0),
    // The start: uniform over all pages of the graph (the core's share of it when lumped).
    x: alloc(n).fill(1 / (lumped?.pages ?? n)),
    y: alloc(n),
    zA: alloc(n),
    zB: alloc(n),
    bounds: splitBySamples(lists.samples, n, threads),
    params: alloc(6),
    partials: alloc(4 * threads),
    result: alloc(4),
  };
  data.params.set([damping, tolerance, maxIterations, lumped?.pages ?? n, lumped?.danglingPages ?? 0, PULL_KERNELS.indexOf(kernel)]);
  if (n > 0) runParallel('pagerank-compact', data, threads, (context) => compactPowerThread(context, onIteration));
  return { scores: data.result[2] === 1 ? data.y : data.x, iterations: data.result[0]!, residual: data.result[1]!, data };
}

/** Every page's out-degree, counted from compact in-lists (one pass; on shared memory). */
export function compactOutDegrees(inLists: CompactLists): Int32Array {
  return transposeDegrees(inLists);
}

/**
 * One thread's share of compactPowerIteration (also run by the worker threads): pagerank-power.ts's
 * loop, the compact pull. Lumped (toDangling given), the pages are the core's, the dangling mass
 * a state of its own, and the residual reported the core's change plus a bound of the dangling
 * pages' (compactLumpedPageRank).
 */
export function compactPowerThread(context: TaskContext<CompactPowerData>, onIteration?: (iteration: number, residual: number) => void): void {
  const { data, thread } = context;
  const { segments, samples, outDegree, bounds, params, toDangling } = data;
  const lumped = toDangling.length > 0;
  const segmentBytes = data.layout[0]!;
  const c = params[0]!;
  const pages = params[3]!;
  const danglingShare = params[4]! / pages;
  const lo = bounds[thread]!;
  const hi = bounds[thread + 1]!;
  // Decoding ahead of the gather pays when the gathers miss the caches (pullBlocked).
  const kernel = PULL_KERNELS[params[5]!]!;
  const pull = kernel === 'blocked' || (kernel === 'auto' && outDegree.length >= BLOCKED_MIN_PAGES) ? pullBlocked : pullDirect;
  // The thread's pages in pieces that each lie in one segment: [first page, end page, segment, local start].
  const pieces: number[][] = [];
  for (let v = lo; v < hi; ) {
    const start = samples[v / SAMPLE]!;
    const segment = Math.floor(start / segmentBytes);
    let end = v;
    while (end < hi && Math.floor(samples[end / SAMPLE]! / segmentBytes) === segment) end = Math.min(hi, end + SAMPLE);
    pieces.push([v, end, segment, start - segment * segmentBytes]);
    v = end;
  }
  const total = new Float64Array(2);
  // Lumped: the dangling mass is a state of its own, D(k+1) = c * S(k) + dangling share * (c * D(k) + 1 - c),
  // S(k) = sum over core pages u of z(k)_u * links(u -> dangling): the plain iteration's sum of its
  // dangling pages, without them (a D taken as 1 - the core's mass instead is unstable). The bound
  // of their change comes from the previous iteration's core changes.
  let previousFlow = 0;
  let previousBound = Infinity;
  let previousMass = NaN;
  powerLoop(
    context,
    lo,
    hi,
    (z, zNext, x, y, danglingMass) => {
      const constant = (c * danglingMass) / pages + (1 - c) / pages;
      let change = 0;
      let dangling = 0;
      let flow = 0;
      let bound = 0;
      for (const [first, end, segment, start] of pieces) {
        const moments = pull(first!, end!, start!, segments[segment]!, outDegree, toDangling, z, zNext, x, y, c, constant);
        change += moments[0]!;
        dangling += moments[1]!;
        flow += moments[2]!;
        bound += moments[3]!;
      }
      if (!lumped) {
        total[0] = change;
        total[1] = dangling;
        return total;
      }
      // sum over dangling d of |change of y_d| <= c * sum over u of |change of z_u| * links(u -> dangling) + c * |change of D| * dangling share.
      total[0] = thread === 0 && Number.isNaN(previousMass) ? Infinity : change + previousBound + (thread === 0 ? c * Math.abs(danglingMass - previousMass) * danglingShare : 0);
      total[1] = c * previousFlow + (thread === 0 ? danglingShare * (c * danglingMass + 1 - c) : 0);
      if (thread === 0) data.result[3] = danglingMass;
      previousFlow = flow;
      previousBound = c * bound;
      previousMass = danglingMass;
      return total;
    },
    onIteration,
    (x, z) => {
      let danglingMass = 0;
      let flow = 0;
      for (let v = lo; v < hi; v++) {
        const d = outDegree[v]!;
        z[v] = d > 0 ? x[v]! / d : 0;
        if (d === 0) danglingMass += x[v]!;
        else if (lumped) flow += z[v]! * toDangling[v]!;
      }
      previousFlow = flow;
      // Lumped: the dangling pages hold their uniform start, D(0) = dangling share.
      return lumped ? (thread === 0 ? danglingShare : 0) : danglingMass;
    },
  );
}

const moments = new Float64Array(4);

/**
 * Pages lo..hi, their lists from byte `start`: y = c * (pulled z) + constant, zNext = y / outdegree;
 * returns [||y - x||_1, dangling mass of y, and lumped only: sum of y * toDangling / outdegree, sum of
 * |y - x| * toDangling / outdegree]. Each list gathered as it is decoded: the kernel for vectors the
 * caches hold (pullBlocked's for larger ones). The varints are decoded inline (a call per value
 * would cost more than the gather).
 */
function pullDirect(
  lo: number,
  hi: number,
  start: number,
  bytes: Uint8Array,
  outDegree: Int32Array,
  toDangling: Int32Array,
  z: Float64Array,
  zNext: Float64Array,
  x: Float64Array,
  y: Float64Array,
  c: number,
  constant: number,
): Float64Array {
  let change = 0;
  let danglingMass = 0;
  let flow = 0;
  let bound = 0;
  const lumped = toDangling.length > 0;
  let p = start;
  for (let v = lo; v < hi; v++) {
    // Varints unrolled: nearly every value is one byte, the branch to the next byte rarely taken.
    let b = bytes[p++]!;
    let header = b & 0x7f;
    if (b > 0x7f) {
      b = bytes[p++]!;
      header |= (b & 0x7f) << 7;
      if (b > 0x7f) {
        b = bytes[p++]!;
        header |= (b & 0x7f) << 14;
        if (b > 0x7f) {
          b = bytes[p++]!;
          header |= (b & 0x7f) << 21;
          if (b > 0x7f) header |= bytes[p++]! << 28;
        }
      }
    }
    const degree = header >>> 1;
    let sum = 0;
    if (degree > 0) {
      b = bytes[p++]!;
      let code = b & 0x7f;
      if (b > 0x7f) {
        b = bytes[p++]!;
        code |= (b & 0x7f) << 7;
        if (b > 0x7f) {
          b = bytes[p++]!;
          code |= (b & 0x7f) << 14;
          if (b > 0x7f) {
            b = bytes[p++]!;
            code |= (b & 0x7f) << 21;
            if (b > 0x7f) code |= bytes[p++]! << 28;
          }
        }
      }
      let source = (v + ((code >>> 1) ^ -(code & 1))) | 0;
      sum = z[source]!;
      if (header & 1) {
        // Every gap in one byte: no branch per link.
        for (let k = 1; k < degree; k++) {
          source = (source + bytes[p++]! + 1) | 0;
          sum += z[source]!;
        }
      } else for (let k = 1; k < degree; k++) {
        b = bytes[p++]!;
        let gap = b;
        if (b > 0x7f) {
          gap &= 0x7f;
          b = bytes[p++]!;
          gap |= (b & 0x7f) << 7;
          if (b > 0x7f) {
            b = bytes[p++]!;
            gap |= (b & 0x7f) << 14;
            if (b > 0x7f) {
              b = bytes[p++]!;
              gap |= (b & 0x7f) << 21;
              if (b > 0x7f) gap |= bytes[p++]! << 28;
            }
          }
        }
        source = (source + gap + 1) | 0;
        sum += z[source]!;
      }
    }
    const value = c * sum + constant;
    y[v] = value;
    const delta = Math.abs(value - x[v]!);
    change += delta;
    const d = outDegree[v]!;
    if (lumped) {
      bound += (delta * toDangling[v]!) / d;
      flow += (value * toDangling[v]!) / d;
    }
    if (d > 0) zNext[v] = value / d;
    else {
      zNext[v] = 0;
      danglingMass += value;
    }
  }
  moments[0] = change;
  moments[1] = danglingMass;
  moments[2] = flow;
  moments[3] = bound;
  return moments;
}

/**
 * Vectors of at least this many pages (16 MiB of float64) are pulled by pullBlocked. Measured here
 * (one thread, seconds per iteration, the direct kernel against the blocked one): cnr-2000 (325,557
 * pages, 2.6 MB per vector, mostly local links) 0.0104 against 0.0155; the 10^8-link graph (10^7
 * pages, 80 MB) 2.20 against 1.86.
 */
const BLOCKED_MIN_PAGES = 1 << 21;

/** The pull kernels: chosen by size, each list gathered as decoded (pullDirect), or decoded ahead (pullBlocked). */
export type PullKernel = 'auto' | 'direct' | 'blocked';
const PULL_KERNELS: readonly PullKernel[] = ['auto', 'direct', 'blocked'];

/** Sources decoded ahead of their gather in pullBlocked (one buffer per thread: each worker has its own module). */
const PULL_BLOCK_LINKS = 4096;
const blockSources = new Int32Array(PULL_BLOCK_LINKS);
/** Per page of a block, where its sources end in blockSources. */
const blockEnds = new Int32Array(PULL_BLOCK_LINKS);
/** Per page of a block whose gaps all take one byte: where they start (else -1), its first source, its degree. */
const oneByteAt = new Int32Array(PULL_BLOCK_LINKS);
const oneByteFirst = new Int32Array(PULL_BLOCK_LINKS);
const oneByteDegree = new Int32Array(PULL_BLOCK_LINKS);

/**
 * Pages lo..hi, their lists from byte `start`: y = c * (pulled z) + constant, zNext = y / outdegree;
 * returns [||y - x||_1, dangling mass of y, and lumped only: sum of y * toDangling / outdegree, sum of
 * |y - x| * toDangling / outdegree].
 *
 * In blocks of pages: their lists decoded first into a buffer of up to PULL_BLOCK_LINKS sources, then
 * gathered (a list of one-byte gaps straight from its bytes, a list longer than the buffer in pieces).
 * When z is far larger than the caches the gather waits on memory, so its speed is how many loads the
 * processor keeps in flight, which the instructions between them limit: a loop of a few instructions
 * per link, as the plain CSR's, looks further ahead than one that decodes varints between its loads
 * (see BLOCKED_MIN_PAGES). The sources come in the same order, so the sums are the plain kernel's.
 * The gaps are decoded a list (or a piece of one) per call of decodeGaps, not a value per call.
 */
function pullBlocked(
  lo: number,
  hi: number,
  start: number,
  bytes: Uint8Array,
  outDegree: Int32Array,
  toDangling: Int32Array,
  z: Float64Array,
  zNext: Float64Array,
  x: Float64Array,
  y: Float64Array,
  c: number,
  constant: number,
): Float64Array {
  let change = 0;
  let danglingMass = 0;
  let flow = 0;
  let bound = 0;
  const lumped = toDangling.length > 0;
  const sources = blockSources;
  const ends = blockEnds;
  let p = start;
  for (let v = lo; v < hi; ) {
    // Decoding: the lists of pages v.. while their sources fit in the buffer (a longer list in pieces, alone).
    const first = v;
    let m = 0;
    let longSum = 0;
    let longList = false;
    while (v < hi && v - first < PULL_BLOCK_LINKS) {
      const listStart = p;
      let b = bytes[p++]!;
      let header = b & 0x7f;
      if (b > 0x7f) {
        b = bytes[p++]!;
        header |= (b & 0x7f) << 7;
        if (b > 0x7f) {
          b = bytes[p++]!;
          header |= (b & 0x7f) << 14;
          if (b > 0x7f) {
            b = bytes[p++]!;
            header |= (b & 0x7f) << 21;
            if (b > 0x7f) header |= bytes[p++]! << 28;
          }
        }
      }
      const degree = header >>> 1;
      if (m + degree > PULL_BLOCK_LINKS && v > first) {
        p = listStart; // read again as the next block's first list
        break;
      }
      if (degree > 0) {
        b = bytes[p++]!;
        let code = b & 0x7f;
        if (b > 0x7f) {
          b = bytes[p++]!;
          code |= (b & 0x7f) << 7;
          if (b > 0x7f) {
            b = bytes[p++]!;
            code |= (b & 0x7f) << 14;
            if (b > 0x7f) {
              b = bytes[p++]!;
              code |= (b & 0x7f) << 21;
              if (b > 0x7f) code |= bytes[p++]! << 28;
            }
          }
        }
        let source = (v + ((code >>> 1) ^ -(code & 1))) | 0;
        if (degree > PULL_BLOCK_LINKS) {
          // A list longer than the buffer: decoded and gathered in pieces, its page a block of its own.
          longList = true;
          longSum = z[source]!;
          for (let k = 1; k < degree; ) {
            const stop = Math.min(degree, k + PULL_BLOCK_LINKS);
            const n = stop - k;
            p = decodeGaps(bytes, p, source, n, header & 1, sources, 0);
            source = sources[n - 1]!;
            k = stop;
            for (let i = 0; i < n; i++) longSum += z[sources[i]!]!;
          }
          v++;
          break;
        }
        if (header & 1) {
          // Every gap in one byte: gathered straight from the bytes (a loop as short as the plain one's).
          oneByteAt[v - first] = p;
          oneByteFirst[v - first] = source;
          oneByteDegree[v - first] = degree;
          p += degree - 1;
          ends[v - first] = m;
          v++;
          continue;
        }
        sources[m++] = source;
        p = decodeGaps(bytes, p, source, degree - 1, 0, sources, m);
        m += degree - 1;
      }
      oneByteAt[v - first] = -1;
      ends[v - first] = m;
      v++;
    }
    // Gathering: each page's sum over its sources, in order, then its new value.
    let k = 0;
    for (let u = first; u < v; u++) {
      let sum: number;
      if (longList) sum = longSum;
      else if (oneByteAt[u - first]! >= 0) {
        let q = oneByteAt[u - first]!;
        let source = oneByteFirst[u - first]!;
        const degree = oneByteDegree[u - first]!;
        sum = z[source]!;
        for (let i = 1; i < degree; i++) {
          source = (source + bytes[q++]! + 1) | 0;
          sum += z[source]!;
        }
      } else {
        const end = ends[u - first]!;
        sum = 0;
        if (k < end) {
          sum = z[sources[k++]!]!;
          while (k < end) sum += z[sources[k++]!]!;
        }
      }
      const value = c * sum + constant;
      y[u] = value;
      const delta = Math.abs(value - x[u]!);
      change += delta;
      const d = outDegree[u]!;
      if (lumped) {
        bound += (delta * toDangling[u]!) / d;
        flow += (value * toDangling[u]!) / d;
      }
      if (d > 0) zNext[u] = value / d;
      else {
        zNext[u] = 0;
        danglingMass += value;
      }
    }
  }
  moments[0] = change;
  moments[1] = danglingMass;
  moments[2] = flow;
  moments[3] = bound;
  return moments;
}

export interface CompactPageRankResult {
  scores: Float64Array;
  iterations: number;
  residual: number;
  converged: boolean;
  damping: number;
  tolerance: number;
  /** Pages and links the iterations ran over (the core when lumped). */
  core: { pages: number; links: number; bytes: number };
  /** 'power' or 'gauss-seidel' (its iterations are sweeps, and the passes that checked the residual). */
  solver: 'power' | 'gauss-seidel';
  /** Passes over the links in all (power iterations; Gauss-Seidel's sweeps and checks). */
  passes: number;
  /** Gauss-Seidel over components (the lists came with their per-page offsets): what Tarjan's search found, and its seconds. */
  components: { count: number; largest: number; seconds: number } | null;
}

interface PageRankOptions {
  damping?: number;
  tolerance?: number;
  maxIterations?: number;
  threads?: number;
  onIteration?: (iteration: number, residual: number) => void;
  /** Iterate over the pages with out-links only, the dangling ones after (default: when at least half the pages are dangling). */
  lump?: boolean;
  /** How the lists are pulled (the same sums either way): by default by the vectors' size (BLOCKED_MIN_PAGES). */
  kernel?: PullKernel;
  /** Power iteration (default) or Gauss-Seidel sweeps (pagerank-compact-gs.ts; not with lumping). */
  solver?: 'power' | 'gauss-seidel';
}

/**
 * The `pagerank` result of a compact graph (Google's PageRank: uniform teleportation, dangling
 * pages' mass spread uniformly), scores normalised to sum 1 as the plain solver's. When at least half
 * the pages are dangling they are lumped (compactLumpedPageRank), else power iteration runs over
 * every page.
 */
export function compactPageRank(lists: CompactLists, outDegree: Int32Array, options: PageRankOptions = {}): CompactPageRankResult {
  const damping = options.damping ?? PAGERANK_DEFAULTS.damping;
  const tolerance = options.tolerance ?? PAGERANK_DEFAULTS.tolerance;
  const maxIterations = options.maxIterations ?? PAGERANK_DEFAULTS.maxIterations;
  if (options.solver === 'gauss-seidel' && lists.offsets !== null) {
    // Over the components in topological order: the dangling pages are single components, exact in one gather, so no lumping.
    const run = compactSccPageRank(lists, outDegree, { damping, tolerance, maxIterations, threads: options.threads ?? 1, ...(options.onIteration === undefined ? {} : { onIteration: options.onIteration }) });
    const core = { pages: lists.nodeCount, links: lists.linkCount, bytes: lists.samples[lists.samples.length - 1]! };
    return { scores: run.scores, iterations: run.sweeps, residual: run.residual, converged: run.converged, damping, tolerance, core, solver: 'gauss-seidel', passes: run.passes, components: { count: run.components, largest: run.largestComponent, seconds: run.sccSeconds } };
  }
  let dangling = 0;
  for (let v = 0; v < outDegree.length; v++) if (outDegree[v] === 0) dangling++;
  // Lumping pays when the dangling pages take a large share of the links: Common Crawl's host graph
  // (81% dangling) iterates over a fifth of its links; cnr-2000 (27%) over 92% of them, and the
  // re-encoding costs more than it saves (measured: bench/pagerank-compact.ts).
  if (dangling > 0 && (options.lump === true || (options.lump === undefined && 2 * dangling >= outDegree.length))) return compactLumpedPageRank(lists, outDegree, { ...options, damping, tolerance, maxIterations });
  const core = { pages: lists.nodeCount, links: lists.linkCount, bytes: lists.samples[lists.samples.length - 1]! };
  if (options.solver === 'gauss-seidel') {
    const gs = compactGaussSeidel(lists, outDegree, { damping, tolerance, maxIterations, threads: options.threads ?? 1, ...(options.onIteration === undefined ? {} : { onIteration: options.onIteration }) });
    return { scores: gs.scores, iterations: gs.sweeps, residual: gs.residual, converged: gs.converged, damping, tolerance, core, solver: 'gauss-seidel', passes: gs.sweeps + gs.checks, components: null };
  }
  const run = compactPowerIteration(lists, outDegree, damping, tolerance, maxIterations, options.threads ?? 1, options.onIteration, undefined, options.kernel);
  normalise(run.scores);
  return { scores: run.scores, iterations: run.iterations, residual: run.residual, converged: run.residual <= tolerance, damping, tolerance, core, solver: 'power', passes: run.iterations, components: null };
}

/**
 * PageRank with the dangling pages lumped (Lee, Golub and Zenios, "A fast two-stage algorithm for
 * computing PageRank", 2003; Ipsen and Selee, "PageRank computation, with special attention to
 * dangling nodes", 2007). A dangling page is never a source, so the pages with out-links (the core)
 * iterate among themselves: each needs of the dangling pages only their total mass D, and D follows
 * from the core alone, D(k+1) = c * sum over core pages u of z(k)_u * links(u -> dangling) +
 * (dangling pages / pages) * (c * D(k) + 1 - c), the plain iteration's sum of its dangling pages'
 * values (the lumped chain of Ipsen and Selee: one state for all dangling pages). The power iteration runs on the core's in-lists
 * (re-encoded in core numbering: on Common Crawl's host graph 19% of the pages, and the links
 * into them) with the plain iteration's numbers, and the dangling pages' scores come in one pass
 * at the end from the last contributions, as the plain iteration's last step computes them. The
 * core iterates are the plain ones; the stopping rule bounds the plain residual from above (the
 * core's change plus c * sum |change of z_u| * links from u to dangling pages + c * |change of the
 * dangling mass| * dangling share), so it stops at the plain iteration's step or later.
 */
export function compactLumpedPageRank(lists: CompactLists, outDegree: Int32Array, options: PageRankOptions & { damping: number; tolerance: number; maxIterations: number }): CompactPageRankResult {
  const n = lists.nodeCount;
  const { damping: c, tolerance, maxIterations } = options;
  // Core numbering: the pages with out-links, in page order.
  const coreId = new Int32Array(n);
  let coreCount = 0;
  for (let v = 0; v < n; v++) coreId[v] = outDegree[v]! > 0 ? coreCount++ : -1;
  const coreDegree = sharedInt32(coreCount);
  for (let v = 0; v < n; v++) if (coreId[v]! >= 0) coreDegree[coreId[v]!] = outDegree[v]!;
  const toDangling = sharedInt32(coreCount);
  const writer = new CompactListsWriter(coreCount, { offsets: false, segmentBytes: lists.segmentBytes });
  forEachDecodedList(lists, (v, list, degree) => {
    if (coreId[v]! >= 0) {
      for (let i = 0; i < degree; i++) list[i] = coreId[list[i]!]!;
      writer.add(list, degree);
    } else for (let i = 0; i < degree; i++) toDangling[coreId[list[i]!]!]!++;
  });
  const core = writer.finish();
  const coreBytes = core.samples[core.samples.length - 1]!;
  const scores = new Float64Array(n);
  if (coreCount === 0) {
    // No links: every page keeps the uniform start, a fixed point.
    scores.fill(1 / n);
    return { scores, iterations: 1, residual: 0, converged: true, damping: c, tolerance, core: { pages: 0, links: 0, bytes: 0 }, solver: 'power', passes: 1, components: null };
  }
  const run = compactPowerIteration(core, coreDegree, c, tolerance, maxIterations, options.threads ?? 1, options.onIteration, { toDangling, pages: n, danglingPages: n - coreCount }, options.kernel);
  const { data, iterations } = run;
  // The last step's inputs: the contributions of iterate K - 1 (z^k sits in zA for even k) and its dangling mass.
  const contributions = (iterations - 1) % 2 === 0 ? data.zA : data.zB;
  const constant = (c * data.result[3]!) / n + (1 - c) / n;
  forEachDecodedList(lists, (v, list, degree) => {
    const r = coreId[v]!;
    if (r >= 0) scores[v] = run.scores[r]!;
    else {
      let sum = 0;
      for (let i = 0; i < degree; i++) sum += contributions[coreId[list[i]!]!]!;
      scores[v] = c * sum + constant;
    }
  });
  normalise(scores);
  return {
    scores,
    iterations,
    residual: run.residual,
    converged: run.residual <= tolerance,
    damping: c,
    tolerance,
    core: { pages: coreCount, links: core.linkCount, bytes: coreBytes },
    solver: 'power',
    passes: iterations,
    components: null,
  };
}
