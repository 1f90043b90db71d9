/**
 * The store test suite, run against every backend (SQLite and PostgreSQL):
 * round trips of real graphs, the queries of the paper's GUI, runs and
 * scores, hostile URLs, atomic imports and concurrent writers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pagerank } from '../../src/analysis/pagerank.js';
import { stronglyConnectedComponents } from '../../src/analysis/scc.js';
import { topK } from '../../src/analysis/top.js';
import { InputFormatError } from '../../src/errors.js';
import { type LoadedGraph, loadGraph } from '../../src/formats/load.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import { GRAPH_LINK_KINDS, type LinkKind, type Store } from '../../src/store/store.js';
import { LINK_KIND_CODES } from '../../src/store/schema.js';
import { l1Distance, testData } from '../helpers.js';

export interface Backend {
  name: string;
  /** A fresh, empty store. */
  open(): Promise<Store>;
  /** Runs `writers` concurrent writers (processes or connections) that each add pages and links; resolves when all are done. */
  concurrentWriters(writers: number, pagesEach: number): Promise<void>;
}

export function storeSuite(backend: Backend): void {
  describe(`${backend.name} store`, () => {
    let cnr: LoadedGraph;
    let hollins: LoadedGraph;
    before(async () => {
      cnr = await loadGraph(testData('cnr-2000', 'cnr-2000.edges.tsv.gz'));
      hollins = await loadGraph(testData('hollins', 'hollins.edges.txt'), { labelsPath: testData('hollins', 'hollins.urls.txt') });
    });

    it('round-trips cnr-2000 with identical stats and PageRank', async () => {
      const store = await backend.open();
      try {
        const report = await store.importGraph(cnr.graph);
        assert.equal(report.pagesAdded, 325_557);
        assert.equal(report.linksAdded, 3_128_710);
        const { graph, pageIds } = await store.loadGraph();
        assert.equal(graph.nodeCount, cnr.graph.nodeCount);
        assert.equal(graph.edgeCount, cnr.graph.edgeCount);
        assert.equal(pageIds.length, graph.nodeCount);
        // Same labels in the same order, same links.
        for (let v = 0; v < graph.nodeCount; v += 9973) {
          assert.equal(graph.labels.label(v), cnr.graph.labels.label(v));
          assert.deepEqual(Array.from(graph.successors(v)), Array.from(cnr.graph.successors(v)));
        }
        const scc = stronglyConnectedComponents(graph);
        assert.equal(scc.count, 100_977);
        assert.equal(scc.largest, 112_023);
        const a = pagerank(graph).scores;
        const b = pagerank(cnr.graph).scores;
        assert.ok(l1Distance(a, b) < 1e-15);
        const counts = await store.counts();
        assert.equal(counts.pages, 325_557);
        assert.equal(counts.links, 3_128_710);
      } finally {
        await store.close();
      }
    });

    describe('queries on hollins.edu', () => {
      let store: Store;
      before(async () => {
        store = await backend.open();
        await store.importGraph(hollins.graph);
      });
      after(async () => store.close());

      it('finds pages by URL, substring and prefix', async () => {
        const home = await store.pageByUrl('http://www.hollins.edu/');
        assert.ok(home !== null);
        assert.equal(home.url, 'http://www.hollins.edu/');
        assert.equal(home.host, 'www.hollins.edu');
        assert.equal((await store.pageByUrl('HTTP://WWW.Hollins.edu:80/#x'))?.id, home.id, 'found by its normalised form');
        assert.equal(await store.pageByUrl('http://www.hollins.edu/nothing-here'), null);
        const admissions = await store.searchPages('admissions', { limit: 1000 });
        const expected = Array.from({ length: hollins.graph.nodeCount }, (_, v) => hollins.graph.labels.label(v)).filter((u) => u.includes('admissions'));
        assert.deepEqual(admissions.map((p) => p.url).sort(), expected.sort());
        const prefixed = await store.searchPages('http://www1.hollins.edu/Docs/', { mode: 'prefix', limit: 1000 });
        assert.ok(prefixed.length > 0);
        assert.ok(prefixed.every((p) => p.url.startsWith('http://www1.hollins.edu/Docs/')));
      });

      it("gives a page's in- and out-links with URLs, and its degrees", async () => {
        const v = hollins.graph.labels.id('http://www.hollins.edu/');
        const home = (await store.pageByUrl('http://www.hollins.edu/'))!;
        const out = await store.links(home.id, 'out');
        const into = await store.links(home.id, 'in');
        const label = (w: number) => hollins.graph.labels.label(w);
        assert.deepEqual(out.map((l) => l.url).sort(), Array.from(hollins.graph.successors(v), label).sort());
        assert.deepEqual(into.map((l) => l.url).sort(), Array.from(hollins.graph.predecessors(v), label).sort());
        assert.ok(out.every((l) => l.kind === 'anchor' && !l.nofollow));
        assert.deepEqual(await store.degrees(home.id), { inDegree: hollins.graph.inDegree(v), outDegree: hollins.graph.outDegree(v) });
      });

      it('searches pages by the URLs of their neighbours ("pages linking to X")', async () => {
        const target = 'http://www.hollins.edu/admissions/visit/visit.htm';
        const v = hollins.graph.labels.id(target);
        const linking = await store.searchByNeighbour(target, 'in', { mode: 'prefix', limit: 10_000 });
        const expected = new Set<string>();
        for (let w = 0; w < hollins.graph.nodeCount; w++) {
          if (!hollins.graph.labels.label(w).startsWith(target)) continue;
          for (const u of hollins.graph.predecessors(w)) expected.add(hollins.graph.labels.label(u));
        }
        assert.ok(v >= 0 && expected.size > 0);
        assert.deepEqual(linking.map((p) => p.url).sort(), [...expected].sort());
        const linked = await store.searchByNeighbour('http://www.hollins.edu/', 'out', { mode: 'prefix', limit: 10 });
        assert.equal(linked.length, 10);
      });

      it('stores runs and their scores, and gives the top pages of a run', async () => {
        const { graph, pageIds } = await store.loadGraph();
        const rank = pagerank(graph);
        const started = Date.now();
        const run = await store.saveRun(
          { method: 'pagerank', parameters: { damping: 0.85, solver: rank.solver }, startedAt: started, finishedAt: started + 5, iterations: rank.iterations, residual: rank.residual, converged: rank.converged },
          pageIds,
          rank.scores,
        );
        const latest = await store.latestRun('pagerank');
        assert.equal(latest?.id, run);
        assert.deepEqual(latest?.parameters, { damping: 0.85, solver: rank.solver });
        assert.equal(latest?.pages, graph.nodeCount);
        assert.equal(latest?.converged, true);
        const top = await store.topPages(run, 5);
        assert.deepEqual(top.map((t) => t.page.url), Array.from(topK(rank.scores, 5), (v) => graph.labels.label(v)));
        assert.equal(top[0]!.value, rank.scores[topK(rank.scores, 1)[0]!]);
        const home = (await store.pageByUrl('http://www.hollins.edu/'))!;
        const scores = await store.scoresOf(home.id);
        assert.equal(scores.length, 1);
        assert.equal(scores[0]!.method, 'pagerank');
        assert.equal(scores[0]!.value, rank.scores[graph.labels.id('http://www.hollins.edu/')]);
        assert.equal((await store.runs()).length, 1);
        // A crawl's form: consecutive store ids and scores computed as they are written, a
        // non-finite one left out (as from an array).
        const first = pageIds[0]!;
        assert.deepEqual([pageIds[1], pageIds[2]], [first + 1, first + 2], 'the store numbers its pages consecutively');
        const computed = await store.saveRun(
          { method: 'opic', parameters: {}, startedAt: started, finishedAt: started + 1, iterations: null, residual: null, converged: null },
          { first, length: 3 },
          (v) => (v === 1 ? Number.NaN : 10 + v),
        );
        assert.equal((await store.latestRun('opic'))?.pages, 3);
        const stored = await Promise.all([0, 1, 2].map(async (v) => (await store.scoresOf(first + v)).find((s) => s.run === computed)?.value ?? null));
        assert.deepEqual(stored, [10, null, 12]);
        // Runs over pages the store does not have are refused, whole, in either form (SQLite checks a
        // range by the ids it holds and then saves it without a check per score: it must still refuse).
        const counts = await store.counts();
        const before = (await store.runs()).length;
        const bad = { method: 'opic', parameters: {}, startedAt: started, finishedAt: started, iterations: null, residual: null, converged: null };
        await assert.rejects(store.saveRun(bad, { first, length: counts.pages + 1 }, () => 1));
        await assert.rejects(store.saveRun(bad, Float64Array.of(first, first + counts.pages + 7), [1, 2]));
        assert.equal((await store.runs()).length, before);
        assert.deepEqual((await store.scoresOf(first)).map((s) => s.run), [run, computed]);
      });
    });

    it('reads every page and typed link back in batches, in id and (source, target, kind) order', async () => {
      const store = await backend.open();
      try {
        const urls = Array.from({ length: 25 }, (_, i) => `http://b${i % 3}.example/p${i}`);
        const ids = await store.addPages(urls, urls, 1);
        await store.recordFetch(ids[0]!, { status: 200, contentType: 'text/html', fetchedAt: 1_700_000_000_000, size: 10, title: 'T & "x"', error: null });
        const kinds = ['anchor', 'redirect', 'canonical', 'area', 'frame', 'iframe', 'refresh', 'alternate', 'sitemap'] as const;
        const links = [];
        for (let i = 0; i < 60; i++) {
          const kind = kinds[i % kinds.length]!;
          // rel bits: nofollow, ugc, sponsored in every combination; hreflang on alternates, lastmod on sitemap entries.
          const rel = i % 8;
          links.push({
            source: ids[(i * 7) % 25]!, target: ids[(i * 11 + 3) % 25]!, kind, nofollow: (rel & 1) === 1, rel,
            hreflang: kind === 'alternate' ? `de-${i}` : null, lastmod: kind === 'sitemap' ? 1_700_000_000_000 + i : null,
          });
        }
        await store.addLinks(links);
        const pages = [];
        for await (const batch of store.pageBatches(4)) {
          assert.ok(batch.length <= 4);
          pages.push(...batch);
        }
        assert.deepEqual(pages.map((p) => p.id), [...ids].sort((a, b) => a - b));
        const first = pages.find((p) => p.id === ids[0])!;
        assert.equal(first.title, 'T & "x"');
        assert.equal(first.status, 200);
        assert.equal(first.depth, 1);
        const read = [];
        for await (const batch of store.linkBatches(7)) read.push(...batch);
        const key = (l: { source: number; target: number; kind: string }): string => `${l.source} ${l.target} ${LINK_KIND_CODES[l.kind as LinkKind]}`;
        const unique = new Map(links.map((l) => [key(l), l]));
        assert.equal(read.length, unique.size);
        for (const l of read) assert.deepEqual(l, unique.get(key(l)));
        const order = (l: { source: number; target: number; kind: string }): number[] => [l.source, l.target, LINK_KIND_CODES[l.kind as LinkKind]];
        for (let i = 1; i < read.length; i++) {
          const [a, b] = [order(read[i - 1]!), order(read[i]!)];
          assert.ok(a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! < b[2]!))), 'ordered');
        }
      } finally {
        await store.close();
      }
    });

    it("gives a crawl's out-lists of the web graph's kinds, packed: the graph loadGraph builds", async () => {
      const store = await backend.open();
      try {
        await store.importGraph(hollins.graph);
        const { graph: before, pageIds } = await store.loadGraph();
        // A link of two kinds (one edge), a self-link, and a kind outside the graph's (left out).
        const [a, b, c] = [pageIds[0]!, pageIds[1]!, pageIds[2]!];
        await store.addLinks([
          { source: a, target: b, kind: 'redirect', nofollow: false },
          { source: a, target: b, kind: 'anchor', nofollow: false },
          { source: c, target: c, kind: 'anchor', nofollow: false },
          { source: b, target: c, kind: 'canonical', nofollow: false },
        ]);
        const { graph } = await store.loadGraph(GRAPH_LINK_KINDS);
        assert.equal(graph.edgeCount, before.edgeCount + (Array.from(before.successors(0)).includes(1) ? 0 : 1));
        const expected = new Map<number, number[]>();
        for (let v = 0; v < graph.nodeCount; v++) {
          const targets = Array.from(graph.successors(v), (t) => pageIds[t]!).sort((x, y) => x - y);
          if (targets.length > 0) expected.set(pageIds[v]!, targets);
        }
        const got = new Map<number, number[]>();
        let last = 0;
        for await (const batch of store.crawlOutLists(GRAPH_LINK_KINDS)) {
          for (let i = 0, start = 0; i < batch.sources.length; i++) {
            const source = batch.sources[i]!;
            assert.ok(source > last, 'sources in increasing order');
            last = source;
            got.set(source, Array.from(batch.targets.subarray(start, batch.ends[i]!)));
            start = batch.ends[i]!;
          }
        }
        assert.equal(got.size, expected.size);
        assert.deepEqual(got, expected);
        assert.ok(!got.get(c)?.includes(c), 'no self-link');
      } finally {
        await store.close();
      }
    });

    it('stores and finds hostile URLs exactly as given (parameters only, never SQL text)', async () => {
      const store = await backend.open();
      try {
        const hostile = [
          "http://x.org/a'b",
          'http://x.org/"; DROP TABLE pages; --',
          "http://x.org/?q=1' OR '1'='1",
          'http://x.org/%00%27',
          'http://x.org/\u00e9t\u00e9/\u{1f600}',
          'http://x.org/back\\slash',
          'http://x.org/percent%25_under',
        ];
        const collector = new EdgeCollector();
        for (let i = 0; i < hostile.length; i++) collector.add(hostile[i]!, hostile[(i + 1) % hostile.length]!);
        await store.importGraph(collector.build().graph);
        for (const url of hostile) {
          const page = await store.pageByUrl(url);
          assert.equal(page?.url, url, url);
          const found = await store.searchPages(url.slice(14), { limit: 10 });
          assert.ok(found.some((p) => p.url === url), `substring search for ${url}`);
        }
        assert.equal((await store.searchPages('%', { limit: 100 })).length, 2, "'%' is a character, not a wildcard");
        assert.equal((await store.searchPages('_', { limit: 100 })).length, 1);
        const counts = await store.counts();
        assert.equal(counts.pages, hostile.length);
        assert.equal(counts.links, hostile.length);
      } finally {
        await store.close();
      }
    });

    it('rolls a failed import back, leaving the store as it was', async () => {
      const store = await backend.open();
      try {
        await store.importGraph(hollins.graph);
        const before = await store.counts();
        // A label with a NUL character is refused midway through the import.
        const collector = new EdgeCollector();
        for (let i = 0; i < 500; i++) collector.add(`http://new.example/${i}`, `http://new.example/${i + 1}`);
        collector.add('http://new.example/500', 'http://new.example/bad\u0000page');
        await assert.rejects(store.importGraph(collector.build().graph), (error: unknown) => {
          assert.ok(error instanceof InputFormatError, String(error));
          assert.match(error.message, /NUL/);
          return true;
        });
        assert.deepEqual(await store.counts(), before);
        assert.equal(await store.pageByUrl('http://new.example/1'), null);
      } finally {
        await store.close();
      }
    });

    it('loses nothing with concurrent writers', async () => {
      await backend.concurrentWriters(2, 2000);
    });

    it('resets to empty', async () => {
      const store = await backend.open();
      try {
        await store.importGraph(hollins.graph);
        await store.reset();
        assert.deepEqual(await store.counts(), { pages: 0, links: 0, fetched: 0, failed: 0, excluded: 0, frontier: 0, runs: 0, overLinkCap: 0 });
        const again = await store.importGraph(hollins.graph);
        assert.equal(again.pagesAdded, 6012);
      } finally {
        await store.close();
      }
    });
  });
}
