/** The options every command that reads a graph shares, and the loading itself. */
import type { Command } from 'commander';
import { GRAPH_FORMATS, type LoadOptions, type LoadedGraph, loadGraph } from '../formats/load.js';
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
}

export function addGraphOptions(command: Command): Command {
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
