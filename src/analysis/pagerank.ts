/**
 * PageRank: the Web Graph Analyzer paper, Definition 4, computed by power
 * iteration (its Algorithm 1) or, by default, by the faster Gauss-Seidel
 * solver over strongly connected components (pagerank-scc.ts), which gives
 * the same vector.
 *
 * Convention (ours and the paper's): the hyperlink matrix P has 1/k for each
 * of the k out-links of a page; a dangling page (no out-links) spreads its
 * mass over all pages (by the `dangling` distribution, uniform by default);
 * the Google matrix is c P + (1 - c) 1 v with teleport v (uniform by default)
 * and damping c = 0.85. Power iteration starts from the uniform vector and
 * iterates
 *   pi_k = c pi_{k-1} P + (c * dangling mass) d + (1 - c) v
 * until ||pi_k - pi_{k-1}||_1 <= tolerance. Every solver stops on that same
 * quantity, the residual ||pi G - pi||_1. The scores sum to 1.
 *
 * On a weighted graph a page's out-links are followed in proportion to
 * their weights instead of uniformly (igraph's and networkx's convention).
 */
import { totalmem } from 'node:os';
import { OptionError } from '../errors.js';
import type { Graph } from '../graph/graph.js';
import { defaultThreads } from '../parallel/pool.js';
import { outShares, runPowerIteration } from './pagerank-power.js';
import { pagerankBySccGaussSeidel } from './pagerank-scc.js';
import { componentsOfLargeGraph } from './scc-pivot.js';
import type { SccResult } from './scc.js';

/**
 * 'power': power iteration, the reference (Algorithm 1).
 * 'gauss-seidel': Gauss-Seidel over strongly connected components in topological order.
 * 'auto' (default): the faster of the two for the graph at hand. Where
 * Gauss-Seidel applies (unweighted graph, dangling mass following the
 * teleport distribution, no starting vector) and the graph with its working
 * memory (gaussSeidelExtraBytes) fits in three quarters of the machine's, the strongly
 * connected components decide first: with two or more closed ones (no link
 * leaving them, no dangling page in them) the Google matrix's second
 * eigenvalue is the damping factor c itself (Haveliwala and Kamvar 2003), so
 * power iteration's error shrinks by only c per iteration in the end
 * (log(tolerance)/log(c), 140 iterations at 1e-10) and Gauss-Seidel is
 * chosen, reusing the components. Otherwise a few power iterations measure
 * how fast the graph mixes; power iteration carries on if it will be done
 * within about 35 iterations (random-like graphs), else Gauss-Seidel.
 * Power iteration runs on all threads; docs/pagerank-performance.md has the
 * measurements behind the choice.
 */
export type PageRankSolver = 'auto' | 'power' | 'gauss-seidel';
export const PAGERANK_SOLVERS: readonly PageRankSolver[] = ['auto', 'power', 'gauss-seidel'];

export interface PageRankOptions {
  /** c, the probability of following a link: 0.85 (the paper, Google). */
  damping?: number;
  /** Stop when ||pi G - pi||_1 (for power iteration, the change of an iteration) is at most this: 1e-10. */
  tolerance?: number;
  /** Iteration limit (power iterations, or sweeps of one component): 1000. Reached = not converged, reported. */
  maxIterations?: number;
  /** Teleport (personalisation) distribution v, one entry per page; normalised. Default uniform. */
  teleport?: Float64Array | null;
  /** Where dangling pages send their mass; normalised. Default: the teleport distribution. */
  dangling?: Float64Array | null;
  /** Starting vector of power iteration; normalised. Default uniform (Algorithm 1, step 0). */
  initial?: Float64Array | null;
  solver?: PageRankSolver;
  /**
   * Strongly connected components of the graph, if already computed (saves the Gauss-Seidel solver a pass).
   * Computed with {finishOrder: true} they also give a sweep order inside each component (reverse
   * finishing order); without it the pages are swept in id order, the default, which keeps the
   * input's locality (faster on the benchmark graphs: pagerank-scc.ts).
   */
  scc?: SccResult;
  /** Threads for the link-visiting kernels (the calling one included): the machine's cores, at most 8. Graphs under 200,000 links use one. */
  threads?: number;
  /** Called after every iteration with the iteration number and L1 change. */
  onIteration?: (iteration: number, residual: number) => void;
}

/** Power iterations 'auto' runs first to measure how fast the graph mixes. */
const AUTO_PROBE = 6;
/** 'auto' stays with power iteration when it is predicted to finish within this many iterations. */
const AUTO_POWER_LIMIT = 35;
/**
 * 'auto' never picks Gauss-Seidel when the graph and the solver's working memory would exceed this
 * share of the machine's. Until 2026-11-25 the working memory alone had to fit in a quarter, which
 * kept 10^9 links (10^8 pages: 7.2 GB of 24) on power iteration; measured there, Gauss-Seidel
 * peaked at 13.26 GB against power iteration's 13.16 GB and solved in 232 s against about 20
 * minutes (BENCHMARKS.md, "Gauss-Seidel on 10^9 links").
 */
const AUTO_MEMORY_SHARE = 0.75;

/**
 * What the Gauss-Seidel solver allocates beside the graph, 72 bytes per page
 * and nothing per link (it sweeps the graph's own in-links): Tarjan's six
 * integer arrays (24 bytes; the component ids are kept), the pages listed by
 * component (4, plus at most 4 of component bounds) and five vectors of
 * doubles (out-shares, internal shares, the iterate, what each page passes
 * on, the checked product). Measured on the 10^8-link benchmark graph
 * (10M pages): peak 1.43 GB with the graph's 0.86 GB.
 */
export function gaussSeidelExtraBytes(graph: Graph): number {
  return 72 * graph.nodeCount;
}

export const PAGERANK_DEFAULTS = {
  damping: 0.85,
  tolerance: 1e-10,
  maxIterations: 1000,
} as const;

export interface PageRankResult {
  scores: Float64Array;
  /** The solver that ran ('power' or 'gauss-seidel'). */
  solver: Exclude<PageRankSolver, 'auto'>;
  /** Power iteration: multiplications by the Google matrix. Gauss-Seidel: sweeps of the slowest component. */
  iterations: number;
  /** Links visited divided by links: the cost in units of one power iteration. */
  equivalentIterations: number;
  /** Power iteration: ||pi_k - pi_{k-1}||_1 of the last step; Gauss-Seidel: ||pi G - pi||_1 of the result. */
  residual: number;
  /** False when the iteration limit was reached with residual > tolerance. */
  converged: boolean;
  damping: number;
  tolerance: number;
}

export function pagerank(graph: Graph, options: PageRankOptions = {}): PageRankResult {
  const damping = options.damping ?? PAGERANK_DEFAULTS.damping;
  const tolerance = options.tolerance ?? PAGERANK_DEFAULTS.tolerance;
  const maxIterations = options.maxIterations ?? PAGERANK_DEFAULTS.maxIterations;
  checkPageRankOptions(damping, tolerance, maxIterations);
  const solver = options.solver ?? 'auto';
  if (options.threads !== undefined && !(Number.isInteger(options.threads) && options.threads >= 1)) {
    throw new OptionError('threads', `must be a positive integer, got ${options.threads}`);
  }
  if (!PAGERANK_SOLVERS.includes(solver)) {
    throw new OptionError('solver', `expected one of ${PAGERANK_SOLVERS.join(', ')}, got '${String(solver)}'`);
  }
  const n = graph.nodeCount;
  const teleport = distribution(options.teleport, n, 'teleport');
  const gaussSeidelApplies = !graph.weighted && options.dangling == null && options.initial == null;
  if (solver === 'gauss-seidel' && !gaussSeidelApplies) {
    throw new OptionError(
      'solver',
      'gauss-seidel needs an unweighted graph, dangling mass following the teleport distribution and no starting vector; use power',
    );
  }
  if (solver === 'auto' && gaussSeidelApplies && graph.memoryBytes() + gaussSeidelExtraBytes(graph) > totalmem() * AUTO_MEMORY_SHARE) {
    // Too big for Gauss-Seidel's per-page arrays (72 bytes a page against power iteration's 48).
    return powerIteration(graph, damping, tolerance, maxIterations, teleport, options);
  }
  let scc = options.scc;
  if (n > 0 && solver === 'auto' && gaussSeidelApplies) {
    // Web graphs have many closed components (cnr-2000: 1,091; the 10^8-link benchmark graph: 61),
    // where the probe below, seeing only the fast early iterations, predicted 34 power iterations
    // for a graph that needed 72. The components are Gauss-Seidel's first step anyway.
    scc ??= componentsOfLargeGraph(graph, options.threads ?? defaultThreads());
    if (closedComponents(graph, scc, 2) < 2) {
      const quick = powerIfQuick(graph, damping, tolerance, maxIterations, teleport, options);
      if (quick !== null) return quick;
    }
  }
  if (n > 0 && solver !== 'power' && gaussSeidelApplies) {
    const result = pagerankBySccGaussSeidel(graph, {
      damping,
      tolerance,
      maxIterations,
      teleport,
      threads: options.threads ?? defaultThreads(),
      ...(scc === undefined ? {} : { scc }),
      ...(options.onIteration === undefined ? {} : { onIteration: options.onIteration }),
    });
    return { ...result, solver: 'gauss-seidel', damping, tolerance };
  }
  return powerIteration(graph, damping, tolerance, maxIterations, teleport, options);
}

/** Algorithm 1 of the paper: the reference solver. */
function powerIteration(
  graph: Graph,
  damping: number,
  tolerance: number,
  maxIterations: number,
  teleport: Float64Array | null,
  options: PageRankOptions,
): PageRankResult {
  const n = graph.nodeCount;
  if (n === 0) {
    return { scores: new Float64Array(0), solver: 'power', iterations: 0, equivalentIterations: 0, residual: 0, converged: true, damping, tolerance };
  }
  const dangling = options.dangling == null ? teleport : distribution(options.dangling, n, 'dangling');
  const start = distribution(options.initial, n, 'initial') ?? new Float64Array(n).fill(1 / n);
  if (graph.inWeights === null) {
    const run = runPowerIteration(
      graph.inOffsets,
      graph.inSources,
      outShares(graph),
      start,
      damping,
      tolerance,
      maxIterations,
      teleport,
      dangling,
      options.threads ?? defaultThreads(),
      options.onIteration,
    );
    const scores = run.scores;
    normalise(scores);
    return {
      scores,
      solver: 'power',
      iterations: run.iterations,
      equivalentIterations: run.iterations,
      residual: run.residual,
      converged: run.residual <= tolerance,
      damping,
      tolerance,
    };
  }
  return weightedPowerIteration(graph, damping, tolerance, maxIterations, teleport, dangling, start, options);
}

/** Algorithm 1 on a weighted graph (one thread): links followed in proportion to their weights. */
function weightedPowerIteration(
  graph: Graph,
  damping: number,
  tolerance: number,
  maxIterations: number,
  teleport: Float64Array | null,
  dangling: Float64Array | null,
  start: Float64Array,
  options: PageRankOptions,
): PageRankResult {
  const n = graph.nodeCount;
  let x: Float64Array = start;
  let y: Float64Array = new Float64Array(n);
  const { outOffsets, inOffsets, inSources } = graph;
  const danglingPages: number[] = [];
  for (let u = 0; u < n; u++) if (outOffsets[u + 1] === outOffsets[u]) danglingPages.push(u);
  const danglingIds = Int32Array.from(danglingPages);
  const edgeShare = inEdgeTransitionProbabilities(graph);
  const jump = 1 - damping;

  let iterations = 0;
  let residual = Infinity;
  while (iterations < maxIterations) {
    let danglingMass = 0;
    for (let i = 0; i < danglingIds.length; i++) danglingMass += x[danglingIds[i]!]!;
    const spread = damping * danglingMass;
    pullWeightedSums(n, inOffsets, inSources, edgeShare, x, y);
    residual =
      dangling === null && teleport === null
        ? finishUniform(n, damping, spread / n + jump / n, x, y)
        : finishPersonalised(n, damping, spread, jump, dangling ?? uniformVector(n), teleport ?? uniformVector(n), x, y);
    const swap = x;
    x = y;
    y = swap;
    iterations++;
    options.onIteration?.(iterations, residual);
    if (residual <= tolerance) break;
  }
  normalise(x);
  return {
    scores: x,
    solver: 'power',
    iterations,
    equivalentIterations: iterations,
    residual,
    converged: residual <= tolerance,
    damping,
    tolerance,
  };
}

// The kernels below are separate monomorphic functions on typed arrays so
// that V8 optimises each one once; a loop with per-edge branches on options
// ran at a third of the speed.

/** sums[v] = sum of x[u] * p(u -> v) over the in-links of v. */
function pullWeightedSums(
  n: number,
  inOffsets: Uint32Array,
  inSources: Int32Array,
  edgeShare: Float64Array,
  x: Float64Array,
  sums: Float64Array,
): void {
  let e = inOffsets[0]!;
  for (let v = 0; v < n; v++) {
    const end = inOffsets[v + 1]!;
    let sum = 0;
    for (; e < end; e++) sum += x[inSources[e]!]! * edgeShare[e]!;
    sums[v] = sum;
  }
}

/** y = damping * y + constant (uniform teleport and dangling); returns ||y - x||_1. */
function finishUniform(n: number, damping: number, constant: number, x: Float64Array, y: Float64Array): number {
  let change = 0;
  for (let v = 0; v < n; v++) {
    const value = damping * y[v]! + constant;
    y[v] = value;
    change += Math.abs(value - x[v]!);
  }
  return change;
}

/** y = damping * y + spread * dangling + jump * teleport; returns ||y - x||_1. */
function finishPersonalised(
  n: number,
  damping: number,
  spread: number,
  jump: number,
  dangling: Float64Array,
  teleport: Float64Array,
  x: Float64Array,
  y: Float64Array,
): number {
  let change = 0;
  for (let v = 0; v < n; v++) {
    const value = damping * y[v]! + spread * dangling[v]! + jump * teleport[v]!;
    y[v] = value;
    change += Math.abs(value - x[v]!);
  }
  return change;
}

function uniformVector(n: number): Float64Array {
  return new Float64Array(n).fill(1 / n);
}

/** For each in-edge e of v from u: w(u, v) / (total out-weight of u). */
export function inEdgeTransitionProbabilities(graph: Graph): Float64Array {
  const n = graph.nodeCount;
  const { outOffsets, outWeights, inOffsets, inSources, inWeights } = graph;
  if (outWeights === null || inWeights === null) throw new Error('inEdgeTransitionProbabilities: graph is unweighted');
  const outTotal = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    let total = 0;
    for (let e = outOffsets[u]!; e < outOffsets[u + 1]!; e++) total += outWeights[e]!;
    outTotal[u] = total;
  }
  const result = new Float64Array(inSources.length);
  for (let v = 0; v < n; v++) {
    for (let e = inOffsets[v]!; e < inOffsets[v + 1]!; e++) result[e] = inWeights[e]! / outTotal[inSources[e]!]!;
  }
  return result;
}

export function checkPageRankOptions(damping: number, tolerance: number, maxIterations: number): void {
  if (!(damping >= 0 && damping < 1)) throw new OptionError('damping', `must be in [0, 1), got ${damping}`);
  if (!(tolerance > 0)) throw new OptionError('tolerance', `must be a positive number, got ${tolerance}`);
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new OptionError('max-iterations', `must be a positive integer, got ${maxIterations}`);
  }
}

/** A normalised copy of a probability vector, or null when none was given. */
function distribution(vector: Float64Array | null | undefined, n: number, name: string): Float64Array | null {
  if (vector == null) return null;
  if (vector.length !== n) throw new OptionError(name, `needs one entry per page (${n}), got ${vector.length}`);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const value = vector[i]!;
    if (!(value >= 0) || !Number.isFinite(value)) {
      throw new OptionError(name, `entries must be finite and non-negative; entry ${i} is ${value}`);
    }
    total += value;
  }
  if (!(total > 0)) throw new OptionError(name, 'needs at least one positive entry');
  const result = new Float64Array(n);
  for (let i = 0; i < n; i++) result[i] = vector[i]! / total;
  return result;
}

export function normalise(x: Float64Array): void {
  let total = 0;
  for (let i = 0; i < x.length; i++) total += x[i]!;
  if (total > 0) for (let i = 0; i < x.length; i++) x[i]! /= total;
}

/**
 * 'auto' on a graph with at most one closed component: a few power iterations tell how fast it
 * mixes. Where power iteration will be done within about AUTO_POWER_LIMIT iterations (random-like
 * graphs) its low overhead wins and it simply continues (the result); else null (Gauss-Seidel).
 */
function powerIfQuick(
  graph: Graph,
  damping: number,
  tolerance: number,
  maxIterations: number,
  teleport: Float64Array | null,
  options: PageRankOptions,
): PageRankResult | null {
  const residuals: number[] = [];
  const probe = powerIteration(graph, damping, tolerance, Math.min(AUTO_PROBE, maxIterations), teleport, {
    ...options,
    onIteration: (iteration, residual) => {
      residuals.push(residual);
      options.onIteration?.(iteration, residual);
    },
  });
  if (probe.converged || probe.iterations >= maxIterations) return probe;
  const last = residuals[residuals.length - 1]!;
  const rate = (last / residuals[residuals.length - 1 - AUTO_PROBE / 2]!) ** (2 / AUTO_PROBE);
  const predicted = rate < 1 ? probe.iterations + Math.log(tolerance / last) / Math.log(rate) : Infinity;
  if (predicted > AUTO_POWER_LIMIT) return null;
  const rest = powerIteration(graph, damping, tolerance, maxIterations - probe.iterations, teleport, {
    ...options,
    initial: probe.scores,
    onIteration: (iteration, residual) => options.onIteration?.(probe.iterations + iteration, residual),
  });
  const iterations = probe.iterations + rest.iterations;
  return { ...rest, iterations, equivalentIterations: iterations };
}

/**
 * Closed strongly connected components, counted up to `enough`: no link leaves them and no page of
 * theirs is dangling (a dangling page's mass spreads over every page, so it leaves any set).
 */
export function closedComponents(graph: Graph, scc: SccResult, enough = Infinity): number {
  const open = new Uint8Array(scc.count);
  const { outOffsets, outTargets } = graph;
  const { component } = scc;
  for (let u = 0; u < graph.nodeCount; u++) {
    const c = component[u]!;
    if (open[c] === 1) continue;
    const end = outOffsets[u + 1]!;
    if (end === outOffsets[u]!) open[c] = 1;
    else for (let e = outOffsets[u]!; e < end; e++) if (component[outTargets[e]!] !== c) { open[c] = 1; break; }
  }
  let closed = 0;
  for (let c = 0; c < scc.count && closed < enough; c++) if (open[c] === 0) closed++;
  return closed;
}
