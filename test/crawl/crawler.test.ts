/**
 * Integration tests of the crawler (crawl/crawler.ts) against generated
 * websites served on 127.0.0.1: what it stores is compared with an
 * independent breadth-first walk of the site's answers (crawl-fixtures.ts),
 * and what it asks for with the servers' own request logs.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Crawler, type CrawlReport } from '../../src/crawl/crawler.js';
import { type CrawlSettings, completeSettings } from '../../src/crawl/settings.js';
import { Website } from '../../src/experiments/website.js';
import { type ServedWebsite, serveWebsite } from '../../src/experiments/website-server.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { missingToolTest, temporaryDirectory } from '../helpers.js';
import { startTestServer } from '../store/postgres-server.js';
import {
  type CrawlSnapshot,
  type Model,
  assertCrawlInvariants,
  assertMatchesModel,
  clickBall,
  hrefsOf,
  modelCounts,
  modelCrawl,
  isHostFile,
  requestedPaths,
  runCli,
  serveLogged,
  snapshot,
} from './crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let stores = 0;
const newDbPath = (): string => join(dir.path, `crawl-${stores++}.db`);

/** The test site: a few hundred pages with every hazard. */
const site = new Website({ pages: 300, seed: 5 });
const NO_CALENDAR = '/calendar/';

function settingsFor(origin: string, extra: Partial<CrawlSettings> = {}): CrawlSettings {
  return completeSettings({ seeds: [`${origin}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, fences: [NO_CALENDAR], ...extra });
}

async function crawlInto(store: Store, settings: CrawlSettings, resume = false): Promise<{ report: CrawlReport; snap: CrawlSnapshot }> {
  const report = await Crawler.run(store, settings, { resume });
  return { report, snap: await snapshot(store) };
}

/** Crawls `site` served afresh into a new SQLite store. */
async function crawlSite(
  extra: Partial<CrawlSettings> = {},
  served?: ServedWebsite,
): Promise<{ report: CrawlReport; snap: CrawlSnapshot; served: ServedWebsite; model: Model; db: string }> {
  const server = served ?? (await serveWebsite(site));
  const db = newDbPath();
  const store = SqliteStore.open(db);
  try {
    const settings = settingsFor(server.origin, extra);
    const { report, snap } = await crawlInto(store, settings);
    const model = modelCrawl(site, {
      seed: `${server.origin}/`,
      fences: settings.fences.map((f) => new RegExp(f)),
      filters: settings.filters.map((f) => new RegExp(f)),
      ...(settings.maxDepth === null ? {} : { maxDepth: settings.maxDepth }),
    });
    return { report, snap, served: server, model, db };
  } finally {
    await store.close();
    if (served === undefined) await server.close();
  }
}

/** Requests per path, robots.txt and the sitemap probe aside. */
function pageRequests(served: ServedWebsite): Map<string, number> {
  return new Map([...served.requests].filter(([path]) => !isHostFile(path)));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('a full crawl of a generated site', () => {
  it('fetches every reachable page once and stores exactly the site\'s pages, answers and links', async () => {
    const { report, snap, served, model, db } = await crawlSite();
    const origin = served.origin;
    // The model itself exercises every hazard, so the assertions below are about something.
    const kinds = [...model.pages.values()].map((p) => p.kind);
    for (const kind of ['html', 'redirect', 'missing', 'other', 'excluded'] as const) assert.ok(kinds.includes(kind), `the site has ${kind} pages`);
    assert.ok(model.pages.size > 300, `${model.pages.size} pages`);

    assertMatchesModel(snap, model);
    assertCrawlInvariants(snap);

    // Requests: each page once, robots.txt once, nothing else (no /private/, no .pdf, no calendar).
    const expected = new Map(requestedPaths(model).map((p) => [p, 1]));
    assert.deepEqual(pageRequests(served), expected);
    assert.equal(served.requests.get('/robots.txt'), 1);
    // robots.txt names no sitemap: /sitemap.xml is tried once, and leaves no page (the site has none).
    assert.equal(served.requests.get('/sitemap.xml'), 1);
    assert.ok(!snap.pages.has(`${origin}/sitemap.xml`));
    assert.ok(![...served.requests.keys()].some((p) => p.startsWith('/private/') || p.endsWith('.pdf') || p.startsWith('/calendar/')));
    assert.equal(snap.pages.get(`${origin}/private/secret.html`)?.error, 'excluded: robots.txt disallows it');

    // Files: .pdf links are not pages; .json is fetched and is not HTML (no links out).
    const pdfLinks = [...Array(site.pages).keys()].flatMap((n) => hrefsOf(site.render(n))).filter((h) => h.endsWith('.pdf'));
    assert.ok(pdfLinks.length > 0);
    assert.ok(![...snap.pages.keys()].some((url) => url.endsWith('.pdf')));
    const json = [...snap.pages.values()].filter((p) => p.url.endsWith('.json'));
    assert.ok(json.length > 0);
    for (const page of json) {
      assert.equal(page.status, 200);
      assert.equal(page.contentType, 'application/json');
      assert.ok(![...snap.links].some((l) => l.split(' ')[1] === page.url), `${page.url} has no out-links`);
    }

    // Redirects are typed links to their targets; the loop /loop/a <-> /loop/b is stored once and named.
    const redirects = [...snap.links].filter((l) => l.startsWith('redirect '));
    assert.ok(redirects.length >= 3);
    for (const link of redirects) {
      const [, source, target] = link.split(' ') as [string, string, string];
      assert.equal(new URL(target, origin).href, new URL(site.answer(new URL(source).pathname).headers.location!, origin).href, link);
    }
    assert.ok(snap.links.has(`redirect ${origin}/loop/a ${origin}/loop/b`));
    assert.ok(snap.links.has(`redirect ${origin}/loop/b ${origin}/loop/a`));
    assert.equal(snap.pages.get(`${origin}/loop/a`)!.error, null);
    assert.equal(snap.pages.get(`${origin}/loop/b`)!.error, 'redirect loop');
    assert.equal(served.requests.get('/loop/a'), 1);
    assert.equal(served.requests.get('/loop/b'), 1);

    // 404s are failures; the counts of the store and of the report agree with the model.
    const counts = modelCounts(model);
    assert.ok([...model.pages.values()].some((p) => p.kind === 'missing'));
    for (const key of ['pages', 'links', 'fetched', 'failed', 'excluded', 'frontier'] as const) assert.equal(snap.counts[key], counts[key], key);
    assert.equal(report.stoppedBy, 'done');
    assert.equal(report.known, counts.pages);
    assert.equal(report.fetched, counts.fetched);
    assert.equal(report.failed, counts.failed);
    assert.equal(report.excluded, counts.excluded);
    assert.equal(report.redirects, [...model.pages.values()].filter((p) => p.kind === 'redirect' && p.error === null).length);
    assert.equal(report.other, [...model.pages.values()].filter((p) => p.kind === 'other').length);
    assert.equal(report.frontier, 0);
    assert.equal(report.inFlight, 0);
    assert.equal(report.hosts, 1);
    assert.equal(report.retries, 0);
    assert.equal(report.fetches, requestedPaths(model).length);
    assert.equal(report.requests, [...served.requests.values()].reduce((a, b) => a + b, 0));
    assert.ok(Math.abs(report.totalCash - 1) < 1e-9, `report.totalCash ${report.totalCash}`);

    // Titles, and the OPIC run saved at the end, whose estimates sum to 1.
    const store = SqliteStore.open(db);
    try {
      assert.equal((await store.pageByUrl(`${origin}/p/17.html`))!.title, 'Page 17');
      const runs = await store.runs();
      // OPIC's estimates, and the live PageRank's final vector (test/crawl/live-rank.test.ts checks its values).
      assert.deepEqual(runs.map((r) => [r.id, r.method, r.pages]), [
        [report.runs[0], 'opic', snap.pages.size],
        [report.runs[1], 'live', snap.pages.size],
      ]);
      const all = await store.topPages(report.runs[0]!, snap.pages.size);
      assert.equal(all.length, snap.pages.size);
      const sum = all.reduce((s, t) => s + t.value, 0);
      // Estimates (H + C) / (G + 1) sum to (G + total cash) / (G + 1) = 1 (OPIC paper, Section 2).
      assert.ok(Math.abs(sum - 1) < 1e-9, `sum of estimates ${sum}`);
      // The seed is read first, holding all the cash: its history alone is 1 out of a clock G of a few units, so it leads.
      assert.equal(all[0]!.page.url, `${origin}/`);
    } finally {
      await store.close();
    }
  });
});

describe('spider traps', () => {
  it('a --fence bounds the infinite calendar: no calendar page beyond it is requested or stored', async () => {
    const fence = '/calendar/([5-9]|[1-9][0-9]+)\\.html$';
    const { snap, served, model } = await crawlSite({ fences: [fence] });
    assertMatchesModel(snap, model);
    assertCrawlInvariants(snap);
    const calendar = [...served.requests].filter(([p]) => p.startsWith('/calendar/')).sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual(calendar, [0, 1, 2, 3, 4].map((n) => [`/calendar/${n}.html`, 1]));
    assert.ok(![...snap.pages.keys()].some((url) => url.endsWith('/calendar/5.html')));
  });

  it('--max-depth bounds it too; with bfs the stored pages are exactly the walk\'s, at their least depths', async () => {
    // /calendar/0 is one click from the home page, /calendar/N is N + 1 clicks: depth 3 ends at /calendar/2.
    const { snap, served, model } = await crawlSite({ fences: [], maxDepth: 3, strategy: 'bfs' });
    assertMatchesModel(snap, model);
    // A page's stored depth is its least number of clicks from the seed (a redirect adds none), even
    // when the walk first finds it by a longer path through a redirect.
    const balls = [0, 1, 2, 3].map((d) => clickBall(site, `${served.origin}/`, d));
    for (const page of snap.pages.values()) {
      assert.equal(page.depth, balls.findIndex((ball) => ball.has(page.url)), `${page.url}: depth`);
      assert.ok(page.depth <= model.pages.get(page.url)!.depth, `${page.url}: no deeper than found by the walk`);
    }
    assertCrawlInvariants(snap);
    const calendar = [...served.requests.keys()].filter((p) => p.startsWith('/calendar/')).sort();
    assert.deepEqual(calendar, ['/calendar/0.html', '/calendar/1.html', '/calendar/2.html']);
    assert.ok(Math.max(...[...snap.pages.values()].map((p) => p.depth)) <= 3);
    assert.deepEqual(pageRequests(served), new Map(requestedPaths(model).map((p) => [p, 1])));
  });

  it('--max-depth with greedy: nothing deeper is fetched, and every page within the depth is', async () => {
    const { snap, served } = await crawlSite({ fences: [], maxDepth: 3 });
    assertCrawlInvariants(snap);
    const calendar = [...served.requests.keys()].filter((p) => p.startsWith('/calendar/')).sort();
    assert.deepEqual(calendar, ['/calendar/0.html', '/calendar/1.html', '/calendar/2.html']);
    for (const page of snap.pages.values()) assert.ok(page.depth <= 3, `${page.url} at depth ${page.depth}`);
    // The pages within 3 clicks do not depend on the order of the fetches. Greedy may find a page
    // first by a longer path (here /p/12.html, 2 clicks away, can be seen first 3 clicks away): its
    // links must still count from its least depth, or /p/97.html, 3 clicks away through it, is lost.
    const ball = clickBall(site, `${served.origin}/`, 3);
    const ballPaths = new Set([...ball].map((url) => new URL(url).pathname));
    for (const [path, n] of pageRequests(served)) {
      assert.ok(ballPaths.has(path), `${path} is more than 3 clicks away`);
      assert.equal(n, 1, path);
    }
    const stored = new Set(snap.pages.keys());
    assert.deepEqual(
      { missing: [...ball].filter((url) => !stored.has(url)), extra: [...stored].filter((url) => !ball.has(url)) },
      { missing: [], extra: [] },
      'the pages within --max-depth clicks',
    );
  });
});

describe('scope', () => {
  it('--filter keeps the crawl to the URLs it matches', async () => {
    const server = await serveWebsite(site);
    try {
      const filter = `^${escapeRegExp(server.origin)}/(p/[0-9]+\\.html)?$`;
      const { snap, model } = await crawlSite({ filters: [filter], fences: [] }, server);
      assertMatchesModel(snap, model);
      assertCrawlInvariants(snap);
      for (const url of snap.pages.keys()) assert.match(url, new RegExp(filter));
      assert.equal(snap.pages.size, site.pages, 'the tree links reach every page without leaving /p/');
      const requested = [...server.requests.keys()].filter((p) => !isHostFile(p));
      assert.ok(requested.every((p) => p === '/' || /^\/p\/\d+\.html$/.test(p)), 'only /p/ pages are requested');
      assert.equal(requested.length, site.pages);
    } finally {
      await server.close();
    }
  });

  it("--hosts seeds stays on the seed's host; --hosts any follows links to another host", async () => {
    // Two host names for one server (through the resolve map): a.test links to b.test's home page.
    const siteA = new Website({ pages: 40, seed: 2 });
    const siteB = new Website({ pages: 25, seed: 3 });
    const server = await serveLogged((path, host) => {
      if (host.startsWith('b.test:')) return siteB.answer(path);
      const answer = siteA.answer(path);
      if (path !== '/') return answer;
      return { ...answer, body: answer.body.replace('</ul>', `<li><a href="http://b.test:${server.port}/">elsewhere</a></li>\n</ul>`) };
    });
    try {
      const a = `http://a.test:${server.port}`;
      const b = `http://b.test:${server.port}`;
      const resolve = { 'a.test': '127.0.0.1', 'b.test': '127.0.0.1' };
      const fences = [/\/calendar\//];
      const modelA = modelCrawl(siteA, { seed: `${a}/`, fences });
      const modelB = modelCrawl(siteB, { seed: `${b}/`, fences });

      const seedsOnly = SqliteStore.open(newDbPath());
      const onlyA = (await crawlInto(seedsOnly, completeSettings({ seeds: [`${a}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, fences: [NO_CALENDAR], resolve, hosts: 'seeds' }))).snap;
      await seedsOnly.close();
      assertMatchesModel(onlyA, modelA);
      assert.equal(server.log.filter((r) => r.host.startsWith('b.test')).length, 0, 'b.test is never asked');
      assert.equal(server.log.filter((r) => r.path === '/robots.txt').length, 1);

      server.log.length = 0;
      const anyHost = SqliteStore.open(newDbPath());
      const both = await crawlInto(anyHost, completeSettings({ seeds: [`${a}/`], allowIp: ['127.0.0.1/32'], delayMs: 0, fences: [NO_CALENDAR], resolve, hosts: 'any' }));
      await anyHost.close();
      assertCrawlInvariants(both.snap);
      assert.deepEqual(new Set(both.snap.pages.keys()), new Set([...modelA.pages.keys(), ...modelB.pages.keys()]));
      assert.deepEqual(both.snap.links, new Set([...modelA.links, ...modelB.links, `anchor ${a}/ ${b}/`]));
      assert.equal(both.report.hosts, 2);
      // robots.txt once per host; every page once.
      const perHostAndPath = new Map<string, number>();
      for (const r of server.log) perHostAndPath.set(`${r.host} ${r.path}`, (perHostAndPath.get(`${r.host} ${r.path}`) ?? 0) + 1);
      const expected = new Map<string, number>([
        [`a.test:${server.port} /robots.txt`, 1],
        [`b.test:${server.port} /robots.txt`, 1],
        [`a.test:${server.port} /sitemap.xml`, 1],
        [`b.test:${server.port} /sitemap.xml`, 1],
        ...requestedPaths(modelA).map((p) => [`a.test:${server.port} ${p}`, 1] as [string, number]),
        ...requestedPaths(modelB).map((p) => [`b.test:${server.port} ${p}`, 1] as [string, number]),
      ]);
      assert.deepEqual(perHostAndPath, expected);
    } finally {
      await server.close();
    }
  });
});

describe('politeness', () => {
  it('--per-host 1: one request at a time to a host, even with room for more', async () => {
    const server = await serveLogged((path) => site.answer(path), { delayMs: 3 });
    try {
      const store = SqliteStore.open(newDbPath());
      const { report } = await crawlInto(store, settingsFor(server.origin, { perHost: 1, concurrency: 8, maxPages: 60 }));
      await store.close();
      assert.equal(report.fetches, 60);
      assert.equal(server.maxConcurrent, 1);
      // Checked from the log too: no request starts before the previous one is answered.
      for (let i = 1; i < server.log.length; i++) assert.ok(server.log[i]!.start >= server.log[i - 1]!.end, `request ${i} overlaps`);
    } finally {
      await server.close();
    }
  });

  it('--delay: request starts to a host are at least the delay apart', async () => {
    const server = await serveLogged((path) => site.answer(path));
    const delay = 50;
    try {
      const store = SqliteStore.open(newDbPath());
      // Several connections allowed: the delay alone spaces the requests.
      const { report } = await crawlInto(store, settingsFor(server.origin, { delayMs: delay, maxPages: 15, concurrency: 8, perHost: 4 }));
      await store.close();
      assert.equal(report.fetches, 15);
      assert.equal(server.log.length, 17, 'robots.txt, the /sitemap.xml probe and 15 pages');
      // The crawler spaces the moments it sends; the server sees arrivals, each late by some jitter
      // (a new connection, a busy process) that can shorten the gap after it. Over any run of
      // requests the jitter does not add up, so: start[j] - start[i] >= (j - i) * delay - delay.
      const starts = server.log.map((r) => r.start).sort((x, y) => x - y);
      for (let i = 0; i < starts.length; i++) {
        for (let j = i + 1; j < starts.length; j++) {
          const span = starts[j]! - starts[i]!;
          assert.ok(span >= (j - i - 1) * delay, `requests ${i}..${j}: ${span.toFixed(1)} ms for ${j - i} gaps of at least ${delay} ms`);
        }
      }
    } finally {
      await server.close();
    }
  });

  it('--concurrency bounds the requests at once over all hosts', async () => {
    const server = await serveLogged((path) => site.answer(path), { delayMs: 50 });
    try {
      const store = SqliteStore.open(newDbPath());
      const { report } = await crawlInto(store, settingsFor(server.origin, { perHost: 16, concurrency: 3, maxPages: 30 }));
      await store.close();
      assert.equal(report.fetches, 30);
      // Never more than 3; and 3 are reached (the home page links to more than 3 pages, each answer takes 50 ms).
      assert.equal(server.maxConcurrent, 3);
    } finally {
      await server.close();
    }
  });
});

describe('strategies', () => {
  // greedy, the default, is the full crawl above.
  for (const strategy of ['bfs', 'dfs', 'random', 'buffer', 'pagerank'] as const) {
    it(`${strategy} crawls the whole site to the same pages and links, each fetched once`, async () => {
      const { snap, served, model } = await crawlSite({ strategy, bufferSize: 10 });
      assertMatchesModel(snap, model);
      assertCrawlInvariants(snap);
      assert.deepEqual(pageRequests(served), new Map(requestedPaths(model).map((p) => [p, 1])));
      if (strategy !== 'bfs') return;
      // One host, one connection: bfs fetches in the order pages were found, which is the walk's order.
      const byId = [...snap.pages.values()].sort((x, y) => x.id - y.id);
      assert.deepEqual(byId.map((p) => p.url), model.order, 'ids in the order of discovery');
      const byFetch = [...snap.pages.values()].filter((p) => p.fetchSeq !== null).sort((x, y) => x.fetchSeq! - y.fetchSeq!);
      assert.deepEqual(byFetch.map((p) => p.url), model.order.filter((url) => model.pages.get(url)!.kind !== 'excluded'));
      const levels = byFetch.map((p) => model.pages.get(p.url)!.level);
      for (let i = 1; i < levels.length; i++) assert.ok(levels[i]! >= levels[i - 1]!, `fetch ${i + 1} at level ${levels[i]} after level ${levels[i - 1]}`);
      for (const page of snap.pages.values()) assert.equal(page.depth, model.pages.get(page.url)!.depth, page.url);
    });
  }
});

describe('--max-pages, stopping and resuming', () => {
  it('stops at exactly --max-pages fetches; a resumed crawl ends as one uninterrupted crawl', async () => {
    const server = await serveWebsite(site);
    const store = SqliteStore.open(newDbPath());
    try {
      const settings = settingsFor(server.origin, { maxPages: 40 });
      const first = await crawlInto(store, settings);
      assert.equal(first.report.stoppedBy, 'max-pages');
      assert.equal(first.report.fetches, 40);
      assert.equal([...pageRequests(server).values()].reduce((a, b) => a + b, 0), 40, 'exactly 40 page requests');
      const fetched = [...first.snap.pages.values()].filter((p) => p.fetchSeq !== null);
      assert.equal(fetched.length, 40);
      assert.ok(first.snap.counts.frontier > 0);
      assertCrawlInvariants(first.snap);
      // Stopping again at the same limit does nothing.
      const again = await crawlInto(store, settings, true);
      assert.equal(again.report.stoppedBy, 'max-pages');
      assert.equal(again.report.fetches, 40);
      assert.equal([...pageRequests(server).values()].reduce((a, b) => a + b, 0), 40);

      const second = await crawlInto(store, { ...settings, maxPages: 100_000 }, true);
      assert.equal(second.report.stoppedBy, 'done');
      const model = modelCrawl(site, { seed: `${server.origin}/`, fences: [new RegExp(NO_CALENDAR)] });
      assertMatchesModel(second.snap, model);
      assertCrawlInvariants(second.snap);
      // Every page fetched once over both sessions; pages of the first keep their fetch order.
      assert.deepEqual(pageRequests(server), new Map(requestedPaths(model).map((p) => [p, 1])));
      for (const page of fetched) assert.equal(second.snap.pages.get(page.url)!.fetchSeq, page.fetchSeq);
      assert.equal(second.report.fetches, requestedPaths(model).length);
    } finally {
      await store.close();
      await server.close();
    }
  });

  it('a crawl stopped by its signal (Ctrl-C) writes every fetch it made; resuming asks nothing twice', async () => {
    // Slow answers, so that the stop comes in the middle of the crawl.
    const server = await serveWebsite(site, { delayMs: 2 });
    const store = SqliteStore.open(newDbPath());
    const controller = new AbortController();
    const watch = setInterval(() => {
      if ([...server.requests.values()].reduce((a, b) => a + b, 0) >= 60) controller.abort();
    }, 5);
    try {
      const settings = settingsFor(server.origin, { perHost: 2 });
      const report = await Crawler.run(store, settings, { signal: controller.signal });
      clearInterval(watch);
      assert.equal(report.stoppedBy, 'stopped');
      const stopped = await snapshot(store);
      assertCrawlInvariants(stopped);
      assert.ok(stopped.counts.frontier > 0, 'stopped before the end');
      // Running fetches finished and were written: every page asked for has its answer stored.
      const asked = pageRequests(server);
      const stored = [...stopped.pages.values()].filter((p) => p.fetchSeq !== null).map((p) => new URL(p.url).pathname);
      assert.deepEqual(new Set(stored), new Set(asked.keys()));
      assert.equal(report.fetches, stored.length);
      assert.equal(stopped.state.lock, undefined, 'the lock is released');

      const resumed = await crawlInto(store, settings, true);
      assert.equal(resumed.report.stoppedBy, 'done');
      const model = modelCrawl(site, { seed: `${server.origin}/`, fences: [new RegExp(NO_CALENDAR)] });
      assertMatchesModel(resumed.snap, model);
      assertCrawlInvariants(resumed.snap);
      assert.deepEqual(pageRequests(server), new Map(requestedPaths(model).map((p) => [p, 1])));
    } finally {
      clearInterval(watch);
      await store.close();
      await server.close();
    }
  });
});

describe('wga crawl (CLI)', () => {
  const small = new Website({ pages: 120, seed: 9 });
  let server: ServedWebsite;
  let db: string;
  let model: Model;
  let result: Awaited<ReturnType<typeof runCli>>;
  let snap: CrawlSnapshot;
  type CrawlJson = CrawlReport & { store: string; seeds: string[]; settings: CrawlSettings; top: Array<{ rank: number; url: string; importance: number; status: number | null }> };

  before(async () => {
    server = await serveWebsite(small);
    db = newDbPath();
    result = await runCli(['crawl', `${server.origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--fence', NO_CALENDAR, '--top', '5', '--json', '-q']);
    model = modelCrawl(small, { seed: `${server.origin}/`, fences: [new RegExp(NO_CALENDAR)] });
    const store = SqliteStore.open(db);
    snap = await snapshot(store);
    await store.close();
  });
  after(() => server.close());

  it('crawl --json reports the crawl it stored', () => {
    assert.equal(result.code, 0, result.stderr);
    assertMatchesModel(snap, model);
    const json = JSON.parse(result.stdout) as CrawlJson;
    const counts = modelCounts(model);
    assert.equal(json.store, db);
    assert.deepEqual(json.seeds, [`${server.origin}/`]);
    assert.equal(json.stoppedBy, 'done');
    assert.equal(json.known, counts.pages);
    assert.equal(json.fetched, counts.fetched);
    assert.equal(json.failed, counts.failed);
    assert.equal(json.excluded, counts.excluded);
    assert.equal(json.frontier, 0);
    assert.equal(json.inFlight, 0);
    assert.equal(json.fetches, requestedPaths(model).length);
    assert.equal(json.requests, json.fetches + 2, 'the pages, robots.txt and the /sitemap.xml probe');
    assert.equal(json.sitemaps, 0);
    // The test server does not compress: the bodies decoded (pages) are bytes on the wire too, and the
    // wire also carried the bodies read without decoding (404s, JSON files).
    assert.ok(json.bodyBytes > 0);
    assert.ok(json.wireBytes > json.bodyBytes);
    assert.equal(json.hosts, 1);
    assert.equal(typeof json.seconds, 'number');
    assert.ok(Math.abs(json.totalCash - 1) < 1e-9);
    assert.deepEqual(json.runs, [1, 2]);
    assert.equal(json.live!.pages, counts.pages);
    assert.equal(json.settings.delayMs, 0);
    assert.deepEqual(json.settings.fences, [NO_CALENDAR]);
    assert.deepEqual(json.settings.allowIp, ['127.0.0.1/32']);
    assert.deepEqual(json.top.map((t) => t.rank), [1, 2, 3, 4, 5]);
    for (let i = 1; i < json.top.length; i++) assert.ok(json.top[i]!.importance <= json.top[i - 1]!.importance);
    assert.equal(json.top[0]!.url, `${server.origin}/`);
    assert.equal(json.top[0]!.status, 200);
  });

  it('top --db --score opic lists the crawl\'s OPIC estimates', async () => {
    const json = JSON.parse(result.stdout) as CrawlJson;
    const top = await runCli(['top', '--db', db, '--score', 'opic', '--top', '5', '--json']);
    assert.equal(top.code, 0, top.stderr);
    const topJson = JSON.parse(top.stdout) as { top: Array<{ rank: number; url: string; score: number }> };
    // The same pages in the same order; the values computed again (in SQL, from the stored cash and history) agree to rounding.
    assert.deepEqual(topJson.top.map((t) => t.url), json.top.map((t) => t.url));
    topJson.top.forEach((t, i) => assert.ok(Math.abs(t.score - json.top[i]!.importance) < 1e-12, `${t.url}: ${t.score} vs ${json.top[i]!.importance}`));
  });

  it('stats --db --json describes the crawled graph and the crawl\'s counts', async () => {
    const stats = await runCli(['stats', '--db', db, '--json', '-q']);
    assert.equal(stats.code, 0, stats.stderr);
    const statsJson = JSON.parse(stats.stdout) as Record<string, unknown>;
    // The graph of a crawl: every page, anchors and redirects.
    assert.equal(statsJson.nodes, modelCounts(model).pages);
    assert.equal(statsJson.edges, [...model.links].filter((l) => !l.startsWith('canonical ')).length);
    // And the state of the crawl, as the store counts it.
    assert.deepEqual(
      { fetched: statsJson.fetched, failed: statsJson.failed, frontier: statsJson.frontier },
      { fetched: snap.counts.fetched, failed: snap.counts.failed, frontier: snap.counts.frontier },
      'stats --db --json reports the crawl counts (fetched, failed, frontier)',
    );
  });

  it('refuses bad options, naming them, and leaves an existing store untouched', async () => {
    const read = async (): Promise<{ snap: CrawlSnapshot; runs: number }> => {
      const store = SqliteStore.open(db);
      try {
        return { snap: await snapshot(store), runs: (await store.runs()).length };
      } finally {
        await store.close();
      }
    };
    const initial = await read();
    const requestsBefore = [...server.requests.values()].reduce((a, b) => a + b, 0);
    // Resuming the existing store with a bad option, and one start of a new crawl: a usage error naming the option.
    // They are independent: run at once.
    const runs = (
      [
        [['crawl', '--resume', '--db', db, '--strategy', 'nope'], /--strategy/],
        [['crawl', '--resume', '--db', db, '--allow-ip', 'not-a-cidr'], /--allow-ip/],
        [['crawl', '--resume', '--db', db, '--filter', '('], /--filter/],
        [['crawl', `${server.origin}/`, '--db', newDbPath(), '--allow-ip', '127.0.0.1/32', '--filter', '('], /--filter/],
      ] as Array<[string[], RegExp]>
    ).map(async ([args, name]) => ({ args, name, result: await runCli([...args, '-q']) }));
    // A store with a crawl is not crawled again from scratch by mistake: the message says to resume.
    const twice = runCli(['crawl', `${server.origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '-q']);
    for (const { args, name, result } of await Promise.all(runs)) {
      assert.equal(result.code, 2, `${args.join(' ')}: a usage error (${result.stderr})`);
      assert.match(result.stderr, name, args.join(' '));
    }
    assert.equal((await twice).code, 2);
    assert.match((await twice).stderr, /--resume/);
    const later = await read();
    assert.deepEqual(later.snap.pages, initial.snap.pages);
    assert.deepEqual(later.snap.links, initial.snap.links);
    assert.deepEqual(later.snap.state, initial.snap.state);
    assert.equal(later.runs, initial.runs);
    assert.equal([...server.requests.values()].reduce((a, b) => a + b, 0), requestsBefore, 'no request made');
  });
});

describe('a crawl into PostgreSQL', async () => {
  // In CI (WGA_REQUIRE_POSTGRES=1) a server that cannot start fails the run instead of skipping.
  const pgServer = await startTestServer();
  if (typeof pgServer === 'string') {
    missingToolTest('stores the same crawl as SQLite', 'postgres', pgServer);
    return;
  }
  after(() => pgServer.stop());
  it('stores the same crawl as SQLite', async () => {
    const server = await serveWebsite(site);
    const store = await PostgresStore.open(await pgServer.createDatabase());
    try {
      const settings = settingsFor(server.origin, { maxPages: 60 });
      const first = await crawlInto(store, settings);
      assert.equal(first.report.fetches, 60);
      assertCrawlInvariants(first.snap);
      const { report, snap } = await crawlInto(store, { ...settings, maxPages: null }, true);
      const model = modelCrawl(site, { seed: `${server.origin}/`, fences: [new RegExp(NO_CALENDAR)] });
      assert.equal(report.stoppedBy, 'done');
      assertMatchesModel(snap, model);
      assertCrawlInvariants(snap);
      assert.deepEqual(pageRequests(server), new Map(requestedPaths(model).map((p) => [p, 1])));
      const counts = modelCounts(model);
      for (const key of ['pages', 'links', 'fetched', 'failed', 'excluded', 'frontier'] as const) assert.equal(snap.counts[key], counts[key], key);
    } finally {
      await store.close();
      await server.close();
    }
  });
});
