/**
 * Levels of a web graph: pages collapsed into their hosts (the host name of their URL, as the
 * store's `host` column and Common Crawl's host-level graphs have it) or into their pay-level
 * domains (the registrable domain by the Public Suffix List, as Common Crawl's domain-level graphs
 * have it). One link from group A to group B weighted by the number of finer links from A's members
 * to B's (summing weights on a weighted graph). Links inside one group become no link: they are
 * counted and dropped. Weighted PageRank on such a graph ranks sites.
 */
import { getDomain } from 'tldts';
import { InputFormatError, OptionError } from '../errors.js';
import { buildFromEdges } from './builder.js';
import { EdgeBuffer } from './edge-buffer.js';
import type { Graph } from './graph.js';
import { TextLabels } from './labels.js';

/** What a graph's nodes are: pages (URLs), hosts or pay-level domains. */
export type GraphLevel = 'page' | 'host' | 'domain';
export const GRAPH_LEVELS: readonly GraphLevel[] = ['page', 'host', 'domain'];
const DEPTH: Record<GraphLevel, number> = { page: 0, host: 1, domain: 2 };

/** How the nodes of a graph are named, for grouping them. */
export interface NodeNaming {
  /** The level of the graph's nodes (default 'page': labels are URLs). */
  level?: GraphLevel;
  /** Host or domain labels are in Common Crawl's reversed notation (com.example.www). */
  reversed?: boolean;
}

export interface HostGraph {
  /** Groups as nodes (labels: host or domain names), weighted by link counts. */
  graph: Graph;
  level: 'host' | 'domain';
  /** hostOfPage[v] = the group of node v of the finer graph. */
  hostOfPage: Int32Array;
  /** pages[h] = nodes of the finer graph in group h. */
  pages: Int32Array;
  /** Links of the finer graph read. */
  pageLinks: number;
  /** Links inside one group, dropped. */
  selfLinksDropped: number;
  /** Links merged into a group link another link already made. */
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

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * A host name in Common Crawl's reversed notation (www.example.com → com.example.www); the
 * reverse of a reversed name is the name. IP addresses are kept as they are (reversed, an IPv4
 * address would be another address).
 */
export function reverseHost(host: string): string {
  if (host.startsWith('[') || IPV4.test(host)) return host;
  return host.split('.').reverse().join('.');
}

/**
 * The pay-level domain of a host: its registrable domain by the Public Suffix List's ICANN section
 * (www.bbc.co.uk → bbc.co.uk; private suffixes such as blogspot.com are not split, as the domain
 * owner pays for the whole). Hosts without one (IP addresses, localhost, a bare suffix) are their own domain.
 */
export function domainOfHost(host: string): string {
  if (host.startsWith('[') || IPV4.test(host)) return host;
  return getDomain(host, { allowPrivateDomains: false }) ?? host;
}

export interface SiteGraphOptions extends NodeNaming {
  /** Where the labels came from, for the error when a page has no URL label. */
  source: string;
  /** Name the groups in Common Crawl's reversed notation. Default: the notation of the labels. */
  reversedNames?: boolean;
}

/**
 * The host or domain of every node of `graph` (labels: URLs, or host names at level 'host'):
 * groupOf[v] = its group, names[g] = the group's name, members[g] = nodes in group g.
 */
export function groupNodes(graph: Graph, level: 'host' | 'domain', options: SiteGraphOptions): { groupOf: Int32Array; names: string[]; members: Int32Array } {
  const from = options.level ?? 'page';
  const reversedIn = options.reversed === true;
  const reversedOut = options.reversedNames ?? reversedIn;
  const n = graph.nodeCount;
  const groupOf = new Int32Array(n);
  const groupIds = new Map<string, number>();
  const names: string[] = [];
  for (let v = 0; v < n; v++) {
    const label = graph.labels.label(v);
    let host: string | null;
    if (from === 'page') {
      host = hostOfUrl(label);
      if (host === null) {
        throw new InputFormatError(
          options.source,
          undefined,
          `--level ${level} needs URL labels, but page ${v} is labelled '${label.slice(0, 80)}' (give a label file with --labels)`,
        );
      }
    } else {
      host = label.toLowerCase();
      if (reversedIn) host = reverseHost(host);
    }
    const group = level === 'host' ? host : domainOfHost(host);
    let id = groupIds.get(group);
    if (id === undefined) {
      id = names.length;
      groupIds.set(group, id);
      names.push(reversedOut ? reverseHost(group) : group);
    }
    groupOf[v] = id;
  }
  const members = new Int32Array(names.length);
  for (let v = 0; v < n; v++) members[groupOf[v]!]!++;
  return { groupOf, names, members };
}

/**
 * Collapses `graph`'s nodes into hosts or domains. A graph of pages needs URL labels; a graph of
 * hosts (Common Crawl's host graph) is labelled with host names, reversed or not.
 */
export function siteGraph(graph: Graph, level: 'host' | 'domain', options: SiteGraphOptions): HostGraph {
  const from = options.level ?? 'page';
  if (DEPTH[from] >= DEPTH[level]) {
    throw new OptionError('--level', `the graph's nodes are ${from}s already: a ${level} graph is made of ${level === 'host' ? 'pages' : 'pages or hosts'}`);
  }
  const { groupOf: hostOfPage, names, members: pages } = groupNodes(graph, level, options);
  const edges = new EdgeBuffer(true);
  const { outOffsets, outTargets, outWeights } = graph;
  let selfLinksDropped = 0;
  for (let v = 0; v < graph.nodeCount; v++) {
    const a = hostOfPage[v]!;
    const end = outOffsets[v + 1]!;
    for (let e = outOffsets[v]!; e < end; e++) {
      const b = hostOfPage[outTargets[e]!]!;
      if (a === b) selfLinksDropped++;
      else edges.push(a, b, outWeights === null ? 1 : outWeights[e]!);
    }
  }
  const { graph: groups, report } = buildFromEdges(names.length, edges, new TextLabels(names), { duplicates: 'count' });
  return { graph: groups, level, hostOfPage, pages, pageLinks: graph.edgeCount, selfLinksDropped, merged: report.duplicatesDropped };
}

/** Collapses `graph`'s pages into hosts. `source` names where the labels came from, for the error when a page has no URL label. */
export function hostGraph(graph: Graph, source: string, naming: NodeNaming = {}): HostGraph {
  return siteGraph(graph, 'host', { ...naming, source });
}
