/** The options every command that reads a graph shares, and the loading itself. */
import type { Command } from 'commander';
import { OptionError } from '../errors.js';
import { GRAPH_FORMATS, type LoadOptions, type LoadedGraph, loadGraph } from '../formats/load.js';
import { hostGraph } from '../graph/hosts.js';
import { openStore } from '../store/open.js';
import type { NewRun, Store } from '../store/store.js';
import { choiceOption } from './values.js';
import { Progress } from './progress.js';
import { count, megabytes } from './output.js';

export interface GraphInputOptions {
  format?: string;
  labels?: string;
  separator?: string;
  header?: boolean;
  ids?: string;
  weighted?: boolean;
  undirected?: boolean;
  countDuplicates?: boolean;
  quiet?: boolean;
  json?: boolean;
  db?: string;
  save?: boolean;
  hosts?: boolean;
}

/** A graph to analyse, from a file or from a store (then with the store's page ids, to save results). */
export interface GraphSource extends LoadedGraph {
  store: Store | null;
  /** pageIds[v] = store id of graph page v, with a store. */
  pageIds: Float64Array | null;
}

/** Options of commands that read a graph file or a store. */
export function addGraphOptions(command: Command): Command {
  return addGraphFileOptions(command)
    .option('--db <store>', 'read the graph from a store (SQLite file or postgres:// URL) instead of a file')
    .option('--hosts', 'the host graph: pages collapsed into their URL hosts, links weighted by page-link counts');
}

/** Options describing a graph file. */
export function addGraphFileOptions(command: Command): Command {
  return command
    .option('--format <format>', `graph file format: auto, ${GRAPH_FORMATS.join(', ')} (default: auto, from the file name)`)
    .option('--labels <file>', "label file with 'id url' lines, to show URLs instead of ids")
    .option('--separator <sep>', 'edge-list column separator: auto, tab, comma, space (default: auto)')
    .option('--header', 'the first data line of the edge list is a header')
    .option('--no-header', 'the first data line of the edge list is never a header')
    .option('--ids <kind>', "edge-list node ids: auto (numbers or text) or numeric (text is an error)")
    .option('--weighted', 'the third edge-list column is a positive link weight')
    .option('--undirected', 'each line is an undirected edge: add both directions')
    .option('--count-duplicates', 'weight each edge by the number of parallel links instead of merging them')
    .option('-q, --quiet', 'no progress messages on stderr');
}

/** Adds --save: keep the command's result as a run in the store (needs --db). */
export function addSaveOption(command: Command): Command {
  return command.option('--save', 'store the result as a run in the --db store (scores of every page)');
}

/**
 * Opens the graph named by the command's argument or its --db store, runs
 * `work` on it, and closes the store whatever happens.
 */
export async function withGraph<T>(path: string | undefined, options: GraphInputOptions, work: (source: GraphSource) => Promise<T>): Promise<T> {
  if (options.hosts === true) {
    if (options.save === true) throw new OptionError('--save', 'cannot save host-graph scores as page scores (drop --hosts or --save)');
    return withGraph(path, { ...options, hosts: false }, (source) => work(collapseToHosts(source, options.labels)));
  }
  if (options.save === true && options.db === undefined) throw new OptionError('--save', 'needs --db (the store to save the run in)');
  if (path !== undefined && options.db !== undefined) throw new OptionError('--db', 'give either a graph file or --db, not both');
  if (path === undefined && options.db === undefined) throw new OptionError('graph', 'missing: give a graph file or --db STORE');
  if (options.db === undefined) {
    const loaded = await loadFromOptions(path!, options);
    return work({ ...loaded, store: null, pageIds: null });
  }
  const started = performance.now();
  const store = await openStore(options.db, { create: false });
  try {
    const { graph, pageIds } = await store.loadGraph();
    const source: GraphSource = {
      graph,
      format: 'store',
      path: store.location,
      report: { rawEdges: graph.edgeCount, selfLoopsDropped: 0, duplicatesDropped: 0 },
      seconds: (performance.now() - started) / 1000,
      store,
      pageIds,
    };
    return await work(source);
  } finally {
    await store.close();
  }
}

/**
 * The source's host graph (--hosts). Its build report counts the page links:
 * host-internal ones as dropped self-links, the rest merged into host links as duplicates.
 */
function collapseToHosts(source: GraphSource, labelsPath: string | undefined): GraphSource {
  const started = performance.now();
  const hosts = hostGraph(source.graph, labelsPath ?? source.path);
  return {
    ...source,
    graph: hosts.graph,
    pageIds: null,
    report: { rawEdges: hosts.pageLinks, selfLoopsDropped: hosts.selfLinksDropped, duplicatesDropped: hosts.merged },
    seconds: source.seconds + (performance.now() - started) / 1000,
  };
}

/** With --save, stores the result as a run; returns its id (null without --save). */
export async function saveRunIfAsked(source: GraphSource, options: GraphInputOptions, run: NewRun, scores: ArrayLike<number>): Promise<number | null> {
  if (options.save !== true || source.store === null || source.pageIds === null) return null;
  return source.store.saveRun(run, source.pageIds, scores);
}

export async function loadFromOptions(path: string, options: GraphInputOptions): Promise<LoadedGraph> {
  const progress = new Progress(options.quiet !== true);
  const load: LoadOptions = {
    format: choiceOption('--format', options.format, ['auto', ...GRAPH_FORMATS] as const, 'auto'),
    separator: choiceOption('--separator', options.separator, ['auto', 'tab', 'comma', 'space'] as const, 'auto'),
    header: options.header === undefined ? 'auto' : options.header,
    ids: choiceOption('--ids', options.ids, ['auto', 'numeric'] as const, 'auto'),
    weighted: options.weighted === true,
    symmetric: options.undirected === true,
    duplicates: options.countDuplicates === true ? 'count' : 'merge',
    onProgress: ({ bytesRead, totalBytes, edges }) =>
      progress.update(
        () => `loading ${path}: ${megabytes(bytesRead)} of ${megabytes(totalBytes)}, ${count(edges)} links`,
      ),
    ...(options.labels === undefined ? {} : { labelsPath: options.labels }),
  };
  try {
    return await loadGraph(path, load);
  } finally {
    progress.done();
  }
}
