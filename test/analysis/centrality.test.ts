/**
 * Exact harmonic centrality and closeness, HITS and coreness (src/analysis/centrality.ts) against
 * igraph (harmonic_centrality and closeness with mode="in", not normalised; coreness in its three
 * modes) and NetworkX (hits, normalised to sum 1), through Debian's /usr/bin/python3, on hollins.edu,
 * harvard500 and a random graph with unreachable and isolated pages. Both sides read the same links:
 * ours, written out from our CSR.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { coreness, distanceCentralities, hits } from '../../src/analysis/centrality.js';
import { loadGraph } from '../../src/formats/load.js';
import type { Graph } from '../../src/graph/graph.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import { buildFromEdges } from '../../src/graph/builder.js';
import { IdentityLabels } from '../../src/graph/labels.js';
import { Random } from '../../src/util/random.js';
import { cliPath, skipOrFail, testData, temporaryDirectory } from '../helpers.js';

const ORACLE = `
import igraph, networkx as nx, json, sys, math
n = int(sys.argv[2])
edges = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
g = igraph.Graph(n=n, edges=edges, directed=True)
G = nx.DiGraph(); G.add_nodes_from(range(n)); G.add_edges_from(edges)
hubs, authorities = nx.hits(G, max_iter=100000, tol=1e-14)
clean = lambda xs: [None if (isinstance(x, float) and math.isnan(x)) else x for x in xs]
print(json.dumps({
  "harmonic": g.harmonic_centrality(mode="in", normalized=False),
  "closeness": clean(g.closeness(mode="in", normalized=False)),
  "all": g.coreness(mode="all"), "in": g.coreness(mode="in"), "out": g.coreness(mode="out"),
  "hubs": [hubs[i] for i in range(n)], "authorities": [authorities[i] for i in range(n)],
}))
`;

interface Oracle {
  harmonic: number[];
  closeness: Array<number | null>;
  all: number[];
  in: number[];
  out: number[];
  hubs: number[];
  authorities: number[];
}

function oracle(graph: Graph): Oracle | string {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import igraph, networkx, scipy'], { encoding: 'utf8' });
  if (probe.status !== 0) return 'python3-igraph, python3-networkx or python3-scipy missing for /usr/bin/python3 (apt-get install python3-igraph python3-networkx)';
  const dir = temporaryDirectory();
  try {
    const lines: string[] = [];
    for (let v = 0; v < graph.nodeCount; v++) for (const w of graph.successors(v)) lines.push(`${v} ${w}`);
    const file = join(dir.path, 'edges.txt');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = spawnSync('/usr/bin/python3', ['-c', ORACLE, file, String(graph.nodeCount)], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as Oracle;
  } finally {
    dir.cleanup();
  }
}

/** n pages, m random links (no loop, no repeat), the last tenth of the pages without in-links, a few isolated. */
function randomGraph(n: number, m: number, seed: number): Graph {
  const random = new Random(seed);
  const buffer = new EdgeBuffer();
  const seen = new Set<number>();
  const reachable = Math.floor(n * 0.9);
  while (seen.size < m) {
    const u = random.nextUint32() % (n - 5);
    const v = random.nextUint32() % reachable;
    if (u === v || seen.has(u * n + v)) continue;
    seen.add(u * n + v);
    buffer.push(u, v);
  }
  return buildFromEdges(n, buffer, new IdentityLabels(n)).graph;
}

const graphs: Array<[string, () => Promise<Graph>]> = [
  ['hollins.edu', async () => (await loadGraph(testData('hollins', 'hollins.edges.txt'))).graph],
  ['harvard500', async () => (await loadGraph(testData('harvard500', 'harvard500.edges.tsv'))).graph],
  ['a random graph with unreachable and isolated pages', async () => randomGraph(2000, 7000, 7)],
];

describe('exact centralities against igraph and NetworkX', () => {
  for (const [name, load] of graphs) {
    it(name, async (t) => {
      const graph = await load();
      const theirs = oracle(graph);
      if (typeof theirs === 'string') {
        skipOrFail(t, 'oracles', theirs);
        return;
      }
      const ours = distanceCentralities(graph);
      // The same values on two threads (each page's search is a thread's own).
      const two = distanceCentralities(graph, undefined, 2);
      assert.deepEqual(Array.from(two.harmonic), Array.from(ours.harmonic));
      assert.deepEqual(Array.from(two.reached), Array.from(ours.reached));
      let worst = 0;
      for (let v = 0; v < graph.nodeCount; v++) {
        worst = Math.max(worst, Math.abs(ours.harmonic[v]! - theirs.harmonic[v]!) / Math.max(1, theirs.harmonic[v]!));
        const c = theirs.closeness[v];
        if (c === null) assert.ok(Number.isNaN(ours.closeness[v]!), `page ${v}: closeness ${ours.closeness[v]}, igraph NaN`);
        else worst = Math.max(worst, Math.abs(ours.closeness[v]! - c) / c);
      }
      assert.ok(worst < 1e-9, `largest relative difference ${worst}`);
      if (name.startsWith('a random')) assert.ok(ours.reached.some((r) => r === 0), 'some page is reached by none');
      for (const mode of ['all', 'in', 'out'] as const) assert.deepEqual(Array.from(coreness(graph, mode)), theirs[mode], `coreness ${mode}`);
      const h = hits(graph);
      assert.ok(h.converged, `HITS converged (${h.iterations} iterations, residual ${h.residual})`);
      let hitsWorst = 0;
      for (let v = 0; v < graph.nodeCount; v++) {
        hitsWorst = Math.max(hitsWorst, Math.abs(h.authorities[v]! - theirs.authorities[v]!), Math.abs(h.hubs[v]! - theirs.hubs[v]!));
      }
      t.diagnostic(`${name}: ${graph.nodeCount} pages; HITS ${h.iterations} iterations, largest difference to NetworkX ${hitsWorst.toExponential(2)}`);
      assert.ok(hitsWorst < 1e-6, `HITS: largest difference to NetworkX ${hitsWorst}`);
    });
  }
});

describe('wga rank --method harmonic|closeness|hits|coreness', () => {
  const hollins = testData('hollins', 'hollins.edges.txt');
  const rank = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(process.execPath, [cliPath, 'rank', hollins, '--json', '--top', '5', ...args], { encoding: 'utf8' });

  it('ranks by the analyses above, with their options', async () => {
    const graph = (await loadGraph(hollins)).graph;
    const exact = distanceCentralities(graph);
    const expected: Record<string, Float64Array> = {
      'harmonic --exact': exact.harmonic,
      'closeness --exact': exact.closeness.map((c) => (Number.isNaN(c) ? 0 : c)),
      'lin --exact': exact.closeness.map((c, v) => (Number.isNaN(c) ? 0 : exact.reached[v]! ** 2 * c)),
      hits: hits(graph, { tolerance: 1e-10 }).authorities,
      'hits --hubs': hits(graph, { tolerance: 1e-10 }).hubs,
      'coreness --mode out': Float64Array.from(coreness(graph, 'out')),
    };
    for (const [what, scores] of Object.entries(expected)) {
      const [method, ...options] = what.split(' ');
      const run = rank('--method', method!, ...options);
      assert.equal(run.status, 0, run.stderr);
      const json = JSON.parse(run.stdout) as { method: string; top: Array<{ label: string; score: number }> };
      assert.equal(json.method, method);
      const best = Math.max(...scores);
      assert.equal(json.top[0]!.score, best, what);
      for (const entry of json.top) assert.equal(entry.score, scores[graph.labels.id(entry.label)], `${what}: ${entry.label}`);
    }
  });

  it('estimates harmonic centrality by HyperBall unless --exact', () => {
    const run = rank('--method', 'harmonic', '--log2m', '10', '--top', '20');
    assert.equal(run.status, 0, run.stderr);
    const json = JSON.parse(run.stdout) as { solver: string; residual: number; top: Array<{ label: string }> };
    assert.equal(json.solver, 'hyperball log2m=10');
    assert.ok(Math.abs(json.residual - 1.04 / 32) < 1e-12);
    const exact = JSON.parse(rank('--method', 'harmonic', '--exact', '--top', '20').stdout) as { top: Array<{ label: string }> };
    const overlap = json.top.filter((t) => exact.top.some((e) => e.label === t.label)).length;
    assert.ok(overlap >= 15, `top-20 overlap with the exact ranking: ${overlap}`);
  });

  it('refuses options of other methods in one line', () => {
    for (const [args, option] of [
      [['--method', 'pagerank', '--hubs'], '--hubs'],
      [['--method', 'hits', '--mode', 'in'], '--mode'],
      [['--method', 'coreness', '--mode', 'sideways'], '--mode'],
      [['--method', 'pagerank', '--exact'], '--exact'],
      [['--method', 'harmonic', '--exact', '--log2m', '6'], '--log2m'],
      [['--method', 'harmonic', '--log2m', '20'], '--log2m'],
    ] as const) {
      const run = rank(...args);
      assert.equal(run.status, 2, run.stderr);
      assert.equal(run.stderr.trim().split('\n').length, 1);
      assert.match(run.stderr, new RegExp(`^wga: ${option}`));
    }
  });
});
