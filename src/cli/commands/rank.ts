import type { Command } from 'commander';
import { MONTE_CARLO_DEFAULTS, monteCarloPageRank } from '../../analysis/montecarlo.js';
import { OPIC_STRATEGIES, Opic, type OpicStrategy } from '../../analysis/opic.js';
import { TRAFFIC_DEFAULTS, TRAFFIC_SWEEPS, type TrafficSweep, trafficRank } from '../../analysis/traffic.js';
import { PAGERANK_DEFAULTS, PAGERANK_SOLVERS, type PageRankResult, type PageRankSolver, pagerank } from '../../analysis/pagerank.js';
import { restrictedPageRank } from '../../analysis/restricted.js';
import { topK } from '../../analysis/top.js';
import { ExitCode, OptionError } from '../../errors.js';
import { writeScores } from '../../formats/scores.js';
import type { Graph } from '../../graph/graph.js';
import type { Labels } from '../../graph/labels.js';
import { SubsetLabels } from '../../graph/subgraph.js';
import { defaultThreads } from '../../parallel/pool.js';
import { type GraphInputOptions, addGraphOptions, addSaveOption, saveRunIfAsked, withGraph } from '../graph-input.js';
import { count, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { Progress } from '../progress.js';
import { choiceOption, integerOption, numberOption, pageId } from '../values.js';

export const RANK_METHODS = ['pagerank', 'montecarlo', 'opic', 'traffic', 'hotness'] as const;
export type RankMethod = (typeof RANK_METHODS)[number];

interface RankOptions extends GraphInputOptions {
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

export function registerRank(program: Command): void {
  addSaveOption(addGraphOptions(
    program
      .command('rank')
      .description('rank every page (PageRank, Monte Carlo, restricted PageRank, OPIC, TrafficRank, HOTness) and show the best')
      .argument('[graph]', 'graph file (or --db)')
      .option('--method <method>', `ranking method: ${RANK_METHODS.join(', ')}`, 'pagerank')
      .option('--solver <solver>', `PageRank solver: ${PAGERANK_SOLVERS.join(', ')} (default: auto, the fastest that applies)`)
      .option('--damping <c>', `probability of following a link (default: ${PAGERANK_DEFAULTS.damping})`)
      .option('--tolerance <eps>', `stop when ||pi G - pi||_1 is at most eps (default: ${PAGERANK_DEFAULTS.tolerance})`)
      .option('--max-iterations <n>', `iteration limit (default: ${PAGERANK_DEFAULTS.maxIterations})`)
      .option('--teleport <page...>', 'personalised PageRank: jump only to these pages (labels or URLs)')
      .option('--root <page...>', 'restricted PageRank: rank only the pages within --max-level clicks of these')
      .option('--max-level <l>', 'restricted PageRank: the largest number of clicks from the roots (default: 3)')
      .option('--walks <m>', `Monte Carlo: walks started at every page (default: ${MONTE_CARLO_DEFAULTS.walksPerPage})`)
      .option('--seed <s>', `Monte Carlo: random seed (default: ${MONTE_CARLO_DEFAULTS.seed})`)
      .option('--strategy <s>', `OPIC: page selection, ${OPIC_STRATEGIES.join(', ')} (default: greedy)`)
      .option('--reads <n>', 'OPIC: pages read in all (default: 10 times the number of pages)')
      .option('--focus <regex>', 'OPIC: pages whose label or URL matches get the focus share of the virtual page\'s cash')
      .option('--focus-share <x>', 'OPIC: share of the virtual page\'s payouts for focus pages (default: 0.5 with --focus)')
      .option('--discovery-share <x>', 'OPIC: share of the virtual page\'s payouts for pages never read (default: 0)')
      .option('--alpha <a>', `TrafficRank/HOTness: share of the traffic on real links (default: ${TRAFFIC_DEFAULTS.alpha})`)
      .option('--sweep <kind>', `TrafficRank/HOTness: ${TRAFFIC_SWEEPS.join(', ')} (default: ${TRAFFIC_DEFAULTS.sweep})`)
      .option('--threads <t>', `threads (default: ${defaultThreads()}, the cores)`)
      .option('--top <k>', 'how many of the best pages to show (default: 10)')
      .option('--out <file>', 'write every page\'s score to FILE ("label<TAB>score"; JSON if FILE ends in .json)')
      .option('--json', 'print one JSON document'),
  )).action(async (path: string | undefined, options: RankOptions) => {
    const method = choiceOption('--method', options.method, RANK_METHODS, 'pagerank');
    const solver = choiceOption('--solver', options.solver, PAGERANK_SOLVERS, 'auto') as PageRankSolver;
    const damping = numberOption('--damping', options.damping, PAGERANK_DEFAULTS.damping, { min: 0, max: 1, exclusiveMax: true });
    const tolerance = numberOption('--tolerance', options.tolerance, PAGERANK_DEFAULTS.tolerance, { min: 0, exclusiveMin: true });
    const maxIterations = integerOption('--max-iterations', options.maxIterations, PAGERANK_DEFAULTS.maxIterations, 1);
    const walksPerPage = integerOption('--walks', options.walks, MONTE_CARLO_DEFAULTS.walksPerPage, 1);
    const seed = integerOption('--seed', options.seed, MONTE_CARLO_DEFAULTS.seed, 0);
    const threads = integerOption('--threads', options.threads, defaultThreads(), 1);
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
    if (method !== 'pagerank' && (options.root !== undefined || options.teleport !== undefined)) {
      // Restriction and personalisation are PageRank's notions.
      throw new OptionError(`--method ${method}`, 'does not take --root or --teleport');
    }
    if (options.maxLevel !== undefined && options.root === undefined) {
      throw new OptionError('--max-level', 'needs --root (the pages levels are counted from)');
    }
    await withGraph(path, options, async (loaded) => {
    const { graph } = loaded;
    const progress = new Progress(options.quiet !== true);
    const started = performance.now();
    const reads = integerOption('--reads', options.reads, 10 * graph.nodeCount, 1);
    const report = computeRanking(graph, method, {
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
      progress,
    });
    progress.done();
    const solve = (performance.now() - started) / 1000;
    const json: RankJson = { ...report.json, timings: { load: loaded.seconds, solve }, out: options.out ?? null, run: null };
    if (options.save === true) {
      // Scores of every page of the graph: pages outside a restricted PageRank's subgraph get none.
      const full = new Float64Array(graph.nodeCount).fill(Number.NaN);
      for (let i = 0; i < report.scores.length; i++) full[report.pages === null ? i : report.pages[i]!] = report.scores[i]!;
      const { top: _top, timings: _timings, out: _out, run: _run, ...parameters } = json;
      json.run = await saveRunIfAsked(
        loaded,
        options,
        {
          method,
          parameters,
          startedAt: Date.now() - solve * 1000,
          finishedAt: Date.now(),
          iterations: json.iterations,
          residual: json.residual,
          converged: json.converged,
        },
        full,
      );
    }
    if (options.out !== undefined) {
      await writeScores(options.out, report.labels, report.scores, {
        method,
        comments: [
          `wga rank --method ${method} of ${path}: ${json.solver}, damping ${damping}, ` +
            `${json.iterations} iterations, residual ${json.residual}${json.converged ? '' : ' (NOT CONVERGED)'}` +
            (json.restricted === null ? '' : `, restricted to ${json.restricted.maxLevel} clicks from ${json.restricted.roots.join(' ')}`),
        ],
      });
    }
    if (options.json === true) printJson(json);
    else printRank(json);
    if (!json.converged) {
      process.stderr.write(
        `wga: ${method} did not converge: residual ${json.residual.toExponential(3)} after ` +
          `${json.iterations} iterations, tolerance ${tolerance}; raise --max-iterations\n`,
      );
      process.exitCode = ExitCode.notConverged;
    }
    });
  });
}

interface RankingRequest {
  focus: RegExp | null;
  focusShare: number;
  discoveryShare: number;
  alpha: number;
  sweep: TrafficSweep;
  strategy: OpicStrategy;
  reads: number;
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
  progress: Progress;
}

/** Runs the ranking method; returns the scores of the ranked pages, their labels, and the JSON report. */
function computeRanking(
  graph: Graph,
  method: RankMethod,
  request: RankingRequest,
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
      onSweep: (sweep, violation) => request.progress.update(() => `${method}: sweep ${sweep}, violation ${violation.toExponential(2)}`),
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
      if (r % 65536 === 0) request.progress.update(() => `opic: ${r} reads, error factor ${opic.errorFactor.toExponential(2)}`);
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
    onIteration: (iteration: number, residual: number) =>
      request.progress.update(() => `pagerank: iteration ${iteration}, residual ${residual.toExponential(2)}`),
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

function printRank(report: RankJson): void {
  const scope =
    report.restricted === null
      ? `${count(report.nodes)} pages`
      : `the ${count(report.restricted.nodes)} pages within ${report.restricted.maxLevel} clicks of ${report.restricted.roots.map((r) => safeLabel(r)).join(', ')} (of ${count(report.nodes)})`;
  const how =
    report.traffic !== null
      ? `maximum-entropy traffic (alpha ${report.traffic.alpha}), ${report.solver} sweeps: ${report.iterations}, ` +
        `largest conservation violation ${report.residual.toExponential(2)}${report.converged ? '' : ' (NOT CONVERGED)'}, entropy ${report.traffic.entropy.toFixed(4)}`
      : report.opic !== null
      ? `${report.opic.strategy}, ${count(report.opic.reads)} reads, G = ${report.opic.time.toFixed(3)}, error factor 1/G = ${report.opic.errorFactor.toExponential(2)}`
      : report.montecarlo !== null
      ? `${count(report.montecarlo.walks)} walks (${report.montecarlo.walksPerPage} per page, seed ${report.montecarlo.seed}), ` +
        `largest relative error of the top pages ${(100 * report.residual).toFixed(1)}%`
      : `${report.solver}, ${report.iterations} iterations (${report.equivalentIterations.toFixed(1)} in power-iteration work), ` +
        `residual ${report.residual.toExponential(2)}${report.converged ? '' : ' (NOT CONVERGED)'}`;
  print(`${report.method} of ${scope}: ${how}; load ${seconds(report.timings.load)}, solve ${seconds(report.timings.solve)}`);
  if (report.top.length > 0) {
    print();
    const montecarlo = report.montecarlo !== null;
    const header = montecarlo ? ['rank', 'score', '± std', 'page'] : ['rank', 'score', 'page'];
    const rows = report.top.map((t) =>
      montecarlo
        ? [String(t.rank), score(t.score), `${(100 * (t.relativeError ?? Number.NaN)).toFixed(1)}%`, safeLabel(t.label)]
        : [String(t.rank), score(t.score), safeLabel(t.label)],
    );
    print(table([header, ...rows], montecarlo ? [0, 2] : [0]));
  }
  if (report.out !== null) print(`\nscores of all ranked pages written to ${report.out}`);
}

/** How a PageRank solve went, as `rank --json` reports it. */
function solveFields(rank: PageRankResult, tolerance: number) {
  const { solver, iterations, equivalentIterations, residual, converged } = rank;
  return { solver, tolerance, iterations, equivalentIterations, residual, converged };
}
