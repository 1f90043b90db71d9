/**
 * Monte Carlo PageRank kept up to date as the graph changes: the use the Web
 * Graph Analyzer paper points to for Algorithm 2 ("MC methods allow
 * continuous update of the PageRank as the structure of the Web changes").
 *
 * Every walk's path is kept. When pages or links are added or removed, a
 * walk is affected only from the first page it visited whose out-links
 * changed: up to there every step it took had the same probability on the
 * new graph. So it keeps that prefix and continues from that page on the new
 * graph with fresh random numbers; by the Markov property the result has
 * exactly the distribution of a walk run from scratch on the new graph.
 * Walks from removed pages are dropped, new pages start m walks of their own.
 * (A removed page can only be reached through a page that linked to it,
 * whose out-links therefore changed, so truncation happens before it.)
 */
import { OptionError } from '../errors.js';
import type { Graph } from '../graph/graph.js';
import { Random } from '../util/random.js';
import {
  MONTE_CARLO_DEFAULTS,
  type MonteCarloOptions,
  type MonteCarloResult,
  START_BLOCK,
  VisitAccumulator,
  allocateVisitSums,
  checkMonteCarloOptions,
  continueWalk,
  estimateFromSums,
  streamSeed,
} from './montecarlo.js';

/** How a new graph relates to the old one, page by page. */
export interface GraphChange {
  /** oldToNew[old id] = id in the new graph, or -1 for a removed page. */
  oldToNew: Int32Array;
  /** changed[new id] = 1 when the page is new or its out-links differ. */
  changed: Uint8Array;
}

export interface UpdateReport {
  /** Walks continued from a changed page. */
  walksContinued: number;
  /** Walks dropped with their removed start page. */
  walksDropped: number;
  /** Walks started at new pages. */
  walksStarted: number;
  /** Steps simulated by the update (against all the steps a fresh run would take). */
  stepsSimulated: number;
  totalSteps: number;
}

/** Matches pages by label and finds the pages whose out-links changed. */
export function diffGraphs(oldGraph: Graph, newGraph: Graph): GraphChange {
  const oldToNew = new Int32Array(oldGraph.nodeCount);
  const newToOld = new Int32Array(newGraph.nodeCount).fill(-1);
  for (let u = 0; u < oldGraph.nodeCount; u++) {
    const v = newGraph.labels.id(oldGraph.labels.label(u));
    oldToNew[u] = v;
    if (v >= 0) newToOld[v] = u;
  }
  const changed = new Uint8Array(newGraph.nodeCount);
  const mapped: number[] = [];
  for (let v = 0; v < newGraph.nodeCount; v++) {
    const u = newToOld[v]!;
    if (u < 0) {
      changed[v] = 1;
      continue;
    }
    mapped.length = 0;
    for (const w of oldGraph.successors(u)) mapped.push(oldToNew[w]!);
    mapped.sort((a, b) => a - b);
    const now = newGraph.successors(v);
    if (mapped.length !== now.length || mapped.some((w, i) => w !== now[i])) changed[v] = 1;
  }
  return { oldToNew, changed };
}

export class MonteCarloWalks {
  private graph: Graph;
  /** All walks' pages, one walk after another. */
  private paths: Int32Array;
  /** Walk w visited paths[pathStart[w] .. pathStart[w+1]). */
  private pathStart: Float64Array;
  private round = 0;

  private constructor(
    graph: Graph,
    paths: Int32Array,
    pathStart: Float64Array,
    readonly walksPerPage: number,
    readonly damping: number,
    readonly seed: number,
  ) {
    this.graph = graph;
    this.paths = paths;
    this.pathStart = pathStart;
  }

  /**
   * Runs m walks from every page and keeps them. Uses the same random
   * streams as monteCarloPageRank, so both give the same counts.
   */
  static run(graph: Graph, options: MonteCarloOptions = {}): MonteCarloWalks {
    const { walksPerPage, damping, seed } = checkMonteCarloOptions({ ...options, threads: 1 });
    const n = graph.nodeCount;
    const builder = new PathBuilder(n * walksPerPage);
    const { outOffsets, outTargets } = graph;
    for (let block = 0; block * START_BLOCK < n; block++) {
      const random = new Random(streamSeed(seed, block));
      const end = Math.min(n, (block + 1) * START_BLOCK);
      for (let start = block * START_BLOCK; start < end; start++) {
        for (let w = 0; w < walksPerPage; w++) {
          builder.visit(start);
          continueWalk(start, outOffsets, outTargets, damping, random, builder.visitor);
          builder.endWalk();
        }
      }
    }
    const { paths, pathStart } = builder.finish();
    return new MonteCarloWalks(graph, paths, pathStart, walksPerPage, damping, seed);
  }

  get walks(): number {
    return this.pathStart.length - 1;
  }

  get currentGraph(): Graph {
    return this.graph;
  }

  /** The pages walk w visited, in order. */
  path(w: number): Int32Array {
    return this.paths.subarray(this.pathStart[w]!, this.pathStart[w + 1]!);
  }

  /** The estimate from the kept walks (walks of one start page are consecutive: they form its stratum). */
  estimate(): MonteCarloResult {
    const n = this.graph.nodeCount;
    const sums = allocateVisitSums(n, this.walksPerPage > 1)[0]!;
    const accumulator = new VisitAccumulator(sums);
    for (let w = 0; w < this.walks; w++) {
      const begin = this.pathStart[w]!;
      accumulator.addWalk(this.paths, begin, this.pathStart[w + 1]!);
      const next = w + 1 < this.walks ? this.paths[this.pathStart[w + 1]!] : -1;
      if (next !== this.paths[begin]) accumulator.endStratum();
    }
    return estimateFromSums(sums, this.walks, this.walksPerPage, this.damping, this.seed);
  }

  /** Moves the walks onto `newGraph` (see the header); `change` defaults to diffGraphs. */
  update(newGraph: Graph, change: GraphChange = diffGraphs(this.graph, newGraph)): UpdateReport {
    if (change.oldToNew.length !== this.graph.nodeCount || change.changed.length !== newGraph.nodeCount) {
      throw new OptionError('change', 'does not match the old and new graphs');
    }
    this.round++;
    const { oldToNew, changed } = change;
    const { outOffsets, outTargets } = newGraph;
    const builder = new PathBuilder(this.walks);
    const report: UpdateReport = { walksContinued: 0, walksDropped: 0, walksStarted: 0, stepsSimulated: 0, totalSteps: 0 };
    let simulated = 0;
    const counting = (page: number): void => {
      builder.visit(page);
      simulated++;
    };
    // Fresh random numbers for this round: one stream per continued or new walk.
    let stream = 0;
    const nextRandom = (): Random => new Random(streamSeed(streamSeed(this.seed, 0x7fff0000 + this.round), stream++));
    const hasWalk = new Uint8Array(newGraph.nodeCount);
    for (let w = 0; w < this.walks; w++) {
      const begin = this.pathStart[w]!;
      const end = this.pathStart[w + 1]!;
      const start = oldToNew[this.paths[begin]!]!;
      if (start < 0) {
        report.walksDropped++;
        continue;
      }
      hasWalk[start] = 1;
      let continued = false;
      for (let k = begin; k < end; k++) {
        const page = oldToNew[this.paths[k]!]!;
        builder.visit(page);
        if (changed[page] === 1) {
          continueWalk(page, outOffsets, outTargets, this.damping, nextRandom(), counting);
          continued = true;
          break;
        }
      }
      if (continued) report.walksContinued++;
      builder.endWalk();
    }
    // New pages start their own walks.
    for (let page = 0; page < newGraph.nodeCount; page++) {
      if (hasWalk[page] === 1) continue;
      for (let w = 0; w < this.walksPerPage; w++) {
        counting(page);
        continueWalk(page, outOffsets, outTargets, this.damping, nextRandom(), counting);
        builder.endWalk();
        report.walksStarted++;
      }
    }
    const { paths, pathStart } = builder.finish();
    this.graph = newGraph;
    this.paths = paths;
    this.pathStart = pathStart;
    report.stepsSimulated = simulated;
    report.totalSteps = paths.length;
    return report;
  }
}

/** Appends walks' pages to growing arrays. */
class PathBuilder {
  private paths: Int32Array;
  private length = 0;
  private starts: number[] = [0];
  readonly visitor = (page: number): void => this.visit(page);

  constructor(expectedWalks: number) {
    this.paths = new Int32Array(Math.max(16, Math.ceil(expectedWalks / (1 - MONTE_CARLO_DEFAULTS.damping))));
  }

  visit(page: number): void {
    if (this.length === this.paths.length) {
      const bigger = new Int32Array(2 * this.paths.length);
      bigger.set(this.paths);
      this.paths = bigger;
    }
    this.paths[this.length++] = page;
  }

  endWalk(): void {
    this.starts.push(this.length);
  }

  finish(): { paths: Int32Array; pathStart: Float64Array } {
    return { paths: this.paths.slice(0, this.length), pathStart: Float64Array.from(this.starts) };
  }
}
