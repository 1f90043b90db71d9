import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdaptiveOpic } from '../../src/analysis/adaptive-opic.js';
import { Opic } from '../../src/analysis/opic.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { OptionError } from '../../src/errors.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { maxAbsDifference } from '../helpers.js';

/** A strongly connected random graph (a cycle plus random links), some pages with many links. */
function connectedGraph(n: number, seed: number, extra = 3): Graph {
  const random = new Random(seed);
  const collector = new EdgeCollector();
  for (let v = 0; v < n; v++) {
    collector.addNumeric(v, (v + 1) % n);
    const links = random.nextInt(extra + 1) + (v % 7 === 0 ? 10 : 0);
    for (let k = 0; k < links; k++) collector.addNumeric(v, random.nextInt(n));
  }
  return collector.build().graph;
}

function readMany(opic: Opic, graph: Graph, reads: number, strategy: 'greedy' | 'random' | 'cycle', check?: () => void): void {
  for (let r = 0; r < reads; r++) {
    const page = opic.next(strategy);
    opic.read(page, graph.successors(page));
    check?.();
  }
}

describe('OPIC', () => {
  it('keeps the total cash at 1 through a million reads (Lemma 2.2), with every strategy and option', () => {
    const graph = connectedGraph(2000, 1);
    for (const [strategy, options] of [
      ['greedy', {}],
      ['random', { discoveryShare: 0.3 }],
      ['cycle', { focusShare: 0.2, discoveryShare: 0.1 }],
    ] as const) {
      const opic = new Opic(options);
      for (let v = 0; v < graph.nodeCount; v++) opic.addPage(v % 10 === 0);
      opic.distributeInitialCash(Int32Array.from({ length: graph.nodeCount }, (_, i) => i));
      readMany(opic, graph, 350_000, strategy);
      assert.ok(Math.abs(opic.totalCash() - 1) < 1e-10, `${strategy}: ${opic.totalCash()}`);
      const estimates = opic.estimates();
      assert.ok(Math.abs(estimates.reduce((s, x) => s + x, 0) - 1) < 1e-10);
      assert.equal(opic.reads, 350_000);
    }
  });

  it('satisfies Lemma 2.3 after every read: H[j] + C[j] = C0[j] + sum over parents c H[i]/out[i] + virtual/n', () => {
    const n = 40;
    const graph = connectedGraph(n, 2);
    // Some dangling pages too: page reads with no links give all cash to the virtual page.
    const dangling = new Set([3, 17]);
    const links = (v: number): Int32Array => (dangling.has(v) ? new Int32Array(0) : graph.successors(v));
    const opic = Opic.withPages(n);
    const random = new Random(3);
    for (let r = 0; r < 3000; r++) {
      const page = r % 3 === 0 ? random.nextInt(n) : opic.next('greedy');
      opic.read(page, links(page));
      for (let j = 0; j < n; j++) {
        let expected = 1 / n + opic.virtualHistory / n;
        for (const i of graph.predecessors(j)) {
          if (!dangling.has(i)) expected += (0.85 * opic.historyOf(i)) / graph.outDegree(i);
        }
        const actual = opic.historyOf(j) + opic.cashOf(j);
        assert.ok(Math.abs(actual - expected) < 1e-12, `read ${r}, page ${j}: ${actual} vs ${expected}`);
      }
    }
  });

  it('converges to PageRank with damping c: the fixpoint of the graph with the virtual page', () => {
    const n = 300;
    const graph = connectedGraph(n, 4);
    // The graph with the virtual page V as a Markov chain: i -> child with c/out(i), i -> V with 1 - c, V -> every page 1/n.
    const c = 0.85;
    let x = new Float64Array(n + 1).fill(1 / (n + 1));
    for (let iteration = 0; iteration < 2000; iteration++) {
      const next = new Float64Array(n + 1);
      for (let i = 0; i < n; i++) {
        for (const j of graph.successors(i)) next[j]! += (c * x[i]!) / graph.outDegree(i);
        next[n]! += (1 - c) * x[i]!;
      }
      for (let j = 0; j < n; j++) next[j]! += x[n]! / n;
      x = next;
    }
    // Without V and renormalised, its stationary distribution is PageRank.
    const augmented = Float64Array.from(x.subarray(0, n), (v) => v / (1 - x[n]!));
    const exact = pagerank(graph, { damping: c, tolerance: 1e-14 }).scores;
    assert.ok(maxAbsDifference(augmented, exact) < 1e-12);
    for (const strategy of ['greedy', 'cycle', 'random'] as const) {
      const opic = Opic.withPages(n);
      readMany(opic, graph, 400 * n, strategy);
      const estimates = opic.estimates();
      let worst = 0;
      for (let j = 0; j < n; j++) worst = Math.max(worst, Math.abs(estimates[j]! - exact[j]!) / exact[j]!);
      assert.ok(worst < (strategy === 'random' ? 0.05 : 0.01), `${strategy}: worst relative error ${worst}`);
      assert.ok(opic.errorFactor < 0.02, `${strategy}: error factor ${opic.errorFactor}`);
    }
  });

  it('Greedy reads the page with the most cash, and gains about twice as much G per read as Random', () => {
    const n = 1000;
    const graph = connectedGraph(n, 5);
    const greedy = Opic.withPages(n);
    const random = Opic.withPages(n);
    readMany(greedy, graph, 20 * n, 'greedy');
    readMany(random, graph, 20 * n, 'random');
    const before = [greedy.time, random.time];
    for (let r = 0; r < 10 * n; r++) {
      const page = greedy.next('greedy');
      if (r % 997 === 0) {
        let best = 0;
        for (let j = 0; j < n; j++) best = Math.max(best, greedy.cashOf(j));
        assert.equal(greedy.cashOf(page), best);
      }
      greedy.read(page, graph.successors(page));
      const other = random.next('random');
      random.read(other, graph.successors(other));
    }
    const greedyGain = (greedy.time - before[0]!) / (10 * n);
    const randomGain = (random.time - before[1]!) / (10 * n);
    assert.ok(Math.abs(randomGain * n - 1) < 0.1, `random gains ${randomGain * n}/n per read`);
    // The paper's estimate is 2/n for Greedy (cash accumulated linearly between reads); hubs make it more here.
    assert.ok(greedyGain > 1.7 * randomGain, `greedy gains ${greedyGain * n}/n per read`);
  });

  it('gives cash and an estimate to pages seen only as link targets', () => {
    const opic = new Opic();
    const home = opic.addPage();
    opic.distributeInitialCash([home]);
    const found = [opic.addPage(), opic.addPage(), opic.addPage()];
    opic.read(home, found);
    for (const page of found) {
      assert.equal(opic.isRead(page), false);
      assert.ok(Math.abs(opic.cashOf(page) - (0.85 / 3 + 0.15 / 4)) < 1e-15);
      assert.ok(opic.estimate(page) > 0);
    }
    assert.ok(Math.abs(opic.totalCash() - 1) < 1e-15);
    assert.equal(opic.next('greedy'), found[0]);
  });

  it("steers the virtual page's cash to unread pages (discovery) and to focus pages", () => {
    const build = (options: { discoveryShare?: number; focusShare?: number }): Opic => {
      const opic = new Opic(options);
      for (let i = 0; i < 10; i++) opic.addPage(i === 9);
      opic.distributeInitialCash(Int32Array.from({ length: 10 }, (_, i) => i));
      opic.read(0, []);
      return opic;
    };
    const plain = build({});
    const discovery = build({ discoveryShare: 1 });
    const focus = build({ focusShare: 0.5 });
    // Page 0 gave its 0.1 to the virtual page.
    assert.ok(Math.abs(plain.cashOf(5) - (0.1 + 0.01)) < 1e-15);
    assert.ok(Math.abs(discovery.cashOf(0) - 0) < 1e-15, 'page 0 is read: no discovery cash');
    assert.ok(Math.abs(discovery.cashOf(5) - (0.1 + 0.1 / 9)) < 1e-15);
    assert.ok(Math.abs(focus.cashOf(9) - (0.1 + 0.05 + 0.005)) < 1e-15);
    for (const opic of [plain, discovery, focus]) assert.ok(Math.abs(opic.totalCash() - 1) < 1e-15);
  });

  it('keeps rows only for pages read, and for the others their found-at clock as steps (issue 38)', () => {
    // A wide crawl: each read finds 30 new pages, so most known pages are never read.
    const random = new Random(5);
    for (const options of [{}, { discoveryShare: 0.3, focusShare: 0.1 }]) {
      const opic = new Opic(options);
      opic.distributeInitialCash([opic.addPage()]);
      const foundAt: number[] = [0];
      const readPages = new Set<number>();
      for (let r = 0; r < 300; r++) {
        const page = r % 7 === 6 ? random.nextInt(opic.pages) : opic.greediest();
        const links: number[] = [];
        for (let k = 0; k < 30; k++) {
          foundAt.push(opic.time);
          links.push(opic.addPage(random.nextInt(10) === 0));
        }
        links.push(random.nextInt(opic.pages));
        opic.read(page, links);
        readPages.add(page);
        assert.ok(Math.abs(opic.totalCash() - 1) < 1e-12, `total cash after read ${r}`);
      }
      assert.equal(opic.rowsUsed, readPages.size, 'one row per page read');
      for (let i = 0; i < opic.pages; i++) {
        if (readPages.has(i)) {
          assert.ok(opic.readRow(i) >= 0 && opic.readsOf(i) >= 1);
          continue;
        }
        assert.equal(opic.readRow(i), -1, `page ${i} unread: no row`);
        assert.equal(opic.historyOf(i), 0);
        assert.equal(opic.readsOf(i), 0);
        assert.equal(opic.lastReadTime(i), foundAt[i], `page ${i}: the clock when it was found`);
        assert.ok(opic.cashOf(i) >= 0);
      }
      assert.ok(opic.pages > 9000 && readPages.size < 300);
    }
  });

  it('rejects bad options and unknown pages', () => {
    assert.throws(() => new Opic({ damping: 1.5 }), OptionError);
    assert.throws(() => new Opic({ discoveryShare: 0.7, focusShare: 0.5 }), OptionError);
    const opic = Opic.withPages(3);
    assert.throws(() => opic.read(0, [7]), OptionError);
    assert.throws(() => opic.distributeInitialCash([0]), OptionError);
  });
});

describe('Adaptive OPIC', () => {
  it('keeps for each page never read the default rate it was given when found, as reads change the default', () => {
    const adaptive = new AdaptiveOpic({ kind: 'interpolation', window: 2 });
    adaptive.opic.distributeInitialCash([adaptive.addPage()]);
    const given: number[] = [adaptive.rate(0)];
    const random = new Random(9);
    const defaults = new Set<number>();
    for (let r = 0; r < 200; r++) {
      const links: number[] = [];
      for (let k = 0; k < 5; k++) {
        const page = adaptive.addPage();
        given.push(adaptive.rate(page));
        defaults.add(adaptive.rate(page));
        links.push(page);
      }
      adaptive.read(r % 3 === 2 ? random.nextInt(adaptive.pages) : adaptive.opic.greediest(), links);
    }
    assert.ok(defaults.size > 20, `the default changed ${defaults.size} times`);
    let unread = 0;
    for (let i = 0; i < adaptive.pages; i++) {
      if (adaptive.opic.isRead(i)) continue;
      unread++;
      assert.equal(adaptive.rate(i), given[i], `page ${i}`);
      assert.equal(adaptive.windowRate(i), given[i]);
    }
    assert.ok(unread > 700);
  });

  it("updates the interpolated history with the paper's formula", () => {
    const adaptive = new AdaptiveOpic({ kind: 'interpolation', window: 2 });
    const a = adaptive.addPage();
    const b = adaptive.addPage();
    adaptive.opic.distributeInitialCash([a, b]);
    // a: never read before, created at G = 0; read at G = 0.5 with 0.5 credited: D = 0.5 < T = 2.
    adaptive.read(a, [b]);
    assert.ok(Math.abs(adaptive.rate(a) - 0.5 / 2) < 1e-15);
    // b gets 0.5 + 0.85 * 0.5 + 0.15 * 0.5 / 2 = 0.9625 and is read at G = 1.4625: D = 1.4625 < 2, H = 0 + 0.9625.
    adaptive.read(b, [a]);
    assert.ok(Math.abs(adaptive.rate(b) - 0.9625 / 2) < 1e-15);
    // a again at G = 1.4625 + C: D = G - 0.5.
    const gBefore = adaptive.opic.time;
    const cash = adaptive.opic.cashOf(a);
    adaptive.read(a, [b]);
    const elapsed = gBefore + cash - 0.5;
    const expected = elapsed < 2 ? (0.5 * (2 - elapsed)) / 2 + cash : (cash * 2) / elapsed;
    assert.ok(Math.abs(adaptive.rate(a) - expected / 2) < 1e-15);
  });

  it('keeps k measures (variable window), the reads of the last T (fixed), at least a minimum (improved)', () => {
    const n = 200;
    const graph = connectedGraph(n, 6);
    const variable = AdaptiveOpic.withPages(n, { kind: 'variable', measures: 4 });
    const fixed = AdaptiveOpic.withPages(n, { kind: 'fixed', window: 1 });
    const improved = AdaptiveOpic.withPages(n, { kind: 'improved-fixed', window: 1, minimumMeasures: 3 });
    const interpolation = AdaptiveOpic.withPages(n, { kind: 'interpolation', window: 4 });
    for (const adaptive of [variable, fixed, improved, interpolation]) {
      for (let r = 0; r < 30 * n; r++) {
        const page = adaptive.next('greedy');
        adaptive.read(page, graph.successors(page));
      }
    }
    assert.ok(Math.abs(variable.measuresPerPage() - 4) < 1e-12);
    assert.ok(fixed.measuresPerPage() < improved.measuresPerPage());
    assert.ok(improved.measuresPerPage() >= 3);
    assert.equal(interpolation.measuresPerPage(), 1);
    const exact = pagerank(graph).scores;
    for (const [name, adaptive] of [
      ['variable', variable],
      ['improved', improved],
      ['interpolation', interpolation],
    ] as const) {
      const estimates = adaptive.estimates();
      assert.ok(Math.abs(estimates.reduce((s, x) => s + x, 0) - 1) < 1e-12);
      let error = 0;
      for (let j = 0; j < n; j++) error += Math.abs(estimates[j]! - exact[j]!) / exact[j]! / n;
      assert.ok(error < 0.2, `${name}: mean relative error ${error}`);
    }
  });
});
