/** The options every command that reads a graph shares; the loading itself is the application layer's (src/app/graph-source.ts). */
import type { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { type GraphFileOptions, type GraphSource, loadGraphFile, saveRun, withGraph as withAppGraph } from '../app/graph-source.js';
import { GRAPH_FORMATS, type LoadedGraph } from '../formats/load.js';
import type { NewRun } from '../store/store.js';
import { Progress } from './progress.js';

export type { GraphSource } from '../app/graph-source.js';

/** A graph command's options: how to read the file (the app layer's), plus the CLI's own. */
export interface GraphInputOptions extends GraphFileOptions {
  quiet?: boolean;
  json?: boolean;
  db?: string;
  save?: boolean;
  hosts?: boolean;
  level?: string;
  reversedNames?: boolean;
  links?: string;
}

/** Options of commands that read a graph file or a store. */
export function addGraphOptions(command: Command): Command {
  return addGraphFileOptions(command)
    .option('--db <store>', 'read the graph from a store (SQLite file or postgres:// URL) instead of a file')
    .option('--links <kinds>', "with --db, the links read: kinds (anchor, area, frame, iframe, refresh, redirect, canonical, alternate, sitemap), graph or all; -KIND or -nofollow, -ugc, -sponsored leave some out (default: graph)")
    .option('--level <level>', 'the graph analysed: page, host (pages collapsed into their URL hosts) or domain (into their pay-level domains), links weighted by page-link counts (default: page, or the nodes of the file)')
    .option('--reversed-names', "with --level host or domain: name them in Common Crawl's reversed notation (com.example.www)")
    .option('--hosts', 'the same as --level host');
}

/** Options describing a graph file. */
export function addGraphFileOptions(command: Command): Command {
  return command
    .option('--format <format>', `graph file format: auto, ${GRAPH_FORMATS.join(', ')} (default: auto, from the file name)`)
    .option('--labels <file>', "label file with 'id url' lines, to show URLs instead of ids (one for every page)")
    .option('--labels-partial', 'the label file may leave pages without a label: they keep their ids')
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

/** An application context that shows progress messages on stderr (unless --quiet), and the Progress to close. */
export function progressContext(options: { quiet?: boolean }): { context: AppContext; progress: Progress } {
  const progress = new Progress(options.quiet !== true);
  return { context: { onProgress: (event) => progress.update(() => event.message) }, progress };
}

/**
 * Opens the graph named by the command's argument or its --db store, runs
 * `work` on it, and closes the store whatever happens.
 */
export async function withGraph<T>(path: string | undefined, options: GraphInputOptions, work: (source: GraphSource) => Promise<T>): Promise<T> {
  const { context, progress } = progressContext(options);
  return withAppGraph(
    {
      path,
      db: options.db,
      file: options,
      ...(options.save === undefined ? {} : { save: options.save }),
      ...(options.hosts === true ? { hosts: true } : {}),
      ...(options.level === undefined ? {} : { level: options.level }),
      ...(options.reversedNames === true ? { reversedNames: true } : {}),
      ...(options.links === undefined ? {} : { links: options.links }),
    },
    async (source) => {
      progress.done();
      return work(source);
    },
    context,
  ).finally(() => progress.done());
}

/** With --save, stores the result as a run; returns its id (null without --save). */
export async function saveRunIfAsked(source: GraphSource, options: GraphInputOptions, run: NewRun, scores: ArrayLike<number>): Promise<number | null> {
  if (options.save !== true) return null;
  return saveRun(source, run, scores);
}

export async function loadFromOptions(path: string, options: GraphInputOptions): Promise<LoadedGraph> {
  const { context, progress } = progressContext(options);
  try {
    return await loadGraphFile(path, options, context);
  } finally {
    progress.done();
  }
}
