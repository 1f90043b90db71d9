/**
 * Export use case: a graph file or a store's crawl, with page attributes,
 * typed links and chosen scores, written as GEXF, GraphML, Parquet, WebGraph
 * BV or a TSV edge list, for the tools users already have (Gephi, igraph,
 * NetworkX, Spark/GraphFrames, DuckDB, LAW's WebGraph). Every writer streams.
 */
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { inDegrees, outDegrees } from '../analysis/degrees.js';
import { pagerank } from '../analysis/pagerank.js';
import { stronglyConnectedComponents } from '../analysis/scc.js';
import { InputFormatError, OptionError } from '../errors.js';
import { writeGexf, type GexfVersion } from '../export/gexf.js';
import { writeGraphml } from '../export/graphml.js';
import type { ExportGraph, NodeAttribute } from '../export/model.js';
import { writeParquet } from '../export/parquet.js';
import { FileSink } from '../export/sink.js';
import { writeTsv } from '../export/tsv.js';
import type { LoadedGraph } from '../formats/load.js';
import { fileExists } from '../formats/file-stream.js';
import { readScores } from '../formats/scores.js';
import { type BvWriteOptions, writeWebGraph } from '../formats/webgraph-bv-writer.js';
import { bvFiles } from '../formats/webgraph-bv.js';
import type { Graph } from '../graph/graph.js';
import { type GraphLevel, siteGraph } from '../graph/hosts.js';
import { openStore } from '../store/open.js';
import { LINK_KINDS, type LinkFilter, type Store, relOf } from '../store/store.js';
import { loadProgress } from './graph-source.js';
import type { AppContext } from './context.js';

export type ExportFormat = 'gexf' | 'graphml' | 'parquet' | 'bv' | 'tsv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['gexf', 'graphml', 'parquet', 'bv', 'tsv'];
/** Scores computed on the spot rather than read from a run or a file. */
export const COMPUTED_SCORES = ['pagerank', 'scc', 'indegree', 'outdegree'] as const;

export interface ExportInput {
  /** A loaded graph file, or `db`: a store to open. */
  graph?: LoadedGraph;
  db?: string;
  format: ExportFormat;
  /** A file (gexf, graphml, tsv), a basename (bv) or a directory (parquet). */
  out: string;
  /**
   * Score columns: a stored run's method (its latest run) or `run:ID`, a score
   * file, or one of COMPUTED_SCORES.
   */
  scores?: readonly string[];
  /** The links to export from a store (default: every kind). */
  links?: Required<LinkFilter>;
  gexfVersion?: GexfVersion;
  bv?: BvWriteOptions;
  /** Export the host graph: pages collapsed into hosts, links weighted by page-link counts (the same as level 'host'). */
  hosts?: boolean;
  /** Export the host or pay-level-domain graph (default: the graph's own nodes). */
  level?: GraphLevel;
  /** Host and domain names in Common Crawl's reversed notation. */
  reversedNames?: boolean;
}

export interface ExportReport {
  format: ExportFormat;
  source: string;
  pages: number;
  links: number;
  /** Page attributes and score columns written. */
  attributes: string[];
  files: Array<{ path: string; bytes: number }>;
  /** BV only: bits per link of the .graph file. */
  bitsPerLink?: number;
  /** With a host or domain level: the level, the finer graph's links read and those inside one group (dropped). */
  grouped?: { level: 'host' | 'domain'; pageLinks: number; selfLinksDropped: number };
  seconds: number;
}

/** Exports a graph file or a store (the store is opened and closed here). */
export async function exportGraph(input: ExportInput, context: AppContext = {}): Promise<ExportReport> {
  if (!EXPORT_FORMATS.includes(input.format)) {
    throw new OptionError('--format', `expected ${EXPORT_FORMATS.join(', ')}, got '${String(input.format)}'`);
  }
  if ((input.graph === undefined) === (input.db === undefined)) throw new OptionError('graph', 'give either a graph file or --db STORE');
  const started = performance.now();
  const level = input.level ?? (input.hosts === true ? 'host' : undefined);
  if (input.hosts === true && level !== 'host') throw new OptionError('--hosts', `is --level host: give one of --hosts and --level ${String(level)}`);
  const from = input.graph?.level ?? 'page';
  if (input.reversedNames === true && (level === undefined || level === 'page')) throw new OptionError('--reversed-names', 'names hosts and domains: it needs --level host or domain');
  if (level === 'page' && from !== 'page') throw new OptionError('--level', `the graph's nodes are ${from}s: there are no pages to export`);
  if (level !== undefined && level !== 'page' && level !== from) {
    const pages = input.graph ?? null;
    const store = pages === null ? await openStore(input.db!, { create: false }) : null;
    try {
      const graph = pages?.graph ?? (await store!.loadGraph(input.links ?? LINK_KINDS, loadProgress(store!, context))).graph;
      const groups = siteGraph(graph, level, {
        source: pages?.path ?? store!.location,
        level: from,
        ...(pages?.reversed === true ? { reversed: true } : {}),
        ...(input.reversedNames === true ? { reversedNames: true } : {}),
      });
      const model = modelOfGraph(groups.graph, level);
      model.attributes.push({ name: from === 'page' ? 'pages' : 'hosts', type: 'integer', value: (h) => groups.pages[h]! });
      await addScores(model, groups.graph, input.scores ?? [], null, null, context);
      const report = finish(await write(model, input, context), input, model, pages?.path ?? store!.location, started);
      return { ...report, grouped: { level, pageLinks: groups.pageLinks, selfLinksDropped: groups.selfLinksDropped } };
    } finally {
      await store?.close();
    }
  }
  if (input.graph !== undefined) {
    const model = modelOfGraph(input.graph.graph, 'label');
    await addScores(model, input.graph.graph, input.scores ?? [], null, null, context);
    return finish(await write(model, input, context), input, model, input.graph.path, started);
  }
  const store = await openStore(input.db!, { create: false });
  try {
    context.onProgress?.({ phase: 'load', message: `reading ${store.location}` });
    const model = await modelOfStore(store, input.links ?? { kinds: LINK_KINDS, withoutRel: 0 }, context);
    await addScores(model.export, model.graph, input.scores ?? [], store, model.pageIds, context);
    return finish(await write(model.export, input, context), input, model.export, store.location, started);
  } finally {
    await store.close();
  }
}

function finish(
  written: { files: Array<{ path: string; bytes: number }>; bitsPerLink?: number },
  input: ExportInput,
  model: ExportGraph,
  source: string,
  started: number,
): ExportReport {
  return {
    format: input.format,
    source,
    pages: model.nodeCount,
    links: model.edgeCount,
    attributes: model.attributes.map((a) => a.name),
    ...written,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The export model of an analysed graph: its labels, its edges and weights. */
export function modelOfGraph(graph: Graph, labelName: string): ExportGraph & { attributes: NodeAttribute[] } {
  const labels = graph.labels;
  return {
    nodeCount: graph.nodeCount,
    edgeCount: graph.edgeCount,
    label: (v) => labels.label(v),
    labelName,
    attributes: [{ name: labelName, type: 'string', value: (v) => labels.label(v) }],
    offsets: graph.outOffsets,
    targets: graph.outTargets,
    kinds: null,
    kindNames: LINK_KINDS,
    rel: null,
    weights: graph.outWeights,
  };
}

/** Index of `id` in the increasing array `ids`, or -1. */
function indexOf(ids: ArrayLike<number>, id: number, from = 0, to = ids.length): number {
  let low = from;
  let high = to - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = ids[middle]!;
    if (value === id) return middle;
    if (value < id) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * A store's graph (the links `filter` selects, merged per page pair, self-links
 * dropped, as every analysis sees it) with the pages' columns and each
 * link's kind (the first of LINK_KINDS's order when a pair has several) and
 * rel bits (those every anchor or area of the pair carries).
 */
export async function modelOfStore(
  store: Store,
  filter: Required<LinkFilter>,
  context: AppContext = {},
): Promise<{ export: ExportGraph; graph: Graph; pageIds: Float64Array }> {
  const { graph, pageIds } = await store.loadGraph(filter, loadProgress(store, context));
  const kinds = filter.kinds;
  const n = graph.nodeCount;
  const host: string[] = new Array<string>(n).fill('');
  const title: Array<string | null> = new Array<string | null>(n).fill(null);
  const contentType: Array<string | null> = new Array<string | null>(n).fill(null);
  const error: Array<string | null> = new Array<string | null>(n).fill(null);
  const status = new Float64Array(n).fill(NaN);
  const depth = new Float64Array(n).fill(NaN);
  const fetchedAt = new Float64Array(n).fill(NaN);
  let cursor = 0;
  for await (const batch of store.pageBatches()) {
    for (const page of batch) {
      // Pages added since the graph was read (a crawler writing) are not in it.
      while (cursor < n && pageIds[cursor]! < page.id) cursor++;
      if (cursor >= n || pageIds[cursor] !== page.id) continue;
      host[cursor] = page.host;
      title[cursor] = page.title;
      contentType[cursor] = page.contentType;
      error[cursor] = page.error;
      if (page.status !== null) status[cursor] = page.status;
      if (page.depth !== null) depth[cursor] = page.depth;
      if (page.fetchedAt !== null) fetchedAt[cursor] = page.fetchedAt;
    }
    context.signal?.throwIfAborted();
  }
  const m = graph.edgeCount;
  const NONE = 255;
  const kindOf = new Uint8Array(m).fill(NONE);
  // NO_REL: no link with rel (an anchor or an area) seen yet; then the bits every one of them carries.
  const NO_REL = 255;
  const rel = new Uint8Array(m).fill(NO_REL);
  const wanted = new Set(kinds);
  let done = 0;
  for await (const batch of store.linkBatches()) {
    for (const link of batch) {
      if (!wanted.has(link.kind) || link.source === link.target || ((link.rel ?? 0) & filter.withoutRel) !== 0) continue;
      const s = indexOf(pageIds, link.source);
      const t = indexOf(pageIds, link.target);
      if (s < 0 || t < 0) continue;
      const e = indexOf(graph.outTargets, t, graph.outOffsets[s]!, graph.outOffsets[s + 1]!);
      if (e < 0) continue;
      const code = LINK_KINDS.indexOf(link.kind);
      if (code < kindOf[e]!) kindOf[e] = code;
      if (link.kind === 'anchor' || link.kind === 'area') rel[e] = rel[e] === NO_REL ? relOf(link) : rel[e]! & relOf(link);
    }
    done += batch.length;
    context.signal?.throwIfAborted();
    context.onProgress?.({ phase: 'load', message: `typed ${done} stored links` });
  }
  for (let e = 0; e < m; e++) {
    if (rel[e] === NO_REL) rel[e] = 0;
    if (kindOf[e] === NONE) kindOf[e] = 0;
  }
  const text = (values: Array<string | null>) => (v: number) => values[v]!;
  const numeric = (values: Float64Array) => (v: number) => values[v]!;
  const base = modelOfGraph(graph, 'url');
  base.attributes.push(
    { name: 'host', type: 'string', value: (v) => host[v]! },
    { name: 'status', type: 'integer', value: numeric(status) },
    { name: 'content_type', type: 'string', value: text(contentType) },
    { name: 'title', type: 'string', value: text(title) },
    { name: 'depth', type: 'integer', value: numeric(depth) },
    { name: 'fetched_at', type: 'double', value: numeric(fetchedAt) },
    { name: 'error', type: 'string', value: text(error) },
  );
  return { export: { ...base, kinds: kindOf, rel }, graph, pageIds };
}

/** Adds the requested score columns to the model. */
async function addScores(
  model: ExportGraph,
  graph: Graph,
  names: readonly string[],
  store: Store | null,
  pageIds: Float64Array | null,
  context: AppContext,
): Promise<void> {
  const taken = new Set(model.attributes.map((a) => a.name));
  const add = (attribute: NodeAttribute): void => {
    let name = attribute.name;
    for (let i = 2; taken.has(name); i++) name = `${attribute.name}_${i}`;
    taken.add(name);
    model.attributes.push({ ...attribute, name });
  };
  const fromArray = (name: string, values: ArrayLike<number>, type: 'double' | 'integer'): NodeAttribute => ({
    name,
    type,
    value: (v) => values[v]!,
  });
  for (const name of names) {
    context.onProgress?.({ phase: 'scores', message: `scores: ${name}` });
    const run = /^run:(\d+)$/.exec(name);
    if (run !== null) {
      if (store === null || pageIds === null) throw new OptionError('--scores', `'${name}' needs --db (runs are stored)`);
      const id = Number(run[1]);
      const record = (await store.runs()).find((r) => r.id === id);
      if (record === undefined) throw new OptionError('--scores', `no run ${id} in ${store.location}`);
      add(fromArray(`${record.method}_${id}`, await store.runScores(id, pageIds), 'double'));
      continue;
    }
    const latest = store === null ? null : await store.latestRun(name);
    if (latest !== null) {
      add(fromArray(name, await store!.runScores(latest.id, pageIds!), 'double'));
      continue;
    }
    if (name === 'pagerank') add(fromArray('pagerank', pagerank(graph).scores, 'double'));
    else if (name === 'scc') add(fromArray('scc', stronglyConnectedComponents(graph).component, 'integer'));
    else if (name === 'indegree') add(fromArray('indegree', inDegrees(graph), 'integer'));
    else if (name === 'outdegree') add(fromArray('outdegree', outDegrees(graph), 'integer'));
    else if (await fileExists(name)) {
      const scores = await readScores(name);
      const byLabel = new Float64Array(graph.nodeCount).fill(NaN);
      let matched = 0;
      for (let v = 0; v < graph.nodeCount; v++) {
        const value = scores.get(graph.labels.label(v));
        if (value !== undefined) {
          byLabel[v] = value;
          matched++;
        }
      }
      if (matched === 0) throw new InputFormatError(name, undefined, `none of its ${scores.size} labels is a page of the graph`);
      add(fromArray(basename(name).replace(/\.(tsv|txt|scores)$/, ''), byLabel, 'double'));
    } else {
      const methods = store === null ? [] : [...new Set((await store.runs()).map((r) => r.method))];
      throw new OptionError(
        '--scores',
        `'${name}' is not ${methods.length > 0 ? `a stored run's method (${methods.join(', ')}), ` : ''}a score file, run:ID or one of ${COMPUTED_SCORES.join(', ')}`,
      );
    }
  }
}

async function write(
  model: ExportGraph,
  input: ExportInput,
  context: AppContext,
): Promise<{ files: Array<{ path: string; bytes: number }>; bitsPerLink?: number }> {
  const out = input.out;
  context.onProgress?.({ phase: 'export', message: `writing ${input.format} to ${out}` });
  switch (input.format) {
    case 'bv': {
      const report = await writeWebGraph(out, model.nodeCount, { offsets: model.offsets, targets: model.targets }, input.bv ?? {}, context);
      const files = [
        { path: report.files[0]!, bytes: report.bytes.graph },
        { path: report.files[1]!, bytes: report.bytes.offsets },
        { path: report.files[2]!, bytes: report.bytes.properties },
      ];
      // BV numbers pages 0..n-1: their names go to a label file ("id label" lines, wga's --labels).
      if (!labelsAreIdentity(model)) {
        const path = `${bvFiles(out).basename}.labels`;
        const sink = new FileSink(path);
        try {
          for (let v = 0; v < model.nodeCount; v++) {
            sink.write(`${v}\t${model.label(v).replace(/[\t\n\r]/g, ' ')}\n`);
            await sink.flushIfFull();
          }
          files.push({ path, bytes: await sink.close() });
        } catch (error) {
          sink.destroy();
          throw error;
        }
      }
      return { files, bitsPerLink: report.bitsPerLink };
    }
    case 'parquet': {
      await mkdir(out, { recursive: true }).catch((error: Error) => {
        throw new OptionError('--out', `cannot create directory ${out}: ${error.message}`);
      });
      const paths = { pages: join(out, 'pages.parquet'), links: join(out, 'links.parquet') };
      const bytes = await writeParquet(model, paths, context);
      return { files: [{ path: paths.pages, bytes: bytes.pages }, { path: paths.links, bytes: bytes.links }] };
    }
    default: {
      const sink = new FileSink(out);
      try {
        if (input.format === 'gexf') await writeGexf(model, sink, input.gexfVersion ?? '1.3', context);
        else if (input.format === 'graphml') await writeGraphml(model, sink, context);
        else await writeTsv(model, sink, context);
        return { files: [{ path: out, bytes: await sink.close() }] };
      } catch (error) {
        sink.destroy();
        throw error;
      }
    }
  }
}

function labelsAreIdentity(model: ExportGraph): boolean {
  for (let v = 0; v < model.nodeCount; v++) if (model.label(v) !== String(v)) return false;
  return true;
}
