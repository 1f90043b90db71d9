/**
 * Where a use case's graph comes from: a graph file or a store. Opening, loading with progress,
 * and closing whatever happens. The CLI opens one per command; the HTTP server keeps one loaded.
 */
import { OptionError } from '../errors.js';
import { GRAPH_FORMATS, type LoadOptions, type LoadedGraph, loadGraph } from '../formats/load.js';
import { GRAPH_LEVELS, type GraphLevel, siteGraph } from '../graph/hosts.js';
import { openStore } from '../store/open.js';
import type { LinkFilter, LoadProgress, NewRun, Store } from '../store/store.js';
import { type AppContext, quietContext } from './context.js';
import { choiceOption, linkFilterOption } from './values.js';

/** How to read a graph file, as the CLI's options give it (strings, checked here). */
export interface GraphFileOptions {
  format?: string;
  labels?: string;
  separator?: string;
  header?: boolean;
  ids?: string;
  weighted?: boolean;
  undirected?: boolean;
  countDuplicates?: boolean;
  labelsPartial?: boolean;
}

/** A graph to analyse, from a file or from a store (then with the store's page ids, to save results). */
export interface GraphSource extends LoadedGraph {
  store: Store | null;
  /** pageIds[v] = store id of graph page v, with a store. */
  pageIds: Float64Array | null;
  /** The store's links read, when --links chose others than the default. */
  links?: Required<LinkFilter>;
  /** With --level host or domain: the level, and nodes of the finer graph in each node. */
  grouped?: { level: 'host' | 'domain'; from: GraphLevel; members: Int32Array; pageLinks: number; selfLinksDropped: number };
}

/** The graph level a command's options ask for: --level, or --hosts (the older name of --level host). */
export function levelOption(options: { level?: string | undefined; hosts?: boolean | undefined }): GraphLevel {
  const level = choiceOption('--level', options.level, GRAPH_LEVELS, 'page');
  if (options.hosts === true) {
    if (options.level !== undefined && level !== 'host') throw new OptionError('--hosts', `is --level host: give one of --hosts and --level ${level}`);
    return 'host';
  }
  return level;
}

/** The checked load options of a graph file. */
export function loadOptions(options: GraphFileOptions): LoadOptions {
  return {
    format: choiceOption('--format', options.format, ['auto', ...GRAPH_FORMATS] as const, 'auto'),
    separator: choiceOption('--separator', options.separator, ['auto', 'tab', 'comma', 'space'] as const, 'auto'),
    header: options.header === undefined ? 'auto' : options.header,
    ids: choiceOption('--ids', options.ids, ['auto', 'numeric'] as const, 'auto'),
    weighted: options.weighted === true,
    symmetric: options.undirected === true,
    duplicates: options.countDuplicates === true ? 'count' : 'merge',
    ...(options.labels === undefined ? {} : { labelsPath: options.labels }),
    ...(options.labelsPartial === true ? { labelsPartial: true } : {}),
  };
}

/** Loads a graph file, reporting progress in the 'load' phase. */
export async function loadGraphFile(path: string, options: GraphFileOptions, context: AppContext = quietContext): Promise<LoadedGraph> {
  const load: LoadOptions = {
    ...loadOptions(options),
    onProgress: ({ bytesRead, totalBytes, edges }) =>
      context.onProgress?.({
        phase: 'load',
        message: `loading ${path}: ${(bytesRead / 1e6).toFixed(1)} MB of ${(totalBytes / 1e6).toFixed(1)} MB, ${edges.toLocaleString('en-US')} links`,
        done: bytesRead,
        total: totalBytes,
        data: { edges },
      }),
  };
  return loadGraph(path, load);
}

/** The store's graph as a source (store page ids kept, to save runs): the links `filter` selects (default: the web graph's kinds). */
/** Progress events ('load' phase) for a store's graph being read, or undefined when nobody listens. */
export function loadProgress(store: Store, context: AppContext): LoadProgress | undefined {
  if (context.onProgress === undefined) return undefined;
  const started = performance.now();
  return (links, share) =>
    context.onProgress!({
      phase: 'load',
      message: `reading the graph of ${store.location}: ${links.toLocaleString('en-US')} links${share === null ? '' : ` (${(100 * share).toFixed(0)}% of the pages)`}, ${((performance.now() - started) / 1000).toFixed(1)} s`,
      done: links,
    });
}

export async function storeGraphSource(store: Store, filter?: Required<LinkFilter>, context: AppContext = quietContext): Promise<GraphSource> {
  const started = performance.now();
  const { graph, pageIds } = await store.loadGraph(filter, loadProgress(store, context));
  return {
    graph,
    format: 'store',
    path: store.location,
    report: { rawEdges: graph.edgeCount, selfLoopsDropped: 0, duplicatesDropped: 0 },
    seconds: (performance.now() - started) / 1000,
    store,
    pageIds,
    ...(filter === undefined ? {} : { links: filter }),
  };
}

/** Opens a store, runs `work` on it and closes it whatever happens. */
export async function withStore<T>(spec: string, work: (store: Store) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const store = await openStore(spec, { create: options.create ?? false });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Opens the graph file `path` or the store `db` (exactly one of them), runs `work` on it and
 * closes the store whatever happens.
 */
export async function withGraph<T>(
  input: {
    path?: string | undefined;
    db?: string | undefined;
    file?: GraphFileOptions;
    save?: boolean;
    hosts?: boolean;
    level?: string | undefined;
    reversedNames?: boolean;
    links?: string | undefined;
  },
  work: (source: GraphSource) => Promise<T>,
  context: AppContext = quietContext,
): Promise<T> {
  const level = levelOption(input);
  if (level !== 'page') {
    if (input.save === true) throw new OptionError('--save', `cannot save ${level}-graph scores as page scores (drop --level ${level} or --save)`);
    const pageInput = { ...input, hosts: false, level: undefined, reversedNames: false };
    return withGraph(pageInput, (source) => work(levelGraphSource(source, level, { reversedNames: input.reversedNames === true, labelsPath: input.file?.labels })), context);
  }
  if (input.reversedNames === true) throw new OptionError('--reversed-names', 'names hosts and domains: it needs --level host or domain');
  const { path, db } = input;
  if (input.save === true && db === undefined) throw new OptionError('--save', 'needs --db (the store to save the run in)');
  if (path !== undefined && db !== undefined) throw new OptionError('--db', 'give either a graph file or --db, not both');
  if (path === undefined && db === undefined) throw new OptionError('graph', 'missing: give a graph file or --db STORE');
  if (input.links !== undefined && db === undefined) throw new OptionError('--links', 'chooses the kinds of a store\'s links: it needs --db');
  const filter = input.links === undefined ? undefined : linkFilterOption('--links', input.links);
  if (db === undefined) {
    const loaded = await loadGraphFile(path!, input.file ?? {}, context);
    return work({ ...loaded, store: null, pageIds: null });
  }
  return withStore(db, async (store) => work(await storeGraphSource(store, filter, context)));
}

/**
 * The source's host or domain graph (--level): pages (or a host graph's hosts) collapsed into
 * their hosts or pay-level domains, links weighted by link counts. Its build report counts the
 * finer links: those inside one group as dropped self-links, the rest merged into group links as
 * duplicates. No page ids: runs are of pages. The same level is the source itself.
 */
export function levelGraphSource(source: GraphSource, level: GraphLevel, options: { reversedNames?: boolean; labelsPath?: string | undefined } = {}): GraphSource {
  const from = source.level ?? 'page';
  if (level === from) return source;
  if (level === 'page') throw new OptionError('--level', `the graph's nodes are ${from}s: there are no pages to show`);
  const started = performance.now();
  const groups = siteGraph(source.graph, level, {
    source: options.labelsPath ?? source.path,
    level: from,
    ...(source.reversed === true ? { reversed: true } : {}),
    ...(options.reversedNames === true ? { reversedNames: true } : {}),
  });
  return {
    ...source,
    graph: groups.graph,
    level,
    reversed: options.reversedNames === true || source.reversed === true,
    pageIds: null,
    report: { rawEdges: groups.pageLinks, selfLoopsDropped: groups.selfLinksDropped, duplicatesDropped: groups.merged },
    seconds: source.seconds + (performance.now() - started) / 1000,
    grouped: { level, from, members: groups.pages, pageLinks: groups.pageLinks, selfLinksDropped: groups.selfLinksDropped },
  };
}

/** Stores a result as a run of the source's store; returns its id (null for a graph file). */
export async function saveRun(source: GraphSource, run: NewRun, scores: ArrayLike<number>): Promise<number | null> {
  if (source.store === null || source.pageIds === null) return null;
  return source.store.saveRun(run, source.pageIds, scores);
}
