/**
 * `distances`: how far apart the pages of a graph are (HyperANF's statistics, by HyperBall, or
 * exactly by one breadth-first search per page): the neighbourhood function N(t), the distance
 * distribution, the average distance and the effective diameter.
 */
import { type DistanceStatistics, distanceStatistics, exactNeighbourhood, hyperBall } from '../analysis/hyperball.js';
import { OptionError } from '../errors.js';
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
}

export interface DistancesOptions {
  exact?: boolean;
  log2m?: string;
  seed?: string;
  threads?: string;
}

export function distances(source: { graph: Graph }, options: DistancesOptions, context: AppContext = quietContext): DistancesJson {
  const { graph } = source;
  const started = performance.now();
  if (options.exact === true && options.log2m !== undefined) throw new OptionError('--log2m', 'is an option of HyperBall, not of --exact');
  const log2m = options.log2m === undefined ? null : integerOption('--log2m', options.log2m, 8, 4, 16);
  const seed = integerOption('--seed', options.seed, 1, 0);
  if (options.exact === true) {
    const visits = graph.nodeCount * graph.edgeCount;
    if (visits > EXACT_DISTANCE_LIMIT) throw new OptionError('--exact', `on ${graph.nodeCount} pages and ${graph.edgeCount} links means ${visits.toExponential(1)} link visits: leave --exact out for HyperBall's estimate`);
    const neighbourhood = exactNeighbourhood(graph);
    return {
      nodes: graph.nodeCount, edges: graph.edgeCount, method: 'exact', log2m: null, relativeStandardDeviation: 0, iterations: neighbourhood.length - 1,
      seconds: (performance.now() - started) / 1000, ...distanceStatistics(neighbourhood),
    };
  }
  const result = hyperBall(graph, {
    log2m,
    seed,
    threads: integerOption('--threads', options.threads, defaultThreads(), 1, MAX_THREADS),
    onIteration: (iteration, changed) => {
      context.signal?.throwIfAborted();
      context.onProgress?.({ phase: 'hyperball', message: `hyperball: iteration ${iteration}, ${changed} counters changed`, done: iteration, total: 0, data: { iteration, residual: changed } });
    },
  });
  return {
    nodes: graph.nodeCount, edges: graph.edgeCount, method: 'hyperball', log2m: result.log2m, relativeStandardDeviation: result.relativeStandardDeviation,
    iterations: result.iterations, seconds: (performance.now() - started) / 1000, ...distanceStatistics(result.neighbourhood),
  };
}
