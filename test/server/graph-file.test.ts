/**
 * `wga serve --graph G.wgc`: the JSON API over a compact graph file (src/server/graph-routes.ts),
 * read in place. Its answers are checked against the plain form of the same graph (degrees,
 * neighbours, PageRank by the plain solver) and against the files `rank --save` and
 * `distances --save` kept; its refusals are typed 4xx answers naming the parameter.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { compactDistances, compactRank, distancesPath } from '../../src/app/compact-graph.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { readCompactAsGraph } from '../../src/formats/compact-file.js';
import type { Graph } from '../../src/graph/graph.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { sharedData, temporaryDirectory } from '../helpers.js';

interface Top {
  method: string;
  nodes: number;
  top: Array<{ rank: number; id: number; label: string; score: number }>;
}

interface PageAnswer {
  id: number;
  label: string;
  inDegree: number;
  outDegree: number;
  inLinks: string[];
  outLinks: string[];
  scores: Array<{ method: string; value: number }>;
}

interface ErrorAnswer {
  error: { code: string; message: string; parameter?: string };
}

describe('wga serve --graph G.wgc: the API over a compact graph file', { timeout: 600_000 }, () => {
  const dir = temporaryDirectory();
  const graphPath = join(dir.path, 'hollins.wgc');
  let server: RunningServer;
  let plain: Graph;
  let plainRank: Float64Array;

  const get = async <T>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.url}${path.replace(/^\//, '')}`, init);
    return { status: response.status, body: (await response.json()) as T };
  };

  before(async () => {
    const converted = await runCli(['convert', sharedData('hollins', 'hollins.edges.txt'), graphPath, '--labels', sharedData('hollins', 'hollins.urls.txt'), '-q']);
    assert.equal(converted.code, 0, converted.stderr);
    compactRank(graphPath, { method: 'pagerank', save: true, tolerance: 1e-12 });
    compactRank(graphPath, { method: 'traffic', save: true });
    compactDistances(graphPath, { log2m: 6, seed: 3, threads: 1, save: true });
    plain = readCompactAsGraph(graphPath).graph;
    plainRank = pagerank(plain, { tolerance: 1e-12, solver: 'power' }).scores;
    server = await startServer({ graph: graphPath });
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  it('says what the file holds and which rankings and distances were kept beside it', async () => {
    const { status, body } = await get<{ mode: string; nodes: number; links: number; names: boolean; rankings: Array<{ method: string; listed: number }>; distances: boolean }>('/api/info');
    assert.equal(status, 200);
    assert.equal(body.mode, 'graph');
    assert.equal(body.nodes, plain.nodeCount);
    assert.equal(body.links, plain.edgeCount);
    assert.equal(body.names, true);
    assert.deepEqual(body.rankings.map((r) => r.method), ['pagerank', 'traffic']);
    assert.deepEqual(body.rankings.map((r) => r.listed), [1000, 1000]);
    assert.equal(body.distances, true);
    assert.equal(server.store, null);
  });

  it('lists the best pages of a saved ranking, page by page, as the plain solver ranks them', async () => {
    const order = Array.from(plainRank.keys()).sort((a, b) => plainRank[b]! - plainRank[a]! || a - b);
    const first = await get<Top>('/api/top?method=pagerank&limit=20');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.top.map((p) => p.rank), Array.from({ length: 20 }, (_, i) => i + 1));
    for (const p of first.body.top) {
      assert.ok(Math.abs(p.score - plainRank[p.id]!) < 1e-10, `score of ${p.label}`);
      assert.equal(p.label, plain.labels.label(p.id));
    }
    // The top 10 have distinct enough scores on Hollins for the order to be the plain solver's.
    assert.deepEqual(first.body.top.slice(0, 10).map((p) => p.id), order.slice(0, 10));
    const second = await get<Top>('/api/top?method=pagerank&offset=10&limit=5');
    assert.deepEqual(second.body.top, first.body.top.slice(10, 15));
    // The last page of the kept list: fewer pages, not an error.
    const end = await get<Top>('/api/top?method=traffic&offset=990&limit=100');
    assert.equal(end.status, 200);
    assert.equal(end.body.top.length, 10);
    assert.equal(end.body.top[9]!.rank, 1000);
    assert.equal(end.body.method, 'traffic');
  });

  it("gives a page's degrees, neighbours and every saved score, found by name or by id", async () => {
    const home = plain.labels.id('http://www.hollins.edu/');
    assert.notEqual(home, -1);
    const { status, body } = await get<PageAnswer>(`/api/page?name=${encodeURIComponent('http://www.hollins.edu/')}&limit=7`);
    assert.equal(status, 200);
    assert.equal(body.id, home);
    assert.equal(body.inDegree, plain.inDegree(home));
    assert.equal(body.outDegree, plain.outDegree(home));
    assert.deepEqual(body.inLinks, Array.from(plain.predecessors(home).subarray(0, 7), (u) => plain.labels.label(u)));
    assert.deepEqual(body.outLinks, Array.from(plain.successors(home).subarray(0, 7), (u) => plain.labels.label(u)));
    assert.deepEqual(body.scores.map((s) => s.method), ['pagerank', 'traffic']);
    assert.ok(Math.abs(body.scores[0]!.value - plainRank[home]!) < 1e-10);
    const byId = await get<PageAnswer>(`/api/page?name=${home}&limit=0`);
    assert.equal(byId.body.label, 'http://www.hollins.edu/');
    assert.deepEqual(byId.body.inLinks, []);
  });

  it('answers the distance distribution distances --save kept, as it was saved', async () => {
    const { status, body } = await get<{ distribution: number[]; log2m: number; nodes: number; averageDistance: number }>('/api/distances');
    assert.equal(status, 200);
    const saved = JSON.parse(readFileSync(distancesPath(graphPath), 'utf8')) as { distribution: number[]; averageDistance: number };
    assert.equal(body.log2m, 6);
    assert.equal(body.nodes, plain.nodeCount);
    assert.deepEqual(body.distribution, saved.distribution);
    assert.ok(body.distribution.length > 5);
    assert.ok(Math.abs(body.distribution.reduce((a, b) => a + b, 0) - 1) < 1e-9, 'a distribution');
  });

  it('refuses what it cannot answer with a typed 4xx naming the parameter', async () => {
    const cases: Array<[string, number, string | undefined, RegExp]> = [
      ['/api/page?name=nope', 404, 'name', /no page "nope"/],
      ['/api/page', 400, 'name', /missing/],
      ['/api/page?name=1&limit=20000', 400, 'limit', /at most 10000/],
      ['/api/top?method=harmonic', 404, 'method', /wga rank GRAPH\.wgc --method harmonic --save/],
      ['/api/top?method=bogus', 400, 'method', /expected one of/],
      ['/api/top?limit=0', 400, 'limit', /./],
      ['/api/top?offset=1001', 400, 'offset', /best 1000 pages/],
      ['/api/crawl', 404, undefined, /needs a store/],
    ];
    for (const [path, status, parameter, message] of cases) {
      const answer = await get<ErrorAnswer>(path);
      assert.equal(answer.status, status, path);
      assert.equal(answer.body.error.parameter, parameter, path);
      assert.match(answer.body.error.message, message, path);
    }
    // Changes need the token, and a foreign Host is refused (the store server's guard).
    assert.equal((await fetch(`${server.url}api/top`, { method: 'POST' })).status, 403);
    // A saved distribution of another graph is refused, not shown.
    const saved = readFileSync(distancesPath(graphPath), 'utf8');
    try {
      writeFileSync(distancesPath(graphPath), saved.replace(/"nodes":\d+/, '"nodes":7'));
      const other = await get<ErrorAnswer>('/api/distances');
      assert.equal(other.status, 400);
      assert.match(other.body.error.message, /of 7 pages for a graph of 6012/);
    } finally {
      writeFileSync(distancesPath(graphPath), saved);
    }
  });

  it('wga serve: --graph and --db are one or the other; a missing graph file is one line and a non-zero exit', async () => {
    const both = await runCli(['serve', '--db', join(dir.path, 'x.sqlite'), '--graph', graphPath]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /^wga: --graph: serves a graph file instead of a store/);
    const missing = await runCli(['serve', '--graph', join(dir.path, 'missing.wgc')]);
    assert.notEqual(missing.code, 0);
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
    assert.match(missing.stderr, /missing\.wgc/);
    const edgeList = await runCli(['serve', '--graph', sharedData('hollins', 'hollins.edges.txt')]);
    assert.equal(edgeList.code, 2);
    assert.match(edgeList.stderr, /^wga: --graph: expects a compact graph file \(\.wgc\), got '.*hollins\.edges\.txt': convert it first/);
    const plainDistances = await runCli(['distances', sharedData('hollins', 'hollins.edges.txt'), '--save']);
    assert.equal(plainDistances.code, 2);
    assert.match(plainDistances.stderr, /^wga: --save: keeps a compact graph's distance distribution/);
  });
});

describe('wga serve --graph: a graph file with nothing saved beside it', { timeout: 300_000 }, () => {
  it('answers its info, and says which command saves a ranking or the distances', async () => {
    const dir = temporaryDirectory();
    const edges = join(dir.path, 'ring.tsv');
    writeFileSync(edges, 'a\tb\nb\tc\nc\ta\n');
    const graph = join(dir.path, 'ring.wgc');
    assert.equal((await runCli(['convert', edges, graph, '-q'])).code, 0);
    const server = await startServer({ graph });
    try {
      const info = (await (await fetch(`${server.url}api/info`)).json()) as { nodes: number; rankings: unknown[]; distances: boolean };
      assert.deepEqual([info.nodes, info.rankings, info.distances], [3, [], false]);
      const top = await fetch(`${server.url}api/top`);
      assert.equal(top.status, 404);
      assert.match(((await top.json()) as ErrorAnswer).error.message, /wga rank GRAPH\.wgc --save/);
      const distances = await fetch(`${server.url}api/distances`);
      assert.equal(distances.status, 404);
      assert.match(((await distances.json()) as ErrorAnswer).error.message, /wga distances GRAPH\.wgc --save/);
      // The GUI's page is served for its routes.
      const html = await fetch(`${server.url}ranks`);
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-type') ?? '', /text\/html/);
    } finally {
      await server.close();
      dir.cleanup();
    }
  });
});
