/** `stats`: size, dangling pages, SCCs and degrees of a graph, plus a store's crawl counts. */
import { degreeSummary } from '../analysis/degrees.js';
import { componentsOfLargeGraph } from '../analysis/scc-pivot.js';
import { defaultThreads } from '../parallel/pool.js';
import type { LoadedGraph } from '../formats/load.js';
import type { BuildReport } from '../graph/builder.js';
import type { Graph } from '../graph/graph.js';
import type { GraphSource } from './graph-source.js';

/** The `stats --json` contract (documented in the README). */
export interface StatsJson {
  file: string;
  format: string;
  nodes: number;
  edges: number;
  selfLoopsDropped: number;
  duplicatesDropped: number;
  danglingNodes: number;
  scc: { count: number; largest: number };
  unreferencedNodes: number;
  isolatedNodes: number;
  meanDegree: number;
  maxInDegree: number;
  maxOutDegree: number;
  weighted: boolean;
  memory: { graphBytes: number; bytesPerEdge: number };
  timings: { load: number; analysis: number };
  /** With --db only: the crawl's page counts (see StoreCounts). */
  fetched?: number;
  failed?: number;
  excluded?: number;
  frontier?: number;
  /** Pages that linked to more targets than --max-links-per-page (the rest not kept). */
  overLinkCap?: number;
}

/** The characteristics `stats` reports, for any built graph. */
export function summarise(graph: Graph, report: BuildReport): Omit<StatsJson, 'file' | 'format' | 'timings'> {
  const degrees = degreeSummary(graph);
  const scc = componentsOfLargeGraph(graph, defaultThreads());
  const graphBytes = graph.memoryBytes();
  return {
    nodes: graph.nodeCount,
    edges: graph.edgeCount,
    selfLoopsDropped: report.selfLoopsDropped,
    duplicatesDropped: report.duplicatesDropped,
    danglingNodes: degrees.danglingNodes,
    scc: { count: scc.count, largest: scc.largest },
    unreferencedNodes: degrees.unreferencedNodes,
    isolatedNodes: degrees.isolatedNodes,
    meanDegree: degrees.meanDegree,
    maxInDegree: degrees.maxInDegree,
    maxOutDegree: degrees.maxOutDegree,
    weighted: graph.weighted,
    memory: { graphBytes, bytesPerEdge: graph.edgeCount === 0 ? 0 : graphBytes / graph.edgeCount },
  };
}

/** The statistics of a loaded graph file or store graph (without the store's crawl counts). */
export function graphStats(loaded: LoadedGraph): StatsJson {
  const started = performance.now();
  const summary = summarise(loaded.graph, loaded.report);
  return {
    file: loaded.path,
    format: loaded.format,
    ...summary,
    timings: { load: loaded.seconds, analysis: (performance.now() - started) / 1000 },
  };
}

/** `stats`: the graph's statistics, with a store's crawl counts when the source is a store. */
export async function stats(source: GraphSource): Promise<StatsJson> {
  const result = graphStats(source);
  if (source.store !== null) {
    const { fetched, failed, excluded, frontier, overLinkCap } = await source.store.counts();
    Object.assign(result, { fetched, failed, excluded, frontier, overLinkCap });
  }
  return result;
}
