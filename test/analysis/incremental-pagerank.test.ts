import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IncrementalPageRank } from '../../src/analysis/incremental-pagerank.js';
import { linksSeenPageRank } from '../../src/analysis/links-seen-pagerank.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { topOfVector } from '../../src/crawl/live-state.js';
import { Random } from '../../src/util/random.js';
import { l1Distance, maxAbsDifference } from '../helpers.js';
import { densePageRank } from '../reference.js';

describe('IncrementalPageRank', () => {
  it('equals the dense PageRank of a small graph with dangling pages, built page by page', () => {
    // 0 -> 1, 2; 1 -> 2; 2 -> 0; 3 -> 2; 4 dangling, 5 dangling (never fetched).
    const lists: number[][] = [[1, 2], [2], [0], [2], [], []];
    const live = new IncrementalPageRank(0.85);
    live.growTo(3);
    live.setLinks(0, [1, 2]);
    live.solve(1e-8);
    live.growTo(6);
    live.setLinks(1, [2]);
    live.setLinks(2, [0]);
    live.solve(1e-8);
    live.setLinks(3, [2]);
    live.solve(1e-12);
    const edges = lists.flatMap((targets, u) => targets.map((v) => [u, v] as [number, number]));
    const expected = densePageRank(6, edges);
    // A fetched page's residual starts from its single-precision waiting score (the engine's
    // header): the pushes alone are within 1e-7; recomputed from its definition, as finish() does, to the tolerance.
    assert.ok(maxAbsDifference(live.scores(), expected) < 1e-7, `${live.scores()} vs ${expected}`);
    live.refreshResidual();
    live.solve(1e-12);
    assert.ok(maxAbsDifference(live.scores(), expected) < 1e-11, `${live.scores()} vs ${expected}`);
  });

  it('carries on from an exported state (as when the updates move to the worker thread)', () => {
    const first = new IncrementalPageRank(0.85);
    first.growTo(4);
    first.setLinks(0, [1, 2, 3]);
    first.setLinks(1, [0]);
    first.solve(1e-3, 2);
    const next = IncrementalPageRank.fromState(structuredClone(first.exportState()));
    assert.equal(next.pending, first.pending);
    next.growTo(5);
    next.setLinks(2, [3, 4]);
    next.solve(1e-12);
    const expected = densePageRank(5, [[0, 1], [0, 2], [0, 3], [1, 0], [2, 3], [2, 4]]);
    assert.ok(maxAbsDifference(next.scores(), expected) < 1e-7);
    next.refreshResidual();
    next.solve(1e-12);
    assert.ok(maxAbsDifference(next.scores(), expected) < 1e-11);
    assert.equal(next.linkCount, 6);
  });

  it('follows links replaced by a refetch', () => {
    const live = new IncrementalPageRank(0.85);
    live.growTo(4);
    live.setLinks(0, [1, 2, 3]);
    live.setLinks(1, [0]);
    live.solve(1e-6);
    live.setLinks(0, [3]);
    live.addLinks(2, [3]);
    live.solve(1e-12);
    const expected = densePageRank(4, [[0, 3], [1, 0], [2, 3]]);
    assert.ok(maxAbsDifference(live.scores(), expected) < 1e-7);
    live.refreshResidual();
    live.solve(1e-12);
    assert.ok(maxAbsDifference(live.scores(), expected) < 1e-11);
    assert.equal(live.linkCount, 3);
  });

  it('matches pagerank() on a 20,000-page power-law graph read in a random order, with few pushes per change', () => {
    const { graph } = powerLawGraph({ nodes: 20_000, seed: 3, danglingShare: 0.1 });
    const n = graph.nodeCount;
    const order = Int32Array.from({ length: n }, (_, i) => i);
    const random = new Random(5);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random.next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const live = new IncrementalPageRank(0.85);
    live.growTo(n);
    let updates = 0;
    for (let i = 0; i < n; i++) {
      const u = order[i]!;
      live.setLinks(u, graph.successors(u));
      if (i % 500 === 499) {
        live.solve(1e-6);
        updates++;
      }
    }
    live.refreshResidual();
    live.solve(1e-11);
    const exact = pagerank(graph, { tolerance: 1e-12 }).scores;
    assert.ok(l1Distance(live.scores(), exact) < 1e-10, `L1 ${l1Distance(live.scores(), exact)}`);
    assert.ok(live.errorBound() < 1e-10);
    assert.equal(updates, 40);
  });

  it("brings the fetched pages' scores to the PageRank by sweeps before the final pushes (the crawl's end), waiting pages dangling", () => {
    const { graph } = powerLawGraph({ nodes: 20_000, seed: 11, danglingShare: 0.1 });
    const n = graph.nodeCount;
    // Pages 0 .. 14,999 fetched (their links set), the others waiting: dangling in the exact vector.
    const fetched = 15_000;
    const build = (): IncrementalPageRank => {
      const live = new IncrementalPageRank(0.85, { guessUnfetched: true });
      live.growTo(n);
      for (let u = 0; u < fetched; u++) live.setLinks(u, graph.successors(u));
      live.solve(1e-3);
      live.stopGuessing();
      return live;
    };
    const swept = build();
    const sweeps = swept.sweepFetched(1e-11);
    assert.ok(sweeps > 5 && sweeps < 200, `${sweeps} sweeps`);
    swept.refreshResidual();
    const pushesAfter = swept.solve(1e-11).pushes;
    const pushed = build();
    pushed.refreshResidual();
    const pushesAlone = pushed.solve(1e-11).pushes;
    // The sweeps leave a small part of the pushes (most pages under the threshold).
    assert.ok(pushesAfter * 5 < pushesAlone, `${pushesAfter} pushes after the sweeps, ${pushesAlone} without`);
    // The same vector as the pushes alone (tested against pagerank() above), to the tolerance.
    const difference = l1Distance(swept.exactScores(), pushed.exactScores());
    assert.ok(difference < 2e-11, `L1 ${difference}`);
    assert.ok(swept.errorBound() < 1e-11 && pushed.errorBound() < 1e-11);
    // Waiting pages got what their fetched in-neighbours send, and their source.
    const total = swept.exactScores();
    assert.ok(total[n - 1]! > 0);
  });

  describe('with the links-seen guess for waiting pages (the crawler\'s live estimate)', () => {
    /** The links-seen estimate solved from scratch, for pages 0 .. n - 1 of `lists`, the fetched ones' links known. */
    function fromScratch(lists: number[][], fetched: Uint8Array): Float64Array {
      const n = lists.length;
      const offsets = new Uint32Array(n + 1);
      for (let u = 0; u < n; u++) offsets[u + 1] = offsets[u]! + (fetched[u] === 1 ? lists[u]!.length : 0);
      const targets = new Int32Array(offsets[n]!);
      for (let u = 0; u < n; u++) if (fetched[u] === 1) targets.set(lists[u]!, offsets[u]!);
      return linksSeenPageRank({ known: n, offsets, targets, fetched }, 0.85, 1e-14).scores;
    }

    it('equals the from-scratch solve (links-seen-pagerank.ts) at every stage of a crawl, refetches included; exactScores() is the PageRank with waiting pages dangling', () => {
      const { graph } = powerLawGraph({ nodes: 2_000, seed: 11, danglingShare: 0.1 });
      const n = graph.nodeCount;
      const lists = Array.from({ length: n }, (_, u) => Array.from(graph.successors(u)).filter((t) => t !== u));
      const random = new Random(9);
      const live = new IncrementalPageRank(0.85, { guessUnfetched: true });
      live.growTo(n);
      const fetched = new Uint8Array(n);
      let checks = 0;
      for (let step = 1; step <= 1500; step++) {
        const u = Math.floor(random.next() * n);
        // A refetch finds some of its links gone (refetches replace the list).
        const links = fetched[u] === 1 ? lists[u]!.filter((_, i) => i % 2 === 0) : lists[u]!;
        lists[u] = links;
        live.setLinks(u, links);
        fetched[u] = 1;
        if (step % 100 === 0) live.solve(1e-6);
        if (step % 500 === 0) {
          live.refreshResidual();
          live.solve(1e-12);
          const expected = fromScratch(lists, fetched);
          // The guessed vector reads the waiting pages' single-precision scores and guesses (the engine's
          // header): about 2e-8 in L1 here, far below the live tolerance of 1e-5.
          assert.ok(l1Distance(live.scores(), expected) < 1e-7, `step ${step}: L1 ${l1Distance(live.scores(), expected)}`);
          // Without the guess: the PageRank of the graph with the waiting pages dangling.
          const edges = lists.flatMap((targets, v) => (fetched[v] === 1 ? targets.map((t) => [v, t] as [number, number]) : []));
          assert.ok(maxAbsDifference(live.exactScores(), densePageRank(n, edges)) < 1e-11);
          assert.ok(live.waiting > 0 && live.waiting === n - fetched.reduce((a, b) => a + b, 0));
          // The guess moves the vector: it is not the dangling one.
          assert.ok(l1Distance(live.scores(), live.exactScores()) > 1e-3);
          // top(k) is the best of the vector without building it, the same values bit for bit.
          for (const [exact, vector] of [[false, live.scores()], [true, live.exactScores()]] as const) {
            const best = live.top(50, exact);
            assert.deepEqual(best, topOfVector(vector, 50));
            assert.equal(best.length, 50);
            assert.ok(best.every(([, value], i) => i === 0 || value <= best[i - 1]![1]));
          }
          checks++;
        }
      }
      assert.equal(checks, 3);
    });

    it('is the PageRank once no page waits, and carries on from an exported state', () => {
      // 0 -> 1, 2; 1 -> 2; 2 -> 0, 3; 3 fetched without links; 4 waits until the end.
      const first = new IncrementalPageRank(0.85, { guessUnfetched: true });
      first.growTo(5);
      first.setLinks(0, [1, 2]);
      first.setLinks(1, [2]);
      first.solve(1e-3, 2);
      const next = IncrementalPageRank.fromState(structuredClone(first.exportState()));
      assert.ok(next.guessUnfetched);
      next.setLinks(2, [0, 3, 4]);
      next.setLinks(3, []);
      next.solve(1e-12);
      const lists = [[1, 2], [2], [0, 3, 4], [], []];
      const fetched = Uint8Array.from([1, 1, 1, 1, 0]);
      // Page 4 waits: its guessed entry is single precision (the engine's header).
      assert.ok(maxAbsDifference(next.scores(), fromScratch(lists, fetched)) < 1e-7);
      // Page 4's mass follows the links seen: 2 gets two shares of five (from 0 and 1), 0, 1, 3 and 4 one each.
      assert.ok(next.scores()[2]! > next.exactScores()[2]!);
      // Dropping the guess (as the final solve does) leaves the PageRank with page 4 dangling.
      const dropped = IncrementalPageRank.fromState(structuredClone(next.exportState()));
      dropped.stopGuessing();
      dropped.refreshResidual();
      dropped.solve(1e-12);
      assert.equal(dropped.guessUnfetched, false);
      const stored = densePageRank(5, [[0, 1], [0, 2], [1, 2], [2, 0], [2, 3], [2, 4]]);
      assert.ok(maxAbsDifference(dropped.scores(), stored) < 1e-11);
      assert.deepEqual(dropped.scores(), dropped.exactScores());
      next.setLinks(4, []);
      next.solve(1e-12);
      const edges: Array<[number, number]> = [[0, 1], [0, 2], [1, 2], [2, 0], [2, 3], [2, 4]];
      assert.ok(maxAbsDifference(next.scores(), densePageRank(5, edges)) < 1e-7);
      next.refreshResidual();
      next.solve(1e-12);
      assert.ok(maxAbsDifference(next.scores(), densePageRank(5, edges)) < 1e-11);
      assert.ok(maxAbsDifference(next.exactScores(), densePageRank(5, edges)) < 1e-11);
      assert.equal(next.waiting, 0);
    });
  });
});
