/**
 * TrafficRank and HOTness (Tomlin, "A new paradigm for ranking pages on the
 * World Wide Web", WWW 2003; the equations, lost from our copy, are restored
 * in NOTES section 4): the web's traffic as the maximum-entropy flow.
 *
 * Unknowns: p_ij >= 0, the share of all surfing on link i -> j. An
 * artificial node A links to and from every page. Maximise the entropy
 * -sum p ln p (or, with a prior q, -sum p ln(p/q)) subject to conservation
 * at every node (what enters leaves), sum over real links = alpha, and sum
 * over A's links = 1 - alpha. The solution has the form
 *   p_ij = s q_ij a_i / a_j,  p_iA = t a_i / a_A,  p_Aj = t a_A / a_j,
 * with a_j = exp(lambda_j) (lambda the multipliers of conservation). It is
 * found by iterative scaling (matrix balancing): each page in turn takes
 *   a_j = sqrt((s sum_{i->j} q_ij a_i + t a_A) / (s sum_{j->k} q_jk / a_k + t / a_A)),
 * which balances its in- and out-flow exactly (coordinate descent on the
 * convex dual), then a_A = sqrt(sum a_i / sum 1/a_i) and s, t restore the two
 * totals. Sweeps are Gauss-Seidel (new values used at once) or Jacobi. All a
 * are rescaled so that a_A = 1 after every sweep: the flows do not change
 * and the values stay in range on graphs of millions of pages.
 *
 * Pages with known hit counts h_j (the paper's extension) replace their
 * conservation row by two constraints, in-flow = out-flow = h_j, with two
 * multipliers: the page gets a target scale w_j and a source scale u_j.
 *
 * Outputs: TrafficRank_j, the traffic through page j (its in-flow, which
 * equals its out-flow; the share coming from A, the random jumps, counts),
 * normalised to sum 1 over the pages; HOTness_j = a_j with a_A = 1, the page
 * temperature: traffic flows from hot to cool pages, and a page is hot when
 * hot pages link to it and it links to few or hot pages.
 */
import { OptionError } from '../errors.js';
import type { Graph } from '../graph/graph.js';

/**
 * 'anderson' (default): Gauss-Seidel sweeps accelerated by Anderson mixing
 * of the last few iterates in log space (about ten times fewer sweeps);
 * 'gauss-seidel' and 'jacobi': the plain sweeps.
 */
export type TrafficSweep = 'anderson' | 'gauss-seidel' | 'jacobi';
export const TRAFFIC_SWEEPS: readonly TrafficSweep[] = ['anderson', 'gauss-seidel', 'jacobi'];

/** Anderson mixing keeps this many previous iterates (its kernels below are written out for exactly five). */
const ANDERSON_DEPTH = 5;

export interface TrafficOptions {
  /** alpha: the share of traffic on real links (like PageRank's damping): 0.85. */
  alpha?: number;
  /** Stop when max_j |in_j - out_j| / in_j is below this: 1e-10. */
  tolerance?: number;
  maxSweeps?: number;
  sweep?: TrafficSweep;
  /** Over-relaxation of the Gauss-Seidel updates in log space (1 = none); see `acceleration`. */
  relaxation?: number;
  /** Prior q_ij per out-link (aligned with graph.outTargets), for cross-entropy; default all 1. */
  prior?: Float64Array | null;
  /** Known hits: pages and their traffic shares h_j (in-flow = out-flow = h_j). */
  knownHits?: Map<number, number>;
  onSweep?: (sweep: number, violation: number) => void;
}

export const TRAFFIC_DEFAULTS = { alpha: 0.85, tolerance: 1e-10, maxSweeps: 100_000, sweep: 'anderson' } as const;

export interface TrafficResult {
  /** Traffic through each page (in-flow = out-flow), normalised to sum 1. */
  trafficRank: Float64Array;
  /** a_j with a_A = 1: the page temperature. */
  hotness: Float64Array;
  /** Multipliers: lambda_j = ln a_j (target side for pages with known hits: ln w_j). */
  lambda: Float64Array;
  /** Multipliers of the two totals: mu = 1 + ln s, nu = 1 + ln t. */
  mu: number;
  nu: number;
  /** -sum p ln p over all links, the artificial node's included. */
  entropy: number;
  /** Flow share of the real links (alpha) and of the links of A (1 - alpha), as achieved. */
  realFlow: number;
  artificialFlow: number;
  sweeps: number;
  /** max_j |in_j - out_j| / in_j at the end (A included). */
  violation: number;
  converged: boolean;
  alpha: number;
}

export function trafficRank(graph: Graph, options: TrafficOptions = {}): TrafficResult {
  const alpha = options.alpha ?? TRAFFIC_DEFAULTS.alpha;
  const tolerance = options.tolerance ?? TRAFFIC_DEFAULTS.tolerance;
  const maxSweeps = options.maxSweeps ?? TRAFFIC_DEFAULTS.maxSweeps;
  const sweepKind = options.sweep ?? TRAFFIC_DEFAULTS.sweep;
  const relaxation = options.relaxation ?? 1;
  if (!(alpha > 0 && alpha < 1)) throw new OptionError('alpha', `must be in (0, 1), got ${alpha}`);
  if (!(tolerance > 0)) throw new OptionError('tolerance', `must be positive, got ${tolerance}`);
  if (!(Number.isInteger(maxSweeps) && maxSweeps >= 1)) throw new OptionError('max-sweeps', `must be a positive integer, got ${maxSweeps}`);
  if (!TRAFFIC_SWEEPS.includes(sweepKind)) throw new OptionError('sweep', `expected one of ${TRAFFIC_SWEEPS.join(', ')}, got '${String(sweepKind)}'`);
  if (!(relaxation > 0 && relaxation < 2)) throw new OptionError('relaxation', `must be in (0, 2), got ${relaxation}`);
  const n = graph.nodeCount;
  const { outOffsets, outTargets, inOffsets, inSources } = graph;
  const prior = options.prior ?? null;
  if (prior !== null) {
    if (prior.length !== graph.edgeCount) throw new OptionError('prior', `needs one value per link (${graph.edgeCount}), got ${prior.length}`);
    for (let e = 0; e < prior.length; e++) {
      if (!(prior[e]! > 0 && Number.isFinite(prior[e]!))) throw new OptionError('prior', `link ${e} has prior ${prior[e]}; priors must be positive`);
    }
  }
  // The prior of in-link e of v, aligned with inSources (found by binary search in the out-lists).
  const inPrior = prior === null ? null : alignToInLinks(graph, prior);
  const known = new Float64Array(n).fill(-1);
  for (const [page, hits] of options.knownHits ?? []) {
    if (!(page >= 0 && page < n)) throw new OptionError('known-hits', `page ${page} is not in the graph`);
    if (!(hits > 0 && hits < 1)) throw new OptionError('known-hits', `page ${page}: hits must be a share in (0, 1), got ${hits}`);
    known[page] = hits;
  }
  // target[j] = w_j (divides flows into j), source[j] = u_j (multiplies flows out of j); equal unless hits are known.
  const target = new Float64Array(n).fill(1);
  const source = new Float64Array(n).fill(1);
  const inverseTarget = new Float64Array(n).fill(1);
  let s = 1;
  let t = 1;
  let sweeps = 0;
  let violation = Infinity;
  const previousTarget = sweepKind === 'jacobi' ? new Float64Array(n) : null;
  const previousInverse = sweepKind === 'jacobi' ? new Float64Array(n) : null;
  const previousSource = sweepKind === 'jacobi' ? new Float64Array(n) : null;
  // Without priors, known hits or relaxation every page takes the plain update (the common case, a kernel of its own).
  const plain = prior === null && known.every((h) => h < 0) && relaxation === 1;
  // The sweep's largest conservation gap, its sums of u_j and 1/w_j, and its estimate of the real links' total.
  const sweepOut = new Float64Array(4);
  const scalars = new Float64Array(2);
  const mixer = sweepKind === 'anderson' ? new AndersonMixer(n, options.knownHits !== undefined && options.knownHits.size > 0) : null;

  while (sweeps < maxSweeps) {
    const readSource = previousSource ?? source;
    const readInverse = previousInverse ?? inverseTarget;
    if (previousTarget !== null) {
      previousTarget.set(target);
      previousInverse!.set(inverseTarget);
      previousSource!.set(source);
    }
    if (mixer !== null && !mixer.hasInput) mixer.recordInput(target, source, known, s, t);
    if (plain) plainSweep(n, inOffsets, inSources, outOffsets, outTargets, readSource, readInverse, target, source, inverseTarget, s, t, sweepOut);
    else generalSweep(n, inOffsets, inSources, outOffsets, outTargets, inPrior, prior, known, relaxation, readSource, readInverse, target, source, inverseTarget, s, t, sweepOut);
    let worst = sweepOut[0]!;
    const sumSource = sweepOut[1]!;
    const sumInverse = sweepOut[2]!;
    const realEstimate = sweepOut[3]!;
    // The artificial node: balance it, then rescale so that a_A = 1.
    const artificial = Math.sqrt(sumSource / sumInverse);
    const artificialGap = Math.abs(t * sumSource - t * sumInverse) / (t * sumSource);
    if (artificialGap > worst) worst = artificialGap;
    sweeps++;
    violation = worst;
    options.onSweep?.(sweeps, violation);
    if (!Number.isFinite(violation) || !Number.isFinite(artificial) || artificial === 0) {
      // The scales ran off to 0 or infinity: no flow meets the constraints (alpha too large for this graph).
      return divergent(graph, sweeps, alpha);
    }
    const converged = violation < tolerance;
    // Anderson mixing rewrites every scale from its log, so it applies the rescale there instead.
    if (converged || mixer === null) rescale(n, target, source, inverseTarget, artificial);
    if (converged) break;
    // s and t restore the two totals at the new scales. The artificial links' total is exact (the
    // rescale maps sum u_j to sumSource / a_A and sum 1/w_j to sumInverse * a_A); the real links'
    // total sum_j u_j sum_{j->k} q_jk / w_k is the one the sweep gathered as it went, each page's
    // new u_j times the out-sum it balanced against (later pages' w_k still from the last sweep).
    // It is exact once the scales stop changing, so the fixed point is the same, and it saves a
    // pass over every link per sweep (a third of a sweep's work). With Anderson mixing, ln s and
    // ln t are mixed with the scales, as coordinates of the iterate.
    s = alpha / realEstimate;
    t = (1 - alpha) / (sumSource / artificial + sumInverse * artificial);
    if (mixer !== null) {
      scalars[0] = s;
      scalars[1] = t;
      mixer.mix(target, source, inverseTarget, known, scalars, artificial);
      s = scalars[0]!;
      t = scalars[1]!;
    }
  }
  // The final scales' link sums give s and t (both totals exactly), then every flow, the final
  // conservation violation and the entropy, in one pass over the links.
  const sums = linkSums(graph, prior, inPrior, source, inverseTarget);
  let real = 0;
  let artificialTotal = 0;
  for (let j = 0; j < n; j++) {
    real += source[j]! * sums.outSum[j]!;
    artificialTotal += source[j]! + inverseTarget[j]!;
  }
  s = alpha / real;
  t = (1 - alpha) / artificialTotal;
  return finish(graph, prior, sums, source, target, inverseTarget, s, t, sweeps, tolerance, alpha);
}

// The sweep kernels are separate functions on typed arrays so that V8
// optimises each on its own (as PageRank's kernels in pagerank.ts). Both
// visit the pages in order; with Gauss-Seidel the read arrays are the ones
// being updated, with Jacobi copies from before the sweep. Each page's
// update is final within the sweep, so the sums of u_j and 1/w_j (for the
// artificial node) are accumulated as the pages are updated, in page order,
// and so is the estimate of the real links' total, sum_j u_j * out-sum_j.

/** A sweep where every page takes a_j = sqrt(in / out) (no prior, no known hits, no relaxation). */
function plainSweep(
  n: number,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  outOffsets: Uint32Array,
  outTargets: Int32Array,
  readSource: Float64Array,
  readInverse: Float64Array,
  target: Float64Array,
  source: Float64Array,
  inverseTarget: Float64Array,
  s: number,
  t: number,
  out: Float64Array,
): void {
  let worst = 0;
  let sumSource = 0;
  let sumInverse = 0;
  let real = 0;
  let inEdge = inOffsets[0]!;
  let outEdge = outOffsets[0]!;
  for (let j = 0; j < n; j++) {
    // In-flow and out-flow of j per unit of its own scales (a_A = 1).
    let inSum = 0;
    const inEnd = inOffsets[j + 1]!;
    for (; inEdge < inEnd; inEdge++) inSum += readSource[inSources[inEdge]!]!;
    let outSum = 0;
    const outEnd = outOffsets[j + 1]!;
    for (; outEdge < outEnd; outEdge++) outSum += readInverse[outTargets[outEdge]!]!;
    const numerator = s * inSum + t;
    const denominator = s * outSum + t;
    // Conservation before the update: in = numerator / w_j, out = denominator * u_j.
    const inFlow = numerator / target[j]!;
    const outFlow = denominator * source[j]!;
    const gap = Math.abs(inFlow - outFlow) / inFlow;
    if (gap > worst) worst = gap;
    const value = Math.sqrt(numerator / denominator);
    const inverse = 1 / value;
    target[j] = value;
    source[j] = value;
    inverseTarget[j] = inverse;
    sumSource += value;
    sumInverse += inverse;
    real += value * outSum;
  }
  out[0] = worst;
  out[1] = sumSource;
  out[2] = sumInverse;
  out[3] = real;
}

/** A sweep with priors, pages with known hits (two scales each) or over-relaxation. */
function generalSweep(
  n: number,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  outOffsets: Uint32Array,
  outTargets: Int32Array,
  inPrior: Float64Array | null,
  prior: Float64Array | null,
  known: Float64Array,
  relaxation: number,
  readSource: Float64Array,
  readInverse: Float64Array,
  target: Float64Array,
  source: Float64Array,
  inverseTarget: Float64Array,
  s: number,
  t: number,
  out: Float64Array,
): void {
  let worst = 0;
  let sumSource = 0;
  let sumInverse = 0;
  let real = 0;
  for (let j = 0; j < n; j++) {
    let inSum = 0;
    const inEnd = inOffsets[j + 1]!;
    if (inPrior === null) for (let e = inOffsets[j]!; e < inEnd; e++) inSum += readSource[inSources[e]!]!;
    else for (let e = inOffsets[j]!; e < inEnd; e++) inSum += inPrior[e]! * readSource[inSources[e]!]!;
    let outSum = 0;
    const outEnd = outOffsets[j + 1]!;
    if (prior === null) for (let e = outOffsets[j]!; e < outEnd; e++) outSum += readInverse[outTargets[e]!]!;
    else for (let e = outOffsets[j]!; e < outEnd; e++) outSum += prior[e]! * readInverse[outTargets[e]!]!;
    const numerator = s * inSum + t;
    const denominator = s * outSum + t;
    const inFlow = numerator / target[j]!;
    const outFlow = denominator * source[j]!;
    const gap = Math.abs(inFlow - outFlow) / inFlow;
    if (gap > worst) worst = gap;
    if (known[j]! > 0) {
      target[j] = numerator / known[j]!;
      source[j] = known[j]! / denominator;
      inverseTarget[j] = 1 / target[j]!;
    } else {
      let value = Math.sqrt(numerator / denominator);
      if (relaxation !== 1) value = target[j]! * (value / target[j]!) ** relaxation;
      target[j] = value;
      source[j] = value;
      inverseTarget[j] = 1 / value;
    }
    sumSource += source[j]!;
    sumInverse += inverseTarget[j]!;
    real += source[j]! * outSum;
  }
  out[0] = worst;
  out[1] = sumSource;
  out[2] = sumInverse;
  out[3] = real;
}

/** Divides every scale by a_A (multiplies 1/w_j), so that a_A = 1: the flows do not change. */
function rescale(n: number, target: Float64Array, source: Float64Array, inverseTarget: Float64Array, artificial: number): void {
  for (let j = 0; j < n; j++) {
    target[j]! /= artificial;
    source[j]! /= artificial;
    inverseTarget[j]! *= artificial;
  }
}

/** The result of a run whose scales diverged: not converged, infinite violation, no ranking. */
function divergent(graph: Graph, sweeps: number, alpha: number): TrafficResult {
  const n = graph.nodeCount;
  return {
    trafficRank: new Float64Array(n).fill(Number.NaN),
    hotness: new Float64Array(n).fill(Number.NaN),
    lambda: new Float64Array(n).fill(Number.NaN),
    mu: Number.NaN,
    nu: Number.NaN,
    entropy: Number.NaN,
    realFlow: Number.NaN,
    artificialFlow: Number.NaN,
    sweeps,
    violation: Infinity,
    converged: false,
    alpha,
  };
}

/** For every page j: sum_{i->j} q_ij u_i and sum_{j->k} q_jk / w_k (the flows without s, t and j's own scales). */
function linkSums(
  graph: Graph,
  prior: Float64Array | null,
  inPrior: Float64Array | null,
  source: Float64Array,
  inverseTarget: Float64Array,
): { inSum: Float64Array; outSum: Float64Array } {
  const n = graph.nodeCount;
  const { outOffsets, outTargets, inOffsets, inSources } = graph;
  const inSum = new Float64Array(n);
  const outSum = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let into = 0;
    for (let e = inOffsets[j]!; e < inOffsets[j + 1]!; e++) into += (inPrior === null ? 1 : inPrior[e]!) * source[inSources[e]!]!;
    let out = 0;
    for (let e = outOffsets[j]!; e < outOffsets[j + 1]!; e++) out += (prior === null ? 1 : prior[e]!) * inverseTarget[outTargets[e]!]!;
    inSum[j] = into;
    outSum[j] = out;
  }
  return { inSum, outSum };
}

function finish(
  graph: Graph,
  prior: Float64Array | null,
  sums: { inSum: Float64Array; outSum: Float64Array },
  source: Float64Array,
  target: Float64Array,
  inverseTarget: Float64Array,
  s: number,
  t: number,
  sweeps: number,
  tolerance: number,
  alpha: number,
): TrafficResult {
  const n = graph.nodeCount;
  const { inSum, outSum } = sums;
  const lambda = Float64Array.from(target, Math.log);
  const logS = Math.log(s);
  const logT = Math.log(t);
  // In- and out-flow of every page (A's links included), and of A.
  const inflow = new Float64Array(n);
  let total = 0;
  let realFlow = 0;
  let artificialIn = 0;
  let artificialOut = 0;
  let violation = 0;
  // sum_j (ln u_j * out_j - ln w_j * in_j): with ln p = ln s + ln q + ln u_i - ln w_j on a real link
  // and ln t + ln u_i, ln t - ln w_j on A's, the entropy -sum p ln p over all links is
  // -ln s * realFlow - ln t * artificialFlow - this - sum over real links of p ln q.
  let weighted = 0;
  for (let j = 0; j < n; j++) {
    const into = (s * inSum[j]! + t) * inverseTarget[j]!;
    const out = (s * outSum[j]! + t) * source[j]!;
    inflow[j] = into;
    total += into;
    const gap = Math.abs(into - out) / into;
    if (gap > violation) violation = gap;
    realFlow += s * outSum[j]! * source[j]!;
    artificialIn += t * source[j]!;
    artificialOut += t * inverseTarget[j]!;
    const logSource = source[j] === target[j] ? lambda[j]! : Math.log(source[j]!);
    weighted += logSource * out - lambda[j]! * into;
  }
  const artificialGap = Math.abs(artificialIn - artificialOut) / artificialIn;
  if (artificialGap > violation || Number.isNaN(artificialGap)) violation = artificialGap;
  const artificialFlow = artificialIn + artificialOut;
  let priorTerm = 0;
  if (prior !== null) {
    const { outOffsets, outTargets } = graph;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let e = outOffsets[i]!; e < outOffsets[i + 1]!; e++) sum += prior[e]! * Math.log(prior[e]!) * inverseTarget[outTargets[e]!]!;
      priorTerm += s * source[i]! * sum;
    }
  }
  const entropy = -logS * realFlow - logT * artificialFlow - weighted - priorTerm;
  return {
    trafficRank: Float64Array.from(inflow, (x) => x / total),
    hotness: Float64Array.from(target),
    lambda,
    mu: 1 + logS,
    nu: 1 + logT,
    entropy,
    realFlow,
    artificialFlow,
    sweeps,
    violation,
    converged: violation < tolerance,
    alpha,
  };
}

/** For each in-link e (v's e-th in-link, from u), the prior of the out-link u -> v. */
function alignToInLinks(graph: Graph, prior: Float64Array): Float64Array {
  const result = new Float64Array(graph.edgeCount);
  const { outOffsets, outTargets, inOffsets, inSources } = graph;
  for (let v = 0; v < graph.nodeCount; v++) {
    for (let e = inOffsets[v]!; e < inOffsets[v + 1]!; e++) {
      const u = inSources[e]!;
      let lo = outOffsets[u]!;
      let hi = outOffsets[u + 1]! - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (outTargets[mid]! < v) lo = mid + 1;
        else hi = mid;
      }
      result[e] = prior[lo]!;
    }
  }
  return result;
}

/**
 * Anderson mixing (type II) of the sweeps in log space: with x the log
 * scales before a sweep and f = G(x) - x its step, the next iterate is
 * x + f - sum_k gamma_k (dx_k + df_k), gamma minimising ||f - sum gamma_k df_k||_2
 * over the last `depth` differences. The iterate is ln w_j for every page,
 * ln u_j for pages with known hits (only when there are some: otherwise
 * those coordinates would all be zero), then ln s and ln t, which the sweep
 * updates with the scales.
 *
 * The loops run over flat typed arrays held in locals, one vector at a
 * time, so that V8 keeps them tight. The mixed iterate is the next sweep's
 * input as it is (no logarithms of the scales it was exponentiated into).
 */
class AndersonMixer {
  // The iterate x_k, its step f_k, the previous ones and the mixed iterate: buffers that change
  // roles from one step to the next (nothing is copied).
  private input: Float64Array;
  private previousInput: Float64Array;
  private step: Float64Array;
  private previousStep: Float64Array;
  private mixed: Float64Array;
  /**
   * The scales the sweep started from (w_j, then u_j of pages with known hits): the step is
   * ln(new / old) and the next scales old * e^(mixed - input), both near 1 after the first few
   * sweeps, where short series replace Math.log and Math.exp (logRatio, expNearZero).
   */
  private readonly base: Float64Array;
  /** Per slot: df = f_k - f_{k-1}, and dx + df (all that mixing needs of dx). */
  private readonly stepDifferences: Float64Array[];
  private readonly bothDifferences: Float64Array[];
  private readonly gram: Float64Array;
  private readonly dots = new Float64Array(2 * ANDERSON_DEPTH);
  private readonly gamma = new Float64Array(ANDERSON_DEPTH);
  /** Where ln s and ln t are: after ln w (n) and, with known hits, ln u (n). */
  private readonly scalarsAt: number;
  private readonly size: number;
  private stored = 0;
  private newest = -1;
  private started = false;
  /** Whether `input` holds the iterate the next sweep starts from (true after a mixing step). */
  hasInput = false;

  constructor(
    private readonly n: number,
    private readonly withSources: boolean,
  ) {
    this.scalarsAt = withSources ? 2 * n : n;
    const size = this.scalarsAt + 2;
    this.size = size;
    this.input = new Float64Array(size);
    this.previousInput = new Float64Array(size);
    this.previousStep = new Float64Array(size);
    this.step = new Float64Array(size);
    this.mixed = new Float64Array(size);
    this.base = new Float64Array(this.scalarsAt);
    this.stepDifferences = Array.from({ length: ANDERSON_DEPTH }, () => new Float64Array(size));
    this.bothDifferences = Array.from({ length: ANDERSON_DEPTH }, () => new Float64Array(size));
    this.gram = new Float64Array(ANDERSON_DEPTH * ANDERSON_DEPTH);
  }

  /** The iterate before a sweep, from the scales and s, t. */
  recordInput(target: Float64Array, source: Float64Array, known: Float64Array, s: number, t: number): void {
    const { n, input, base, scalarsAt } = this;
    for (let j = 0; j < n; j++) input[j] = Math.log(target[j]!);
    base.set(target);
    if (this.withSources) {
      for (let j = 0; j < n; j++) input[n + j] = known[j]! > 0 ? Math.log(source[j]!) : 0;
      base.set(source, n);
    }
    input[scalarsAt] = Math.log(s);
    input[scalarsAt + 1] = Math.log(t);
    this.hasInput = true;
  }

  /**
   * Replaces the sweep's result by the mixed iterate: the scales, not yet divided by a_A =
   * `artificial` (the rescale is part of the step), and scalars = [s, t].
   */
  mix(target: Float64Array, source: Float64Array, inverseTarget: Float64Array, known: Float64Array, scalars: Float64Array, artificial: number): void {
    const { n, size, scalarsAt, base, gram, dots, gamma } = this;
    const depth = ANDERSON_DEPTH;
    const input = this.input;
    const step = this.step;
    const logScale = Math.log(artificial);
    for (let j = 0; j < n; j++) step[j] = logRatio(target[j]!, base[j]!) - logScale;
    if (this.withSources) for (let j = 0; j < n; j++) step[n + j] = known[j]! > 0 ? logRatio(source[j]!, base[n + j]!) - logScale : 0;
    step[scalarsAt] = Math.log(scalars[0]!) - input[scalarsAt]!;
    step[scalarsAt + 1] = Math.log(scalars[1]!) - input[scalarsAt + 1]!;
    if (this.started) {
      this.newest = (this.newest + 1) % depth;
      if (this.stored < depth) this.stored++;
      differences(size, input, this.previousInput, step, this.previousStep, this.stepDifferences[this.newest]!, this.bothDifferences[this.newest]!);
    }
    // x_k and f_k become the previous ones; their old buffers are free for the next input and step.
    this.input = this.previousInput;
    this.previousInput = input;
    this.step = this.previousStep;
    this.previousStep = step;
    this.started = true;
    this.hasInput = false;
    const stored = this.stored;
    // Without a mixing step the scales are rescaled as they are, and the next input recorded from them.
    if (stored === 0) {
      rescale(n, target, source, inverseTarget, artificial);
      return;
    }
    // Row `newest` of the Gram matrix of the step differences, and the right-hand side, for every
    // slot in one pass (slots not yet filled hold zeros, and their dots are not used).
    const [d0, d1, d2, d3, d4] = this.stepDifferences as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
    gramRow(size, d0, d1, d2, d3, d4, this.stepDifferences[this.newest]!, step, dots);
    const rhs = new Float64Array(stored);
    for (let a = 0; a < stored; a++) {
      gram[a * depth + this.newest] = dots[2 * a]!;
      gram[this.newest * depth + a] = dots[2 * a]!;
      rhs[a] = dots[2 * a + 1]!;
    }
    const solution = solveRegularised(gram, depth, rhs, stored);
    if (solution === null) {
      rescale(n, target, source, inverseTarget, artificial);
      return;
    }
    gamma.fill(0);
    gamma.set(solution);
    const mixed = this.mixed;
    const [b0, b1, b2, b3, b4] = this.bothDifferences as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
    mixedIterate(size, input, step, gamma[0]!, b0, gamma[1]!, b1, gamma[2]!, b2, gamma[3]!, b3, gamma[4]!, b4, mixed);
    for (let j = 0; j < n; j++) {
      const value = base[j]! * expNearZero(mixed[j]! - input[j]!);
      base[j] = value;
      target[j] = value;
      inverseTarget[j] = 1 / value;
      source[j] = value;
    }
    if (this.withSources) {
      for (let j = 0; j < n; j++) {
        if (!(known[j]! > 0)) continue;
        const value = base[n + j]! * expNearZero(mixed[n + j]! - input[n + j]!);
        base[n + j] = value;
        source[j] = value;
      }
    }
    scalars[0] = Math.exp(mixed[scalarsAt]!);
    scalars[1] = Math.exp(mixed[scalarsAt + 1]!);
    // The mixed iterate is the next sweep's input as it is.
    this.mixed = this.input;
    this.input = mixed;
    this.hasInput = true;
  }
}

/**
 * ln(x / y) for positive x and y. Near x = y it is 2 atanh(z) with z = (x - y) / (x + y), summed to
 * z^11: for |z| < 1/32 the first term left out is below 1e-19 of the sum and x - y is exact
 * (Sterbenz), so the result is within a few units in the last place of ln(x / y) (measured against
 * Math.log1p; Math.log(x / y) itself loses the rounding of x / y, 1e-16 absolute). Elsewhere Math.log.
 */
export function logRatio(x: number, y: number): number {
  const z = (x - y) / (x + y);
  if (Math.abs(z) < 1 / 32) {
    const z2 = z * z;
    return 2 * z * (1 + z2 * (1 / 3 + z2 * (1 / 5 + z2 * (1 / 7 + z2 * (1 / 9 + z2 / 11)))));
  }
  return Math.log(x / y);
}

/** e^d: for |d| < 1/32 its Taylor series to d^8 (the first term left out is below 1e-19), elsewhere Math.exp. */
export function expNearZero(d: number): number {
  if (Math.abs(d) < 1 / 32) {
    return 1 + d * (1 + d * (1 / 2 + d * (1 / 6 + d * (1 / 24 + d * (1 / 120 + d * (1 / 720 + d * (1 / 5040 + d / 40320)))))));
  }
  return Math.exp(d);
}

/** df = step - previousStep and both = (input - previousInput) + df. */
function differences(
  size: number,
  input: Float64Array,
  previousInput: Float64Array,
  step: Float64Array,
  previousStep: Float64Array,
  df: Float64Array,
  both: Float64Array,
): void {
  for (let k = 0; k < size; k++) {
    const stepDifference = step[k]! - previousStep[k]!;
    df[k] = stepDifference;
    both[k] = input[k]! - previousInput[k]! + stepDifference;
  }
}

/** out[2a] = d_a . newest and out[2a + 1] = d_a . step for the five slots, in one pass over the vectors. */
function gramRow(
  size: number,
  d0: Float64Array,
  d1: Float64Array,
  d2: Float64Array,
  d3: Float64Array,
  d4: Float64Array,
  newest: Float64Array,
  step: Float64Array,
  out: Float64Array,
): void {
  let g0 = 0;
  let g1 = 0;
  let g2 = 0;
  let g3 = 0;
  let g4 = 0;
  let r0 = 0;
  let r1 = 0;
  let r2 = 0;
  let r3 = 0;
  let r4 = 0;
  for (let k = 0; k < size; k++) {
    const y = newest[k]!;
    const f = step[k]!;
    const x0 = d0[k]!;
    const x1 = d1[k]!;
    const x2 = d2[k]!;
    const x3 = d3[k]!;
    const x4 = d4[k]!;
    g0 += x0 * y;
    r0 += x0 * f;
    g1 += x1 * y;
    r1 += x1 * f;
    g2 += x2 * y;
    r2 += x2 * f;
    g3 += x3 * y;
    r3 += x3 * f;
    g4 += x4 * y;
    r4 += x4 * f;
  }
  out[0] = g0;
  out[1] = r0;
  out[2] = g1;
  out[3] = r1;
  out[4] = g2;
  out[5] = r2;
  out[6] = g3;
  out[7] = r3;
  out[8] = g4;
  out[9] = r4;
}

/** mixed = input + step - sum_a gamma_a (dx_a + df_a), the five slots in one pass (an unused slot has gamma 0). */
function mixedIterate(
  size: number,
  input: Float64Array,
  step: Float64Array,
  gamma0: number,
  b0: Float64Array,
  gamma1: number,
  b1: Float64Array,
  gamma2: number,
  b2: Float64Array,
  gamma3: number,
  b3: Float64Array,
  gamma4: number,
  b4: Float64Array,
  mixed: Float64Array,
): void {
  for (let k = 0; k < size; k++) {
    mixed[k] = input[k]! + step[k]! - gamma0 * b0[k]! - gamma1 * b1[k]! - gamma2 * b2[k]! - gamma3 * b3[k]! - gamma4 * b4[k]!;
  }
}

/** Solves the stored x stored leading block of `gram` (row stride `depth`) for `rhs`, with a tiny ridge; null if singular. */
export function solveRegularised(gram: Float64Array, depth: number, rhs: Float64Array, stored: number): Float64Array | null {
  const m = stored;
  const width = m + 1;
  const a = new Float64Array(m * width);
  let trace = 0;
  for (let i = 0; i < m; i++) trace += gram[i * depth + i]!;
  if (!(trace > 0)) return null;
  for (let i = 0; i < m; i++) {
    for (let k = 0; k < m; k++) a[i * width + k] = gram[i * depth + k]! + (i === k ? 1e-12 * trace : 0);
    a[i * width + m] = rhs[i]!;
  }
  for (let col = 0; col < m; col++) {
    let pivot = col;
    for (let i = col + 1; i < m; i++) if (Math.abs(a[i * width + col]!) > Math.abs(a[pivot * width + col]!)) pivot = i;
    if (a[pivot * width + col] === 0) return null;
    if (pivot !== col) {
      for (let k = 0; k < width; k++) {
        const swap = a[col * width + k]!;
        a[col * width + k] = a[pivot * width + k]!;
        a[pivot * width + k] = swap;
      }
    }
    for (let i = col + 1; i < m; i++) {
      const f = a[i * width + col]! / a[col * width + col]!;
      for (let k = col; k < width; k++) a[i * width + k]! -= f * a[col * width + k]!;
    }
  }
  const x = new Float64Array(m);
  for (let i = m - 1; i >= 0; i--) {
    let sum = a[i * width + m]!;
    for (let k = i + 1; k < m; k++) sum -= a[i * width + k]! * x[k]!;
    x[i] = sum / a[i * width + i]!;
  }
  return x.every(Number.isFinite) ? x : null;
}
