import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pagerank } from '../../src/analysis/pagerank.js';
import { InputFormatError } from '../../src/errors.js';
import { loadGraph } from '../../src/formats/load.js';
import { hostGraph, hostOfUrl } from '../../src/graph/hosts.js';
import { Random } from '../../src/util/random.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { oraclesRequired, temporaryDirectory } from '../helpers.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

/** A page graph over `hosts` hosts: most links stay on their host, as on the web. */
function urlEdges(random: Random, pages: number, hosts: number, links: number): Array<[string, string]> {
  const url = (p: number): string => `http://h${p % hosts}.example${p % 7 === 0 ? ':8080' : ''}/page/${p}.html`;
  const edges: Array<[string, string]> = [];
  for (let i = 0; i < links; i++) {
    const source = random.nextInt(pages);
    const local = random.nextInt(3) > 0;
    let target = local ? ((random.nextInt(Math.ceil(pages / hosts)) * hosts + (source % hosts)) % pages) : random.nextInt(pages);
    if (target === source) target = (target + hosts) % pages;
    edges.push([url(source), url(target)]);
  }
  return edges;
}

describe('host graph', () => {
  it('takes the host of a URL: lower case, no port, no user info', () => {
    assert.equal(hostOfUrl('http://Example.ORG:8080/a?b#c'), 'example.org');
    assert.equal(hostOfUrl('https://user:pw@www.example.org/'), 'www.example.org');
    assert.equal(hostOfUrl('http://[::1]:8080/'), '[::1]');
    assert.equal(hostOfUrl('http://127.0.0.2:41234/x'), '127.0.0.2');
    assert.equal(hostOfUrl('42'), null);
    assert.equal(hostOfUrl('mailto:someone@example.org'), null);
    assert.equal(hostOfUrl('file:///etc/passwd'), null);
  });

  it('weights host links by page links and counts the links inside a host, as an independent count does', async () => {
    const edges = urlEdges(new Random(3), 400, 23, 3000);
    const path = join(dir.path, 'pages.tsv');
    writeFileSync(path, edges.map(([a, b]) => `${a}\t${b}\n`).join(''));
    const { graph } = await loadGraph(path);
    const hosts = hostGraph(graph, path);
    // Independent count over the distinct page links of the file.
    const expected = new Map<string, number>();
    let inside = 0;
    for (const pair of new Set(edges.map(([a, b]) => `${a} ${b}`))) {
      const [a, b] = pair.split(' ').map((u) => new URL(u).hostname);
      if (a === b) inside++;
      else expected.set(`${a} ${b}`, (expected.get(`${a} ${b}`) ?? 0) + 1);
    }
    const got = new Map<string, number>();
    const h = hosts.graph;
    for (let v = 0; v < h.nodeCount; v++) {
      for (let e = h.outOffsets[v]!; e < h.outOffsets[v + 1]!; e++) got.set(`${h.labels.label(v)} ${h.labels.label(h.outTargets[e]!)}`, h.outWeights![e]!);
    }
    assert.deepEqual(got, expected);
    assert.equal(hosts.selfLinksDropped, inside);
    assert.equal(hosts.pageLinks, graph.edgeCount);
    assert.equal(h.nodeCount, 23);
    assert.equal([...hosts.pages].reduce((s, x) => s + x, 0), graph.nodeCount);
  });

  it('refuses pages without URL labels, naming the file', async () => {
    const path = join(dir.path, 'numbers.tsv');
    writeFileSync(path, '1\t2\n2\t3\n');
    const { graph } = await loadGraph(path);
    assert.throws(() => hostGraph(graph, path), (error: unknown) => error instanceof InputFormatError && error.message.startsWith(`${path}: --level host needs URL labels`));
    const cli = await runCli(['stats', path, '--hosts', '-q']);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /numbers\.tsv: --level host needs URL labels, but page 0 is labelled '1'/);
  });

  it('wga rank --hosts is the weighted PageRank igraph computes on the host graph it builds itself', async (t) => {
    if (spawnSync('/usr/bin/python3', ['-c', 'import igraph'], { encoding: 'utf8' }).status !== 0) {
      if (oraclesRequired) assert.fail('python3-igraph is required (WGA_REQUIRE_ORACLES=1)');
      t.skip('python3-igraph not installed');
      return;
    }
    const edges = urlEdges(new Random(9), 600, 31, 5000);
    const path = join(dir.path, 'ranked.tsv');
    writeFileSync(path, edges.map(([a, b]) => `${a}\t${b}\n`).join(''));
    const script = String.raw`
import igraph, json, sys
from urllib.parse import urlsplit
pairs = set(tuple(line.rstrip('\n').split('\t')) for line in open(sys.argv[1]))
weights = {}
for a, b in pairs:
    ha, hb = urlsplit(a).hostname, urlsplit(b).hostname
    if ha != hb:
        weights[(ha, hb)] = weights.get((ha, hb), 0) + 1
names = sorted({h for pair in weights for h in pair} | {urlsplit(u).hostname for pair in pairs for u in pair})
index = {h: i for i, h in enumerate(names)}
g = igraph.Graph(n=len(names), edges=[(index[a], index[b]) for a, b in weights], directed=True)
pr = g.pagerank(weights=list(weights.values()), damping=0.85)
print(json.dumps(dict(zip(names, pr))))
`;
    const run = spawnSync('/usr/bin/python3', ['-c', script, path], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const igraph = JSON.parse(run.stdout) as Record<string, number>;
    const cli = await runCli(['rank', path, '--hosts', '--top', '100', '--tolerance', '1e-12', '--json', '-q']);
    assert.equal(cli.code, 0, cli.stderr);
    const ranked = JSON.parse(cli.stdout) as { nodes: number; top: Array<{ label: string; score: number }> };
    assert.equal(ranked.nodes, Object.keys(igraph).length);
    assert.equal(ranked.top.length, ranked.nodes);
    for (const { label, score } of ranked.top) {
      assert.ok(Math.abs(score - igraph[label]!) < 1e-9, `${label}: wga ${score}, igraph ${igraph[label]}`);
    }
    // The same through the library: the host graph is weighted and PageRank follows the weights.
    const { graph } = await loadGraph(path);
    const hosts = hostGraph(graph, path).graph;
    assert.ok(hosts.weighted);
    const scores = pagerank(hosts, { tolerance: 1e-12 }).scores;
    for (let v = 0; v < hosts.nodeCount; v++) assert.ok(Math.abs(scores[v]! - igraph[hosts.labels.label(v)]!) < 1e-9);
  });
});
