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

/** Anderson mixing keeps this many previous iterates. */
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
  const mixer = sweepKind === 'anderson' ? new AndersonMixer(n, ANDERSON_DEPTH) : null;

  while (sweeps < maxSweeps) {
    const readSource = previousSource ?? source;
    const readInverse = previousInverse ?? inverseTarget;
    if (previousTarget !== null) {
      previousTarget.set(target);
      previousInverse!.set(inverseTarget);
      previousSource!.set(source);
    }
    mixer?.recordInput(target, source, known);
    let worst = 0;
    for (let j = 0; j < n; j++) {
      // In-flow and out-flow of j per unit of its own scales (a_A = 1).
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
      // Conservation before the update: in = numerator / w_j, out = denominator * u_j.
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
    }
    // The artificial node: balance it, then rescale so that a_A = 1.
    let sumSource = 0;
    let sumInverse = 0;
    for (let j = 0; j < n; j++) {
      sumSource += source[j]!;
      sumInverse += inverseTarget[j]!;
    }
    const artificial = Math.sqrt(sumSource / sumInverse);
    const artificialGap = Math.abs(t * sumSource - t * sumInverse) / (t * sumSource);
    if (artificialGap > worst) worst = artificialGap;
    for (let j = 0; j < n; j++) {
      target[j]! /= artificial;
      source[j]! /= artificial;
      inverseTarget[j]! *= artificial;
    }
    sweeps++;
    violation = worst;
    options.onSweep?.(sweeps, violation);
    if (!Number.isFinite(violation) || !Number.isFinite(artificial) || artificial === 0) {
      // The scales ran off to 0 or infinity: no flow meets the constraints (alpha too large for this graph).
      return divergent(graph, sweeps, alpha);
    }
    if (violation < tolerance) {
      const totals = flowTotals(graph, prior, source, inverseTarget);
      s = alpha / totals.real;
      t = (1 - alpha) / totals.artificial;
      break;
    }
    mixer?.mix(target, source, inverseTarget, known);
    const totals = flowTotals(graph, prior, source, inverseTarget);
    s = alpha / totals.real;
    t = (1 - alpha) / totals.artificial;
  }
  // Final measurement of the conservation violation with the final values.
  violation = conservationViolation(graph, prior, inPrior, source, inverseTarget, target, s, t);
  return finish(graph, prior, inPrior, source, target, inverseTarget, s, t, sweeps, violation, tolerance, alpha);
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

/** sum over real links of q a_i / a_j, and over the links of A of a_i + 1/a_j (a_A = 1). */
function flowTotals(graph: Graph, prior: Float64Array | null, source: Float64Array, inverseTarget: Float64Array): { real: number; artificial: number } {
  const { outOffsets, outTargets } = graph;
  let real = 0;
  let artificial = 0;
  for (let i = 0; i < graph.nodeCount; i++) {
    let sum = 0;
    const end = outOffsets[i + 1]!;
    if (prior === null) for (let e = outOffsets[i]!; e < end; e++) sum += inverseTarget[outTargets[e]!]!;
    else for (let e = outOffsets[i]!; e < end; e++) sum += prior[e]! * inverseTarget[outTargets[e]!]!;
    real += source[i]! * sum;
    artificial += source[i]! + inverseTarget[i]!;
  }
  return { real, artificial };
}

/** max over the nodes (A included) of |in - out| / in. */
function conservationViolation(
  graph: Graph,
  prior: Float64Array | null,
  inPrior: Float64Array | null,
  source: Float64Array,
  inverseTarget: Float64Array,
  target: Float64Array,
  s: number,
  t: number,
): number {
  const { inflow, outflow, artificialIn, artificialOut } = flows(graph, prior, inPrior, source, inverseTarget, s, t);
  let worst = Math.abs(artificialIn - artificialOut) / artificialIn;
  for (let j = 0; j < graph.nodeCount; j++) {
    const gap = Math.abs(inflow[j]! - outflow[j]!) / inflow[j]!;
    if (gap > worst) worst = gap;
  }
  void target;
  return worst;
}

/** In- and out-flow of every page, and of A. */
function flows(
  graph: Graph,
  prior: Float64Array | null,
  inPrior: Float64Array | null,
  source: Float64Array,
  inverseTarget: Float64Array,
  s: number,
  t: number,
): { inflow: Float64Array; outflow: Float64Array; artificialIn: number; artificialOut: number } {
  const n = graph.nodeCount;
  const { outOffsets, outTargets, inOffsets, inSources } = graph;
  const inflow = new Float64Array(n);
  const outflow = new Float64Array(n);
  let artificialIn = 0;
  let artificialOut = 0;
  for (let j = 0; j < n; j++) {
    let inSum = 0;
    for (let e = inOffsets[j]!; e < inOffsets[j + 1]!; e++) inSum += (inPrior === null ? 1 : inPrior[e]!) * source[inSources[e]!]!;
    let outSum = 0;
    for (let e = outOffsets[j]!; e < outOffsets[j + 1]!; e++) outSum += (prior === null ? 1 : prior[e]!) * inverseTarget[outTargets[e]!]!;
    inflow[j] = (s * inSum + t) * inverseTarget[j]!;
    outflow[j] = (s * outSum + t) * source[j]!;
    artificialIn += t * source[j]!;
    artificialOut += t * inverseTarget[j]!;
  }
  return { inflow, outflow, artificialIn, artificialOut };
}

function finish(
  graph: Graph,
  prior: Float64Array | null,
  inPrior: Float64Array | null,
  source: Float64Array,
  target: Float64Array,
  inverseTarget: Float64Array,
  s: number,
  t: number,
  sweeps: number,
  violation: number,
  tolerance: number,
  alpha: number,
): TrafficResult {
  const n = graph.nodeCount;
  const { inflow } = flows(graph, prior, inPrior, source, inverseTarget, s, t);
  let total = 0;
  for (let j = 0; j < n; j++) total += inflow[j]!;
  const trafficRank = Float64Array.from(inflow, (x) => x / total);
  // Entropy and achieved totals.
  const { outOffsets, outTargets } = graph;
  let entropy = 0;
  let realFlow = 0;
  let artificialFlow = 0;
  const term = (p: number): number => (p > 0 ? -p * Math.log(p) : 0);
  for (let i = 0; i < n; i++) {
    for (let e = outOffsets[i]!; e < outOffsets[i + 1]!; e++) {
      const p = s * (prior === null ? 1 : prior[e]!) * source[i]! * inverseTarget[outTargets[e]!]!;
      realFlow += p;
      entropy += term(p);
    }
    const toA = t * source[i]!;
    const fromA = t * inverseTarget[i]!;
    artificialFlow += toA + fromA;
    entropy += term(toA) + term(fromA);
  }
  return {
    trafficRank,
    hotness: Float64Array.from(target),
    lambda: Float64Array.from(target, Math.log),
    mu: 1 + Math.log(s),
    nu: 1 + Math.log(t),
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
 * over the last `depth` differences. For pages with known hits the source
 * and target scales are mixed as two coordinates.
 */
class AndersonMixer {
  private readonly input: Float64Array;
  private readonly previousInput: Float64Array;
  private readonly previousStep: Float64Array;
  private readonly step: Float64Array;
  private readonly inputDifferences: Float64Array[];
  private readonly stepDifferences: Float64Array[];
  private readonly gram: Float64Array;
  private stored = 0;
  private newest = -1;
  private started = false;

  constructor(
    private readonly n: number,
    private readonly depth: number,
  ) {
    const size = 2 * n;
    this.input = new Float64Array(size);
    this.previousInput = new Float64Array(size);
    this.previousStep = new Float64Array(size);
    this.step = new Float64Array(size);
    this.inputDifferences = Array.from({ length: depth }, () => new Float64Array(size));
    this.stepDifferences = Array.from({ length: depth }, () => new Float64Array(size));
    this.gram = new Float64Array(depth * depth);
  }

  /** The log scales before a sweep (the second half only matters for pages with known hits). */
  recordInput(target: Float64Array, source: Float64Array, known: Float64Array): void {
    const n = this.n;
    for (let j = 0; j < n; j++) {
      this.input[j] = Math.log(target[j]!);
      this.input[n + j] = known[j]! > 0 ? Math.log(source[j]!) : 0;
    }
  }

  /** Replaces the sweep's result by the mixed iterate. */
  mix(target: Float64Array, source: Float64Array, inverseTarget: Float64Array, known: Float64Array): void {
    const n = this.n;
    const size = 2 * n;
    const { input, step, previousInput, previousStep, depth } = this;
    for (let j = 0; j < n; j++) {
      step[j] = Math.log(target[j]!) - input[j]!;
      step[n + j] = known[j]! > 0 ? Math.log(source[j]!) - input[n + j]! : 0;
    }
    if (this.started) {
      this.newest = (this.newest + 1) % depth;
      if (this.stored < depth) this.stored++;
      const dx = this.inputDifferences[this.newest]!;
      const df = this.stepDifferences[this.newest]!;
      for (let k = 0; k < size; k++) {
        dx[k] = input[k]! - previousInput[k]!;
        df[k] = step[k]! - previousStep[k]!;
      }
      for (let a = 0; a < this.stored; a++) {
        const other = this.stepDifferences[a]!;
        let dot = 0;
        for (let k = 0; k < size; k++) dot += other[k]! * df[k]!;
        this.gram[a * depth + this.newest] = dot;
        this.gram[this.newest * depth + a] = dot;
      }
    }
    previousInput.set(input);
    previousStep.set(step);
    this.started = true;
    if (this.stored === 0) return;
    const rhs = new Float64Array(this.stored);
    for (let a = 0; a < this.stored; a++) {
      const other = this.stepDifferences[a]!;
      let dot = 0;
      for (let k = 0; k < size; k++) dot += other[k]! * step[k]!;
      rhs[a] = dot;
    }
    const gamma = solveRegularised(this.gram, depth, rhs, this.stored);
    if (gamma === null) return;
    for (let j = 0; j < n; j++) {
      let value = input[j]! + step[j]!;
      for (let a = 0; a < this.stored; a++) value -= gamma[a]! * (this.inputDifferences[a]![j]! + this.stepDifferences[a]![j]!);
      target[j] = Math.exp(value);
      inverseTarget[j] = 1 / target[j]!;
      if (known[j]! > 0) {
        let sourceValue = input[n + j]! + step[n + j]!;
        for (let a = 0; a < this.stored; a++) {
          sourceValue -= gamma[a]! * (this.inputDifferences[a]![n + j]! + this.stepDifferences[a]![n + j]!);
        }
        source[j] = Math.exp(sourceValue);
      } else {
        source[j] = target[j]!;
      }
    }
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
