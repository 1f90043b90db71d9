/**
 * The jackknife over HyperBall runs (src/analysis/jackknife.ts): on a linear statistic it is the
 * textbook mean and standard error; `wga distances --runs` puts the exact average distance and
 * effective diameter of hollins.edu within its intervals' reach.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { distances } from '../../src/app/distances.js';
import { jackknife, meanOfRuns, padRuns } from '../../src/analysis/jackknife.js';
import { loadGraph } from '../../src/formats/load.js';
import { testData } from '../helpers.js';

describe('jackknife over runs', () => {
  it('of a linear statistic is the mean with the standard error of the mean', () => {
    const runs = [[1, 4, 10], [1, 6, 12], [1, 5, 9], [1, 7, 13]];
    const estimate = jackknife(runs, (mean) => mean[2]!);
    const values = runs.map((r) => r[2]!);
    const mean = values.reduce((s, x) => s + x, 0) / values.length;
    const sampleVariance = values.reduce((s, x) => s + (x - mean) ** 2, 0) / (values.length - 1);
    assert.ok(Math.abs(estimate.estimate - mean) < 1e-12);
    assert.ok(Math.abs(estimate.standardError - Math.sqrt(sampleVariance / values.length)) < 1e-12);
    assert.throws(() => jackknife([[1]], (m) => m[0]!), RangeError);
  });

  it('pads shorter runs with their last value and averages element-wise', () => {
    const padded = padRuns([[1, 3], [1, 2, 5]]);
    assert.deepEqual(padded, [[1, 3, 3], [1, 2, 5]]);
    assert.deepEqual(meanOfRuns(padded), [1, 2.5, 4]);
    assert.deepEqual(meanOfRuns(padded, 0), [1, 2, 5]);
  });

  it('wga distances --runs 8 on hollins.edu: jackknife estimates near the exact values, with small standard errors', async () => {
    const source = await loadGraph(testData('hollins', 'hollins.edges.txt'));
    const exact = distances(source, { exact: true });
    const runs = distances(source, { runs: '8', log2m: '7', seed: '3', threads: '2' });
    assert.equal(runs.runs, 8);
    const jack = runs.jackknife!;
    assert.equal(jack.neighbourhoodError.length, runs.neighbourhood.length);
    assert.ok(jack.averageDistance.standardError > 0);
    // Runs hash the pages independently: their estimates of all connected pairs differ (a seed that only permuted the ids gave one value).
    assert.ok(jack.connectedPairs.standardError > 0);
    // 8 runs of 2^7 registers: each N(t) within about 9.2% / sqrt(8); the standard errors say so.
    assert.ok(jack.averageDistance.standardError / jack.averageDistance.estimate < 0.05, `${jack.averageDistance.standardError}`);
    assert.ok(Math.abs(jack.averageDistance.estimate - exact.averageDistance) / exact.averageDistance <= 0.02, `average distance ${jack.averageDistance.estimate} vs exact ${exact.averageDistance}`);
    assert.ok(Math.abs(jack.effectiveDiameter.estimate - exact.effectiveDiameter) <= 1, `effective diameter ${jack.effectiveDiameter.estimate} vs ${exact.effectiveDiameter}`);
    const pairsError = Math.abs(jack.connectedPairs.estimate - exact.connectedPairs);
    assert.ok(pairsError <= 4 * jack.connectedPairs.standardError + 1e-9 * exact.connectedPairs, `connected pairs ${jack.connectedPairs.estimate} ± ${jack.connectedPairs.standardError} vs exact ${exact.connectedPairs}`);
    assert.equal(exact.jackknife, null);
    assert.throws(() => distances(source, { exact: true, runs: '2' }), /--runs: is an option of HyperBall/);
  });
});
