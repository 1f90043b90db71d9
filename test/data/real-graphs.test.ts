/**
 * The published figures of data/README.md, on the real graphs,
 * from both of cnr-2000's files, and PageRank checked against independent
 * computations (a naive implementation here, igraph when installed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { countDangling, degreeSummary } from '../../src/analysis/degrees.js';
import { type PageRankResult, pagerank } from '../../src/analysis/pagerank.js';
import { componentOf, stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { topK } from '../../src/analysis/top.js';
import { type LoadedGraph, loadGraph } from '../../src/formats/load.js';
import { CNR_EDGE_LIST_SHA256, skipOrFail, testData, temporaryDirectory } from '../helpers.js';
import { edgeListPageRank } from '../reference.js';

const cnrTsv = testData('cnr-2000', 'cnr-2000.edges.tsv.gz');
const cnrBv = testData('cnr-2000', 'cnr-2000.graph');

describe('cnr-2000 (LAW), from the TSV and the BV files', () => {
  let tsv: LoadedGraph;
  let bv: LoadedGraph;
  let rank: PageRankResult;
  before(async () => {
    tsv = await loadGraph(cnrTsv);
    bv = await loadGraph(cnrBv);
    rank = pagerank(bv.graph);
  });

  it('reads an edge list holding exactly the text of the published TSV', () => {
    // The TSV is written from the BV files by wga's decoder (test/helpers.ts): its text must
    // be byte for byte the one distributed beside the BV files, so the TSV-based checks
    // below (the naive PageRank, igraph) stay independent of that decoder.
    const text = gunzipSync(readFileSync(cnrTsv));
    assert.equal(text.length, 42_795_887);
    assert.equal(createHash('sha256').update(text).digest('hex'), CNR_EDGE_LIST_SHA256);
  });

  it('has the published counts in both formats', () => {
    for (const loaded of [tsv, bv]) {
      const { graph, report } = loaded;
      assert.equal(graph.nodeCount, 325_557, loaded.format);
      assert.equal(graph.edgeCount, 3_128_710, loaded.format);
      assert.equal(report.selfLoopsDropped, 87_442, loaded.format);
      assert.equal(report.duplicatesDropped, 0, loaded.format);
      assert.equal(report.rawEdges, 3_216_152, loaded.format);
      assert.equal(countDangling(graph), 86_959, loaded.format);
    }
    assert.equal(tsv.format, 'edges');
    assert.equal(bv.format, 'bv');
  });

  it('gives identical graphs from BV and TSV', () => {
    const same = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
      a.length === b.length && Array.prototype.every.call(a, (x: number, i: number) => x === b[i]);
    assert.ok(same(tsv.graph.outOffsets, bv.graph.outOffsets));
    assert.ok(same(tsv.graph.outTargets, bv.graph.outTargets));
    assert.ok(same(tsv.graph.inOffsets, bv.graph.inOffsets));
    assert.ok(same(tsv.graph.inSources, bv.graph.inSources));
    assert.equal(tsv.graph.labels.label(325_556), '325556');
  });

  it('has 100,977 strongly connected components, the giant one of 112,023 pages', () => {
    const scc = stronglyConnectedComponents(bv.graph);
    assert.equal(scc.count, 100_977);
    assert.equal(scc.largest, 112_023);
    // Algorithm 3 from a page of the giant component finds the same pages.
    const root = scc.component.indexOf(scc.largestId);
    assert.equal(componentOf(bv.graph, root).length, 112_023);
  });

  it('holds the graph in under 12 bytes per link', () => {
    const bytesPerEdge = bv.graph.memoryBytes() / bv.graph.edgeCount;
    assert.ok(bytesPerEdge < 12, `${bytesPerEdge}`);
  });

  it('ranks the top 100 pages as an independent PageRank does, to 1e-6 relative', () => {
    // The reference reads the file itself: gunzip, split, drop self-links, no shared code.
    const lines = gunzipSync(readFileSync(cnrTsv)).toString('latin1').split('\n');
    const sources: number[] = [];
    const targets: number[] = [];
    let n = 0;
    for (const line of lines) {
      if (line === '') continue;
      const [a, b] = line.split('\t').map(Number) as [number, number];
      n = Math.max(n, a + 1, b + 1);
      if (a === b) continue;
      sources.push(a);
      targets.push(b);
    }
    const reference = edgeListPageRank(n, Int32Array.from(sources), Int32Array.from(targets), 0.85, 1e-13);
    const result = rank;
    assert.ok(result.converged);
    assert.ok(result.residual <= 1e-10);
    const ours = topK(result.scores, 100);
    const theirs = topK(reference, 100);
    let worst = 0;
    for (let i = 0; i < 100; i++) {
      const id = ours[i]!;
      worst = Math.max(worst, Math.abs(result.scores[id]! - reference[id]!) / reference[id]!);
    }
    assert.ok(worst < 1e-6, `worst relative difference ${worst}`);
    // The same pages in the same order, except for exact ties.
    for (let i = 0; i < 100; i++) {
      if (ours[i] !== theirs[i]) {
        assert.ok(Math.abs(reference[ours[i]!]! - reference[theirs[i]!]!) / reference[theirs[i]!]! < 1e-9, `rank ${i + 1}`);
      }
    }
  });

  it('agrees with igraph (PRPACK) on PageRank and components', (t) => {
    const probe = spawnSync('/usr/bin/python3', ['-c', 'import igraph'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      skipOrFail(t, 'oracles', 'python3-igraph is not installed for /usr/bin/python3 (apt-get install python3-igraph)');
      return;
    }
    const dir = temporaryDirectory();
    try {
      const edges = join(dir.path, 'cnr.txt');
      writeFileSync(edges, gunzipSync(readFileSync(cnrTsv)));
      const script = [
        'import igraph, json, sys',
        'g = igraph.Graph.Read_Edgelist(sys.argv[1], directed=True)',
        'g.simplify(multiple=True, loops=True)',
        'pr = g.pagerank(damping=0.85)',
        'top = sorted(range(len(pr)), key=lambda i: -pr[i])[:100]',
        'c = g.connected_components(mode="strong")',
        'import array',
        'with open(sys.argv[2], "wb") as f: array.array("d", pr).tofile(f)',
        'print(json.dumps({"n": g.vcount(), "m": g.ecount(), "top": [[i, pr[i]] for i in top], "scc": len(c), "giant": max(c.sizes())}))',
      ].join('\n');
      const vectorFile = join(dir.path, 'igraph.f64');
      const run = spawnSync('/usr/bin/python3', ['-c', script, edges, vectorFile], { encoding: 'utf8', maxBuffer: 1 << 24 });
      assert.equal(run.status, 0, run.stderr);
      const igraph = JSON.parse(run.stdout) as { n: number; m: number; top: Array<[number, number]>; scc: number; giant: number };
      assert.equal(igraph.n, bv.graph.nodeCount);
      assert.equal(igraph.m, bv.graph.edgeCount);
      assert.equal(igraph.scc, 100_977);
      assert.equal(igraph.giant, 112_023);
      const result = rank;
      for (const [id, value] of igraph.top) {
        const relative = Math.abs(result.scores[id]! - value) / value;
        assert.ok(relative < 1e-6, `page ${id}: ours ${result.scores[id]} igraph ${value}`);
      }
      // The whole vector, from every solver on one and two threads: igraph's PRPACK
      // stops on its own per-component rule, which lands about 1.3e-10 (L1) away.
      const bytes = readFileSync(vectorFile);
      const theirs = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
      assert.equal(theirs.length, bv.graph.nodeCount);
      for (const solver of ['power', 'gauss-seidel', 'auto'] as const) {
        for (const threads of [1, 2]) {
          const ours = pagerank(bv.graph, { solver, threads });
          let l1 = 0;
          for (let i = 0; i < theirs.length; i++) l1 += Math.abs(ours.scores[i]! - theirs[i]!);
          assert.ok(l1 < 5e-10, `${solver} on ${threads} thread(s): L1 distance to igraph ${l1}`);
        }
      }
    } finally {
      dir.cleanup();
    }
  });
});

describe('hollins.edu (Langville and Meyer)', () => {
  it('has the published counts, and every page its URL', async () => {
    const { graph, labelReport } = await loadGraph(testData('hollins', 'hollins.edges.txt'), {
      labelsPath: testData('hollins', 'hollins.urls.txt'),
    });
    assert.equal(graph.nodeCount, 6_012);
    assert.equal(graph.edgeCount, 23_875);
    const degrees = degreeSummary(graph);
    assert.equal(degrees.danglingNodes, 3_189);
    const scc = stronglyConnectedComponents(graph);
    assert.equal(scc.count, 3_634);
    assert.equal(scc.largest, 1_426);
    assert.deepEqual(labelReport, { matched: 6_012, unmatched: 0, unlabelled: 0 });
    assert.equal(graph.labels.label(graph.labels.id('1')), 'http://www1.hollins.edu/');
    assert.equal(graph.labels.id('http://www.hollins.edu/'), graph.labels.id('2'));
  });
});
