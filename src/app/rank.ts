/**
 * `rank`: every page's score by PageRank (power iteration, Gauss-Seidel; personalised; restricted
 * to levels from roots), Monte Carlo, OPIC, TrafficRank or HOTness, with progress per iteration
 * (the convergence curve), optionally saved as a run and written to a score file.
 */
import { CORENESS_MODES, type CorenessMode, coreness, distanceCentralities, hits } from '../analysis/centrality.js';
import { hyperBall } from '../analysis/hyperball.js';
import { MONTE_CARLO_DEFAULTS, monteCarloPageRank } from '../analysis/montecarlo.js';
import { OPIC_STRATEGIES, Opic, type OpicStrategy } from '../analysis/opic.js';
import { TRAFFIC_DEFAULTS, TRAFFIC_SWEEPS, type TrafficSweep, trafficRank } from '../analysis/traffic.js';
import { PAGERANK_DEFAULTS, PAGERANK_SOLVERS, type PageRankResult, type PageRankSolver, pagerank } from '../analysis/pagerank.js';
import { restrictedPageRank } from '../analysis/restricted.js';
import { topK } from '../analysis/top.js';
import { OptionError } from '../errors.js';
import { writeScores } from '../formats/scores.js';
import { compactPageRank } from '../analysis/pagerank-compact.js';
import { outDegrees } from '../analysis/degrees.js';
import { compactBytes, compactFromGraph } from '../graph/compact.js';
import { type RankColumn, rankPositions, writeRanksTable } from '../formats/ranks-table.js';
import type { GraphLevel } from '../graph/hosts.js';
import type { Graph } from '../graph/graph.js';
import type { Labels } from '../graph/labels.js';
import { SubsetLabels } from '../graph/subgraph.js';
import { defaultThreads } from '../parallel/pool.js';
import { type AppContext, quietContext } from './context.js';
import { type GraphSource, saveRun } from './graph-source.js';
import { choiceOption, integerOption, numberOption, pageId } from './values.js';
import { MAX_THREADS } from './values.js';

export const RANK_METHODS = ['pagerank', 'montecarlo', 'opic', 'traffic', 'hotness', 'harmonic', 'closeness', 'lin', 'hits', 'coreness'] as const;

/**
 * Exact harmonic centrality and closeness cost one breadth-first search per page: n * m link visits.
 * Past this many the answer would take many minutes (HyperBall, issue 28, is their estimate at scale).
 */
export const EXACT_DISTANCE_LIMIT = 2e10;
export type RankMethod = (typeof RANK_METHODS)[number];

/** The options of a ranking as the CLI gives them (strings; the HTTP API passes the same names). */
export interface RankOptions {
  method?: string;
  solver?: string;
  damping?: string;
  tolerance?: string;
  maxIterations?: string;
  teleport?: string[];
  root?: string[];
  maxLevel?: string;
  walks?: string;
  seed?: string;
  strategy?: string;
  reads?: string;
  alpha?: string;
  sweep?: string;
  focus?: string;
  focusShare?: string;
  discoveryShare?: string;
  threads?: string;
  top?: string;
  out?: string;
  save?: boolean;
  /** A store's links to rank (values.ts linkFilterOption): the HTTP API's; the CLI passes --links to the graph source. */
  links?: string;
  /** HITS: rank by hub scores instead of authorities. */
  hubs?: boolean;
  /** Coreness: the degree counted, all (in + out), in or out. */
  mode?: string;
  /** Harmonic, closeness, Lin: exact (one breadth-first search per page) instead of HyperBall. */
  exact?: boolean;
  /** HyperBall: log2 of the registers per counter (4-16; default: the most, up to 8, that fit 4 GB). */
  log2m?: string;
  /** PageRank by power iteration on the compact graph. */
  compact?: boolean;
}

export interface RankedPage {
  rank: number;
  label: string;
  score: number;
  /** Monte Carlo only: the estimated standard deviation of the score, and it relative to the score. */
  stdDev?: number;
  relativeError?: number;
}

/** The `rank --json` contract (documented in the README). */
export interface RankJson {
  method: RankMethod;
  /** PageRank: the solver that ran ('power' or 'gauss-seidel'); Monte Carlo: 'walks'; OPIC: the strategy; TrafficRank/HOTness: the sweep. */
  solver: string;
  nodes: number;
  edges: number;
  damping: number;
  tolerance: number | null;
  /** PageRank: iterations (power) or sweeps (Gauss-Seidel); Monte Carlo: walks per page; OPIC: reads. */
  iterations: number;
  /** Cost in power iterations (links visited / links); Monte Carlo: steps / links. */
  equivalentIterations: number;
  /** PageRank: ||pi G - pi||_1 (L1 change of the last power iteration); Monte Carlo: the largest relative error (one standard deviation) among the top pages; OPIC: the error factor 1/G; TrafficRank/HOTness: the largest relative conservation violation. */
  residual: number;
  converged: boolean;
  /** Restricted PageRank: the pages within maxLevel clicks of the roots, else null. */
  restricted: { roots: string[]; maxLevel: number; nodes: number; edges: number } | null;
  /** Monte Carlo: walks per page, seed and total walks, else null. */
  montecarlo: { walksPerPage: number; seed: number; walks: number; totalVisits: number } | null;
  /** OPIC: the page selection strategy, reads done, the clock G and the error factor 1/G, else null. */
  opic: {
    strategy: OpicStrategy;
    reads: number;
    time: number;
    errorFactor: number;
    focusPages: number;
    focusShare: number;
    discoveryShare: number;
  } | null;
  /** With --compact: the bytes of the compact in-lists, in all and per link. */
  compact?: { bytes: number; bytesPerLink: number };
  /** TrafficRank and HOTness: alpha, the achieved entropy and link totals, the totals' multipliers, else null. */
  traffic: { alpha: number; entropy: number; realFlow: number; artificialFlow: number; mu: number; nu: number } | null;
  top: RankedPage[];
  timings: { load: number; solve: number };
  out: string | null;
  /** With --save: the id of the run stored in the --db store, else null. */
  run: number | null;
}

export function topEntries(labels: Labels, scores: Float64Array, k: number, deviations?: Float64Array): RankedPage[] {
  return Array.from(topK(scores, k), (id, i) => {
    const entry: RankedPage = { rank: i + 1, label: labels.label(id), score: scores[id]! };
    if (deviations !== undefined) {
      entry.stdDev = deviations[id]!;
      entry.relativeError = deviations[id]! / scores[id]!;
    }
    return entry;
  });
}


/** A checked ranking request. */
export interface RankRequest {
  /** The first of `methods`: the one `rank` computes. */
  method: RankMethod;
  /** Every method asked for (`--method harmonic,pagerank`): `rankTable` computes them all. */
  methods: RankMethod[];
  focus: RegExp | null;
  focusShare: number;
  discoveryShare: number;
  alpha: number;
  sweep: TrafficSweep;
  strategy: OpicStrategy;
  /** OPIC reads; null: 10 times the number of pages. */
  reads: number | null;
  solver: PageRankSolver;
  damping: number;
  tolerance: number;
  maxIterations: number;
  walksPerPage: number;
  seed: number;
  threads: number;
  maxLevel: number;
  k: number;
  teleport?: string[];
  roots?: string[];
  /** Write every ranked page's score to this file. */
  out: string | null;
  /** Keep the result as a run of the source's store. */
  save: boolean;
  /** How the graph was named, for the score file's comment. */
  source?: string;
  /** HITS: hubs instead of authorities. */
  hubs: boolean;
  /** Coreness: which degree. */
  coreMode: CorenessMode;
  exact: boolean;
  /** null: chosen to fit memory. */
  log2m: number | null;
  /** PageRank on the compact graph (gap-encoded in-lists). */
  compact: boolean;
}

/** Checks a ranking's options; an OptionError names the option at fault. */
export function parseRankOptions(options: RankOptions): RankRequest {
  const methods = (options.method ?? 'pagerank').split(',').map((m) => choiceOption('--method', m.trim(), RANK_METHODS, 'pagerank'));
  if (new Set(methods).size !== methods.length) throw new OptionError('--method', `names a method twice: '${options.method}'`);
  const method = methods[0]!;
  const asked = (m: RankMethod): boolean => methods.includes(m);
  const solver = choiceOption('--solver', options.solver, PAGERANK_SOLVERS, 'auto') as PageRankSolver;
  const damping = numberOption('--damping', options.damping, PAGERANK_DEFAULTS.damping, { min: 0, max: 1, exclusiveMax: true });
  const tolerance = numberOption('--tolerance', options.tolerance, PAGERANK_DEFAULTS.tolerance, { min: 0, exclusiveMin: true });
  const maxIterations = integerOption('--max-iterations', options.maxIterations, PAGERANK_DEFAULTS.maxIterations, 1);
  const walksPerPage = integerOption('--walks', options.walks, MONTE_CARLO_DEFAULTS.walksPerPage, 1);
  const seed = integerOption('--seed', options.seed, MONTE_CARLO_DEFAULTS.seed, 0);
  const threads = integerOption('--threads', options.threads, defaultThreads(), 1, MAX_THREADS);
  const maxLevel = integerOption('--max-level', options.maxLevel, 3, 0);
  const strategy = choiceOption('--strategy', options.strategy, OPIC_STRATEGIES, 'greedy');
  const alpha = numberOption('--alpha', options.alpha, TRAFFIC_DEFAULTS.alpha, { min: 0, max: 1, exclusiveMin: true, exclusiveMax: true });
  const sweep = choiceOption('--sweep', options.sweep, TRAFFIC_SWEEPS, TRAFFIC_DEFAULTS.sweep);
  let focus: RegExp | null = null;
  if (options.focus !== undefined) {
    try {
      focus = new RegExp(options.focus);
    } catch (error) {
      throw new OptionError('--focus', `not a regular expression: ${(error as Error).message}`);
    }
  }
  const focusShare = numberOption('--focus-share', options.focusShare, focus === null ? 0 : 0.5, { min: 0, max: 1 });
  const discoveryShare = numberOption('--discovery-share', options.discoveryShare, 0, { min: 0, max: 1 });
  if (focus === null && options.focusShare !== undefined) throw new OptionError('--focus-share', 'needs --focus (the rule that selects focus pages)');
  const k = integerOption('--top', options.top, 10, 0);
  const other = methods.find((m) => m !== 'pagerank');
  if (other !== undefined && (options.root !== undefined || options.teleport !== undefined)) {
    // Restriction and personalisation are PageRank's notions.
    throw new OptionError(`--method ${other}`, 'does not take --root or --teleport');
  }
  if (options.maxLevel !== undefined && options.root === undefined) {
    throw new OptionError('--max-level', 'needs --root (the pages levels are counted from)');
  }
  const reads = options.reads === undefined ? null : integerOption('--reads', options.reads, 1, 1);
  if (options.hubs === true && !asked('hits')) throw new OptionError('--hubs', 'is an option of --method hits');
  if (options.mode !== undefined && !asked('coreness')) throw new OptionError('--mode', 'is an option of --method coreness');
  const coreMode = choiceOption('--mode', options.mode, CORENESS_MODES, 'all');
  const geometric = asked('harmonic') || asked('closeness') || asked('lin');
  if (options.exact === true && !geometric) throw new OptionError('--exact', 'is an option of --method harmonic, closeness and lin');
  if (options.log2m !== undefined && (!geometric || options.exact === true)) throw new OptionError('--log2m', 'is an option of HyperBall: --method harmonic, closeness or lin without --exact');
  const log2m = options.log2m === undefined ? null : integerOption('--log2m', options.log2m, 8, 4, 16);
  if (options.compact === true) {
    if (methods.some((m) => m !== 'pagerank')) throw new OptionError('--compact', 'is an option of --method pagerank (power iteration on the compact graph)');
    if (options.root !== undefined || options.teleport !== undefined) throw new OptionError('--compact', 'ranks by Google\'s PageRank: it does not take --root or --teleport');
    if (solver !== 'auto' && solver !== 'power') throw new OptionError('--compact', `runs power iteration: it does not take --solver ${solver}`);
  }
  return {
    compact: options.compact === true,
    exact: options.exact === true,
    log2m,
    hubs: options.hubs === true,
    coreMode,
    method,
    methods,
    focus,
    focusShare,
    discoveryShare,
    alpha,
    sweep,
    strategy,
    reads,
    solver,
    damping,
    tolerance,
    maxIterations,
    walksPerPage,
    seed,
    threads,
    maxLevel,
    k,
    ...(options.teleport === undefined ? {} : { teleport: options.teleport }),
    ...(options.root === undefined ? {} : { roots: options.root }),
    out: options.out ?? null,
    save: options.save === true,
  };
}

/**
 * `rank`: ranks the source's pages. Progress events carry `data: {iteration, residual}` per
 * PageRank iteration or TrafficRank sweep (the convergence curve). Saves a run when asked
 * (needs a store) and writes the score file when asked.
 */
export async function rank(source: GraphSource, request: RankRequest, context: AppContext = quietContext): Promise<RankJson> {
  if (request.methods.length > 1) throw new OptionError('method', `ranks by one method here; a table of several (${request.methods.join(',')}) is rankTable's`);
  return (await rankWithScores(source, request, context)).json;
}

/** `rank` of one method, with every node's score (NaN for nodes a restricted PageRank leaves out). */
async function rankWithScores(source: GraphSource, request: RankRequest, context: AppContext): Promise<{ json: RankJson; full: Float64Array }> {
  const { graph } = source;
  const { method } = request;
  const started = performance.now();
  const report = computeRanking(graph, method, { ...request, reads: request.reads ?? 10 * graph.nodeCount }, context);
  const solve = (performance.now() - started) / 1000;
  const json: RankJson = { ...report.json, timings: { load: source.seconds, solve }, out: request.out, run: null };
  // Scores of every page of the graph: pages outside a restricted PageRank's subgraph get none.
  let full: Float64Array;
  if (report.pages === null && report.scores.length === graph.nodeCount) full = report.scores;
  else {
    full = new Float64Array(graph.nodeCount).fill(Number.NaN);
    for (let i = 0; i < report.scores.length; i++) full[report.pages === null ? i : report.pages[i]!] = report.scores[i]!;
  }
  if (request.save) {
    const { top: _top, timings: _timings, out: _out, run: _run, ...parameters } = json;
    json.run = await saveRun(
      source,
      {
        method,
        // The links the graph was read with, when not the default ones (e.g. PageRank without nofollow links).
        parameters: source.links === undefined ? parameters : { ...parameters, links: source.links },
        startedAt: Date.now() - solve * 1000,
        finishedAt: Date.now(),
        iterations: json.iterations,
        residual: json.residual,
        converged: json.converged,
      },
      full,
    );
  }
  if (request.out !== null) {
    await writeScores(request.out, report.labels, report.scores, {
      method,
      comments: [
        `wga rank --method ${method} of ${request.source ?? source.path}: ${json.solver}, damping ${request.damping}, ` +
          `${json.iterations} iterations, residual ${json.residual}${json.converged ? '' : ' (NOT CONVERGED)'}` +
          (json.restricted === null ? '' : `, restricted to ${json.restricted.maxLevel} clicks from ${json.restricted.roots.join(' ')}`),
      ],
    });
  }
  return { json, full };
}

/** The `rank --method A,B --json` contract: each method's report, and the ranks table written. */
export interface RankTableJson {
  /** What the table's rows are: pages, hosts or domains. */
  level: GraphLevel;
  nodes: number;
  edges: number;
  methods: RankJson[];
  /** The first method's best nodes (--top) with their position and value by every method (1 = best). */
  top: Array<{ label: string; positions: number[]; values: number[] }>;
  /** The ranks table's path, or null. */
  out: string | null;
}

/**
 * Several rankings of one graph (`--method harmonic,pagerank`), each as `rank` computes it, and
 * with --out their ranks table: every node's position and value per method, in the order of the
 * first method (src/formats/ranks-table.ts).
 */
export async function rankTable(source: GraphSource, request: RankRequest, context: AppContext = quietContext): Promise<RankTableJson> {
  const methods: RankJson[] = [];
  const columns: RankColumn[] = [];
  for (const method of request.methods) {
    const { json, full } = await rankWithScores(source, { ...request, method, methods: [method], out: null }, context);
    methods.push({ ...json, out: request.out });
    columns.push({ method: method === 'hits' && request.hubs ? 'hubs' : method, values: full });
  }
  const level = source.level ?? 'page';
  const positions = columns.map((c) => rankPositions(c.values));
  const top = Array.from(positions[0]!.order.subarray(0, Math.min(request.k, source.graph.nodeCount)), (v) => ({
    label: source.graph.labels.label(v),
    positions: positions.map((p) => p.position[v]!),
    values: columns.map((c) => c.values[v]!),
  }));
  if (request.out !== null) {
    const members = source.grouped !== undefined
      ? { column: source.grouped.from === 'page' ? 'n_pages' : 'n_hosts', counts: source.grouped.members }
      : source.hostCounts !== undefined
        ? { column: 'n_hosts', counts: source.hostCounts }
        : undefined;
    await writeRanksTable(request.out, source.graph.labels, columns, {
      nameColumn: level === 'page' ? 'page' : `${level}${source.reversed === true ? '_rev' : ''}`,
      ...(members === undefined ? {} : { members }),
      positions,
    });
  }
  return { level, nodes: source.graph.nodeCount, edges: source.graph.edgeCount, methods, top, out: request.out };
}


/** Runs the ranking method; returns the scores of the ranked pages, their labels, and the JSON report. */
function computeRanking(
  graph: Graph,
  method: RankMethod,
  request: RankRequest & { reads: number },
  context: AppContext,
): { scores: Float64Array; labels: Labels; pages: Int32Array | null; json: Omit<RankJson, 'timings' | 'out' | 'run'> } {
  const base = {
    method,
    nodes: graph.nodeCount,
    edges: graph.edgeCount,
    damping: request.damping,
    restricted: null,
    montecarlo: null,
    opic: null,
    traffic: null,
  };
  if (method === 'traffic' || method === 'hotness') {
    const result = trafficRank(graph, {
      alpha: request.alpha,
      tolerance: request.tolerance,
      maxSweeps: request.maxIterations,
      sweep: request.sweep,
      onSweep: (sweep, violation) => {
        context.signal?.throwIfAborted();
        context.onProgress?.({
          phase: method,
          message: `${method}: sweep ${sweep}, violation ${violation.toExponential(2)}`,
          done: sweep,
          total: request.maxIterations,
          data: { iteration: sweep, residual: violation },
        });
      },
    });
    const scores = method === 'traffic' ? result.trafficRank : result.hotness;
    return {
      scores,
      labels: graph.labels,
      pages: null,
      json: {
        ...base,
        damping: request.alpha,
        solver: request.sweep,
        tolerance: request.tolerance,
        iterations: result.sweeps,
        equivalentIterations: 2 * result.sweeps,
        residual: result.violation,
        converged: result.converged,
        traffic: {
          alpha: request.alpha,
          entropy: result.entropy,
          realFlow: result.realFlow,
          artificialFlow: result.artificialFlow,
          mu: result.mu,
          nu: result.nu,
        },
        top: result.converged || Number.isFinite(result.violation) ? topEntries(graph.labels, scores, request.k) : [],
      },
    };
  }
  if (method === 'harmonic' || method === 'closeness' || method === 'lin') {
    if (request.exact) {
      const visits = graph.nodeCount * graph.edgeCount;
      if (visits > EXACT_DISTANCE_LIMIT) {
        throw new OptionError('--exact', `on ${graph.nodeCount} pages and ${graph.edgeCount} links means ${visits.toExponential(1)} link visits (more than ${EXACT_DISTANCE_LIMIT.toExponential(0)}): leave --exact out for HyperBall's estimate`);
      }
      const result = distanceCentralities(graph, (done) => {
        context.signal?.throwIfAborted();
        context.onProgress?.({ phase: method, message: `${method}: ${done} of ${graph.nodeCount} pages`, done, total: graph.nodeCount, data: { iteration: done, residual: 0 } });
      }, request.threads);
      // igraph gives NaN to a page no other page reaches; it ranks last here, with 0.
      const scores =
        method === 'harmonic'
          ? result.harmonic
          : method === 'closeness'
            ? result.closeness.map((c) => (Number.isNaN(c) ? 0 : c))
            : result.closeness.map((c, v) => (Number.isNaN(c) ? 0 : result.reached[v]! * result.reached[v]! * c));
      return {
        scores,
        labels: graph.labels,
        pages: null,
        json: { ...base, solver: 'exact', tolerance: null, iterations: graph.nodeCount, equivalentIterations: graph.nodeCount, residual: 0, converged: true, top: topEntries(graph.labels, scores, request.k) },
      };
    }
    const result = hyperBall(graph, {
      log2m: request.log2m,
      seed: request.seed,
      threads: request.threads,
      onIteration: (iteration, changed) => {
        context.signal?.throwIfAborted();
        context.onProgress?.({ phase: 'hyperball', message: `hyperball: iteration ${iteration}, ${changed} counters changed`, done: iteration, total: 0, data: { iteration, residual: changed } });
      },
    });
    const raw = method === 'harmonic' ? result.harmonic : method === 'closeness' ? result.closeness : result.lin;
    const scores = raw.map((c) => (Number.isNaN(c) ? 0 : c));
    return {
      scores,
      labels: graph.labels,
      pages: null,
      json: {
        ...base,
        solver: `hyperball log2m=${result.log2m}`,
        tolerance: null,
        iterations: result.iterations,
        equivalentIterations: result.iterations,
        // The relative standard deviation of each counter: the precision of every estimate.
        residual: result.relativeStandardDeviation,
        converged: true,
        top: topEntries(graph.labels, scores, request.k),
      },
    };
  }
  if (method === 'hits') {
    const result = hits(graph, {
      tolerance: request.tolerance,
      maxIterations: request.maxIterations,
      onIteration: (iteration, residual) => {
        context.signal?.throwIfAborted();
        context.onProgress?.({ phase: 'hits', message: `hits: iteration ${iteration}, residual ${residual.toExponential(2)}`, done: iteration, total: request.maxIterations, data: { iteration, residual } });
      },
    });
    const scores = request.hubs ? result.hubs : result.authorities;
    return {
      scores,
      labels: graph.labels,
      pages: null,
      json: {
        ...base,
        solver: request.hubs ? 'hubs' : 'authorities',
        tolerance: request.tolerance,
        iterations: result.iterations,
        equivalentIterations: 2 * result.iterations,
        residual: result.residual,
        converged: result.converged,
        top: topEntries(graph.labels, scores, request.k),
      },
    };
  }
  if (method === 'coreness') {
    const scores = Float64Array.from(coreness(graph, request.coreMode));
    return {
      scores,
      labels: graph.labels,
      pages: null,
      json: { ...base, solver: request.coreMode, tolerance: null, iterations: 1, equivalentIterations: 2, residual: 0, converged: true, top: topEntries(graph.labels, scores, request.k) },
    };
  }
  if (method === 'opic') {
    const opic = new Opic({
      damping: request.damping,
      seed: request.seed,
      focusShare: request.focusShare,
      discoveryShare: request.discoveryShare,
    });
    let focused = 0;
    for (let v = 0; v < graph.nodeCount; v++) {
      const isFocus = request.focus !== null && request.focus.test(graph.labels.label(v));
      if (isFocus) focused++;
      opic.addPage(isFocus);
    }
    opic.distributeInitialCash(Int32Array.from({ length: graph.nodeCount }, (_, i) => i));
    for (let r = 0; r < request.reads; r++) {
      const page = opic.next(request.strategy);
      opic.read(page, graph.successors(page));
      if (r % 65536 === 0) {
        context.signal?.throwIfAborted();
        context.onProgress?.({
          phase: 'opic',
          message: `opic: ${r} reads, error factor ${opic.errorFactor.toExponential(2)}`,
          done: r,
          total: request.reads,
          data: { iteration: r, residual: opic.errorFactor },
        });
      }
    }
    const scores = opic.estimates();
    return {
      scores,
      labels: graph.labels,
      pages: null,
      json: {
        ...base,
        solver: request.strategy,
        tolerance: null,
        iterations: request.reads,
        equivalentIterations: graph.edgeCount === 0 ? 0 : (request.reads * graph.edgeCount) / graph.nodeCount / graph.edgeCount,
        residual: opic.errorFactor,
        converged: true,
        opic: {
          strategy: request.strategy,
          reads: request.reads,
          time: opic.time,
          errorFactor: opic.errorFactor,
          focusPages: focused,
          focusShare: request.focusShare,
          discoveryShare: request.discoveryShare,
        },
        top: topEntries(graph.labels, scores, request.k),
      },
    };
  }
  if (method === 'montecarlo') {
    const result = monteCarloPageRank(graph, {
      walksPerPage: request.walksPerPage,
      damping: request.damping,
      seed: request.seed,
      threads: request.threads,
    });
    const top = topEntries(graph.labels, result.scores, request.k, result.standardDeviations);
    return {
      scores: result.scores,
      labels: graph.labels,
      pages: null,
      json: {
        ...base,
        solver: 'walks',
        tolerance: null,
        iterations: result.walksPerPage,
        equivalentIterations: graph.edgeCount === 0 ? 0 : (result.totalVisits - result.walks) / graph.edgeCount,
        residual: top.reduce((worst, t) => Math.max(worst, t.relativeError ?? 0), 0),
        converged: true,
        montecarlo: { walksPerPage: result.walksPerPage, seed: result.seed, walks: result.walks, totalVisits: result.totalVisits },
        top,
      },
    };
  }
  let teleport: Float64Array | null = null;
  if (request.teleport !== undefined) {
    teleport = new Float64Array(graph.nodeCount);
    for (const label of request.teleport) teleport[pageId(graph, label, '--teleport')] = 1;
  }
  const pagerankOptions = {
    solver: request.solver,
    damping: request.damping,
    tolerance: request.tolerance,
    maxIterations: request.maxIterations,
    threads: request.threads,
    teleport,
    onIteration: (iteration: number, residual: number) => {
      context.signal?.throwIfAborted();
      context.onProgress?.({
        phase: 'pagerank',
        message: `pagerank: iteration ${iteration}, residual ${residual.toExponential(2)}`,
        done: iteration,
        total: request.maxIterations,
        data: { iteration, residual },
      });
    },
  };
  if (request.roots !== undefined) {
    const roots = request.roots.map((label) => pageId(graph, label, '--root'));
    const restricted = restrictedPageRank(graph, roots, request.maxLevel, pagerankOptions);
    const labels = new SubsetLabels(graph.labels, restricted.pages);
    const { rank } = restricted;
    return {
      scores: rank.scores,
      labels,
      pages: restricted.pages,
      json: {
        ...base,
        ...solveFields(rank, request.tolerance),
        restricted: {
          roots: roots.map((r) => graph.labels.label(r)),
          maxLevel: request.maxLevel,
          nodes: restricted.pages.length,
          edges: restricted.edges,
        },
        top: topEntries(labels, rank.scores, request.k),
      },
    };
  }
  if (request.compact) {
    // The in-lists gap-encoded (src/graph/compact.ts), decoded inside the gather: the plain power iteration's vector.
    if (graph.weighted) throw new OptionError('--compact', 'a compact graph has no link weights: rank a weighted graph (a host or domain graph, --weighted) without --compact');
    const lists = compactFromGraph(graph);
    const { damping, tolerance, maxIterations, threads, onIteration } = pagerankOptions;
    const rank = compactPageRank(lists, outDegrees(graph), { damping, tolerance, maxIterations, threads, onIteration });
    return {
      scores: rank.scores,
      labels: graph.labels,
      pages: null,
      json: {
        ...base,
        solver: 'power (compact)',
        tolerance: request.tolerance,
        iterations: rank.iterations,
        equivalentIterations: rank.iterations,
        residual: rank.residual,
        converged: rank.converged,
        compact: { bytes: compactBytes(lists), bytesPerLink: graph.edgeCount === 0 ? 0 : compactBytes(lists) / graph.edgeCount },
        top: topEntries(graph.labels, rank.scores, request.k),
      },
    };
  }
  const rank = pagerank(graph, pagerankOptions);
  return {
    scores: rank.scores,
    labels: graph.labels,
    pages: null,
    json: {
      ...base,
      ...solveFields(rank, request.tolerance),
      top: topEntries(graph.labels, rank.scores, request.k),
    },
  };
}

/** How a PageRank solve went, as `rank --json` reports it. */
function solveFields(rank: PageRankResult, tolerance: number) {
  const { solver, iterations, equivalentIterations, residual, converged } = rank;
  return { solver, tolerance, iterations, equivalentIterations, residual, converged };
}
