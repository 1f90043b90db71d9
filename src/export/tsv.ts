/**
 * The edge list as TSV, "source<TAB>target" (plus a weight column for a
 * weighted graph) with the pages' labels, readable again by wga and every
 * graph tool. Labels with tabs or line breaks cannot be written as they are:
 * those characters become spaces.
 */
import type { AppContext } from '../app/context.js';
import type { ExportGraph } from './model.js';
import { numberText } from './model.js';
import type { FileSink } from './sink.js';

function field(label: string): string {
  return /[\t\n\r]/.test(label) ? label.replace(/[\t\n\r]/g, ' ') : label;
}

export async function writeTsv(graph: ExportGraph, sink: FileSink, context: AppContext = {}): Promise<void> {
  const { offsets, targets, weights } = graph;
  const labels: string[] = new Array<string>(graph.nodeCount);
  for (let v = 0; v < graph.nodeCount; v++) labels[v] = field(graph.label(v));
  for (let v = 0; v < graph.nodeCount; v++) {
    const end = offsets[v + 1]!;
    const source = labels[v]!;
    for (let e = offsets[v]!; e < end; e++) {
      sink.write(weights === null ? `${source}\t${labels[targets[e]!]}\n` : `${source}\t${labels[targets[e]!]}\t${numberText(weights[e]!)}\n`);
    }
    if (sink.full) {
      await sink.flush();
      context.signal?.throwIfAborted();
    }
  }
}
