/**
 * Exports read back by other tools: GEXF and GraphML by NetworkX and igraph
 * (Debian's /usr/bin/python3), Parquet by DuckDB, BV by wga's own reader. The
 * expected values come from the store's tables read with SQL here, or from the
 * graph files, not from the export code.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { exportGraph } from '../../src/app/export.js';
import { copyFileSync, readFileSync } from 'node:fs';
import { Crawler } from '../../src/crawl/crawler.js';
import { completeSettings } from '../../src/crawl/settings.js';
import { Website } from '../../src/experiments/website.js';
import { writeGexf } from '../../src/export/gexf.js';
import { writeGraphml } from '../../src/export/graphml.js';
import type { ExportGraph } from '../../src/export/model.js';
import { FileSink } from '../../src/export/sink.js';
import { xmlEscape } from '../../src/export/xml.js';
import { loadGraph } from '../../src/formats/load.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { LINK_KINDS } from '../../src/store/store.js';
import { LINK_KIND_NAMES } from '../../src/store/schema.js';
import { runCli, serveLogged, type LoggingServer } from '../crawl/crawl-fixtures.js';
import { cacheDirectory, repoRoot, skipOrFail, temporaryDirectory, testData } from '../helpers.js';

const PYTHON = '/usr/bin/python3';

/** Reads an exported file with NetworkX or igraph and prints nodes and edges as JSON. */
const READER = String.raw`
import json, sys
mode, path = sys.argv[1], sys.argv[2]
def clean(d):
    # igraph fills attributes a node lacks with NaN (numbers) or '' (strings): both mean absent.
    return {k: v for k, v in d.items() if not (isinstance(v, float) and v != v) and v != ''}
if mode == 'igraph':
    import igraph
    g = igraph.Graph.Read_GraphML(path)
    names = g.vs['id']
    nodes = {v['id']: clean(v.attributes()) for v in g.vs}
    edges = [[names[e.source], names[e.target], clean(e.attributes())] for e in g.es]
else:
    import networkx as nx
    if mode == 'gexf':
        from networkx.readwrite import gexf
        # NetworkX's reader knows the 1.1 and 1.2 drafts; GEXF 1.3 has the same elements under its own namespace.
        base = gexf.GEXF.versions['1.2draft']
        gexf.GEXF.versions['1.3'] = dict(base, NS_GEXF='http://gexf.net/1.3', NS_VIZ='http://gexf.net/1.3/viz', VERSION='1.3')
        g = nx.read_gexf(path)
    else:
        g = nx.read_graphml(path)
    nodes = {n: clean(d) for n, d in g.nodes(data=True)}
    edges = [[u, v, clean(d)] for u, v, d in g.edges(data=True)]
print(json.dumps({'nodes': nodes, 'edges': edges, 'multi': g.is_multigraph() if mode != 'igraph' else True}))
`;

interface ReadBack {
  nodes: Record<string, Record<string, unknown>>;
  edges: Array<[string, string, Record<string, unknown>]>;
}

function pythonHas(module: string): boolean {
  return spawnSync(PYTHON, ['-c', `import ${module}`], { encoding: 'utf8' }).status === 0;
}

/**
 * DuckDB checks the Parquet files as an independent reader. It is no dependency of wga's (users
 * don't need it, and the registry here lacks its other platforms' binaries, which npm ci would
 * demand in the lock file): .ci/run installs it into WGA_DUCKDB_DIR (default: the test cache).
 */
function duckDbDirectory(): string {
  return process.env.WGA_DUCKDB_DIR ?? join(cacheDirectory(), 'duckdb');
}

/** The part of @duckdb/node-api the test uses. */
interface DuckDbApi {
  DuckDBInstance: {
    create(path: string): Promise<{
      connect(): Promise<{ runAndReadAll(sql: string): Promise<{ getRowObjects(): unknown[] }>; closeSync?(): void }>;
      closeSync?(): void;
    }>;
  };
}

async function loadDuckDb(): Promise<DuckDbApi | null> {
  let entry: string;
  try {
    entry = createRequire(join(duckDbDirectory(), 'package.json')).resolve('@duckdb/node-api');
  } catch {
    return null;
  }
  return (await import(pathToFileURL(entry).href)) as DuckDbApi;
}

function skipWithout(t: TestContext, modules: string[]): boolean {
  const missing = modules.filter((m) => !pythonHas(m));
  if (missing.length === 0) return false;
  skipOrFail(t, 'oracles', `${PYTHON} lacks ${missing.join(', ')} (apt-get install python3-networkx python3-igraph)`);
  return true;
}

function readBack(mode: 'gexf' | 'graphml' | 'igraph', path: string): ReadBack {
  const run = spawnSync(PYTHON, ['-c', READER, mode, path], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as ReadBack;
}

const dir = temporaryDirectory();
after(() => dir.cleanup());

// ---- a crawl of a small two-host site, with typed links and a hostile title ----

const HOSTILE_TITLE = 'A &amp; B &lt; "C" \u0001 end';
const HOSTILE_TITLE_TEXT = 'A & B < "C" \u0001 end';
let server: LoggingServer;
let db: string;

before(async () => {
  const siteA = new Website({ pages: 30, seed: 7 });
  const siteB = new Website({ pages: 20, seed: 8 });
  const siteC = new Website({ pages: 10, seed: 9 });
  // Three hosts: a.test links to b.test, b.test to c.test and back to a.test, c.test to a.test.
  const addLinks = (answer: ReturnType<Website['answer']>, hrefs: string[]): ReturnType<Website['answer']> => ({
    ...answer,
    body: answer.body.replace('</ul>', `${hrefs.map((h) => `<li><a href="${h}">${h}</a></li>`).join('\n')}\n</ul>`),
  });
  server = await serveLogged((path, host) => {
    if (host.startsWith('b.test:')) {
      const answer = siteB.answer(path);
      return path === '/' ? addLinks(answer, [`http://c.test:${server.port}/`, `http://a.test:${server.port}${Website.path(2)}`]) : answer;
    }
    if (host.startsWith('c.test:')) {
      const answer = siteC.answer(path);
      return path === '/' || path === Website.path(1) ? addLinks(answer, [`http://a.test:${server.port}${Website.path(5)}`, `http://a.test:${server.port}/`]) : answer;
    }
    const answer = siteA.answer(path);
    if (path !== '/') return answer;
    const extra =
      `<li><a href="http://b.test:${server.port}/">elsewhere</a></li>\n` +
      `<li><a rel="nofollow" href="http://b.test:${server.port}${Website.path(3)}">not endorsed</a></li>\n` +
      `<li><a rel="ugc sponsored" href="http://b.test:${server.port}${Website.path(4)}">paid for</a></li>\n</ul>`;
    const head = `<link rel="canonical" href="http://b.test:${server.port}${Website.path(7)}">`;
    return {
      ...answer,
      body: answer.body.replace('</ul>', extra).replace(/<title>[^<]*<\/title>/, `<title>${HOSTILE_TITLE}</title>${head}`),
    };
  });
  db = join(dir.path, 'crawl.db');
  const store = SqliteStore.open(db);
  try {
    await Crawler.run(
      store,
      completeSettings({
        seeds: [`http://a.test:${server.port}/`],
        allowIp: ['127.0.0.1/32'],
        resolve: { 'a.test': '127.0.0.1', 'b.test': '127.0.0.1', 'c.test': '127.0.0.1' },
        delayMs: 0,
        fences: ['/calendar/'],
        hosts: 'any',
      }),
      {},
    );
  } finally {
    await store.close();
  }
  await server.close();
  if (process.env.WGA_KEEP_DB) copyFileSync(db, process.env.WGA_KEEP_DB);
  const ranked = await runCli(['rank', '--db', db, '--save', '-q']);
  assert.equal(ranked.code, 0, ranked.stderr);
});

/** The store read with SQL: pages by id, and the expected exported links (distinct pairs, no self-links). */
function storeTables(): {
  urls: Map<number, string>;
  titles: Map<string, string | null>;
  pagerank: Map<string, number>;
  links: Map<string, { type: string; nofollow: boolean; rel: string }>;
} {
  const sql = new Database(db, { readonly: true });
  try {
    const urls = new Map<number, string>();
    const titles = new Map<string, string | null>();
    for (const row of sql.prepare('SELECT id, url, title FROM pages').all() as Array<{ id: number; url: string; title: string | null }>) {
      urls.set(row.id, row.url);
      titles.set(row.url, row.title);
    }
    const pagerank = new Map<string, number>();
    const run = sql.prepare("SELECT max(id) FROM runs WHERE method = 'pagerank'").pluck().get() as number;
    for (const row of sql.prepare('SELECT page, value FROM scores WHERE run = ?').all(run) as Array<{ page: number; value: number }>) {
      pagerank.set(urls.get(row.page)!, row.value);
    }
    // The kind of a pair with several is the first in LINK_KINDS's order; its rel, the bits every anchor or area carries.
    const links = new Map<string, { type: string; rel: number | null }>();
    for (const row of sql.prepare('SELECT source, target, kind, rel FROM links').all() as Array<{ source: number; target: number; kind: number; rel: number }>) {
      if (row.source === row.target) continue;
      const key = `${urls.get(row.source)} ${urls.get(row.target)}`;
      const name = LINK_KIND_NAMES[row.kind]!;
      const entry = links.get(key) ?? { type: name, rel: null };
      if (LINK_KINDS.indexOf(entry.type as never) > LINK_KINDS.indexOf(name)) entry.type = name;
      if (name === 'anchor' || name === 'area') entry.rel = entry.rel === null ? row.rel : entry.rel & row.rel;
      links.set(key, entry);
    }
    const relText = (bits: number): string => ['nofollow', 'ugc', 'sponsored'].filter((_, i) => (bits & (1 << i)) !== 0).join(' ');
    return { urls, titles, pagerank, links: new Map([...links].map(([k, v]) => [k, { type: v.type, nofollow: ((v.rel ?? 0) & 1) === 1, rel: relText(v.rel ?? 0) }])) };
  } finally {
    sql.close();
  }
}

describe('wga export of a crawl store', () => {
  it('stores typed links, a nofollow anchor and the hostile title (the fixture is what the tests need)', () => {
    const { links, titles } = storeTables();
    const types = new Set([...links.values()].map((l) => l.type));
    assert.deepEqual([...types].sort(), ['anchor', 'canonical', 'redirect']);
    assert.ok([...links.values()].some((l) => l.nofollow));
    assert.ok([...links.values()].some((l) => l.rel === 'ugc sponsored'));
    assert.ok([...titles.values()].includes(HOSTILE_TITLE_TEXT));
  });

  for (const [format, modes] of [
    ['gexf', ['gexf']],
    ['graphml', ['graphml', 'igraph']],
  ] as const) {
    it(`${format}: read back by ${modes.join(' and ')} with the store's pages, links, kinds, titles and PageRank`, async (t) => {
      if (skipWithout(t, ['networkx', 'igraph'])) return;
      const out = join(dir.path, `crawl.${format}`);
      const result = await runCli(['export', '--db', db, '--format', format, '--out', out, '--scores', 'pagerank', 'indegree', '--json', '-q']);
      assert.equal(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout) as { pages: number; links: number };
      const expected = storeTables();
      assert.equal(report.pages, expected.urls.size);
      assert.equal(report.links, expected.links.size);
      for (const mode of modes) {
        const back = readBack(mode, out);
        const nodes = Object.values(back.nodes);
        assert.equal(nodes.length, expected.urls.size, mode);
        assert.equal(back.edges.length, expected.links.size, mode);
        const urlOf = new Map(Object.entries(back.nodes).map(([id, d]) => [id, d.url as string]));
        assert.deepEqual(new Set(urlOf.values()), new Set(expected.urls.values()));
        for (const node of nodes) {
          const url = node.url as string;
          const title = expected.titles.get(url);
          if (title === null || title === undefined) assert.ok(!('title' in node) || node.title === '' || node.title === undefined, `${mode} ${url}`);
          else assert.equal(node.title, title.replace(/\u0001/g, '\uFFFD'), `${mode} title of ${url}`);
          assert.equal(node.pagerank, expected.pagerank.get(url), `${mode} pagerank of ${url}`);
        }
        const edges = new Map(back.edges.map(([u, v, d]) => [`${urlOf.get(u)} ${urlOf.get(v)}`, { type: d.type, nofollow: d.nofollow, rel: d.rel ?? '' }]));
        assert.deepEqual(edges, expected.links, mode);
        // in-degrees computed by wga agree with the edges read back
        const indegree = new Map<string, number>();
        for (const key of edges.keys()) indegree.set(key.split(' ')[1]!, (indegree.get(key.split(' ')[1]!) ?? 0) + 1);
        for (const node of nodes) assert.equal(Number(node.indegree), indegree.get(node.url as string) ?? 0);
      }
    });
  }

  it('gexf 1.2draft is read by NetworkX as it is', async (t) => {
    if (skipWithout(t, ['networkx'])) return;
    const out = join(dir.path, 'crawl-12.gexf');
    const report = await exportGraph({ db, format: 'gexf', out, gexfVersion: '1.2draft' });
    const run = spawnSync(PYTHON, ['-c', 'import networkx as nx, sys; g = nx.read_gexf(sys.argv[1]); print(g.number_of_nodes(), g.number_of_edges())', out], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), `${report.pages} ${report.links}`);
  });

  it('parquet: DuckDB reads the pages and links tables, and its join gives wga\'s degrees', async (t) => {
    const duckdb = await loadDuckDb();
    if (duckdb === null) {
      skipOrFail(t, 'oracles', `DuckDB's node API is missing: npm install --prefix ${duckDbDirectory()} @duckdb/node-api@1.5.6-r.1 (or set WGA_DUCKDB_DIR)`);
      return;
    }
    const out = join(dir.path, 'crawl-parquet');
    const report = await exportGraph({ db, format: 'parquet', out, scores: ['pagerank', 'indegree', 'outdegree'] });
    const expected = storeTables();
    assert.equal(report.pages, expected.urls.size);
    assert.equal(report.links, expected.links.size);
    const { DuckDBInstance } = duckdb;
    const instance = await DuckDBInstance.create(':memory:');
    const duck = await instance.connect();
    try {
      const pages = join(out, 'pages.parquet');
      const links = join(out, 'links.parquet');
      const rows = async (sql: string): Promise<Array<Record<string, unknown>>> => (await duck.runAndReadAll(sql)).getRowObjects() as Array<Record<string, unknown>>;
      const [counts] = await rows(`SELECT (SELECT count(*) FROM '${pages}') AS pages, (SELECT count(*) FROM '${links}') AS links`);
      assert.equal(Number(counts!.pages), expected.urls.size);
      assert.equal(Number(counts!.links), expected.links.size);
      const degrees = await rows(
        `SELECT p.url, p.indegree, p.outdegree, p.pagerank, p.title,
           (SELECT count(*) FROM '${links}' l WHERE l.dst = p.id) AS din,
           (SELECT count(*) FROM '${links}' l WHERE l.src = p.id) AS dout
         FROM '${pages}' p`,
      );
      assert.equal(degrees.length, expected.urls.size);
      for (const row of degrees) {
        assert.equal(Number(row.din), row.indegree, `in-degree of ${String(row.url)}`);
        assert.equal(Number(row.dout), row.outdegree, `out-degree of ${String(row.url)}`);
        assert.equal(row.pagerank, expected.pagerank.get(row.url as string));
        assert.equal(row.title, expected.titles.get(row.url as string));
      }
      const typed = await rows(`SELECT ps.url AS s, pt.url AS t, l.type, l.nofollow, l.rel FROM '${links}' l JOIN '${pages}' ps ON ps.id = l.src JOIN '${pages}' pt ON pt.id = l.dst`);
      assert.deepEqual(new Map(typed.map((r) => [`${String(r.s)} ${String(r.t)}`, { type: r.type, nofollow: r.nofollow, rel: r.rel }])), expected.links);
    } finally {
      duck.closeSync?.();
      instance.closeSync?.();
    }
  });

  it('bv: the written graph and labels give the same stats as the store', async () => {
    const base = join(dir.path, 'crawl-bv');
    await exportGraph({ db, format: 'bv', out: base, links: { kinds: ['anchor', 'redirect'], withoutRel: 0 } });
    const fromStore = JSON.parse((await runCli(['stats', '--db', db, '--json', '-q'])).stdout) as Record<string, unknown>;
    const fromBv = JSON.parse((await runCli(['stats', base, '--labels', `${base}.labels`, '--json', '-q'])).stdout) as Record<string, unknown>;
    for (const key of ['nodes', 'edges', 'danglingNodes', 'scc', 'unreferencedNodes', 'maxInDegree', 'maxOutDegree']) {
      assert.deepEqual(fromBv[key], fromStore[key], key);
    }
  });

  it('--hosts: host counts and weights equal a count of the stored links by SQL', async (t) => {
    const sql = new Database(db, { readonly: true });
    const expected = new Map<string, number>();
    let inside = 0;
    const pagesPerHost = new Map<string, number>();
    try {
      for (const { host } of sql.prepare('SELECT host FROM pages').all() as Array<{ host: string }>) pagesPerHost.set(host, (pagesPerHost.get(host) ?? 0) + 1);
      // The graph commands' links: anchors and redirects, one per page pair, no self-links.
      const pairs = sql
        .prepare(
          `SELECT DISTINCT ps.host AS a, pt.host AS b, l.source, l.target FROM links l
           JOIN pages ps ON ps.id = l.source JOIN pages pt ON pt.id = l.target
           WHERE l.kind IN (0, 1) AND l.source <> l.target`,
        )
        .all() as Array<{ a: string; b: string }>;
      for (const { a, b } of pairs) {
        if (a === b) inside++;
        else expected.set(`${a} ${b}`, (expected.get(`${a} ${b}`) ?? 0) + 1);
      }
    } finally {
      sql.close();
    }
    assert.equal(pagesPerHost.size, 3, 'three hosts crawled');
    assert.ok(expected.size >= 4, 'links between the hosts');
    const out = join(dir.path, 'hosts.tsv');
    const report = await exportGraph({ db, format: 'tsv', out, hosts: true, links: { kinds: ['anchor', 'redirect'], withoutRel: 0 } });
    assert.equal(report.pages, 3);
    assert.equal(report.grouped!.selfLinksDropped, inside);
    const written = new Map(
      readFileSync(out, 'utf8').trim().split('\n').map((line) => {
        const [a, b, w] = line.split('\t');
        return [`${a} ${b}`, Number(w)] as [string, number];
      }),
    );
    assert.deepEqual(written, expected);
    const stats = JSON.parse((await runCli(['stats', '--db', db, '--hosts', '--json', '-q'])).stdout) as Record<string, number>;
    assert.equal(stats.nodes, 3);
    assert.equal(stats.edges, expected.size);
    assert.equal(stats.selfLoopsDropped, inside);
    const parquet = join(dir.path, 'hosts-parquet');
    await exportGraph({ db, format: 'parquet', out: parquet, hosts: true, links: { kinds: ['anchor', 'redirect'], withoutRel: 0 } });
    const duckdb = await loadDuckDb();
    if (duckdb === null) {
      skipOrFail(t, 'oracles', `DuckDB's node API is missing: npm install --prefix ${duckDbDirectory()} @duckdb/node-api@1.5.6-r.1 (or set WGA_DUCKDB_DIR)`);
      return;
    }
    const { DuckDBInstance } = duckdb;
    const instance = await DuckDBInstance.create(':memory:');
    const duck = await instance.connect();
    try {
      const rows = (await duck.runAndReadAll(`SELECT host, pages FROM '${join(parquet, 'pages.parquet')}'`)).getRowObjects() as Array<Record<string, unknown>>;
      assert.deepEqual(new Map(rows.map((r) => [r.host as string, r.pages as number])), pagesPerHost);
    } finally {
      duck.closeSync?.();
      instance.closeSync?.();
    }
  });

  it('refuses unknown scores, formats and unwritable paths with the option or path named', async () => {
    const unknown = await runCli(['export', '--db', db, '--format', 'gexf', '--out', join(dir.path, 'x.gexf'), '--scores', 'nonsense']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--scores: 'nonsense' is not a stored run's method \([a-z, ]*pagerank[a-z, ]*\)/);
    const format = await runCli(['export', '--db', db, '--format', 'svg', '--out', join(dir.path, 'x')]);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /--format/);
    const path = join(dir.path, 'no', 'such', 'x.gexf');
    const unwritable = await runCli(['export', '--db', db, '--format', 'gexf', '--out', path]);
    assert.notEqual(unwritable.code, 0);
    assert.match(unwritable.stderr, /cannot write/);
  });
});

describe('wga export of hollins.edu', () => {
  const edges = testData('hollins', 'hollins.edges.txt');
  const urls = testData('hollins', 'hollins.urls.txt');
  for (const [format, modes] of [
    ['gexf', ['gexf']],
    ['graphml', ['graphml', 'igraph']],
  ] as const) {
    it(`${format}: NetworkX${format === 'graphml' ? ' and igraph' : ''} read 6,012 pages, 23,875 links, the URLs and PageRank`, async (t) => {
      if (skipWithout(t, ['networkx', 'igraph'])) return;
      const loaded = await loadGraph(edges, { labelsPath: urls });
      const scores = pagerank(loaded.graph).scores;
      const out = join(dir.path, `hollins.${format}`);
      const report = await exportGraph({ graph: loaded, format, out, scores: ['pagerank'] });
      assert.equal(report.pages, 6012);
      assert.equal(report.links, 23875);
      for (const mode of modes) {
        const back = readBack(mode, out);
        assert.equal(Object.keys(back.nodes).length, 6012);
        assert.equal(back.edges.length, 23875);
        const idOf = new Map<string, number>();
        for (const [id, node] of Object.entries(back.nodes)) {
          const v = loaded.graph.labels.id(node.label as string);
          assert.ok(v >= 0, `${node.label as string} is a page`);
          idOf.set(id, v);
          assert.equal(node.pagerank, scores[v], `${mode}: PageRank of ${node.label as string}`);
        }
        assert.equal(new Set(idOf.values()).size, 6012, 'every URL once');
        let matching = 0;
        for (const [u, v] of back.edges) if (loaded.graph.successors(idOf.get(u)!).includes(idOf.get(v)!)) matching++;
        assert.equal(matching, 23875, `${mode}: every link is one of the graph's`);
      }
    });
  }
});

describe("docs/export.md's DuckDB lines", () => {
  it('load the Parquet tables of hollins.edu and compute wga\'s PageRank in SQL', async (t) => {
    const duckdb = await loadDuckDb();
    if (duckdb === null) {
      skipOrFail(t, 'oracles', `DuckDB's node API is missing: npm install --prefix ${duckDbDirectory()} @duckdb/node-api@1.5.6-r.1 (or set WGA_DUCKDB_DIR)`);
      return;
    }
    const doc = readFileSync(join(repoRoot, 'docs', 'export.md'), 'utf8');
    const block = /```sql\n([\s\S]*?)```/.exec(doc);
    assert.ok(block !== null, 'docs/export.md has an sql block');
    const out = join(dir.path, 'hollins-parquet');
    const loaded = await loadGraph(testData('hollins', 'hollins.edges.txt'), { labelsPath: testData('hollins', 'hollins.urls.txt') });
    await exportGraph({ graph: loaded, format: 'parquet', out });
    // A file graph's pages are named by 'label' where a store's have 'url'.
    const sql = block[1]!.replaceAll("'crawl/", `'${out}/`).replaceAll('p.url', 'p.label');
    const { DuckDBInstance } = duckdb;
    const instance = await DuckDBInstance.create(':memory:');
    const duck = await instance.connect();
    try {
      let last: Array<Record<string, unknown>> = [];
      for (const statement of sql.split(';').map((x) => x.trim()).filter((x) => x !== '')) last = (await duck.runAndReadAll(statement)).getRowObjects() as Array<Record<string, unknown>>;
      assert.equal(last.length, 10);
      const ranks = (await duck.runAndReadAll('SELECT id, rank FROM pr ORDER BY id')).getRowObjects() as Array<Record<string, unknown>>;
      assert.equal(ranks.length, 6012);
      const scores = pagerank(loaded.graph, { tolerance: 1e-12 }).scores;
      for (const row of ranks) {
        const expected = scores[row.id as number]!;
        assert.ok(Math.abs((row.rank as number) - expected) <= 1e-6 * expected, `page ${String(row.id)}: ${String(row.rank)} vs ${expected}`);
      }
      assert.equal(last[0]!.label, loaded.graph.labels.label(scores.indexOf(Math.max(...scores))));
    } finally {
      duck.closeSync?.();
      instance.closeSync?.();
    }
  });
});

describe('XML-hostile strings', () => {
  const hostile = ['a & b', '<tag attr="x">', "it's", 'ctl\u0001\u0008\u000B\u001F\u0000', 'lone \uD800 high', 'lone \uDC00 low', 'pair \uD83D\uDE00 ok', 'tab\tnew\nline\rcr', '\uFFFE\uFFFF'];
  const cleaned = ['a & b', '<tag attr="x">', "it's", 'ctl\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD', 'lone \uFFFD high', 'lone \uFFFD low', 'pair \uD83D\uDE00 ok', 'tab\tnew\nline\rcr', '\uFFFD\uFFFD'];

  it('escapes markup, keeps whitespace as references and replaces what XML 1.0 cannot hold', () => {
    assert.equal(xmlEscape('a & <b> "c" \'d\''), 'a &amp; &lt;b&gt; &quot;c&quot; &apos;d&apos;');
    assert.equal(xmlEscape('x\ty\nz\r'), 'x&#9;y&#10;z&#13;');
    assert.equal(xmlEscape('\u0000\uDFFF\uD800\uD83D\uDE00'), '\uFFFD\uFFFD\uFFFD\uD83D\uDE00');
    assert.equal(xmlEscape('plain https://example.org/a?b=c'), 'plain https://example.org/a?b=c');
  });

  it('GEXF and GraphML with hostile labels and attributes are valid XML that NetworkX and igraph read back', async (t) => {
    if (skipWithout(t, ['networkx', 'igraph'])) return;
    const n = hostile.length;
    const offsets = Uint32Array.from({ length: n + 1 }, (_, v) => Math.min(v, n - 1));
    const targets = Int32Array.from({ length: n - 1 }, (_, v) => v + 1);
    const graph: ExportGraph = {
      nodeCount: n,
      edgeCount: n - 1,
      label: (v) => hostile[v]!,
      labelName: 'url',
      attributes: [
        { name: 'url', type: 'string', value: (v) => hostile[v]! },
        { name: 'title', type: 'string', value: (v) => hostile[n - 1 - v]! },
      ],
      offsets,
      targets,
      kinds: null,
      kindNames: LINK_KINDS,
      rel: null,
      weights: null,
    };
    for (const format of ['gexf', 'graphml'] as const) {
      const out = join(dir.path, `hostile.${format}`);
      const sink = new FileSink(out);
      if (format === 'gexf') await writeGexf(graph, sink, '1.3');
      else await writeGraphml(graph, sink);
      await sink.close();
      const strict = spawnSync(PYTHON, ['-c', 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1]); print("ok")', out], { encoding: 'utf8' });
      assert.equal(strict.stdout.trim(), 'ok', strict.stderr);
      for (const mode of format === 'gexf' ? (['gexf'] as const) : (['graphml', 'igraph'] as const)) {
        const back = readBack(mode, out);
        const byUrl = Object.values(back.nodes).map((d) => [d.url, d['title']]);
        assert.deepEqual(
          byUrl.sort(),
          cleaned.map((c, v) => [c, cleaned[n - 1 - v]]).sort(),
          `${format} via ${mode}`,
        );
        assert.equal(back.edges.length, n - 1);
      }
    }
  });
});
