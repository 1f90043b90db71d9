/**
 * Gauss-Seidel PageRank on the compact in-lists (src/analysis/pagerank-compact-gs.ts) against the
 * plain power iteration (Algorithm 1, the reference every solver is tested against): the same
 * vector, the same stopping rule met, in fewer passes over the links; one and two threads, dangling
 * pages, lists cut into segments.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outDegrees } from '../../src/analysis/degrees.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { compactGaussSeidel } from '../../src/analysis/pagerank-compact-gs.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { loadGraph } from '../../src/formats/load.js';
import { compactFromGraph } from '../../src/graph/compact.js';
import type { Graph } from '../../src/graph/graph.js';
import { testData } from '../helpers.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function compare(graph: Graph, threads: number, segmentBytes?: number) {
  const power = pagerank(graph, { solver: 'power', tolerance: 1e-13, threads: 1 });
  const lists = compactFromGraph(graph, { offsets: false, ...(segmentBytes === undefined ? {} : { segmentBytes }) });
  const run = compactGaussSeidel(lists, outDegrees(graph), { damping: 0.85, tolerance: 1e-11, maxIterations: 1000, threads });
  assert.ok(run.converged && run.residual <= 1e-11, `residual ${run.residual}`);
  let sum = 0;
  let worst = 0;
  for (let v = 0; v < graph.nodeCount; v++) {
    sum += run.scores[v]!;
    worst += Math.abs(run.scores[v]! - power.scores[v]!);
  }
  assert.ok(Math.abs(sum - 1) < 1e-12, `sum ${sum}`);
  // Both within their residuals of the fixed point: ||x - pi||_1 <= residual / (1 - c).
  assert.ok(worst < 1e-10, `L1 distance to power iteration ${worst}`);
  return { run, power };
}

describe('Gauss-Seidel PageRank on the compact graph', () => {
  it('gives power iteration\'s vector on cnr-2000 in fewer passes, 1 and 2 threads', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    for (const threads of [1, 2]) {
      const { run, power } = compare(graph, threads);
      assert.equal(run.threads, threads);
      assert.ok(run.sweeps + run.checks < power.iterations, `${run.sweeps} sweeps and ${run.checks} checks against ${power.iterations} power iterations`);
    }
  });

  it('handles dangling pages and lists cut into many segments', () => {
    const graph = powerLawGraph({ nodes: 30_000, seed: 4, danglingShare: 0.3 }).graph;
    compare(graph, 2, 1 << 15);
    compare(graph, 1);
  });

  it('reports not converged when the sweeps run out', () => {
    const graph = powerLawGraph({ nodes: 5000, seed: 1, danglingShare: 0.1 }).graph;
    const run = compactGaussSeidel(compactFromGraph(graph), outDegrees(graph), { damping: 0.85, tolerance: 1e-14, maxIterations: 3, threads: 1 });
    assert.equal(run.sweeps, 3);
    assert.equal(run.converged, false);
    assert.ok(run.residual > 1e-14 && Number.isFinite(run.residual));
  });

  it('wga rank G.wgc --solver gauss-seidel: the plain Gauss-Seidel\'s top pages within the tolerance', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wga-gs-'));
    try {
      const source = testData('cnr-2000', 'cnr-2000.graph');
      const wgc = join(dir, 'cnr.wgc');
      assert.equal((await runCli(['convert', source, wgc, '-q'])).code, 0);
      const compact = await runCli(['rank', wgc, '--solver', 'gauss-seidel', '--tolerance', '1e-12', '--top', '30', '--json', '-q']);
      assert.equal(compact.code, 0, compact.stderr);
      const plain = await runCli(['rank', source, '--solver', 'gauss-seidel', '--tolerance', '1e-12', '--top', '30', '--json', '-q']);
      type Report = { solver: string; iterations: number; passes: number; residual: number; top: Array<{ label: string; score: number }> };
      const a = JSON.parse(compact.stdout) as Report;
      const b = JSON.parse(plain.stdout) as Report;
      assert.equal(a.solver, 'gauss-seidel (compact)');
      // Over the components: the slowest component's sweeps (a small closed one may need many), and
      // less work in all than the plain solver's power iteration.
      assert.ok(a.residual <= 1e-12, `residual ${a.residual}`);
      assert.ok(a.passes < 100 && a.passes > 10, `${a.passes} passes`);
      const plainScore = new Map(b.top.map((t) => [t.label, t.score]));
      for (const t of a.top.slice(0, 20)) assert.ok(Math.abs(t.score - plainScore.get(t.label)!) < 1e-12, t.label);
      // The memory plan: over three quarters of a (pretended) 20 MB machine, auto takes power
      // iteration and says why; --solver gauss-seidel is refused with the figures.
      const small = { env: { WGA_MEMORY_BYTES: '20000000' } };
      const planned = JSON.parse((await runCli(['rank', wgc, '--json', '-q'], small)).stdout) as Report & { solverReason?: string };
      assert.equal(planned.solver, 'power (compact)');
      assert.match(planned.solverReason ?? '', /^Gauss-Seidel over components on 325,557 pages needs 18\.4 MB .*more than three quarters of 19\.1 MB: power iteration instead$/);
      const refused = await runCli(['rank', wgc, '--solver', 'gauss-seidel', '-q'], small);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /^wga: --solver: Gauss-Seidel over components .* use --solver power\n$/);
      const bad = await runCli(['rank', wgc, '--solver', 'jacobi', '-q']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /^wga: --solver: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
