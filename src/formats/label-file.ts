/**
 * Label files: "id url" per line (white space or tab between), attaching a
 * URL (or any display name) to the page whose label in the graph is `id`.
 * Comment lines ('#', '%') and a header line (a first line whose id is not a
 * number while the next one's is, e.g. "link url") are skipped.
 */
import { InputFormatError } from '../errors.js';
import type { Graph } from '../graph/graph.js';
import { AttachedLabels } from '../graph/labels.js';
import { parseCanonicalIntBytes } from './edgelist.js';
import { LineSplitter, streamFile } from './file-stream.js';

export interface LabelFileReport {
  /** Lines that named a page of the graph. */
  matched: number;
  /** Lines whose id is not a page of the graph (pages without links, say). */
  unmatched: number;
  /** Pages of the graph that got no label. */
  unlabelled: number;
}

/** Reads a label file and returns the graph's labels with the names attached. */
export async function readLabelFile(
  path: string,
  graph: Graph,
): Promise<{ labels: AttachedLabels; report: LabelFileReport }> {
  const names: (string | undefined)[] = new Array(graph.nodeCount);
  const firstLine = new Map<number, number>();
  let matched = 0;
  let unmatched = 0;
  let dataLines = 0;
  let pendingHeader: { id: string; name: string; line: number } | null = null;

  const accept = (idText: string, name: string, line: number): void => {
    const id = graph.labels.id(idText);
    if (id < 0) {
      unmatched++;
      return;
    }
    const earlier = firstLine.get(id);
    if (earlier !== undefined) {
      throw new InputFormatError(path, line, `page '${idText}' is already labelled at line ${earlier}`);
    }
    firstLine.set(id, line);
    names[id] = name;
    matched++;
  };

  const splitter = new LineSplitter((buffer, start, end, line) => {
    let i = start;
    while (i < end && isBlank(buffer[i]!)) i++;
    let e = end;
    while (e > i && isBlank(buffer[e - 1]!)) e--;
    if (i === e || buffer[i] === 35 || buffer[i] === 37) return;
    let split = i;
    while (split < e && !isBlank(buffer[split]!)) split++;
    let nameStart = split;
    while (nameStart < e && isBlank(buffer[nameStart]!)) nameStart++;
    if (nameStart === e) {
      throw new InputFormatError(path, line, `expected 'id name', found only '${buffer.toString('utf8', i, e).slice(0, 80)}'`);
    }
    const idText = buffer.toString('utf8', i, split);
    const name = buffer.toString('utf8', nameStart, e);
    const numeric = parseCanonicalIntBytes(buffer, i, split) >= 0;
    dataLines++;
    if (dataLines === 1 && !numeric) {
      pendingHeader = { id: idText, name, line };
      return;
    }
    if (pendingHeader !== null) {
      const header: { id: string; name: string; line: number } = pendingHeader;
      pendingHeader = null;
      if (!numeric) accept(header.id, header.name, header.line);
    }
    accept(idText, name, line);
  }, path);

  await streamFile(path, (chunk) => splitter.write(chunk), { where: () => splitter.lineNumber });
  splitter.end();
  if (pendingHeader !== null) {
    const header: { id: string; name: string; line: number } = pendingHeader;
    accept(header.id, header.name, header.line);
  }
  if (dataLines === 0) throw new InputFormatError(path, undefined, 'no labels found: the file is empty');
  const labels = new AttachedLabels(graph.labels, names);
  return { labels, report: { matched, unmatched, unlabelled: graph.nodeCount - matched } };
}

function isBlank(byte: number): boolean {
  return byte === 32 || byte === 9 || byte === 13;
}
