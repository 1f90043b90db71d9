/** The graph's structure: strongly connected components with the bow-tie, levels from roots, degree distributions. */
import { type BowTiePartName, type BowTieResult, bowTie } from '../analysis/bowtie.js';
import { type DegreeSummary, degreeSummary, inDegrees, outDegrees } from '../analysis/degrees.js';
import { type LevelsResult, levels as levelsFrom } from '../analysis/levels.js';
import { type SccResult, componentSizeDistribution, stronglyConnectedComponents } from '../analysis/scc.js';
import { topK } from '../analysis/top.js';
import { writeScores } from '../formats/scores.js';
import type { Graph } from '../graph/graph.js';
import { type GraphSource, saveRun } from './graph-source.js';
import { pageId } from './values.js';

/** The `scc --json` contract (documented in the README). */
export interface SccJson {
  /** The run saved (--save), or null. */
  run: number | null;
  nodes: number;
  count: number;
  largest: number;
  /** The page given by --root and the size of its component, or null. */
  root: { label: string; size: number; inLargest: boolean } | null;
  /** Sizes of the largest components, decreasing. */
  largestSizes: number[];
  /** [size, number of components of that size], increasing size. */
  sizeDistribution: Array<[number, number]>;
  /** Pages in each part of the bow-tie around the giant SCC. */
  bowTie: Record<BowTiePartName, number>;
  timings: { load: number; solve: number };
}

export interface SccRequest {
  /** A page (label or URL) whose component to report. */
  root?: string | undefined;
  /** How many of the largest component sizes to list. */
  top: number;
  /** Store the component ids as a run. */
  save?: boolean;
}

/** The components and the bow-tie of a graph, computed once for any number of root pages. */
export interface SccAnalysis {
  components: SccResult;
  parts: BowTieResult;
  /** Component sizes, largest first, and [size, components of that size]. */
  sortedSizes: number[];
  sizeDistribution: Array<[number, number]>;
  /** Seconds it took. */
  solve: number;
}

export function sccAnalysis(graph: Graph): SccAnalysis {
  const started = performance.now();
  const components = stronglyConnectedComponents(graph);
  const parts = bowTie(graph, components);
  const sortedSizes = Array.from(components.sizes).sort((a, b) => b - a);
  return { components, parts, sortedSizes, sizeDistribution: componentSizeDistribution(components), solve: (performance.now() - started) / 1000 };
}

/**
 * `scc`: strongly connected components, the giant one, a root page's one and the bow-tie
 * (`analysis`: the graph's, when already computed).
 */
export async function scc(source: GraphSource, request: SccRequest, analysis?: SccAnalysis): Promise<SccJson> {
  const { graph } = source;
  const root = request.root === undefined ? -1 : pageId(graph, request.root, '--root');
  const { components, parts, sortedSizes, sizeDistribution, solve } = analysis ?? sccAnalysis(graph);
  let run: number | null = null;
  if (request.save === true) {
    run = await saveRun(
      source,
      {
        method: 'scc',
        parameters: { count: components.count, largest: components.largest, giant: components.largestId },
        startedAt: Date.now() - solve * 1000,
        finishedAt: Date.now(),
        iterations: null,
        residual: null,
        converged: null,
      },
      components.component,
    );
  }
  return {
    run,
    nodes: graph.nodeCount,
    count: components.count,
    largest: components.largest,
    root:
      root < 0
        ? null
        : {
            label: graph.labels.label(root),
            size: components.sizes[components.component[root]!]!,
            inLargest: components.component[root] === components.largestId,
          },
    largestSizes: sortedSizes.slice(0, request.top),
    sizeDistribution,
    bowTie: parts.sizes,
    timings: { load: source.seconds, solve },
  };
}

/** The `levels --json` contract (documented in the README). */
export interface LevelsJson {
  /** The run saved (--save), or null. */
  run: number | null;
  roots: string[];
  reached: number;
  unreachable: number;
  /** histogram[k] = pages at k clicks from the nearest root; roots are at 0. */
  histogram: number[];
  maxLevel: number;
  timings: { load: number; solve: number };
  /** Asked for one page (the HTTP API's page=): its level, null when not reached. */
  page?: { label: string; level: number | null };
}

export interface LevelsRequest {
  roots: string[];
  /** Do not go further than this many clicks (Infinity: no limit). */
  maxLevel: number;
  /** Write every page's level to this file. */
  out?: string | undefined;
  save?: boolean;
  /** Also report this page's level. */
  page?: string | undefined;
}

/** Levels from a set of roots, computed once for any number of pages asked about. */
export interface LevelsAnalysis {
  result: LevelsResult;
  solve: number;
}

export function levelsAnalysis(graph: Graph, request: Pick<LevelsRequest, 'roots' | 'maxLevel'>): LevelsAnalysis {
  const roots = request.roots.map((label) => pageId(graph, label, '--root'));
  const started = performance.now();
  const result = levelsFrom(graph, roots, { maxLevel: request.maxLevel });
  return { result, solve: (performance.now() - started) / 1000 };
}

/**
 * `levels`: clicks from the nearest root to every page (breadth-first search); `analysis`: the
 * levels from these roots, when already computed.
 */
export async function levels(source: GraphSource, request: LevelsRequest, analysis?: LevelsAnalysis): Promise<LevelsJson> {
  const { graph } = source;
  const roots = request.roots.map((label) => pageId(graph, label, '--root'));
  const page = request.page === undefined ? -1 : pageId(graph, request.page, '--page');
  const { result, solve } = analysis ?? levelsAnalysis(graph, request);
  let run: number | null = null;
  if (request.save === true) {
    run = await saveRun(
      source,
      {
        method: 'levels',
        parameters: { roots: roots.map((r) => graph.labels.label(r)), maxLevel: Number.isFinite(request.maxLevel) ? request.maxLevel : null },
        startedAt: Date.now() - solve * 1000,
        finishedAt: Date.now(),
        iterations: result.maxLevel,
        residual: null,
        converged: null,
      },
      Float64Array.from(result.level, (l) => (l < 0 ? Number.NaN : l)),
    );
  }
  if (request.out !== undefined) {
    await writeScores(request.out, graph.labels, result.level, {
      column: 'level',
      comments: ['clicks from the nearest root; -1 = not reached'],
    });
  }
  const report: LevelsJson = {
    run,
    roots: roots.map((r) => graph.labels.label(r)),
    reached: result.reached,
    unreachable: result.unreachable,
    histogram: result.histogram,
    maxLevel: result.maxLevel,
    timings: { load: source.seconds, solve },
  };
  if (page >= 0) report.page = { label: graph.labels.label(page), level: result.level[page]! < 0 ? null : result.level[page]! };
  return report;
}

/** The `degrees --json` contract (documented in the README): the summary plus the top pages. */
export type DegreesJson = DegreeSummary & {
  topIn: Array<{ label: string; degree: number }>;
  topOut: Array<{ label: string; degree: number }>;
};

function topByDegree(graph: Graph, degrees: Int32Array, k: number): Array<{ label: string; degree: number }> {
  return Array.from(topK(degrees, k), (id) => ({ label: graph.labels.label(id), degree: degrees[id]! }));
}

/** `degrees`: in- and out-degree distributions and the most linked and most linking pages. */
export function degrees(source: { graph: Graph }, request: { top: number }): DegreesJson {
  const { graph } = source;
  return {
    ...degreeSummary(graph),
    topIn: topByDegree(graph, inDegrees(graph), request.top),
    topOut: topByDegree(graph, outDegrees(graph), request.top),
  };
}
