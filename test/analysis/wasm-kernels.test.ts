/**
 * The WebAssembly Gauss-Seidel kernel (src/analysis/kernels/gauss-seidel.wat):
 * its generated module is the assembly of its source, and it gives the same
 * bits as the JavaScript sweeps it replaces, on 1 and 2 threads.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { KernelMemory } from '../../src/analysis/kernel-memory.js';
import { ChangeTrend, LARGE_COMPONENT_LINKS, WASM_KERNEL_LINKS, pagerankBySccGaussSeidel } from '../../src/analysis/pagerank-scc.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { loadGraph } from '../../src/formats/load.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { l1Distance, repoRoot, testData } from '../helpers.js';

function solve(graph: Graph, kernel: 'js' | 'wasm', threads: number, teleport: Float64Array | null = null, tolerance = 1e-11) {
  return pagerankBySccGaussSeidel(graph, { damping: 0.85, tolerance, maxIterations: 1000, teleport, threads, kernel });
}

function assertSameBits(a: Float64Array, b: Float64Array, what: string): void {
  assert.equal(a.length, b.length);
  for (let v = 0; v < a.length; v++) if (a[v] !== b[v]) assert.fail(`${what}: page ${v}: ${a[v]} against ${b[v]}`);
}

describe('the WebAssembly Gauss-Seidel kernel', () => {
  it('is generated from its source: scripts/wasm-kernels.mjs assembles gauss-seidel.wat into the committed module', async () => {
    const { generatedKernel } = (await import(join(repoRoot, 'scripts', 'wasm-kernels.mjs'))) as {
      generatedKernel: (name: string, source: string) => Promise<string>;
    };
    const dir = join(repoRoot, 'src', 'analysis', 'kernels');
    const expected = await generatedKernel('gauss-seidel', readFileSync(join(dir, 'gauss-seidel.wat'), 'utf8'));
    assert.equal(readFileSync(join(dir, 'gauss-seidel-wasm.ts'), 'utf8'), expected, 'run node scripts/wasm-kernels.mjs');
  });

  it('gives the same bits as the JavaScript sweeps on cnr-2000, on 1 and 2 threads', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    assert.ok(graph.edgeCount >= LARGE_COMPONENT_LINKS && graph.edgeCount <= WASM_KERNEL_LINKS, "within 'auto''s range for the kernel");
    const scc = stronglyConnectedComponents(graph);
    for (const threads of [1, 2]) {
      const js = pagerankBySccGaussSeidel(graph, { damping: 0.85, tolerance: 1e-10, maxIterations: 1000, teleport: null, threads, scc, kernel: 'js' });
      const wasm = pagerankBySccGaussSeidel(graph, { damping: 0.85, tolerance: 1e-10, maxIterations: 1000, teleport: null, threads, scc, kernel: 'wasm' });
      assertSameBits(js.scores, wasm.scores, `cnr-2000, ${threads} threads`);
      assert.equal(js.iterations, wasm.iterations);
      assert.equal(js.equivalentIterations, wasm.equivalentIterations);
      // pagerank() takes the kernel by default here: the same vector again.
      assertSameBits(pagerank(graph, { solver: 'gauss-seidel', tolerance: 1e-10, threads }).scores, wasm.scores, `pagerank(), ${threads} threads`);
    }
  });

  it('gives the same bits with a personalised teleport, on random graphs whose giant component is swept by both threads', () => {
    const random = new Random(47);
    for (let trial = 0; trial < 4; trial++) {
      const n = 20_000 + random.nextInt(20_000);
      const collector = new EdgeCollector();
      for (let i = 0; i < 12 * n; i++) collector.addNumeric(random.nextInt(n), random.nextInt(n));
      const { graph } = collector.build();
      const teleport = trial % 2 === 0 ? null : new Float64Array(graph.nodeCount);
      if (teleport !== null) {
        for (let i = 0; i < 50; i++) teleport[random.nextInt(graph.nodeCount)] = 1 + random.nextInt(3);
        let total = 0;
        for (const t of teleport) total += t;
        for (let v = 0; v < teleport.length; v++) teleport[v]! /= total;
      }
      for (const threads of [1, 2]) {
        const js = solve(graph, 'js', threads, teleport);
        const wasm = solve(graph, 'wasm', threads, teleport);
        assertSameBits(js.scores, wasm.scores, `trial ${trial}, ${threads} threads`);
        assert.ok(wasm.converged);
        // And it is PageRank: against power iteration to 1e-12.
        const reference = pagerank(graph, { solver: 'power', tolerance: 1e-12, threads: 1, ...(teleport === null ? {} : { teleport }) });
        assert.ok(l1Distance(wasm.scores, reference.scores) < 1e-9, `trial ${trial}: L1 ${l1Distance(wasm.scores, reference.scores)}`);
      }
    }
  });

  it('hands out 8-byte-aligned arrays from one shared memory, and refuses to overflow it', () => {
    const memory = new KernelMemory(KernelMemory.bytesFor(3, 4) + KernelMemory.bytesFor(2, 8));
    const ints = memory.int32(3);
    const doubles = memory.float64(2);
    assert.equal(ints.byteOffset, 0);
    assert.equal(doubles.byteOffset, 16);
    assert.ok(ints.buffer instanceof SharedArrayBuffer);
    assert.equal(ints.buffer, doubles.buffer);
    // The memory is whole 64 KB pages: asking past them fails with a clear error.
    assert.throws(() => memory.float64(10_000), /kernel memory exhausted/);
    assert.throws(() => new KernelMemory(5 * 2 ** 30), /over WebAssembly's 4 GB/);
  });
});

describe("Gauss-Seidel's extrapolation of the large components' sweeps", () => {
  it('extrapolates by r / (1 - r) once the ratio of successive changes has held for two sweeps, and stops when one makes things worse', () => {
    const trend = new ChangeTrend();
    // Changes shrinking by 0.8 a sweep, far above the tolerance (mass 1, tolerance 1e-10).
    assert.equal(trend.extrapolation(1e-2, 1, 1e-10), 0);
    assert.equal(trend.extrapolation(8e-3, 1, 1e-10), 0);
    assert.equal(trend.extrapolation(6.4e-3, 1, 1e-10), 0);
    const factor = trend.extrapolation(5.12e-3, 1, 1e-10);
    assert.ok(Math.abs(factor - 0.8 / 0.2) < 1e-9, `factor ${factor}`);
    // The sweep after it changed more than the one before: no more extrapolation.
    assert.equal(trend.extrapolation(6e-3, 1, 1e-10), 0);
    for (let change = 4.8e-3; change > 1e-6; change *= 0.8) assert.equal(trend.extrapolation(change, 1, 1e-10), 0);
    // A ratio over 0.95, or changes within 100x of the tolerance: none.
    const slow = new ChangeTrend();
    for (let change = 1, k = 0; k < 10; k++, change *= 0.97) assert.equal(slow.extrapolation(change, 1, 1e-10), 0);
    const close = new ChangeTrend();
    for (let change = 1e-9, k = 0; k < 10; k++, change *= 0.8) assert.equal(close.extrapolation(change, 1, 1e-10), 0);
  });

  it('cuts the work on cnr-2000 and keeps the answer within the tolerance of power iteration, on 1 and 2 threads', async () => {
    const { graph } = await loadGraph(testData('cnr-2000', 'cnr-2000.graph'));
    const scc = stronglyConnectedComponents(graph);
    const reference = pagerank(graph, { solver: 'power', tolerance: 1e-13, maxIterations: 2000 }).scores;
    for (const threads of [1, 2]) {
      const run = (extrapolate: boolean) =>
        pagerankBySccGaussSeidel(graph, { damping: 0.85, tolerance: 5e-12, maxIterations: 1000, teleport: null, threads, scc, extrapolate });
      const plain = run(false);
      const extrapolated = run(true);
      assert.ok(extrapolated.equivalentIterations < 0.95 * plain.equivalentIterations, `${threads} threads: ${extrapolated.equivalentIterations} against ${plain.equivalentIterations}`);
      assert.ok(l1Distance(extrapolated.scores, reference) < 1e-11, `${threads} threads: L1 ${l1Distance(extrapolated.scores, reference)}`);
      assert.ok(l1Distance(plain.scores, reference) < 1e-11);
    }
  });
});
