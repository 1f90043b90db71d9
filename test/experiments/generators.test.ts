import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inDegrees } from '../../src/analysis/degrees.js';
import { OptionError } from '../../src/errors.js';
import { poissonGraph, powerLawGraph } from '../../src/experiments/generators.js';

describe('graph generators', () => {
  it('draws power-law in-degrees P(k) ~ k^-2.1, reproducibly from the seed', () => {
    const { graph, report } = powerLawGraph({ nodes: 50_000, seed: 3 });
    assert.equal(graph.nodeCount, 50_000);
    assert.equal(report.selfLoopsDropped, 0);
    assert.equal(report.duplicatesDropped, 0);
    const degrees = inDegrees(graph);
    const share = (k: number): number => degrees.filter((d) => d === k).length / degrees.length;
    // Truncated zeta(2.1): P(1) = 1/zeta(2.1) = 0.6410..., P(2) = P(1) * 2^-2.1.
    let zeta = 0;
    for (let k = 1; k < 50_000; k++) zeta += k ** -2.1;
    assert.ok(Math.abs(share(1) - 1 / zeta) < 0.01, `P(1) = ${share(1)}`);
    assert.ok(Math.abs(share(2) - 2 ** -2.1 / zeta) < 0.01, `P(2) = ${share(2)}`);
    assert.ok(Math.abs(share(10) - 10 ** -2.1 / zeta) < 0.002, `P(10) = ${share(10)}`);
    assert.ok(Math.max(...degrees) > 1000, 'a heavy tail');
    const again = powerLawGraph({ nodes: 50_000, seed: 3 }).graph;
    assert.deepEqual(again.outTargets, graph.outTargets);
    const other = powerLawGraph({ nodes: 50_000, seed: 4 }).graph;
    assert.notDeepEqual(other.outTargets, graph.outTargets);
  });

  it('makes the requested share of pages dangling', () => {
    const { graph } = powerLawGraph({ nodes: 20_000, danglingShare: 0.25, seed: 1 });
    let dangling = 0;
    for (let v = 0; v < graph.nodeCount; v++) if (graph.outDegree(v) === 0) dangling++;
    assert.ok(Math.abs(dangling / graph.nodeCount - 0.25) < 0.02, `${dangling}`);
  });

  it('draws Poisson in-degrees with the requested mean and variance', () => {
    const { graph } = poissonGraph({ nodes: 40_000, meanInDegree: 8, seed: 2 });
    const degrees = inDegrees(graph);
    const mean = degrees.reduce((s, d) => s + d, 0) / degrees.length;
    const variance = degrees.reduce((s, d) => s + (d - mean) ** 2, 0) / degrees.length;
    assert.ok(Math.abs(mean - 8) < 0.1, `mean ${mean}`);
    assert.ok(Math.abs(variance - 8) < 0.4, `variance ${variance}`);
  });

  it('rejects impossible parameters', () => {
    assert.throws(() => powerLawGraph({ nodes: 1 }), OptionError);
    assert.throws(() => powerLawGraph({ nodes: 10, exponent: 1 }), OptionError);
    assert.throws(() => powerLawGraph({ nodes: 10, danglingShare: 1 }), OptionError);
    assert.throws(() => poissonGraph({ nodes: 10, meanInDegree: -1 }), OptionError);
  });
});
