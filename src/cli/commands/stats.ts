import type { Command } from 'commander';
import { sharedCrawlInstances } from '../../app/shared-crawl.js';
import { printShares } from './crawl-shared.js';
import { degreeSummary } from '../../analysis/degrees.js';
import { stronglyConnectedComponents } from '../../analysis/scc.js';
import type { LoadedGraph } from '../../formats/load.js';
import type { BuildReport } from '../../graph/builder.js';
import type { Graph } from '../../graph/graph.js';
import { type GraphInputOptions, addGraphOptions, withGraph } from '../graph-input.js';
import { count, megabytes, percent, print, printJson, seconds, table } from '../output.js';

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
}

/** The characteristics `stats` reports, for any built graph. */
export function summarise(graph: Graph, report: BuildReport): Omit<StatsJson, 'file' | 'format' | 'timings'> {
  const degrees = degreeSummary(graph);
  const scc = stronglyConnectedComponents(graph);
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

export function printStats(stats: StatsJson): void {
  const n = stats.nodes;
  print(
    table([
      ['graph', `${stats.file} (${stats.format})`],
      ['pages', count(n)],
      [
        'links',
        `${count(stats.edges)} (dropped ${count(stats.selfLoopsDropped)} self-links, merged ${count(stats.duplicatesDropped)} duplicates)`,
      ],
      ['dangling pages', `${count(stats.danglingNodes)} (${percent(stats.danglingNodes, n)}) with no out-link`],
      ['unreferenced', `${count(stats.unreferencedNodes)} (${percent(stats.unreferencedNodes, n)}) with no in-link`],
      ['SCCs', `${count(stats.scc.count)}; the giant one has ${count(stats.scc.largest)} pages (${percent(stats.scc.largest, n)})`],
      ['degree', `mean ${stats.meanDegree.toFixed(2)}, max in ${count(stats.maxInDegree)}, max out ${count(stats.maxOutDegree)}`],
      ...(stats.fetched === undefined
        ? []
        : [['crawl', `${count(stats.fetched)} fetched (2xx HTML), ${count(stats.failed ?? 0)} failed, ${count(stats.excluded ?? 0)} excluded, ${count(stats.frontier ?? 0)} never fetched`]]),
      ['memory', `${megabytes(stats.memory.graphBytes)} (${stats.memory.bytesPerEdge.toFixed(1)} bytes per link)`],
      ['time', `load ${seconds(stats.timings.load)}, analysis ${seconds(stats.timings.analysis)}`],
    ]),
  );
}

export function registerStats(program: Command): void {
  addGraphOptions(
    program
      .command('stats')
      .description('size, dangling pages, strongly connected components and degrees of a graph')
      .argument('[graph]', 'graph file: edge list (.txt, .tsv, .csv, .gz) or WebGraph BV (.graph); or --db')
      .option('--json', 'print one JSON document'),
  ).action(async (path: string | undefined, options: GraphInputOptions) => {
    await withGraph(path, options, async (source) => {
      const stats = graphStats(source);
      if (source.store !== null) {
        const { fetched, failed, excluded, frontier } = await source.store.counts();
        Object.assign(stats, { fetched, failed, excluded, frontier });
      }
      // A crawl shared by several instances: each one's share of the pages.
      const instances = source.store !== null && options.db !== undefined ? await sharedCrawlInstances(options.db) : [];
      if (options.json === true) printJson(instances.length > 0 ? { ...stats, instances } : stats);
      else {
        printStats(stats);
        if (instances.length > 0) await printShares(options.db!, '\nInstances of the shared crawl');
      }
    });
  });
}
