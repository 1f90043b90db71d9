/**
 * The host graph: pages collapsed into their hosts (the host name of their
 * URL, as the store's `host` column and Common Crawl's host-level graphs
 * have it), one link from host A to host B weighted by the number of page
 * links from A's pages to B's pages (summing weights on a weighted graph).
 * Links between two pages of one host become no host link: they are counted
 * and dropped. Weighted PageRank on this graph ranks sites.
 */
import { InputFormatError } from '../errors.js';
import { buildFromEdges } from './builder.js';
import { EdgeBuffer } from './edge-buffer.js';
import type { Graph } from './graph.js';
import { TextLabels } from './labels.js';

export interface HostGraph {
  /** Hosts as nodes (labels: host names), weighted by page-link counts. */
  graph: Graph;
  /** hostOfPage[v] = the host node of page v. */
  hostOfPage: Int32Array;
  /** pages[h] = pages of host h. */
  pages: Int32Array;
  /** Page links read. */
  pageLinks: number;
  /** Page links inside one host, dropped. */
  selfLinksDropped: number;
  /** Page links merged into a host link another page link already made. */
  merged: number;
}

/** The host of an absolute URL (lower case, no port, no user info), or null when the label is no URL with a host. */
export function hostOfUrl(label: string): string | null {
  const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(label);
  if (match === null) return null;
  let authority = match[1]!;
  const at = authority.lastIndexOf('@');
  if (at >= 0) authority = authority.slice(at + 1);
  // IPv6 literals keep their brackets; a port follows the last colon otherwise.
  const host = authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.replace(/:\d*$/, '');
  return host === '' ? null : host.toLowerCase();
}

/**
 * Collapses `graph`'s pages into hosts. `source` names where the labels came
 * from, for the error when a page has no URL label.
 */
export function hostGraph(graph: Graph, source: string): HostGraph {
  const n = graph.nodeCount;
  const hostOfPage = new Int32Array(n);
  const hostIds = new Map<string, number>();
  const names: string[] = [];
  for (let v = 0; v < n; v++) {
    const label = graph.labels.label(v);
    const host = hostOfUrl(label);
    if (host === null) {
      throw new InputFormatError(
        source,
        undefined,
        `--hosts needs URL labels, but page ${v} is labelled '${label.slice(0, 80)}' (give a label file with --labels)`,
      );
    }
    let id = hostIds.get(host);
    if (id === undefined) {
      id = names.length;
      hostIds.set(host, id);
      names.push(host);
    }
    hostOfPage[v] = id;
  }
  const pages = new Int32Array(names.length);
  for (let v = 0; v < n; v++) pages[hostOfPage[v]!]!++;
  const edges = new EdgeBuffer(true);
  const { outOffsets, outTargets, outWeights } = graph;
  let selfLinksDropped = 0;
  for (let v = 0; v < n; v++) {
    const a = hostOfPage[v]!;
    const end = outOffsets[v + 1]!;
    for (let e = outOffsets[v]!; e < end; e++) {
      const b = hostOfPage[outTargets[e]!]!;
      if (a === b) selfLinksDropped++;
      else edges.push(a, b, outWeights === null ? 1 : outWeights[e]!);
    }
  }
  const { graph: hosts, report } = buildFromEdges(names.length, edges, new TextLabels(names), { duplicates: 'count' });
  return { graph: hosts, hostOfPage, pages, pageLinks: graph.edgeCount, selfLinksDropped, merged: report.duplicatesDropped };
}
