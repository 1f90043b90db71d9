/**
 * `distances`: how far apart the pages of a graph are (HyperANF's statistics, by HyperBall, or
 * exactly by one breadth-first search per page): the neighbourhood function N(t), the distance
 * distribution, the average distance and the effective diameter.
 */
import { type DistanceStatistics, distanceStatistics, exactNeighbourhood, hyperBall } from '../analysis/hyperball.js';
import { OptionError } from '../errors.js';
import { type JackknifeEstimate, jackknife, meanOfRuns, padRuns } from '../analysis/jackknife.js';
import type { Graph } from '../graph/graph.js';
import { type AppContext, quietContext } from './context.js';
import { EXACT_DISTANCE_LIMIT } from './rank.js';
import { defaultThreads } from '../parallel/pool.js';
import { MAX_THREADS, integerOption } from './values.js';

/** The `distances --json` contract. */
export interface DistancesJson extends DistanceStatistics {
  nodes: number;
  edges: number;
  /** 'exact', or 'hyperball'. */
  method: 'exact' | 'hyperball';
  log2m: number | null;
  /** HyperBall: the relative standard deviation of each counter (and about that of N(t)); exact: 0. */
  relativeStandardDeviation: number;
  iterations: number;
  seconds: number;
  /** HyperBall runs with independent hash functions (seeds seed, seed + 1, ...); the statistics are of their mean N(t). */
  runs: number;
  /** With two or more runs: jackknife estimates and standard errors (HyperANF), and the standard error of each N(t); else null. */
  jackknife: {
    neighbourhoodError: number[];
    averageDistance: JackknifeEstimate;
    effectiveDiameter: JackknifeEstimate;
    connectedPairs: JackknifeEstimate;
  } | null;
}

export interface DistancesOptions {
  exact?: boolean;
  log2m?: string;
  seed?: string;
  threads?: string;
  runs?: string;
}

export function distances(source: { graph: Graph }, options: DistancesOptions, context: AppContext = quietContext): DistancesJson {
  const { graph } = source;
  const started = performance.now();
  if (options.exact === true && options.log2m !== undefined) throw new OptionError('--log2m', 'is an option of HyperBall, not of --exact');
  const log2m = options.log2m === undefined ? null : integerOption('--log2m', options.log2m, 8, 4, 16);
  const seed = integerOption('--seed', options.seed, 1, 0);
  if (options.exact === true && options.runs !== undefined) throw new OptionError('--runs', 'is an option of HyperBall, not of --exact');
  const runs = integerOption('--runs', options.runs, 1, 1, 1000);
  if (options.exact === true) {
    const visits = graph.nodeCount * graph.edgeCount;
    if (visits > EXACT_DISTANCE_LIMIT) throw new OptionError('--exact', `on ${graph.nodeCount} pages and ${graph.edgeCount} links means ${visits.toExponential(1)} link visits: leave --exact out for HyperBall's estimate`);
    const neighbourhood = exactNeighbourhood(graph);
    return {
      nodes: graph.nodeCount, edges: graph.edgeCount, method: 'exact', log2m: null, relativeStandardDeviation: 0, iterations: neighbourhood.length - 1,
      seconds: (performance.now() - started) / 1000, runs: 1, jackknife: null, ...distanceStatistics(neighbourhood),
    };
  }
  const threads = integerOption('--threads', options.threads, defaultThreads(), 1, MAX_THREADS);
  return hyperBallDistances(graph.nodeCount, graph.edgeCount, runs, started, context, (run, onIteration) =>
    hyperBall(graph, { log2m, seed: seed + run, threads, onIteration }),
  );
}

/** One HyperBall run's figures that the distances need. */
export interface HyperBallRun {
  log2m: number;
  relativeStandardDeviation: number;
  iterations: number;
  neighbourhood: readonly number[];
}

/**
 * The distance statistics of `runs` HyperBall runs (`runOne(run, onIteration)`, run 0, 1, ... with
 * seeds seed, seed + 1, ...): of their mean N(t), with jackknife errors from two runs on (HyperANF).
 * The plain and the compact graph's `distances` differ only in the runs.
 */
export function hyperBallDistances(
  nodes: number,
  edges: number,
  runs: number,
  started: number,
  context: AppContext,
  runOne: (run: number, onIteration: (iteration: number, changed: number) => void) => HyperBallRun,
): DistancesJson {
  const neighbourhoods: number[][] = [];
  let last: HyperBallRun | null = null;
  let iterations = 0;
  for (let run = 0; run < runs; run++) {
    last = runOne(run, (iteration, changed) => {
      context.signal?.throwIfAborted();
      const which = runs > 1 ? `run ${run + 1} of ${runs}, ` : '';
      context.onProgress?.({ phase: 'hyperball', message: `hyperball: ${which}iteration ${iteration}, ${changed} counters changed`, done: iteration, total: 0, data: { iteration, residual: changed } });
    });
    iterations = Math.max(iterations, last.iterations);
    neighbourhoods.push(Array.from(last.neighbourhood));
  }
  const padded = padRuns(neighbourhoods);
  const mean = meanOfRuns(padded);
  let jack: DistancesJson['jackknife'] = null;
  if (runs > 1) {
    const k = runs;
    jack = {
      neighbourhoodError: mean.map((m, t) => Math.sqrt(padded.reduce((s, r) => s + (r[t]! - m) ** 2, 0) / (k - 1) / k)),
      averageDistance: jackknife(padded, (n) => distanceStatistics(n).averageDistance),
      effectiveDiameter: jackknife(padded, (n) => distanceStatistics(n).effectiveDiameter),
      connectedPairs: jackknife(padded, (n) => distanceStatistics(n).connectedPairs),
    };
  }
  return {
    nodes, edges, method: 'hyperball', log2m: last!.log2m, relativeStandardDeviation: last!.relativeStandardDeviation,
    iterations, seconds: (performance.now() - started) / 1000, runs, jackknife: jack, ...distanceStatistics(mean),
  };
}
