/**
 * Levels of the graph (--level host|domain) on a crawl spanning several pay-level domains, checked
 * against the Public Suffix List's published rules, igraph (weighted PageRank, harmonic centrality
 * of the domain graph it builds itself from the store with SQL) and NetworkX's GEXF reader.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Crawler } from '../../src/crawl/crawler.js';
import { completeSettings } from '../../src/crawl/settings.js';
import { domainOfHost, reverseHost } from '../../src/graph/hosts.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { Random } from '../../src/util/random.js';
import { runCli, serveLogged } from '../crawl/crawl-fixtures.js';
import { oraclesRequired, temporaryDirectory } from '../helpers.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

/** Hosts of the crawl and their pay-level domains, as the Public Suffix List's rules give them (co.uk and ac.jp are suffixes). */
const DOMAIN_OF: Record<string, string> = {
  'www.alpha.com': 'alpha.com',
  'blog.alpha.com': 'alpha.com',
  'alpha.com': 'alpha.com',
  'www.bbc.co.uk': 'bbc.co.uk',
  'news.bbc.co.uk': 'bbc.co.uk',
  'shop.gamma.org': 'gamma.org',
  'www.u-tokyo.ac.jp': 'u-tokyo.ac.jp',
  'lab.cs.u-tokyo.ac.jp': 'u-tokyo.ac.jp',
};
const HOSTS = Object.keys(DOMAIN_OF);
const PAGES_PER_HOST = 6;

function hasPython(module: string): boolean {
  return spawnSync('/usr/bin/python3', ['-c', `import ${module}`], { encoding: 'utf8' }).status === 0;
}

let db: string;
let port: number;

before(async () => {
  // Every host: a home page and 5 pages, linking within the host and, from some pages, to other hosts.
  const random = new Random(28);
  const links = new Map<string, string[]>();
  for (const host of HOSTS) {
    for (let p = 0; p < PAGES_PER_HOST; p++) {
      const targets = new Set<string>([`${host}/p${(p + 1) % PAGES_PER_HOST}`]);
      for (let i = 0; i < 3; i++) {
        const other = HOSTS[random.nextInt(HOSTS.length)]!;
        targets.add(`${other}/p${random.nextInt(PAGES_PER_HOST)}`);
      }
      links.set(`${host}/p${p}`, [...targets]);
    }
  }
  const server = await serveLogged((path, host) => {
    const name = host.replace(/:\d+$/, '');
    const page = path === '/' ? 'p0' : path.slice(1);
    const targets = links.get(`${name}/${page}`);
    if (targets === undefined) return { status: 404, headers: { 'content-type': 'text/html' }, body: 'missing' };
    const anchors = targets.map((t) => {
      const [h, p] = t.split('/') as [string, string];
      return `<a href="http://${h}:${port}/${p === 'p0' ? '' : p}">${t}</a>`;
    });
    return { status: 200, headers: { 'content-type': 'text/html' }, body: `<html><head><title>${name} ${page}</title></head><body>${anchors.join(' ')}</body></html>` };
  });
  port = server.port;
  db = join(dir.path, 'domains.db');
  const store = SqliteStore.open(db);
  try {
    await Crawler.run(
      store,
      completeSettings({
        seeds: [`http://www.alpha.com:${port}/`],
        allowIp: ['127.0.0.1/32'],
        resolve: Object.fromEntries(HOSTS.map((h) => [h, '127.0.0.1'])),
        delayMs: 0,
        hosts: 'any',
      }),
      {},
    );
  } finally {
    await store.close();
    await server.close();
  }
});

/** The store's graph links by SQL (anchors and redirects, distinct page pairs, no self-links) grouped by the table's domains. */
function domainLinks(): { weights: Map<string, number>; inside: number; pages: Map<string, number> } {
  const sql = new Database(db, { readonly: true });
  try {
    const pages = new Map<string, number>();
    for (const { host } of sql.prepare('SELECT host FROM pages').all() as Array<{ host: string }>) {
      const domain = DOMAIN_OF[host];
      assert.ok(domain !== undefined, `crawled host ${host} is in the table`);
      pages.set(domain, (pages.get(domain) ?? 0) + 1);
    }
    const weights = new Map<string, number>();
    let inside = 0;
    const pairs = sql
      .prepare(`SELECT DISTINCT ps.host AS a, pt.host AS b, l.source, l.target FROM links l JOIN pages ps ON ps.id = l.source JOIN pages pt ON pt.id = l.target WHERE l.kind IN (0, 1) AND l.source <> l.target`)
      .all() as Array<{ a: string; b: string }>;
    for (const { a, b } of pairs) {
      const [da, dbn] = [DOMAIN_OF[a]!, DOMAIN_OF[b]!];
      if (da === dbn) inside++;
      else weights.set(`${da} ${dbn}`, (weights.get(`${da} ${dbn}`) ?? 0) + 1);
    }
    return { weights, inside, pages };
  } finally {
    sql.close();
  }
}

describe('graph levels: hosts and pay-level domains', () => {
  it('takes the pay-level domain by the Public Suffix List and reverses names as Common Crawl does', () => {
    for (const [host, domain] of Object.entries(DOMAIN_OF)) assert.equal(domainOfHost(host), domain, host);
    // Wildcard and exception rules of the list (*.kawasaki.jp, !city.kawasaki.jp); private suffixes are not split.
    assert.equal(domainOfHost('www.example.kawasaki.jp'), 'www.example.kawasaki.jp');
    assert.equal(domainOfHost('www.city.kawasaki.jp'), 'city.kawasaki.jp');
    assert.equal(domainOfHost('someone.blogspot.com'), 'blogspot.com');
    assert.equal(domainOfHost('127.0.0.2'), '127.0.0.2');
    assert.equal(domainOfHost('localhost'), 'localhost');
    assert.equal(reverseHost('www.bbc.co.uk'), 'uk.co.bbc.www');
    assert.equal(reverseHost(reverseHost('a.b.c')), 'a.b.c');
    assert.equal(reverseHost('127.0.0.2'), '127.0.0.2');
  });

  it('wga rank --level domain --method harmonic,pagerank: the ranks table equals igraph on the domain graph built by SQL', async (t) => {
    const { weights, pages } = domainLinks();
    assert.equal(pages.size, 4, 'four domains crawled');
    assert.ok(weights.size >= 6, `links between domains: ${weights.size}`);
    const out = join(dir.path, 'ranks.tsv');
    const cli = await runCli(['rank', '--db', db, '--level', 'domain', '--method', 'harmonic,pagerank', '--exact', '--tolerance', '1e-12', '--out', out, '--json', '-q']);
    assert.equal(cli.code, 0, cli.stderr);
    const report = JSON.parse(cli.stdout) as { level: string; nodes: number; methods: Array<{ method: string }> };
    assert.equal(report.level, 'domain');
    assert.equal(report.nodes, 4);
    assert.deepEqual(report.methods.map((m) => m.method), ['harmonic', 'pagerank']);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(lines[0], '#harmonic_pos\t#harmonic_val\t#pagerank_pos\t#pagerank_val\t#domain\t#n_pages');
    const rows = lines.slice(1).map((line) => line.split('\t'));
    assert.equal(rows.length, 4);
    const table = new Map(rows.map((r) => [r[4]!, { hPos: Number(r[0]), h: Number(r[1]), pPos: Number(r[2]), p: Number(r[3]), pages: Number(r[5]) }]));
    // Rows in harmonic order, positions 1..4 for both methods.
    assert.deepEqual(rows.map((r) => Number(r[0])), [1, 2, 3, 4]);
    assert.deepEqual([...table.values()].map((r) => r.pPos).sort(), [1, 2, 3, 4]);
    for (const [domain, count] of pages) assert.equal(table.get(domain)?.pages, count, domain);
    if (!hasPython('igraph')) {
      if (oraclesRequired) assert.fail('python3-igraph is required (WGA_REQUIRE_ORACLES=1)');
      t.skip('python3-igraph not installed');
      return;
    }
    const script = String.raw`
import igraph, json, sys
data = json.load(open(sys.argv[1]))
names = sorted(data['pages'])
index = {d: i for i, d in enumerate(names)}
pairs = [tuple(k.split(' ')) for k in data['weights']]
g = igraph.Graph(n=len(names), edges=[(index[a], index[b]) for a, b in pairs], directed=True)
pr = g.pagerank(weights=list(data['weights'].values()), damping=0.85)
hc = g.harmonic_centrality(mode='in', normalized=False)
print(json.dumps({n: [pr[i], hc[i]] for i, n in enumerate(names)}))
`;
    const input = join(dir.path, 'domain-links.json');
    writeFileSync(input, JSON.stringify({ pages: Object.fromEntries(pages), weights: Object.fromEntries(weights) }));
    const run = spawnSync('/usr/bin/python3', ['-c', script, input], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const igraph = JSON.parse(run.stdout) as Record<string, [number, number]>;
    for (const [domain, [pr, hc]] of Object.entries(igraph)) {
      const row = table.get(domain)!;
      assert.ok(Math.abs(row.p - pr) < 1e-9, `${domain} pagerank: wga ${row.p}, igraph ${pr}`);
      assert.ok(Math.abs(row.h - hc) < 1e-9, `${domain} harmonic: wga ${row.h}, igraph ${hc}`);
    }
    // Positions: by value, highest first.
    const byPr = Object.entries(igraph).sort((a, b) => b[1][0] - a[1][0]).map(([d]) => d);
    assert.deepEqual(byPr.map((d) => table.get(d)!.pPos), [1, 2, 3, 4]);
  });

  it('wga export --level domain writes the domain graph for Gephi: NetworkX reads the weights counted by SQL', async (t) => {
    const { weights, pages } = domainLinks();
    const out = join(dir.path, 'domains.gexf');
    const cli = await runCli(['export', '--db', db, '--level', 'domain', '--links', 'graph', '--format', 'gexf', '--gexf-version', '1.2draft', '--out', out, '--json', '-q']);
    assert.equal(cli.code, 0, cli.stderr);
    const report = JSON.parse(cli.stdout) as { pages: number; links: number; grouped: { level: string } };
    assert.equal(report.grouped.level, 'domain');
    assert.equal(report.pages, 4);
    assert.equal(report.links, weights.size);
    if (!hasPython('networkx')) {
      if (oraclesRequired) assert.fail('python3-networkx is required (WGA_REQUIRE_ORACLES=1)');
      t.skip('python3-networkx not installed');
      return;
    }
    const script = String.raw`
import networkx, json, sys
g = networkx.read_gexf(sys.argv[1])
label = {n: d['label'] for n, d in g.nodes(data=True)}
print(json.dumps({'pages': {label[n]: d['pages'] for n, d in g.nodes(data=True)}, 'weights': {label[a] + ' ' + label[b]: d['weight'] for a, b, d in g.edges(data=True)}}))
`;
    const run = spawnSync('/usr/bin/python3', ['-c', script, out], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const read = JSON.parse(run.stdout) as { pages: Record<string, number>; weights: Record<string, number> };
    assert.deepEqual(new Map(Object.entries(read.pages)), pages);
    assert.deepEqual(new Map(Object.entries(read.weights)), weights);
  });

  it('wga top --level domain adds the pages\' PageRank of each domain, as SQL does', async () => {
    const saved = await runCli(['rank', '--db', db, '--save', '-q']);
    assert.equal(saved.code, 0, saved.stderr);
    const cli = await runCli(['top', '--db', db, '--level', 'domain', '--reversed-names', '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    const top = JSON.parse(cli.stdout) as { aggregate: string; sites: number; top: Array<{ name: string; score: number; pages: number }> };
    assert.equal(top.aggregate, 'sum');
    assert.equal(top.sites, 4);
    const sql = new Database(db, { readonly: true });
    const expected = new Map<string, number>();
    try {
      const run = sql.prepare("SELECT max(id) FROM runs WHERE method = 'pagerank'").pluck().get() as number;
      for (const row of sql.prepare('SELECT p.host AS host, s.value AS value FROM scores s JOIN pages p ON p.id = s.page WHERE s.run = ?').all(run) as Array<{ host: string; value: number }>) {
        const name = reverseHost(DOMAIN_OF[row.host]!);
        expected.set(name, (expected.get(name) ?? 0) + row.value);
      }
    } finally {
      sql.close();
    }
    assert.equal(top.top.length, 4);
    for (const site of top.top) assert.ok(Math.abs(site.score - expected.get(site.name)!) < 1e-12, `${site.name}: ${site.score} vs ${expected.get(site.name)}`);
    assert.ok(Math.abs(top.top.reduce((s, x) => s + x.score, 0) - 1) < 1e-9, 'the domains share all of PageRank');
    // Best first.
    for (let i = 1; i < top.top.length; i++) assert.ok(top.top[i - 1]!.score >= top.top[i]!.score);
  });

  it('refuses what a level cannot mean, in one line naming the option', async () => {
    const saveHosts = await runCli(['rank', '--db', db, '--level', 'host', '--save', '-q']);
    assert.equal(saveHosts.code, 2);
    assert.match(saveHosts.stderr, /^wga: --save: cannot save host-graph scores as page scores/);
    const badLevel = await runCli(['stats', '--db', db, '--level', 'site', '-q']);
    assert.equal(badLevel.code, 2);
    assert.match(badLevel.stderr, /--level/);
    const reversedAlone = await runCli(['rank', '--db', db, '--reversed-names', '-q']);
    assert.equal(reversedAlone.code, 2);
    assert.match(reversedAlone.stderr, /--reversed-names: names hosts and domains/);
    for (const r of [saveHosts, badLevel, reversedAlone]) assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });
});
