/**
 * One entry point for every graph file: detects the format from the path
 * (WebGraph BV by its .graph/.properties/.offsets files, wga's binary adjacency by .wgadj, an edge list
 * otherwise; `format` overrides), loads it, and attaches a label file.
 */
import { InputFormatError, OptionError } from '../errors.js';
import type { BuildReport } from '../graph/builder.js';
import type { Graph } from '../graph/graph.js';
import type { GraphLevel } from '../graph/hosts.js';
import { isAdjacencyPath, readAdjacencyFile } from './adjacency-binary.js';
import { type EdgeListOptions, readEdgeList } from './edgelist.js';
import { fileExists } from './file-stream.js';
import { type LabelFileReport, readLabelFile } from './label-file.js';
import { bvFiles, readWebGraph } from './webgraph-bv.js';
import { findCommonCrawlFiles, readCommonCrawl } from './commoncrawl.js';
import { isCompactPath, readCompactAsGraph } from './compact-file.js';

export type GraphFormat = 'edges' | 'bv' | 'wgadj' | 'commoncrawl' | 'compact';
export const GRAPH_FORMATS: readonly GraphFormat[] = ['edges', 'bv', 'wgadj', 'commoncrawl', 'compact'];

export interface LoadOptions extends EdgeListOptions {
  /** 'auto' (default), 'edges' or 'bv'. */
  format?: GraphFormat | 'auto';
  /** A label file ("id url" per line) to attach to the pages. */
  labelsPath?: string;
  /** A label file may leave pages without a label (they keep their id); otherwise that is an error. */
  labelsPartial?: boolean;
}

export interface LoadedGraph {
  graph: Graph;
  /** The file format, or 'store' for a graph read from a database. */
  format: GraphFormat | 'store';
  path: string;
  report: BuildReport;
  labelReport?: LabelFileReport;
  /** Seconds spent reading and building. */
  seconds: number;
  /** What the nodes are (default 'page': URL labels); Common Crawl's graphs are of hosts or domains. */
  level?: GraphLevel;
  /** Host or domain labels in Common Crawl's reversed notation (com.example.www). */
  reversed?: boolean;
  /** Common Crawl's domain graph: the hosts of each domain. */
  hostCounts?: Int32Array;
}

export async function detectFormat(path: string): Promise<GraphFormat> {
  if (/\.(graph|properties|offsets)$/.test(path)) return 'bv';
  if (isAdjacencyPath(path)) return 'wgadj';
  if (isCompactPath(path)) return 'compact';
  if (!(await fileExists(path)) && (await fileExists(bvFiles(path).properties))) return 'bv';
  if (await findCommonCrawlFiles(path)) return 'commoncrawl';
  return 'edges';
}

export async function loadGraph(path: string, options: LoadOptions = {}): Promise<LoadedGraph> {
  const started = performance.now();
  const requested = options.format ?? 'auto';
  if (requested !== 'auto' && !GRAPH_FORMATS.includes(requested)) {
    throw new OptionError('--format', `expected auto, ${GRAPH_FORMATS.join(' or ')}, got '${String(requested)}'`);
  }
  const format = requested === 'auto' ? await detectFormat(path) : requested;
  if (format === 'commoncrawl') {
    const cc = await readCommonCrawl(path, options);
    const loaded = await attachLabels({ graph: cc.graph, report: cc.report, format, path, level: cc.level, reversed: true, ...(cc.hostCounts === null ? {} : { hostCounts: cc.hostCounts }) }, options);
    return { ...loaded, seconds: (performance.now() - started) / 1000 };
  }
  const built =
    format === 'bv'
      ? await readWebGraph(path)
      : format === 'wgadj'
        ? readAdjacencyFile(path)
        : format === 'compact'
          ? readCompactAsGraph(path)
          : await readEdgeList(path, options);
  const loaded = await attachLabels({ graph: built.graph, report: built.report, format, path }, options);
  return { ...loaded, seconds: (performance.now() - started) / 1000 };
}

/** Attaches the label file of `options`, if any. */
async function attachLabels(loaded: Omit<LoadedGraph, 'seconds'>, options: LoadOptions): Promise<Omit<LoadedGraph, 'seconds'>> {
  let graph = loaded.graph;
  let labelReport: LabelFileReport | undefined;
  if (options.labelsPath !== undefined) {
    const attached = await readLabelFile(options.labelsPath, graph);
    if (attached.report.unlabelled > 0 && options.labelsPartial !== true) {
      throw new InputFormatError(
        options.labelsPath,
        undefined,
        `labels ${attached.report.matched} of the graph's ${graph.nodeCount} pages (${attached.report.unlabelled} have none): every page needs a line, or give --labels-partial to keep the ids of the others`,
      );
    }
    graph = graph.withLabels(attached.labels);
    labelReport = attached.report;
  }
  return { ...loaded, graph, ...(labelReport === undefined ? {} : { labelReport }) };
}
