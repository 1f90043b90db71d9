/**
 * TrafficRank and HOTness on the compact graph (src/analysis/traffic-compact.ts) against the plain
 * solver (src/analysis/traffic.ts, itself checked against an independent Newton solve of the primal
 * problem in traffic.test.ts): the same vectors, entropy and multipliers on cnr-2000 and on a
 * generated graph with dangling pages, one and two threads, Anderson's history in float64 and
 * float32, lists cut into many segments.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { trafficRank } from '../../src/analysis/traffic.js';
import { compactTrafficBytes, compactTrafficRank } from '../../src/analysis/traffic-compact.js';
import { topK } from '../../src/analysis/top.js';
import { OptionError } from '../../src/errors.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { loadGraph } from '../../src/formats/load.js';
import { compactFromGraph, compactOutListsFromGraph } from '../../src/graph/compact.js';
import type { Graph } from '../../src/graph/graph.js';
import { testData } from '../helpers.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

function largestRelative(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.abs(b[i]!));
  return worst;
}

function largestAbsolute(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

function compareWithPlain(graph: Graph, options: { threads: number; history?: 'float64' | 'float32'; segmentBytes?: number; sweep?: 'anderson' | 'gauss-seidel'; tolerance?: number }) {
  const tolerance = options.tolerance ?? 1e-12;
  const plain = trafficRank(graph, { tolerance, sweep: options.sweep ?? 'anderson' });
  const writer = options.segmentBytes === undefined ? { offsets: false } : { offsets: false, segmentBytes: options.segmentBytes };
  const inLists = compactFromGraph(graph, writer);
  const outLists = compactOutListsFromGraph(graph, writer);
  if (options.segmentBytes !== undefined) assert.ok(inLists.segments.length > 3 && outLists.segments.length > 3);
  const compact = compactTrafficRank(inLists, outLists, { tolerance, threads: options.threads, history: options.history ?? 'float64', sweep: options.sweep ?? 'anderson' });
  assert.ok(plain.converged && compact.converged, `plain ${plain.violation}, compact ${compact.violation}`);
  assert.ok(compact.violation < tolerance);
  return { plain, compact };
}

describe('TrafficRank on the compact graph', () => {
  it('gives the plain solver\'s TrafficRank, HOTness, entropy and multipliers on cnr-2000, 1 and 2 threads', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    for (const threads of [1, 2]) {
      const { plain, compact } = compareWithPlain(graph, { threads });
      // Both are within 1e-12 of balance: the vectors agree far below the difference of two runs' stopping points.
      assert.ok(largestRelative(compact.hotness, plain.hotness) < 1e-9, `hotness ${largestRelative(compact.hotness, plain.hotness)}`);
      assert.ok(largestAbsolute(compact.trafficRank, plain.trafficRank) < 1e-12, `traffic ${largestAbsolute(compact.trafficRank, plain.trafficRank)}`);
      assert.ok(Math.abs(compact.entropy - plain.entropy) < 1e-9 * Math.abs(plain.entropy));
      assert.ok(Math.abs(compact.mu - plain.mu) < 1e-9 && Math.abs(compact.nu - plain.nu) < 1e-9);
      assert.ok(Math.abs(compact.realFlow - 0.85) < 1e-12 && Math.abs(compact.artificialFlow - 0.15) < 1e-12);
      // The same top 100 (cnr-2000's many exact ties may order tied pages differently: their values agree).
      const best = topK(compact.trafficRank, 100);
      const plainBest = topK(plain.trafficRank, 100);
      const hundredth = plain.trafficRank[plainBest[99]!]!;
      for (let i = 0; i < 100; i++) {
        assert.ok(Math.abs(compact.trafficRank[best[i]!]! - plain.trafficRank[plainBest[i]!]!) < 1e-9 * hundredth, `position ${i + 1}`);
        assert.ok(plain.trafficRank[best[i]!]! >= hundredth * (1 - 1e-9), `page ${best[i]} is in the plain top 100`);
      }
      // One thread sweeps as the plain solver does; the inverses divided as gathered round differently
      // from the plain solver's kept ones, which moves the stop by a few of its ~150 sweeps.
      if (threads === 1) assert.ok(Math.abs(compact.sweeps - plain.sweeps) <= 5, `${compact.sweeps} sweeps against ${plain.sweeps}`);
      assert.equal(compact.threads, threads);
    }
  });

  it('reaches the same vectors with Anderson\'s history in float32, and with plain Gauss-Seidel sweeps', async () => {
    const graph = powerLawGraph({ nodes: 20_000, seed: 3, danglingShare: 0.2 }).graph;
    const narrow = compareWithPlain(graph, { threads: 1, history: 'float32' });
    assert.ok(largestRelative(narrow.compact.hotness, narrow.plain.hotness) < 1e-9);
    assert.ok(largestAbsolute(narrow.compact.trafficRank, narrow.plain.trafficRank) < 1e-12);
    assert.equal(narrow.compact.history, 'float32');
    const gaussSeidel = compareWithPlain(graph, { threads: 1, sweep: 'gauss-seidel', tolerance: 1e-10 });
    assert.equal(gaussSeidel.compact.sweeps, gaussSeidel.plain.sweeps);
    assert.ok(largestRelative(gaussSeidel.compact.hotness, gaussSeidel.plain.hotness) < 1e-12);
    assert.equal(gaussSeidel.compact.history, null);
  });

  it('gives the same vectors with the lists cut into many segments, on two threads', () => {
    const graph = powerLawGraph({ nodes: 30_000, seed: 5, danglingShare: 0.2 }).graph;
    const { plain, compact } = compareWithPlain(graph, { threads: 2, segmentBytes: 1 << 15 });
    assert.ok(largestRelative(compact.hotness, plain.hotness) < 1e-9);
    assert.ok(largestAbsolute(compact.trafficRank, plain.trafficRank) < 1e-12);
  });

  it('plans its bytes, and refuses what it does not do', () => {
    assert.deepEqual(compactTrafficBytes(1000, 'anderson', 'float32'), { scales: 8000, history: 13 * 4 * 1000, result: 0 });
    assert.deepEqual(compactTrafficBytes(1000, 'gauss-seidel', 'float64'), { scales: 8000, history: 0, result: 8000 });
    const graph = powerLawGraph({ nodes: 100, seed: 1 }).graph;
    const inLists = compactFromGraph(graph);
    const outLists = compactOutListsFromGraph(graph);
    assert.throws(() => compactTrafficRank(inLists, outLists, { sweep: 'jacobi' as never }), OptionError);
    assert.throws(() => compactTrafficRank(inLists, outLists, { alpha: 1 }), OptionError);
    assert.throws(() => compactTrafficRank(inLists, inLists.linkCount === outLists.linkCount ? compactFromGraph(powerLawGraph({ nodes: 50, seed: 2 }).graph) : outLists), RangeError);
  });

  it('wga rank G.wgc --method traffic,pagerank --out: the plain rankings, a ranks table Python reads, the scores kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wga-traffic-compact-'));
    try {
      const source = testData('cnr-2000', 'cnr-2000.graph');
      const wgc = join(dir, 'cnr.wgc');
      const converted = await runCli(['convert', source, wgc, '-q']);
      assert.equal(converted.code, 0, converted.stderr);
      const table = join(dir, 'ranks.tsv');
      const compact = await runCli(['rank', wgc, '--method', 'traffic,pagerank', '--out', table, '--tolerance', '1e-11', '--top', '30', '--save', '--history', 'float32', '--json', '-q']);
      assert.equal(compact.code, 0, compact.stderr);
      type Report = { methods: Array<{ method: string; solver: string; converged: boolean; traffic: { history: string } | null; saved: string | null }>; top: Array<{ label: string; positions: number[]; values: number[] }> };
      const report = JSON.parse(compact.stdout) as Report;
      assert.deepEqual(report.methods.map((m) => [m.method, m.solver, m.converged]), [['traffic', 'anderson (compact)', true], ['pagerank', 'gauss-seidel (compact)', true]]);
      assert.equal(report.methods[0]!.traffic!.history, 'float32');
      const plain = await runCli(['rank', source, '--method', 'traffic', '--tolerance', '1e-11', '--top', '30', '--json', '-q']);
      assert.equal(plain.code, 0, plain.stderr);
      const plainTop = (JSON.parse(plain.stdout) as { top: Array<{ label: string; score: number }> }).top;
      const plainScore = new Map(plainTop.map((t) => [t.label, t.score]));
      for (const t of report.top.slice(0, 20)) assert.ok(Math.abs(t.values[0]! - plainScore.get(t.label)!) < 1e-9 * t.values[0]!, t.label);
      // The table, read by Python's csv module: a row per page, positions 1..n in the first column, every page once.
      const summary = execFileSync('python3', ['-c', [
        'import csv, sys',
        'rows = list(csv.reader(open(sys.argv[1]), delimiter="\\t"))',
        'head, body = rows[0], rows[1:]',
        'assert [int(r[0]) for r in body] == list(range(1, len(body) + 1))',
        'assert len({r[4] for r in body}) == len(body)',
        'print("\\t".join(head)); print(len(body)); print(body[0][4], body[0][1], body[0][2])',
      ].join('\n'), table], { encoding: 'utf8' }).trim().split('\n');
      assert.equal(summary[0], '#traffic_pos\t#traffic_val\t#pagerank_pos\t#pagerank_val\t#page');
      assert.equal(Number(summary[1]), 325_557);
      const [name, value, pagerankPosition] = summary[2]!.split(' ');
      assert.equal(name, report.top[0]!.label);
      assert.equal(Number(value), report.top[0]!.values[0]);
      assert.equal(Number(pagerankPosition), report.top[0]!.positions[1]);
      // The kept scores answer `top --score traffic` and `page`.
      const top = await runCli(['top', '--graph', wgc, '--score', 'traffic', '--top', '5', '--json']);
      assert.equal(top.code, 0, top.stderr);
      assert.deepEqual((JSON.parse(top.stdout) as { top: Array<{ label: string }> }).top.map((t) => t.label), report.top.slice(0, 5).map((t) => t.label));
      const page = await runCli(['page', report.top[0]!.label, '--graph', wgc, '--json']);
      assert.deepEqual((JSON.parse(page.stdout) as { scores: Array<{ method: string }> }).scores.map((x) => x.method), ['pagerank', 'traffic']);
      assert.ok(readFileSync(`${wgc}.traffic`).length > 8 * 325_557);
      // Refused, naming the option.
      const hits = await runCli(['rank', wgc, '--method', 'hits', '-q']);
      assert.equal(hits.code, 2);
      assert.match(hits.stderr, /^wga: --method: a compact graph is ranked by pagerank, traffic, hotness, harmonic, closeness, lin, montecarlo; 'hits' needs the plain form/);
      const history = await runCli(['rank', wgc, '--history', 'float16', '--method', 'traffic', '-q']);
      assert.equal(history.code, 2);
      assert.match(history.stderr, /^wga: --history: /);
      const pagerankHistory = await runCli(['rank', wgc, '--history', 'float32', '-q']);
      assert.equal(pagerankHistory.stderr.trim(), 'wga: --history: is an option of --method traffic and hotness');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
