/**
 * HyperBall (src/analysis/hyperball.ts) against the exact values (one breadth-first search per page,
 * src/analysis/centrality.ts and exactNeighbourhood) on hollins.edu, harvard500, a random graph and a
 * generated graph of 20,000 pages (10^5 pages: bench/hyperball.ts, the exact side takes minutes): the mean relative error of harmonic centrality within 1.5 times the
 * counters' relative standard deviation, the average distance within 2%, the effective diameter
 * within one step; Kendall's tau of the rankings reported.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { distanceCentralities } from '../../src/analysis/centrality.js';
import { kendallTau } from '../../src/analysis/compare.js';
import { distanceStatistics, exactNeighbourhood, hyperBall } from '../../src/analysis/hyperball.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { loadGraph } from '../../src/formats/load.js';
import { parseEdgeList } from '../../src/formats/edgelist.js';
import type { Graph } from '../../src/graph/graph.js';
import { cliPath, testData } from '../helpers.js';

const graphs: Array<[string, () => Promise<Graph>, number]> = [
  ['hollins.edu', async () => (await loadGraph(testData('hollins', 'hollins.edges.txt'))).graph, 10],
  ['harvard500', async () => (await loadGraph(testData('harvard500', 'harvard500.edges.tsv'))).graph, 10],
  ['a power-law graph of 20,000 pages', async () => powerLawGraph({ nodes: 20_000, seed: 3 }).graph, 6],
];

describe('HyperBall against exact distances', () => {
  for (const [name, load, log2m] of graphs) {
    it(`${name}, log2m ${log2m}`, async (t) => {
      const graph = await load();
      const estimated = hyperBall(graph, { log2m, seed: 11 });
      const exact = distanceCentralities(graph);
      let errorSum = 0;
      let counted = 0;
      for (let v = 0; v < graph.nodeCount; v++) {
        const truth = exact.harmonic[v]!;
        if (truth === 0) {
          assert.equal(estimated.harmonic[v], 0, `page ${v}: reached by none, estimated ${estimated.harmonic[v]}`);
          continue;
        }
        errorSum += Math.abs(estimated.harmonic[v]! - truth) / truth;
        counted++;
      }
      const meanError = errorSum / counted;
      const stats = distanceStatistics(estimated.neighbourhood);
      const truth = distanceStatistics(exactNeighbourhood(graph));
      const tau = kendallTau(exact.harmonic, estimated.harmonic);
      t.diagnostic(
        `${name}: ${estimated.iterations} iterations; mean relative error of harmonic ${(100 * meanError).toFixed(2)}% ` +
          `(RSD ${(100 * estimated.relativeStandardDeviation).toFixed(2)}%); average distance ${stats.averageDistance.toFixed(3)} ` +
          `(exact ${truth.averageDistance.toFixed(3)}); effective diameter ${stats.effectiveDiameter.toFixed(2)} (exact ${truth.effectiveDiameter.toFixed(2)}); Kendall tau ${tau.toFixed(4)}`,
      );
      assert.ok(meanError <= 1.5 * estimated.relativeStandardDeviation, `mean relative error ${meanError}`);
      assert.ok(Math.abs(stats.averageDistance - truth.averageDistance) / truth.averageDistance <= 0.02, `average distance ${stats.averageDistance} vs ${truth.averageDistance}`);
      assert.ok(Math.abs(stats.effectiveDiameter - truth.effectiveDiameter) <= 1, `effective diameter ${stats.effectiveDiameter} vs ${truth.effectiveDiameter}`);
    });
  }

  it('gives the same estimates on 1 and 2 threads', async () => {
    const graph = (await loadGraph(testData('hollins', 'hollins.edges.txt'))).graph;
    const one = hyperBall(graph, { log2m: 6, seed: 5, threads: 1 });
    const two = hyperBall(graph, { log2m: 6, seed: 5, threads: 2 });
    assert.equal(two.iterations, one.iterations);
    // N(t) is summed per thread, then over the threads: the same up to rounding.
    assert.equal(two.neighbourhood.length, one.neighbourhood.length);
    two.neighbourhood.forEach((pairs, t) => assert.ok(Math.abs(pairs - one.neighbourhood[t]!) <= 1e-9 * one.neighbourhood[t]!, `N(${t})`));
    assert.deepEqual(Array.from(two.harmonic), Array.from(one.harmonic));
    assert.deepEqual(Array.from(two.closeness), Array.from(one.closeness));
  });

  it('errs, over independent seeds, by the standard deviation it states: 100 counters of one set of 20,000 pages', () => {
    // A star: page 0's ball is every page, so its counter estimates |V| once per seed.
    const n = 20_000;
    let text = '';
    for (let v = 1; v < n; v++) text += `${v} 0\n`;
    const star = parseEdgeList(text, 'star', { ids: 'numeric' }).graph;
    const hub = star.labels.id('0');
    const errors: number[] = [];
    let rsd = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const result = hyperBall(star, { log2m: 8, seed });
      rsd = result.relativeStandardDeviation;
      errors.push((result.reach[hub]! + 1 - n) / n);
    }
    const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
    const sd = Math.sqrt(errors.reduce((a, b) => a + (b - mean) ** 2, 0) / (errors.length - 1));
    // 100 draws: the sample deviation within about 3 of its standard errors (7%) of the stated one, no bias.
    assert.ok(sd > 0.8 * rsd && sd < 1.2 * rsd, `deviation over seeds ${sd}, stated ${rsd}`);
    assert.ok(Math.abs(mean) < (3 * rsd) / Math.sqrt(errors.length), `mean error ${mean}`);
    assert.equal(new Set(errors).size > 90, true, 'seeds give independent hash functions');
  });

  it('gives the exact distance statistics of a path', () => {
    // 0 -> 1 -> 2 -> 3: pairs at distance 1: 3, 2: 2, 3: 1.
    const stats = distanceStatistics([4, 7, 9, 10]);
    assert.deepEqual(stats.distribution, [0.5, 2 / 6, 1 / 6]);
    assert.equal(stats.averageDistance, (3 + 4 + 3) / 6);
    assert.equal(stats.connectedPairs, 6);
    // 90% of 6 = 5.4 pairs: 5 within 2, 6 within 3: 2 + 0.4.
    assert.ok(Math.abs(stats.effectiveDiameter - 2.4) < 1e-12);
  });
});

describe('wga distances', () => {
  it('prints the exact statistics with --exact and HyperBall close to them otherwise', () => {
    const run = (...args: string[]): { averageDistance: number; effectiveDiameter: number; method: string; neighbourhood: number[]; relativeStandardDeviation: number } => {
      const result = spawnSync(process.execPath, [cliPath, 'distances', testData('harvard500', 'harvard500.edges.tsv'), '--json', ...args], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(result.stdout);
    };
    const exact = run('--exact');
    assert.equal(exact.method, 'exact');
    assert.equal(exact.neighbourhood[0], 500);
    const estimate = run('--log2m', '10');
    assert.equal(estimate.method, 'hyperball');
    assert.ok(Math.abs(estimate.averageDistance - exact.averageDistance) / exact.averageDistance < 0.02);
    assert.ok(Math.abs(estimate.effectiveDiameter - exact.effectiveDiameter) <= 1);
    const bad = spawnSync(process.execPath, [cliPath, 'distances', testData('harvard500', 'harvard500.edges.tsv'), '--exact', '--log2m', '6'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^wga: --log2m/);
  });
});
