/**
 * Pictures of a store's graph, as plain data small enough to draw in a browser: the neighbourhood
 * of a page, the crawl tree (each page under the page that first linked it at the least depth from
 * the seeds, as Screaming Frog draws a crawl) and the directory tree of URL paths. Large graphs are
 * sampled (the most important pages, with what connects them) so the drawings stay interactive.
 */
import { inDegrees } from '../analysis/degrees.js';
import { pagerank } from '../analysis/pagerank.js';
import { topK } from '../analysis/top.js';
import type { Graph } from '../graph/graph.js';
import type { HostGraph } from '../graph/hosts.js';
import { CRAWL_STATE, type PageRecord, type Store } from '../store/store.js';
import { PageNotFoundError } from './pages.js';

/** What a drawing needs of a page. */
export interface ViewNode {
  /** The store's page id. */
  id: number;
  url: string;
  title: string | null;
  status: number | null;
}

/** A store's graph with the store's page id of every graph page (labels are URLs). */
export interface StoreGraph {
  graph: Graph;
  pageIds: Float64Array;
  store: Store;
}

async function describe(store: Store, pageId: number, url: string): Promise<ViewNode> {
  const page: PageRecord | null = await store.pageById(pageId);
  return { id: pageId, url, title: page?.title ?? null, status: page?.status ?? null };
}

function graphId(source: StoreGraph, url: string): number {
  const v = source.graph.labels.id(url);
  if (v < 0) throw new PageNotFoundError(source.store.location, url);
  return v;
}

/** The `neighbourhood` contract. */
export interface NeighbourhoodJson {
  /** The page's store id. */
  center: number;
  nodes: Array<ViewNode & { distance: number; inDegree: number; outDegree: number }>;
  /** [source, target] store page ids, among the nodes. */
  edges: Array<[number, number]>;
  /** Some pages within `depth` clicks (either way) were left out to stay within `limit`. */
  truncated: boolean;
}

/** Edges drawn at most: a neighbourhood of well-linked pages is dense. */
const MAX_VIEW_EDGES = 5000;

/**
 * The pages within `depth` links of a page, either way, at most `limit` of them: nearer first,
 * then the most linked; with every link among them.
 */
export async function neighbourhood(source: StoreGraph, url: string, request: { depth: number; limit: number }): Promise<NeighbourhoodJson> {
  const { graph } = source;
  const center = graphId(source, url);
  const distance = new Map<number, number>([[center, 0]]);
  let frontier = [center];
  let truncated = false;
  for (let d = 1; d <= request.depth && frontier.length > 0 && distance.size < request.limit; d++) {
    const found = new Set<number>();
    for (const v of frontier) {
      for (const w of graph.successors(v)) if (!distance.has(w)) found.add(w);
      for (const w of graph.predecessors(v)) if (!distance.has(w)) found.add(w);
    }
    const ordered = [...found].sort((a, b) => graph.inDegree(b) + graph.outDegree(b) - (graph.inDegree(a) + graph.outDegree(a)) || a - b);
    const room = request.limit - distance.size;
    if (ordered.length > room) truncated = true;
    frontier = ordered.slice(0, room);
    for (const w of frontier) distance.set(w, d);
  }
  if (frontier.length > 0 && distance.size >= request.limit) truncated = true;
  const chosen = [...distance.keys()];
  const edges: Array<[number, number]> = [];
  for (const v of chosen) {
    for (const w of graph.successors(v)) {
      if (distance.has(w) && edges.length < MAX_VIEW_EDGES) edges.push([source.pageIds[v]!, source.pageIds[w]!]);
    }
  }
  const nodes = await Promise.all(
    chosen.map(async (v) => ({
      ...(await describe(source.store, source.pageIds[v]!, graph.labels.label(v))),
      distance: distance.get(v)!,
      inDegree: graph.inDegree(v),
      outDegree: graph.outDegree(v),
    })),
  );
  return { center: source.pageIds[center]!, nodes, edges, truncated };
}

/** The `crawl-tree` contract. */
export interface CrawlTreeJson {
  /** Store ids of the tree's roots (the seeds found in the graph, or the chosen root). */
  roots: number[];
  /** In breadth-first order: a parent comes before its children. */
  nodes: Array<ViewNode & { depth: number; parent: number | null; importance: number | null }>;
  /** Pages reached from the roots in all. */
  total: number;
  /** Only the `limit` most important pages (and their ancestors) are listed. */
  sampled: boolean;
  /** Where importance comes from: a stored run, else in-degree (run null). */
  importance: { run: number | null; method: string };
}

/** The seeds of the crawl in the store, as graph ids (those the graph has). */
async function seedIds(source: StoreGraph): Promise<number[]> {
  const text = (await source.store.crawlState())[CRAWL_STATE.settings];
  if (text === undefined) return [];
  const seeds = (JSON.parse(text) as { seeds?: string[] }).seeds ?? [];
  const ids: number[] = [];
  for (const seed of seeds) {
    let v = source.graph.labels.id(seed);
    if (v < 0) {
      // A seed is stored as given; its page under its normalised URL (e.g. with a trailing slash).
      const page = await source.store.pageByUrl(seed);
      if (page !== null) v = source.graph.labels.id(page.url);
    }
    if (v >= 0 && !ids.includes(v)) ids.push(v);
  }
  return ids;
}

/** Importance for sizing nodes: the latest OPIC, else PageRank run; else in-degree. */
async function importance(source: StoreGraph): Promise<{ values: Float64Array; run: number | null; method: string }> {
  for (const method of ['opic', 'pagerank']) {
    const run = await source.store.latestRun(method);
    if (run !== null) return { values: await source.store.runScores(run.id, source.pageIds), run: run.id, method };
  }
  return { values: Float64Array.from(inDegrees(source.graph)), run: null, method: 'in-degree' };
}

/**
 * The crawl tree: breadth-first from the seeds (or `root`), each page under the first page that
 * linked it at the least depth. With more than `limit` pages reached, the `limit` most important
 * ones are kept with their ancestors, so the tree stays connected.
 */
export async function crawlTree(source: StoreGraph, request: { root?: string | undefined; limit: number }): Promise<CrawlTreeJson> {
  const { graph } = source;
  const n = graph.nodeCount;
  const weights = await importance(source);
  let roots = request.root === undefined ? await seedIds(source) : [graphId(source, request.root)];
  if (roots.length === 0 && n > 0) roots = [topK(weights.values, 1)[0]!];
  const parent = new Int32Array(n).fill(-2);
  const depth = new Int32Array(n).fill(-1);
  const order: number[] = [];
  for (const r of roots) {
    parent[r] = -1;
    depth[r] = 0;
    order.push(r);
  }
  for (let head = 0; head < order.length; head++) {
    const v = order[head]!;
    for (const w of graph.successors(v)) {
      if (parent[w] !== -2) continue;
      parent[w] = v;
      depth[w] = depth[v]! + 1;
      order.push(w);
    }
  }
  let kept: number[] = order;
  const sampled = order.length > request.limit;
  if (sampled) {
    const reached = Float64Array.from(order, (v) => {
      const x = weights.values[v]!;
      return Number.isFinite(x) ? x : -1;
    });
    const keep = new Uint8Array(n);
    for (const r of roots) keep[r] = 1;
    for (const i of topK(reached, request.limit)) {
      for (let v = order[i]!; v >= 0 && keep[v] === 0; v = parent[v]!) keep[v] = 1;
    }
    kept = order.filter((v) => keep[v] === 1);
  }
  const nodes = await Promise.all(
    kept.map(async (v) => {
      const value = weights.values[v]!;
      return {
        ...(await describe(source.store, source.pageIds[v]!, graph.labels.label(v))),
        depth: depth[v]!,
        parent: parent[v]! < 0 ? null : source.pageIds[parent[v]!]!,
        importance: Number.isFinite(value) ? value : null,
      };
    }),
  );
  return {
    roots: roots.map((r) => source.pageIds[r]!),
    nodes,
    total: order.length,
    sampled,
    importance: { run: weights.run, method: weights.method },
  };
}

/** A node of the directory tree of URL paths. */
export interface DirectoryNode {
  /** "" for the top, "http://host" for a site, a path segment below. */
  name: string;
  /** Pages whose URL is at or below this node. */
  pages: number;
  children: DirectoryNode[];
  /** Pages below children left out (beyond maxChildren or maxDepth). */
  otherPages: number;
}

interface Trie {
  pages: number;
  children: Map<string, Trie>;
}

/**
 * The directory tree of the pages' URLs: site, then path segments (query strings ignored), with
 * page counts; at most `maxChildren` children per node (the largest) and `maxDepth` levels.
 */
export function directoryTree(urls: Iterable<string>, request: { maxChildren: number; maxDepth: number }): DirectoryNode & { truncated: boolean } {
  const top: Trie = { pages: 0, children: new Map() };
  for (const url of urls) {
    const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)/i.exec(url);
    const parts = match === null ? ['(other)'] : [match[1]!, ...match[2]!.split('/').filter((s) => s !== '')];
    let node = top;
    node.pages++;
    for (const part of parts.slice(0, request.maxDepth)) {
      let child = node.children.get(part);
      if (child === undefined) {
        child = { pages: 0, children: new Map() };
        node.children.set(part, child);
      }
      child.pages++;
      node = child;
    }
  }
  let truncated = false;
  const convert = (name: string, trie: Trie): DirectoryNode => {
    const sorted = [...trie.children.entries()].sort((a, b) => b[1].pages - a[1].pages || (a[0] < b[0] ? -1 : 1));
    const shown = sorted.slice(0, request.maxChildren);
    if (sorted.length > shown.length) truncated = true;
    const children = shown.map(([childName, child]) => convert(childName, child));
    const listed = children.reduce((sum, c) => sum + c.pages, 0);
    const below = [...trie.children.values()].reduce((sum, c) => sum + c.pages, 0);
    return { name, pages: trie.pages, children, otherPages: below - listed };
  };
  const tree = convert('', top);
  return { ...tree, truncated };
}

/** The `hosts` contract: the host or domain graph (pages collapsed into their URL hosts or pay-level domains). */
export interface HostGraphJson {
  /** 'host' or 'domain': what `nodes` are. */
  level: 'host' | 'domain';
  /** Hosts (or domains), most pages first (at most `maxHosts`), with their weighted PageRank on the whole host (or domain) graph. */
  nodes: Array<{ host: string; pages: number; pagerank: number }>;
  /** Links between listed hosts (source and target index `nodes`), `links` = page links, most first (at most `maxLinks`). */
  links: Array<{ source: number; target: number; links: number }>;
  hosts: number;
  hostLinks: number;
  /** Page links inside one host (not in `links`). */
  selfLinksDropped: number;
  truncated: boolean;
}

/** The host graph of a graph with URL labels (graph/hosts.ts), as much as a browser lists. */
export function hostGraphView(hosts: HostGraph, request: { maxHosts: number; maxLinks: number }): HostGraphJson {
  const g = hosts.graph;
  const order = Array.from({ length: g.nodeCount }, (_, h) => h).sort((a, b) => hosts.pages[b]! - hosts.pages[a]! || a - b);
  const listed = order.slice(0, request.maxHosts);
  const index = new Map(listed.map((h, i) => [h, i]));
  const links: HostGraphJson['links'] = [];
  for (const h of listed) {
    const targets = g.successors(h);
    const start = g.outOffsets[h]!;
    for (let i = 0; i < targets.length; i++) {
      const t = index.get(targets[i]!);
      if (t !== undefined) links.push({ source: index.get(h)!, target: t, links: g.outWeights === null ? 1 : g.outWeights[start + i]! });
    }
  }
  links.sort((a, b) => b.links - a.links || a.source - b.source || a.target - b.target);
  // Sites ranked as `wga rank --level host|domain` ranks them: PageRank weighted by page-link counts.
  const rank = pagerank(g, { tolerance: 1e-10 }).scores;
  return {
    level: hosts.level,
    nodes: listed.map((h) => ({ host: g.labels.label(h), pages: hosts.pages[h]!, pagerank: rank[h]! })),
    links: links.slice(0, request.maxLinks),
    hosts: g.nodeCount,
    hostLinks: g.edgeCount,
    selfLinksDropped: hosts.selfLinksDropped,
    truncated: listed.length < g.nodeCount || links.length > request.maxLinks,
  };
}
