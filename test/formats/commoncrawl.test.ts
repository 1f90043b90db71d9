/**
 * Common Crawl's hyperlink-graph files (vertices `id<TAB>reversed.host`, edges `from<TAB>to`, gzip,
 * split into parts): read as the release lays them out, checked against the same graph written as a
 * plain edge list, and ranked at the domain level against igraph reading the part files itself.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { FileNotFoundError, InputFormatError } from '../../src/errors.js';
import { loadGraph } from '../../src/formats/load.js';
import { FrontCodedLabels } from '../../src/graph/front-coded-labels.js';
import { Random } from '../../src/util/random.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { oraclesRequired, temporaryDirectory } from '../helpers.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

/** A host graph of `n` hosts over `sites` domains (name.siteK.com / .org), reversed names, random links. */
function hostGraph(random: Random, n: number, sites: number, links: number): { names: string[]; edges: Array<[number, number]> } {
  const names = Array.from({ length: n }, (_, i) => `${i % sites % 2 === 0 ? 'com' : 'org'}.site${i % sites}.h${i}`);
  const edges: Array<[number, number]> = [];
  for (let e = 0; e < links; e++) edges.push([random.nextInt(n), random.nextInt(n)]);
  return { names, edges };
}

/** Writes `lines` into `parts` gzip files part-0000K.txt.gz under `folder`. */
function writeParts(folder: string, lines: string[], parts: number): void {
  mkdirSync(folder, { recursive: true });
  const size = Math.ceil(lines.length / parts);
  for (let p = 0; p < parts; p++) {
    const chunk = lines.slice(p * size, (p + 1) * size);
    writeFileSync(join(folder, `part-${String(p).padStart(5, '0')}.txt.gz`), gzipSync(chunk.map((l) => `${l}\n`).join('')));
  }
}

describe('Common Crawl graph files', () => {
  const random = new Random(29);
  const { names, edges } = hostGraph(random, 400, 37, 3000);
  const release = join(dir.path, 'host');
  writeParts(join(release, 'vertices'), names.map((name, id) => `${id}\t${name}`), 3);
  // Edges shuffled across parts: the reader must not rely on their order.
  const shuffled = edges.map((e) => `${e[0]}\t${e[1]}`).sort(() => random.next() - 0.5);
  writeParts(join(release, 'edges'), shuffled, 4);

  it('reads the release layout (vertices/ and edges/ of gzip parts): the graph of the edge list, reversed names as labels', async () => {
    const loaded = await loadGraph(release);
    assert.equal(loaded.format, 'commoncrawl');
    assert.equal(loaded.level, 'host');
    assert.equal(loaded.reversed, true);
    const plain = join(dir.path, 'plain.tsv');
    writeFileSync(plain, edges.map(([a, b]) => `${names[a]}\t${names[b]}\n`).join(''));
    const expected = (await loadGraph(plain, { ids: 'auto' })).graph;
    const { graph } = loaded;
    assert.equal(graph.nodeCount, names.length);
    for (let v = 0; v < graph.nodeCount; v++) assert.equal(graph.labels.label(v), names[v]);
    // Vertices in id order, as Common Crawl writes them: their names front-coded, outside the heap.
    assert.ok(graph.labels instanceof FrontCodedLabels);
    assert.equal(graph.labels.id(names[123]!), 123);
    const pairs = (g: typeof graph): Set<string> => {
      const set = new Set<string>();
      for (let v = 0; v < g.nodeCount; v++) for (const w of g.successors(v)) set.add(`${g.labels.label(v)} ${g.labels.label(w)}`);
      return set;
    };
    assert.deepEqual(pairs(graph), pairs(expected));
    assert.equal(graph.edgeCount, new Set(edges.filter(([a, b]) => a !== b).map(([a, b]) => `${a} ${b}`)).size);
  });

  it('wga rank --level domain on the host graph: domain PageRank and harmonic centrality equal igraph reading the parts itself', async (t) => {
    const out = join(dir.path, 'domain-ranks.tsv');
    const cli = await runCli(['rank', release, '--level', 'domain', '--method', 'pagerank,harmonic', '--exact', '--tolerance', '1e-12', '--out', out, '-q']);
    assert.equal(cli.code, 0, cli.stderr);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(lines[0], '#pagerank_pos\t#pagerank_val\t#harmonic_pos\t#harmonic_val\t#domain_rev\t#n_hosts');
    const rows = new Map(lines.slice(1).map((l) => l.split('\t')).map((r) => [r[4]!, { pr: Number(r[1]), hc: Number(r[3]), hosts: Number(r[5]) }]));
    assert.equal(rows.size, 37);
    assert.equal([...rows.values()].reduce((s, r) => s + r.hosts, 0), 400);
    if (spawnSync('/usr/bin/python3', ['-c', 'import igraph'], { encoding: 'utf8' }).status !== 0) {
      if (oraclesRequired) assert.fail('python3-igraph is required (WGA_REQUIRE_ORACLES=1)');
      t.skip('python3-igraph not installed');
      return;
    }
    // The domain of a reversed host com.siteK.hN is its first two labels, reversed: com.siteK.
    const script = String.raw`
import glob, gzip, igraph, json, os, sys
root = sys.argv[1]
name = {}
for part in sorted(glob.glob(os.path.join(root, 'vertices', '*.gz'))):
    for line in gzip.open(part, 'rt'):
        i, host = line.rstrip('\n').split('\t')
        name[int(i)] = '.'.join(host.split('.')[:2])
pairs = set()
for part in sorted(glob.glob(os.path.join(root, 'edges', '*.gz'))):
    for line in gzip.open(part, 'rt'):
        a, b = map(int, line.split('\t'))
        pairs.add((a, b))
weights = {}
for a, b in pairs:
    if name[a] != name[b]:
        weights[(name[a], name[b])] = weights.get((name[a], name[b]), 0) + 1
domains = sorted(set(name.values()))
index = {d: i for i, d in enumerate(domains)}
g = igraph.Graph(n=len(domains), edges=[(index[a], index[b]) for a, b in weights], directed=True)
pr = g.pagerank(weights=list(weights.values()), damping=0.85)
hc = g.harmonic_centrality(mode='in', normalized=False)
print(json.dumps({d: [pr[i], hc[i]] for i, d in enumerate(domains)}))
`;
    const run = spawnSync('/usr/bin/python3', ['-c', script, release], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const igraph = JSON.parse(run.stdout) as Record<string, [number, number]>;
    assert.equal(Object.keys(igraph).length, rows.size);
    for (const [domain, [pr, hc]] of Object.entries(igraph)) {
      const row = rows.get(domain);
      assert.ok(row !== undefined, domain);
      assert.ok(Math.abs(row.pr - pr) < 1e-9, `${domain} pagerank: wga ${row.pr}, igraph ${pr}`);
      assert.ok(Math.abs(row.hc - hc) < 1e-9, `${domain} harmonic: wga ${row.hc}, igraph ${hc}`);
    }
  });

  it('reads a domain graph given by prefix (PREFIX-vertices.txt.gz with host counts, PREFIX-edges.txt.gz)', async () => {
    const prefix = join(dir.path, 'cc-main-domain');
    writeFileSync(`${prefix}-vertices.txt.gz`, gzipSync('0\tcom.alpha\t3\n1\tuk.co.bbc\t2\n2\torg.gamma\t1\n'));
    writeFileSync(`${prefix}-edges.txt.gz`, gzipSync('0\t1\n1\t0\n1\t2\n2\t0\n'));
    const loaded = await loadGraph(prefix);
    assert.equal(loaded.format, 'commoncrawl');
    assert.equal(loaded.level, 'domain');
    assert.deepEqual([...loaded.hostCounts!], [3, 2, 1]);
    const out = join(dir.path, 'cc-domain-ranks.tsv');
    const cli = await runCli(['rank', prefix, '--method', 'harmonic,pagerank', '--exact', '--out', out, '-q']);
    assert.equal(cli.code, 0, cli.stderr);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(lines[0], '#harmonic_pos\t#harmonic_val\t#pagerank_pos\t#pagerank_val\t#domain_rev\t#n_hosts');
    // com.alpha is reached from both others in one step: harmonic 2, the best.
    assert.deepEqual(lines[1]!.split('\t').slice(0, 2), ['1', '2']);
    assert.deepEqual(lines[1]!.split('\t').slice(4), ['com.alpha', '3']);
    const host = await runCli(['rank', prefix, '--level', 'host', '-q']);
    assert.equal(host.code, 2);
    assert.match(host.stderr, /^wga: --level: the graph's nodes are domains already/);
  });

  it('names the file and line of bad input, and what is missing', async () => {
    const bad = join(dir.path, 'bad');
    mkdirSync(join(bad, 'vertices'), { recursive: true });
    mkdirSync(join(bad, 'edges'), { recursive: true });
    writeFileSync(join(bad, 'vertices', 'part-00000.txt.gz'), gzipSync('0\tcom.a\n1\tcom.b\n'));
    writeFileSync(join(bad, 'edges', 'part-00000.txt.gz'), gzipSync('0\t1\n1\t7\n'));
    await assert.rejects(loadGraph(bad), (error: unknown) => error instanceof InputFormatError && /part-00000\.txt\.gz:2: vertex 7 is not in the vertices file \(ids 0 to 1\)/.test(error.message));
    writeFileSync(join(bad, 'edges', 'part-00000.txt.gz'), gzipSync('0\t1\n'));
    writeFileSync(join(bad, 'vertices', 'part-00001.txt.gz'), gzipSync('1\tcom.c\n'));
    await assert.rejects(loadGraph(bad), (error: unknown) => error instanceof InputFormatError && /part-00001\.txt\.gz:1: vertex 1 is given twice/.test(error.message));
    writeFileSync(join(bad, 'vertices', 'part-00001.txt.gz'), gzipSync('3\tcom.c\n'));
    await assert.rejects(loadGraph(bad), (error: unknown) => error instanceof InputFormatError && /vertex ids must run from 0 to 3, but 2 is missing/.test(error.message));
    const noEdges = join(dir.path, 'no-edges');
    mkdirSync(noEdges);
    writeFileSync(join(noEdges, 'x-vertices.txt.gz'), gzipSync('0\tcom.a\n'));
    await assert.rejects(loadGraph(noEdges, { format: 'commoncrawl' }), (error: unknown) => error instanceof FileNotFoundError && /has vertices but no edges file/.test(error.message));
    const cli = await runCli(['stats', bad, '-q']);
    assert.equal(cli.code, 1);
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
  });
});
