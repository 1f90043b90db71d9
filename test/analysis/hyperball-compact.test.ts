/**
 * HyperBall on the compact in-lists with packed registers (src/analysis/hyperball-compact.ts)
 * against the plain kernel (src/analysis/hyperball.ts, itself checked against exact searches and
 * igraph in hyperball.test.ts): the same estimates for the same log2m and seed, in memory and in the
 * external mode, one and two threads, lists cut into segments; the memory plan.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hyperBall } from '../../src/analysis/hyperball.js';
import { compactHyperBall, counterWords, planCompactHyperBall } from '../../src/analysis/hyperball-compact.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { loadGraph } from '../../src/formats/load.js';
import { compactFromGraph } from '../../src/graph/compact.js';
import type { Graph } from '../../src/graph/graph.js';
import { testData } from '../helpers.js';
import { runCli } from '../crawl/crawl-fixtures.js';

function sameAsPlain(graph: Graph, log2m: number, threads: number, options: { spill?: string; segmentBytes?: number } = {}) {
  const plain = hyperBall(graph, { log2m, seed: 7, threads });
  const lists = compactFromGraph(graph, { offsets: false, ...(options.segmentBytes === undefined ? {} : { segmentBytes: options.segmentBytes }) });
  // The spill file is unlinked once open: while the threads write and read it, the directory stays
  // empty, so a run ended by a signal or a crash leaves nothing behind.
  const spill = options.spill;
  const onIteration = spill === undefined ? undefined : () => assert.deepEqual(readdirSync(spill), []);
  const compact = compactHyperBall(lists, { log2m, seed: 7, threads, spillDirectory: spill ?? null, ...(onIteration === undefined ? {} : { onIteration }) });
  assert.equal(compact.iterations, plain.iterations);
  // Per page the same operations on the same registers: the same numbers, bit for bit.
  assert.deepEqual(Array.from(compact.harmonic), Array.from(plain.harmonic));
  assert.deepEqual(Array.from(compact.reach), Array.from(plain.reach));
  assert.deepEqual(Array.from(compact.closeness), Array.from(plain.closeness));
  assert.deepEqual(Array.from(compact.lin), Array.from(plain.lin));
  // N(t) adds the pages' sizes per thread: the threads' ranges differ, so the last bits may.
  assert.equal(compact.neighbourhood.length, plain.neighbourhood.length);
  compact.neighbourhood.forEach((value, t) => assert.ok(Math.abs(value - plain.neighbourhood[t]!) <= 1e-12 * plain.neighbourhood[t]!, `N(${t})`));
  return { plain, compact };
}

describe('HyperBall on the compact graph, registers packed', () => {
  it('gives the plain kernel\'s estimates on cnr-2000 at log2m 6, in memory, 1 and 2 threads, in 44 bytes per counter instead of 64', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    for (const threads of [1, 2]) {
      const { compact } = sameAsPlain(graph, 6, threads);
      assert.equal(compact.external, false);
      assert.equal(compact.counterBytes, 2 * 44 * graph.nodeCount);
    }
  });

  it('gives the same estimates with one counter array in memory and the next on disk (external mode), the file never seen in the directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wga-hyperball-'));
    try {
      const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
      const { compact } = sameAsPlain(graph, 4, 2, { spill: dir });
      assert.equal(compact.external, true);
      assert.equal(compact.counterBytes, 12 * graph.nodeCount);
      const small = powerLawGraph({ nodes: 5000, seed: 3, danglingShare: 0.2 }).graph;
      sameAsPlain(small, 7, 1, { spill: dir });
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the changed marks right when the last page cuts a word of marks (page counts not multiples of 32)', () => {
    // The marks are bits, 32 pages a word; a thread's range starts at a multiple of 64 pages.
    for (const nodes of [2, 31, 33, 95, 129, 200, 1_003]) {
      const graph = powerLawGraph({ nodes, seed: nodes, danglingShare: 0.2 }).graph;
      for (const threads of [1, 2]) sameAsPlain(graph, 4, threads);
    }
  });

  it('gives the same estimates with the lists cut into many segments, at every register count from 16 to 256', () => {
    const graph = powerLawGraph({ nodes: 20_000, seed: 5, danglingShare: 0.2 }).graph;
    for (const log2m of [4, 5, 7, 8]) sameAsPlain(graph, log2m, 2, { segmentBytes: 1 << 15 });
  });

  it('without the distance sums (harmonic alone: 8 bytes per page fewer) gives the same harmonic scores and reach', () => {
    const graph = powerLawGraph({ nodes: 20_000, seed: 8, danglingShare: 0.2 }).graph;
    const lists = compactFromGraph(graph, { offsets: false });
    const full = compactHyperBall(lists, { log2m: 5, seed: 2, threads: 2 });
    const lean = compactHyperBall(lists, { log2m: 5, seed: 2, threads: 2, distanceSums: false });
    assert.deepEqual(Array.from(lean.harmonic), Array.from(full.harmonic));
    assert.deepEqual(Array.from(lean.reach), Array.from(full.reach));
    assert.equal(lean.closeness.length, 0);
    assert.equal(lean.memoryBytes, full.memoryBytes - 8 * graph.nodeCount);
    // 1,000,000 pages, 20 MB of lists, 52 MB: log2m 4 with one array fits only without the distance sums
    // (12 MB of counters, 16.25 bytes per page besides: sizes, harmonic sums, two changed bits).
    assert.equal(planCompactHyperBall(1_000_000, 20_000_000, 52e6), null);
    assert.deepEqual(planCompactHyperBall(1_000_000, 20_000_000, 52e6, null, false), { log2m: 4, external: true, counterBytes: 12e6, totalBytes: 48.25e6 });
  });

  it('plans the largest log2m that fits, both arrays in memory when they fit, one when only that does', () => {
    assert.equal(counterWords(4), 3);
    assert.equal(counterWords(6), 11);
    assert.equal(counterWords(8), 43);
    const n = 1_000_000;
    const lists = 20_000_000;
    // Both arrays of log2m 8 (2 x 172 bytes per page): 344 MB + 24.25 MB + 20 MB.
    assert.deepEqual(planCompactHyperBall(n, lists, 400e6), { log2m: 8, external: false, counterBytes: 344e6, totalBytes: 388.25e6 });
    // One array of log2m 8 fits, two do not: external.
    assert.deepEqual(planCompactHyperBall(n, lists, 250e6), { log2m: 8, external: true, counterBytes: 172e6, totalBytes: 216.25e6 });
    // A log2m asked is kept or refused.
    assert.equal(planCompactHyperBall(n, lists, 60e6, 8), null);
    assert.deepEqual(planCompactHyperBall(n, lists, 60e6), { log2m: 4, external: true, counterBytes: 12e6, totalBytes: 56.25e6 });
    assert.equal(planCompactHyperBall(n, lists, 40e6), null);
  });

  it('wga rank G.wgc --method harmonic,pagerank: the plain harmonic scores, in memory and with the next counters on disk, and the ranks table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wga-hyperball-cli-'));
    try {
      const source = testData('cnr-2000', 'cnr-2000.graph');
      const wgc = join(dir, 'cnr.wgc');
      assert.equal((await runCli(['convert', source, wgc, '-q'])).code, 0);
      const plain = await runCli(['rank', source, '--method', 'harmonic', '--log2m', '6', '--top', '20', '--json', '-q']);
      assert.equal(plain.code, 0, plain.stderr);
      type Top = { top: Array<{ label: string; score: number }> };
      const plainTop = (JSON.parse(plain.stdout) as Top).top;
      const table = join(dir, 'ranks.tsv');
      // 40 MB planned for: three quarters hold one array of 44-byte counters with the lists, not two.
      for (const env of [{}, { WGA_MEMORY_BYTES: String(40e6) }] as Array<Record<string, string>>) {
        const compact = await runCli(['rank', wgc, '--method', 'harmonic,pagerank', '--log2m', '6', '--top', '20', '--out', table, '--tmp', dir, '--json', '-q'], { env });
        assert.equal(compact.code, 0, compact.stderr);
        type Report = { methods: Array<{ method: string; solver: string; hyperball: { external: boolean; log2m: number } | null }>; top: Array<{ label: string; values: number[] }> };
        const report = JSON.parse(compact.stdout) as Report;
        assert.equal(report.methods[0]!.solver, 'hyperball log2m=6 (compact)');
        assert.equal(report.methods[0]!.hyperball!.external, 'WGA_MEMORY_BYTES' in env);
        // The same estimates as the plain kernel's, bit for bit (ties aside, the same order).
        const plainScore = new Map(plainTop.map((t) => [t.label, t.score]));
        for (const t of report.top) assert.equal(t.values[0], plainScore.get(t.label), t.label);
      }
      const lines = readFileSync(table, 'utf8').split('\n');
      assert.equal(lines[0], '#harmonic_pos\t#harmonic_val\t#pagerank_pos\t#pagerank_val\t#page');
      assert.equal(lines.length - 2, 325_557);
      // Nothing left in the spill directory; refused options name themselves.
      assert.deepEqual(readdirSync(dir).sort(), ['cnr.wgc', 'ranks.tsv']);
      // distances on the compact file: the plain command's statistics (log2m 4: the kernels' equality
      // at 6 is checked above; these four HyperBall runs are a third of this test's time at 6).
      const plainDistances = await runCli(['distances', source, '--log2m', '4', '--runs', '2', '--json', '-q']);
      const compactDistances = await runCli(['distances', wgc, '--log2m', '4', '--runs', '2', '--json', '-q']);
      assert.equal(compactDistances.code, 0, compactDistances.stderr);
      type Distances = { neighbourhood: number[]; averageDistance: number; effectiveDiameter: number; iterations: number; jackknife: { averageDistance: { standardError: number } } };
      const a = JSON.parse(compactDistances.stdout) as Distances;
      const b = JSON.parse(plainDistances.stdout) as Distances;
      assert.equal(a.iterations, b.iterations);
      assert.equal(a.neighbourhood.length, b.neighbourhood.length);
      a.neighbourhood.forEach((value, t) => assert.ok(Math.abs(value - b.neighbourhood[t]!) <= 1e-12 * b.neighbourhood[t]!, `N(${t})`));
      assert.ok(Math.abs(a.averageDistance - b.averageDistance) < 1e-9 && Math.abs(a.effectiveDiameter - b.effectiveDiameter) < 1e-9);
      assert.ok(Math.abs(a.jackknife.averageDistance.standardError - b.jackknife.averageDistance.standardError) < 1e-9);
      const exact = await runCli(['rank', wgc, '--method', 'harmonic', '--exact', '-q']);
      assert.equal(exact.code, 2);
      assert.match(exact.stderr, /^wga: --exact: is not available on a compact graph/);
      const tooSmall = await runCli(['rank', wgc, '--method', 'harmonic', '-q'], { env: { WGA_MEMORY_BYTES: String(10e6) } });
      assert.equal(tooSmall.code, 2);
      assert.match(tooSmall.stderr, /^wga: memory: HyperBall on 325,557 pages needs at least 12\.3 MB at log2m 4 with one counter array in memory, more than three quarters of 9\.5 MB\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
