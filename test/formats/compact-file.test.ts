/**
 * The compact graph file (.wgc) and the ways into it: `wga convert` from an edge list through the
 * external sort (many runs, sparse numeric ids, repeats, self-links), from text ids, from BV, from
 * .wgadj and from Common Crawl's files; the file read back (lists, names in place by id and by
 * name); `wga generate`; and the commands on a .wgc file against the same commands on the plain
 * graph (stats, rank, levels, scc, top, page, and a command without a compact kernel).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync, mkdirSync, readFileSync, truncateSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { ExternalPairSorter, radixSortPairs } from '../../src/formats/external-sort.js';
import { convertToCompact } from '../../src/formats/compact-convert.js';
import { CompactFile, readCompactAsGraph } from '../../src/formats/compact-file.js';
import { loadGraph, type LoadOptions } from '../../src/formats/load.js';
import { AdjacencyWriter } from '../../src/formats/adjacency-binary.js';
import { listOf } from '../../src/graph/compact.js';
import type { Graph } from '../../src/graph/graph.js';
import { generateHostGraph, hostNames } from '../../src/experiments/host-graph.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { temporaryDirectory, testData } from '../helpers.js';
import { runCli } from '../crawl/crawl-fixtures.js';

/** The .wgc file holds the plain graph's lists both ways and its names. */
function sameGraph(path: string, graph: Graph): void {
  const file = CompactFile.open(path);
  try {
    assert.equal(file.nodeCount, graph.nodeCount);
    assert.equal(file.linkCount, graph.edgeCount);
    const out = file.readLists('out', { offsets: true });
    const inLists = file.readLists('in');
    for (let v = 0; v < graph.nodeCount; v++) {
      assert.deepEqual(Array.from(listOf(out, v)), Array.from(graph.successors(v)), `out-list of ${v}`);
      assert.deepEqual(Array.from(listOf(inLists, v)), Array.from(graph.predecessors(v)), `in-list of ${v}`);
    }
    const labels = file.labelsInPlace();
    const step = Math.max(1, Math.floor(graph.nodeCount / 300));
    for (let v = 0; v < graph.nodeCount; v += step) {
      assert.deepEqual(Array.from(file.listInPlace('out', v)), Array.from(graph.successors(v)));
      assert.deepEqual(Array.from(file.listInPlace('in', v)), Array.from(graph.predecessors(v)));
      const name = graph.labels.label(v);
      if (labels === null) assert.equal(name, String(v));
      else {
        assert.equal(labels.label(v), name);
        assert.equal(labels.id(name), v);
      }
    }
    if (labels !== null) assert.equal(labels.id('no such page'), -1);
  } finally {
    file.close();
  }
}

async function plain(path: string, options: LoadOptions = {}): Promise<Graph> {
  return (await loadGraph(path, options)).graph;
}

describe('compact graph file', () => {
  it('radix-sorts pairs and merges sorted runs as a sort would', () => {
    let seed = 7;
    const random = (limit: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % limit;
    };
    const n = 50_000;
    const a = new Int32Array(n);
    const b = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      a[i] = random(i % 3 === 0 ? 2 ** 30 : 300);
      b[i] = random(i % 5 === 0 ? 2 ** 29 : 70_000);
    }
    const expected = Array.from(a, (x, i) => [x, b[i]!] as const).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    const ra = a.slice();
    const rb = b.slice();
    radixSortPairs(ra, rb, n, new Int32Array(n), new Int32Array(n));
    assert.deepEqual(Array.from(ra), expected.map((p) => p[0]));
    assert.deepEqual(Array.from(rb), expected.map((p) => p[1]));
    const tmp = temporaryDirectory();
    try {
      const sorter = new ExternalPairSorter(tmp.path, 4096);
      for (let i = 0; i < n; i++) sorter.add(a[i]!, b[i]!);
      assert.ok(sorter.runCount >= 12, `${sorter.runCount} runs`);
      const got: number[] = [];
      sorter.drain((x, y) => got.push(x, y));
      assert.deepEqual(got, expected.flat());
      assert.deepEqual(readdirSync(tmp.path), [], 'the runs are removed');
    } finally {
      tmp.cleanup();
    }
  });

  it('wga convert: an edge list through the external sort (sparse ids, repeats, self-links, gzip) gives the plain graph', async () => {
    const tmp = temporaryDirectory();
    try {
      const graph = powerLawGraph({ nodes: 4000, seed: 3, danglingShare: 0.25 }).graph;
      // Ids spread out (x * 1000 + 7), lines shuffled, some links repeated and some self-links added.
      const lines: string[] = ['# a comment', 'from\tto'];
      for (let v = 0; v < graph.nodeCount; v++) {
        for (const w of graph.successors(v)) lines.push(`${v * 1000 + 7}\t${w * 1000 + 7}`);
        if (v % 50 === 0) lines.push(`${v * 1000 + 7}\t${v * 1000 + 7}`);
      }
      for (let i = 2; i < lines.length; i += 9) lines.push(lines[i]!);
      const body = [lines[0]!, lines[1]!, ...lines.slice(2).sort((p, q) => (p.length * 31 + p.charCodeAt(p.length - 1)) % 17 - (q.length * 31 + q.charCodeAt(q.length - 1)) % 17)];
      const input = join(tmp.path, 'links.tsv.gz');
      writeFileSync(input, gzipSync(body.join('\n') + '\n'));
      const output = join(tmp.path, 'links.wgc');
      const sortDir = join(tmp.path, 'sort');
      mkdirSync(sortDir);
      const report = await convertToCompact(input, output, { tmp: sortDir, runLinks: 2000 });
      assert.equal(report.route, 'external sort');
      assert.ok(report.runs >= 5, `${report.runs} runs`);
      const expected = await plain(input);
      assert.equal(report.selfLoopsDropped, (await loadGraph(input)).report.selfLoopsDropped);
      assert.equal(report.duplicatesDropped, (await loadGraph(input)).report.duplicatesDropped);
      sameGraph(output, expected);
      assert.deepEqual(readdirSync(sortDir), [], 'the sort leaves nothing behind');
      // Read back as a plain graph by a command without a compact kernel.
      const back = readCompactAsGraph(output).graph;
      assert.deepEqual(back.outTargets, expected.outTargets);
      assert.equal(back.labels.label(5), expected.labels.label(5));
    } finally {
      tmp.cleanup();
    }
  });

  it('wga convert: text ids, BV files, .wgadj rows and Common Crawl files', async () => {
    const tmp = temporaryDirectory();
    try {
      const text = join(tmp.path, 'urls.tsv');
      writeFileSync(text, 'http://b/\thttp://a/\nhttp://a/\thttp://c/\nhttp://c/\thttp://b/\nhttp://c/\thttp://a/\n');
      const textReport = await convertToCompact(text, join(tmp.path, 'urls.wgc'));
      assert.equal(textReport.route, 'in memory');
      sameGraph(join(tmp.path, 'urls.wgc'), await plain(text));

      const cnr = testData('cnr-2000', 'cnr-2000.graph');
      const cnrOut = join(tmp.path, 'cnr.wgc');
      const bvReport = await convertToCompact(cnr, cnrOut, { segmentBytes: 1 << 20, budgetLinks: 1_000_000 });
      assert.equal(bvReport.route, 'rows');
      assert.equal(bvReport.selfLoopsDropped, (await loadGraph(cnr)).report.selfLoopsDropped);
      sameGraph(cnrOut, await plain(cnr));

      const graph = powerLawGraph({ nodes: 3000, seed: 11 }).graph;
      const adjacency = join(tmp.path, 'g.wgadj');
      const writer = new AdjacencyWriter(adjacency, graph.nodeCount);
      // Rows reversed and one repeat added: the converter sorts and merges as the plain reader does.
      for (let v = 0; v < graph.nodeCount; v++) {
        const row = Array.from(graph.successors(v)).reverse();
        if (row.length > 0 && v % 3 === 0) row.push(row[0]!);
        writer.addRow(row);
      }
      writer.close();
      const adjReport = await convertToCompact(adjacency, join(tmp.path, 'g.wgc'));
      assert.equal(adjReport.route, 'rows');
      assert.ok(adjReport.duplicatesDropped > 0);
      sameGraph(join(tmp.path, 'g.wgc'), await plain(adjacency));

      const cc = join(tmp.path, 'cc');
      mkdirSync(join(cc, 'vertices'), { recursive: true });
      mkdirSync(join(cc, 'edges'));
      writeFileSync(join(cc, 'vertices', 'part-0.txt.gz'), gzipSync('0\tcom.example\n1\tcom.example.www\n2\torg.wikipedia.en\n3\tuk.co.bbc.www\n'));
      writeFileSync(join(cc, 'edges', 'part-0.txt.gz'), gzipSync('0\t1\n1\t2\n3\t2\n2\t0\n1\t2\n'));
      const ccReport = await convertToCompact(cc, join(tmp.path, 'cc.wgc'));
      assert.equal(ccReport.route, 'external sort');
      sameGraph(join(tmp.path, 'cc.wgc'), await plain(cc));
      const ccFile = CompactFile.open(join(tmp.path, 'cc.wgc'));
      assert.equal(ccFile.header.level, 'host');
      assert.equal(ccFile.labelsInPlace()!.id('org.wikipedia.en'), 2);
      ccFile.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('names kept unsorted are found by name through their order section, numbers through a binary search', async () => {
    const tmp = temporaryDirectory();
    try {
      const input = join(tmp.path, 'names.tsv');
      writeFileSync(input, 'zeta\talpha\nalpha\tmid\nmid\tzeta\nomega\talpha\n');
      await convertToCompact(input, join(tmp.path, 'names.wgc'));
      const file = CompactFile.open(join(tmp.path, 'names.wgc'));
      const labels = file.labelsInPlace()!;
      const graph = await plain(input);
      for (const name of ['zeta', 'alpha', 'mid', 'omega']) assert.equal(labels.id(name), graph.labels.id(name));
      assert.equal(file.header.labels!.sorted, false);
      file.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('refuses a damaged file and bad options with one-line errors, leaving no partial output', async () => {
    const tmp = temporaryDirectory();
    try {
      const good = join(tmp.path, 'g.wgc');
      await convertToCompact(testData('cnr-2000', 'cnr-2000.graph'), good);
      const cut = join(tmp.path, 'cut.wgc');
      writeFileSync(cut, readFileSync(good).subarray(0, statSync(good).size - 1000));
      const truncated = await runCli(['stats', cut, '-q']);
      assert.equal(truncated.code, 1, truncated.stderr);
      assert.match(truncated.stderr, /^wga: .*cut\.wgc: section [a-z.]+ \(bytes \d+\.\.\d+\) lies outside the file's \d+ bytes: truncated\?\n$/);
      const junk = join(tmp.path, 'junk.wgc');
      writeFileSync(junk, 'hello\n');
      const notOurs = await runCli(['rank', junk, '-q']);
      assert.match(notOurs.stderr, /^wga: .*junk\.wgc: not a wga compact graph \(no 'WGACMP1' header\)\n$/);
      const ext = await runCli(['convert', testData('cnr-2000', 'cnr-2000.graph'), join(tmp.path, 'out.bin'), '-q']);
      assert.equal(ext.code, 2);
      assert.match(ext.stderr, /^wga: <output>: the compact graph file must end in \.wgc/);
      const bad = join(tmp.path, 'bad.tsv');
      writeFileSync(bad, '1\t2\n3\n');
      const badLine = await runCli(['convert', bad, join(tmp.path, 'bad.wgc'), '-q']);
      assert.equal(badLine.code, 1);
      assert.match(badLine.stderr, /bad\.tsv:2: expected two node ids\n$/);
      assert.equal(existsSync(join(tmp.path, 'bad.wgc')), false);
      const pages = await runCli(['generate', join(tmp.path, 'x.wgc'), '--pages', '-5', '--links', '10']);
      assert.equal(pages.code, 2);
      assert.match(pages.stderr, /^wga: --pages: /);
      const noSize = await runCli(['generate', join(tmp.path, 'x.wgc'), '--links', '10']);
      assert.equal(noSize.stderr, 'wga: --pages: is needed (or --preset)\n');
      const preset = await runCli(['generate', join(tmp.path, 'x.wgc'), '--preset', 'nowhere']);
      assert.match(preset.stderr, /^wga: --preset: /);
      // A preset's shape at a size a test affords: the preset's dangling share, the sizes given.
      const tomlin = await runCli(['generate', join(tmp.path, 't.wgc'), '--preset', 'tomlin', '--pages', '20000', '--links', '200000', '--json', '-q']);
      assert.equal(tomlin.code, 0, tomlin.stderr);
      const header = (JSON.parse(tomlin.stdout) as { header: { nodes: number; source: string } }).header;
      assert.equal(header.nodes, 20_000);
      assert.match(header.source, /20000 hosts, 200000 links wanted, seed 1, dangling 0\.1,/);
      const missing = await runCli(['top', '--graph', good]);
      assert.match(missing.stderr, /g\.wgc\.pagerank: no scores: run `wga rank GRAPH\.wgc --save` first\n$/);
      const noPage = await runCli(['page', 'nowhere', '--graph', good]);
      assert.equal(noPage.code, 2);
      assert.match(noPage.stderr, /^wga: url: no page "nowhere" in .*g\.wgc \(it has no names: give an id 0\.\.325556\)\n$/);
    } finally {
      tmp.cleanup();
    }
  });

  it('wga generate: a host graph of the asked size, 81% dangling, names in byte order, lists both ways consistent', () => {
    const tmp = temporaryDirectory();
    try {
      const path = join(tmp.path, 'hosts.wgc');
      const report = generateHostGraph(path, { pages: 200_000, links: 1_600_000, seed: 3, segmentBytes: 1 << 18, budgetLinks: 300_000 });
      const { header } = report;
      assert.ok(Math.abs(header.links - 1_600_000) / 1_600_000 < 0.01, `${header.links} links`);
      const graph = readCompactAsGraph(path).graph;
      let dangling = 0;
      for (let v = 0; v < graph.nodeCount; v++) if (graph.outDegree(v) === 0) dangling++;
      assert.ok(Math.abs(dangling / graph.nodeCount - 0.81) < 0.01, `dangling share ${dangling / graph.nodeCount}`);
      sameGraph(path, graph);
      const names = Array.from(hostNames(200_000, 3));
      assert.equal(names.length, 200_000);
      for (let i = 1; i < names.length; i++) assert.ok(Buffer.compare(Buffer.from(names[i - 1]!), Buffer.from(names[i]!)) < 0, `${names[i - 1]} before ${names[i]}`);
      const file = CompactFile.open(path);
      assert.equal(file.header.labels!.sorted, true);
      assert.equal(file.labelsInPlace()!.label(12345), names[12345]);
      file.close();
      // The same parameters give the same file.
      const again = join(tmp.path, 'again.wgc');
      generateHostGraph(again, { pages: 200_000, links: 1_600_000, seed: 3, segmentBytes: 1 << 18, budgetLinks: 300_000 });
      assert.ok(readFileSync(again).equals(readFileSync(path)));
    } finally {
      tmp.cleanup();
    }
  });

  it('the commands on a .wgc file answer as on the plain graph', async () => {
    const tmp = temporaryDirectory();
    try {
      const cnr = testData('cnr-2000', 'cnr-2000.graph');
      const path = join(tmp.path, 'cnr.wgc');
      const converted = await runCli(['convert', cnr, path, '--json', '-q']);
      assert.equal(converted.code, 0, converted.stderr);
      type Stats = { nodes: number; edges: number; danglingNodes: number; unreferencedNodes: number; isolatedNodes: number; scc: { count: number; largest: number }; maxInDegree: number; maxOutDegree: number; format: string; memory: { structures: unknown[] } };
      const a = JSON.parse((await runCli(['stats', path, '--json', '-q'])).stdout) as Stats;
      const b = JSON.parse((await runCli(['stats', cnr, '--json', '-q'])).stdout) as Stats;
      assert.equal(a.format, 'compact');
      for (const key of ['nodes', 'edges', 'danglingNodes', 'unreferencedNodes', 'isolatedNodes', 'maxInDegree', 'maxOutDegree'] as const) assert.equal(a[key], b[key], key);
      assert.deepEqual(a.scc, b.scc);
      assert.equal(a.memory.structures.length, 4);
      // --compact on the BV file converts it on the way, to the same answer.
      const c = JSON.parse((await runCli(['stats', cnr, '--compact', '--tmp', tmp.path, '--json', '-q'])).stdout) as Stats;
      assert.deepEqual(c.scc, b.scc);
      assert.equal(readdirSync(tmp.path).filter((f) => f.startsWith('wga-compact-')).length, 0, 'the conversion is removed');

      type Rank = { iterations: number; solver: string; residual: number; components?: { count: number }; top: Array<{ label: string; score: number }>; saved: string | null };
      const rankCompact = await runCli(['rank', path, '--tolerance', '1e-12', '--top', '20', '--save', '--json', '-q']);
      assert.equal(rankCompact.code, 0, rankCompact.stderr);
      const r1 = JSON.parse(rankCompact.stdout) as Rank;
      const r2 = JSON.parse((await runCli(['rank', cnr, '--solver', 'power', '--tolerance', '1e-12', '--top', '20', '--json', '-q'])).stdout) as Rank;
      // The default on a graph with few dangling pages: Gauss-Seidel over the components (the plain stats' count).
      assert.equal(r1.solver, 'gauss-seidel (compact)');
      assert.equal(r1.components?.count, b.scc.count);
      assert.ok(r1.residual <= 1e-12, `residual ${r1.residual}`);
      const plainScores = new Map(r2.top.map((t) => [t.label, t.score]));
      for (const t of r1.top.slice(0, 15)) assert.ok(Math.abs(t.score - plainScores.get(t.label)!) <= 1e-12, t.label);
      assert.equal(r1.saved, `${path}.pagerank`);

      const top = JSON.parse((await runCli(['top', '--graph', path, '--top', '5', '--json'])).stdout) as { top: Array<{ label: string; score: number }> };
      assert.deepEqual(top.top.map((t) => t.label), r1.top.slice(0, 5).map((t) => t.label));
      const best = r1.top[0]!.label;
      const page = JSON.parse((await runCli(['page', best, '--graph', path, '--limit', '100000', '--json'])).stdout) as { inDegree: number; outDegree: number; inLinks: string[]; scores: Array<{ value: number }> };
      const graph = await plain(cnr);
      const id = graph.labels.id(best);
      assert.equal(page.inDegree, graph.inDegree(id));
      assert.equal(page.outDegree, graph.outDegree(id));
      assert.deepEqual(page.inLinks, Array.from(graph.predecessors(id), (u) => graph.labels.label(u)));
      assert.equal(page.scores[0]!.value, r1.top[0]!.score);

      type Levels = { histogram: number[]; reached: number };
      const l1 = JSON.parse((await runCli(['levels', path, '--root', best, '--json', '-q'])).stdout) as Levels;
      const l2 = JSON.parse((await runCli(['levels', cnr, '--root', best, '--json', '-q'])).stdout) as Levels;
      assert.deepEqual(l1.histogram, l2.histogram);
      type Scc = { count: number; largest: number; bowTie: Record<string, number> };
      const s1 = JSON.parse((await runCli(['scc', path, '--json', '-q'])).stdout) as Scc;
      const s2 = JSON.parse((await runCli(['scc', cnr, '--json', '-q'])).stdout) as Scc;
      assert.equal(s1.count, s2.count);
      assert.equal(s1.largest, s2.largest);
      assert.deepEqual(s1.bowTie, s2.bowTie);
      assert.equal(s1.bowTie.core, s2.largest);
      // A command without a compact kernel reads the .wgc file as a plain graph.
      const d1 = await runCli(['degrees', path, '--json', '-q']);
      const d2 = await runCli(['degrees', cnr, '--json', '-q']);
      assert.equal(d1.code, 0, d1.stderr);
      assert.deepEqual(JSON.parse(d1.stdout).in, JSON.parse(d2.stdout).in);
      // A graph too big for the plain arrays of the memory planned with goes to the compact form by itself.
      const edges = join(tmp.path, 'cnr.tsv');
      writeFileSync(edges, Array.from({ length: graph.nodeCount }, (_, v) => Array.from(graph.successors(v), (w) => `${v}\t${w}\n`).join('')).join(''));
      const auto = await runCli(['scc', edges, '--json'], { env: { WGA_MEMORY_BYTES: String(20e6) } });
      assert.equal(auto.code, 0, auto.stderr);
      assert.match(auto.stderr, /cnr\.tsv: about [0-9,]+ links would take [0-9.]+ MB in the plain form, more than this machine's memory allows; converting to the compact form first/);
      assert.equal((JSON.parse(auto.stdout) as Scc).largest, s2.largest);
      const coreness = await runCli(['rank', path, '--method', 'coreness', '-q']);
      assert.equal(coreness.code, 2);
      assert.match(coreness.stderr, /^wga: --method: a compact graph is ranked by pagerank, traffic, hotness, harmonic, closeness, lin, montecarlo; 'coreness' needs the plain form/);
    } finally {
      tmp.cleanup();
    }
  });

  it('a truncated compact file cannot be mistaken for a whole one', async () => {
    const tmp = temporaryDirectory();
    try {
      const path = join(tmp.path, 'g.wgc');
      await convertToCompact(testData('cnr-2000', 'cnr-2000.graph'), path);
      truncateSync(path, 9000);
      assert.throws(() => CompactFile.open(path), /lies outside the file's 9000 bytes: truncated\?/);
    } finally {
      tmp.cleanup();
    }
  });
});
