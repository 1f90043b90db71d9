/**
 * The crawler on the habits of the real web (real-web-site.ts: each page reachable only through the
 * habit it tests): compression asked and unasked, bombs and broken bodies, meta refresh, sitemaps
 * (index, .xml.gz, plain text, /sitemap.xml), link kinds and rel tokens, conditional re-reads and
 * the changes they find, WARC output read back by readers we did not write and imported again,
 * and the same in a crawl shared by two instances on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import { createReadStream } from 'node:fs';
import { changes } from '../../src/app/changes.js';
import { importWarc } from '../../src/app/import-warc.js';
import { pageDetail } from '../../src/app/pages.js';
import { joinSharedCrawl, startSharedCrawl } from '../../src/app/shared-crawl.js';
import { Crawler, type CrawlOptions, type CrawlReport } from '../../src/crawl/crawler.js';
import { type CrawlSettings, completeSettings } from '../../src/crawl/settings.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { LINK_KINDS, REL_BITS, type Store } from '../../src/store/store.js';
import { missingToolTest, repoRoot, temporaryDirectory } from '../helpers.js';
import { startTestServer } from '../store/postgres-server.js';
import { runCli } from './crawl-fixtures.js';
import { type RealWebSite, serveRealWebSite } from './real-web-site.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let counter = 0;
const newDb = (): string => join(dir.path, `real-web-${++counter}.sqlite`);

function settingsFor(site: RealWebSite, extra: Partial<CrawlSettings> = {}): CrawlSettings {
  return completeSettings({ seeds: [`${site.a}/`], allowIp: ['127.0.0.1/32'], resolve: site.resolve, hosts: 'any', delayMs: 0, ...extra });
}

async function crawl(path: string, settings: CrawlSettings, options: CrawlOptions = {}): Promise<CrawlReport> {
  const store = SqliteStore.open(path);
  try {
    return await Crawler.run(store, settings, options);
  } finally {
    await store.close();
  }
}

/** A store's pages (URL: status, error, role) and links ("kind rel hreflang lastmod source target"), for comparisons. */
async function contents(store: Store): Promise<{ pages: Map<string, string>; links: Set<string> }> {
  const pages = new Map<string, string>();
  const urls = new Map<number, string>();
  for await (const batch of store.pageBatches()) {
    for (const p of batch) {
      urls.set(p.id, p.url);
      pages.set(p.url, `${p.status} ${p.error} ${p.role}`);
    }
  }
  const links = new Set<string>();
  for await (const batch of store.linkBatches()) {
    for (const l of batch) links.add(`${l.kind} ${l.rel} ${l.hreflang} ${l.lastmod} ${urls.get(l.source)} ${urls.get(l.target)}`);
  }
  return { pages, links };
}

async function withStore<T>(path: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = SqliteStore.open(path);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

describe('a crawl of a site with the habits of the real web', () => {
  let site: RealWebSite;
  let db: string;
  let report: CrawlReport;
  before(async () => {
    site = await serveRealWebSite();
    db = newDb();
    report = await crawl(db, settingsFor(site));
  });
  after(() => site.close());

  it('records every page reachable only through compression (asked and unasked), refresh, sitemaps and the other habits', async () => {
    assert.equal(report.stoppedBy, 'done');
    await withStore(db, async (store) => {
      for (const url of site.reachableOnlyByHabit) {
        const page = await store.pageByUrl(url);
        assert.ok(page !== null, `${url} was found`);
        assert.equal(page.status, 200, url);
        assert.equal(page.error, null, url);
      }
      // The charset of the Content-Type, not UTF-8, decoded the Latin-1 page.
      assert.equal((await store.pageByUrl(`${site.a}/latin1.html`))!.title, 'Café');
      // Bodies that cannot be decoded, or would be too large once decoded, are typed errors.
      const errors = new Map([
        ['/enc/zstd.html', "unsupported Content-Encoding 'zstd'"],
        ['/enc/broken.html', 'broken gzip body: unexpected end of file'],
        ['/enc/bomb.html', `body larger than ${10 * 1024 * 1024} bytes once decoded`],
        ['/huge.html', `body larger than ${10 * 1024 * 1024} bytes`],
        ['/loop/b', 'redirect loop'],
      ]);
      for (const [path, error] of errors) assert.equal((await store.pageByUrl(`${site.a}${path}`))!.error, error, path);
      const bomb = (await store.pageByUrl(`${site.a}/enc/bomb.html`))!;
      assert.ok(bomb.wireSize! < 1024 * 1024, `the bomb stopped after ${bomb.wireSize} bytes on the wire`);
      // Compressed pages: fewer bytes on the wire than decoded, both kept.
      const home = (await store.pageByUrl(`${site.a}/`))!;
      assert.ok(home.wireSize! < home.size!, `${home.wireSize} on the wire for ${home.size}`);
      assert.match(home.contentHash!, /^xxh64:[0-9a-f]{16}$/);
      assert.match(home.etag!, /^"[0-9a-f]{16}"$/);
      // Sitemaps are pages of their own, and the /sitemap.xml probe of a host whose robots.txt names one is not made.
      for (const path of ['/sitemap-index.xml', '/sitemaps/pages.xml', '/sitemaps/more.xml.gz', '/sitemaps/list.txt']) {
        assert.equal((await store.pageByUrl(`${site.a}${path}`))!.role, 'sitemap', path);
      }
      assert.equal((await store.pageByUrl(`${site.b}/sitemap.xml`))!.role, 'sitemap');
      assert.equal(site.log.filter((r) => r.host === 'a.test' && r.path === '/sitemap.xml').length, 0);
    });
    assert.equal(report.sitemaps, 5);
    assert.equal(report.retries, 1, 'the 429 was retried once');
    assert.ok(report.wireBytes > 0 && report.bodyBytes > report.wireBytes);
    // Every request asked for gzip and br.
    assert.ok(site.log.length > 40);
    for (const request of site.log) assert.match(request.acceptEncoding ?? '', /gzip.*br|br.*gzip/, `${request.host}${request.path}`);
  });

  it("wga page shows each link's kind and rel, and sitemap entries' lastmod", async () => {
    const home = await withStore(db, (store) => pageDetail(store, `${site.a}/`));
    const out = new Map(home.out.map((l) => [l.url, l]));
    const expect = (path: string, kind: string, rel: string[], hreflang: string | null = null): void => {
      const link = out.get(`${site.a}${path}`);
      assert.ok(link !== undefined, path);
      assert.deepEqual([link.kind, link.rel, link.hreflang], [kind, rel, hreflang], path);
    };
    expect('/kinds/nofollow.html', 'anchor', ['nofollow']);
    expect('/kinds/ugc.html', 'anchor', ['ugc', 'sponsored']);
    expect('/kinds/area.html', 'area', []);
    expect('/kinds/iframe.html', 'iframe', []);
    expect('/kinds/de.html', 'alternate', [], 'de');
    expect('/enc/gzip.html', 'anchor', []);
    assert.ok(home.outLinks.includes(`${site.a}/kinds/ugc.html (ugc, sponsored)`));
    const refresh = await withStore(db, (store) => pageDetail(store, `${site.a}/refresh.html`));
    assert.deepEqual(refresh.out.map((l) => [l.url, l.kind]), [[`${site.a}/via/refresh.html`, 'refresh']]);
    const frames = await withStore(db, (store) => pageDetail(store, `${site.a}/frames.html`));
    assert.deepEqual(frames.out.map((l) => [l.url, l.kind]), [[`${site.a}/kinds/frame.html`, 'frame']]);
    const sitemap = await withStore(db, (store) => pageDetail(store, `${site.a}/sitemaps/pages.xml`));
    assert.equal(sitemap.role, 'sitemap');
    const entry = sitemap.out.find((l) => l.url === `${site.a}/via/sitemap-xml.html`)!;
    assert.deepEqual([entry.kind, entry.lastmod], ['sitemap', Date.UTC(2026, 9, 1)]);
    const gz = await withStore(db, (store) => pageDetail(store, `${site.a}/sitemaps/more.xml.gz`));
    assert.equal(gz.out[0]!.lastmod, Date.parse('2026-10-02T08:30:00+02:00'));
    const index = await withStore(db, (store) => pageDetail(store, `${site.a}/sitemap-index.xml`));
    assert.deepEqual(index.out.map((l) => l.kind), ['sitemap', 'sitemap', 'sitemap']);
    // The CLI's JSON is the same document.
    const cli = await runCli(['page', `${site.a}/`, '--db', db, '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual((JSON.parse(cli.stdout) as { out: unknown[] }).out, home.out);
  });

  it('analyses leave chosen kinds and rel out (--links): PageRank without nofollow links', async () => {
    const rank = async (links?: string): Promise<{ nodes: number; edges: number; scores: Map<string, number> }> => {
      const out = join(dir.path, `scores-${++counter}.tsv`);
      const result = await runCli(['rank', '--db', db, ...(links === undefined ? [] : ['--links', links]), '--out', out, '--json', '-q']);
      assert.equal(result.code, 0, result.stderr);
      const json = JSON.parse(result.stdout) as { nodes: number; edges: number };
      const { readFileSync } = await import('node:fs');
      const lines = readFileSync(out, 'utf8').trim().split('\n').filter((line) => !line.startsWith('#'));
      const scores = new Map(lines.map((line) => [line.split('\t')[0]!, Number(line.split('\t')[1])] as [string, number]));
      return { nodes: json.nodes, edges: json.edges, scores };
    };
    const all = await rank();
    const noNofollow = await rank('-nofollow');
    const anchorsOnly = await rank('anchor');
    // Counted by SQL: the web graph's kinds, less the nofollow ones, less every kind but anchors.
    const sql = await withStore(db, async (store) => {
      const graphKinds = ['anchor', 'area', 'frame', 'iframe', 'refresh', 'redirect'];
      const pairs = (keep: (l: { kind: string; rel?: number }) => boolean): Promise<number> =>
        (async () => {
          const set = new Set<string>();
          for await (const batch of store.linkBatches()) for (const l of batch) if (l.source !== l.target && keep(l)) set.add(`${l.source} ${l.target}`);
          return set.size;
        })();
      return {
        graph: await pairs((l) => graphKinds.includes(l.kind)),
        noNofollow: await pairs((l) => graphKinds.includes(l.kind) && ((l.rel ?? 0) & REL_BITS.nofollow) === 0),
        anchors: await pairs((l) => l.kind === 'anchor'),
      };
    });
    assert.deepEqual([all.edges, noNofollow.edges, anchorsOnly.edges], [sql.graph, sql.noNofollow, sql.anchors]);
    assert.ok(sql.noNofollow < sql.graph && sql.anchors < sql.graph);
    // The page only a nofollow link reaches gets the least PageRank there is once nofollow links are left out.
    const nofollowPage = `${site.a}/kinds/nofollow.html`;
    const least = Math.min(...noNofollow.scores.values());
    assert.ok(Math.abs(noNofollow.scores.get(nofollowPage)! - least) < 1e-8 * least, `${noNofollow.scores.get(nofollowPage)} vs ${least}`);
    assert.ok(all.scores.get(nofollowPage)! > least * 1.5);
    const bad = await runCli(['rank', '--db', db, '--links', 'anchors', '-q']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--links: 'anchors' is not a link kind/);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
  });

  it('--respect-nofollow finds no page through nofollow links; --no-compression asks for none and still decodes what comes compressed', async () => {
    const quiet = await serveRealWebSite();
    try {
      const path = newDb();
      const second = await crawl(path, settingsFor(quiet, { respectNofollow: true, compression: false, sitemaps: false }));
      assert.equal(second.sitemaps, 0);
      await withStore(path, async (store) => {
        assert.equal(await store.pageByUrl(`${quiet.a}/kinds/nofollow.html`), null);
        // The other habits still work; sitemaps off: their pages are not found.
        assert.equal((await store.pageByUrl(`${quiet.a}/via/unasked.html`))!.status, 200);
        assert.equal(await store.pageByUrl(`${quiet.a}/via/sitemap-xml.html`), null);
        // Uncompressed: as many bytes on the wire as decoded, but for the page compressed unasked.
        const home = (await store.pageByUrl(`${quiet.a}/`))!;
        assert.equal(home.wireSize, home.size);
        const unasked = (await store.pageByUrl(`${quiet.a}/enc/unasked.html`))!;
        assert.ok(unasked.wireSize! < unasked.size!);
      });
      for (const request of quiet.log) assert.equal(request.acceptEncoding, 'identity', request.path);
      assert.ok(!quiet.log.some((r) => r.path.includes('sitemap')));
    } finally {
      await quiet.close();
    }
  });
});

describe('re-reading a site: conditional requests and what changed', () => {
  it('an unchanged site costs 304s and reports no change; two pages edited and one deleted are reported exactly', async () => {
    const site = await serveRealWebSite();
    try {
      const db = newDb();
      const settings = settingsFor(site);
      await crawl(db, settings);
      const withValidators = new Set((await withStore(db, async (store) => {
        const urls: string[] = [];
        for await (const batch of store.pageBatches()) for (const p of batch) if (p.etag !== null) urls.push(new URL(p.url).host.split(':')[0] + new URL(p.url).pathname);
        return urls;
      })));
      assert.ok(withValidators.size > 30);
      const first = site.log.length;
      const again = await crawl(db, settings, { resume: true, recrawl: true });
      assert.equal(again.stoppedBy, 'done');
      const reread = site.log.slice(first);
      // Every page with validators was asked again, conditionally, and answered 304.
      for (const key of withValidators) {
        const requests = reread.filter((r) => `${r.host}${r.path}` === key);
        assert.equal(requests.length, 1, key);
        assert.ok(requests[0]!.ifNoneMatch !== undefined && requests[0]!.ifModifiedSince !== undefined, key);
        assert.equal(requests[0]!.status, 304, key);
      }
      assert.equal(again.notModified, withValidators.size);
      const unchanged = await withStore(db, (store) => changes(store));
      assert.deepEqual(unchanged.counts, { new: 0, gone: 0, changed: 0, unchanged: unchanged.visits, linksAdded: 0, linksRemoved: 0 });
      assert.equal(unchanged.notModified, withValidators.size);

      // Edit two pages (one gains a link, the other, which has no validators, loses one) and delete one.
      site.pages.set('a.test /via/gzip.html', site.pages.get('a.test /via/gzip.html')!.replace('</body>', '<a href="/via/br.html">a new link</a></body>'));
      site.pages.set('a.test /no-validators.html', site.pages.get('a.test /no-validators.html')!.replace('<a href="/via/no-validators.html">on</a>', '<p>no link</p>'));
      site.pages.delete('a.test /kinds/area.html');
      await crawl(db, settings, { resume: true, recrawl: true });
      const found = await withStore(db, (store) => changes(store));
      const { counts } = found;
      assert.deepEqual([counts.new, counts.gone, counts.changed, counts.linksAdded], [0, 1, 2, 1]);
      assert.deepEqual(found.gone.map((p) => [p.url, p.status]), [[`${site.a}/kinds/area.html`, 404]]);
      assert.deepEqual(found.changed.map((p) => p.url).sort(), [`${site.a}/no-validators.html`, `${site.a}/via/gzip.html`]);
      assert.deepEqual(found.linksAdded.map((l) => [l.kind, l.source, l.target]), [['anchor', `${site.a}/via/gzip.html`, `${site.a}/via/br.html`]]);
      // Removed: the edited page's link, and the deleted page's own link home (its answer is now a 404, without links).
      assert.deepEqual(
        found.linksRemoved.map((l) => `${l.source} ${l.target}`).sort(),
        [`${site.a}/kinds/area.html ${site.a}/`, `${site.a}/no-validators.html ${site.a}/via/no-validators.html`],
      );
      // Change rates: the two edited pages changed once in two intervals, the others never.
      const rated = new Map(found.rates.map((r) => [r.url, r]));
      assert.equal(rated.get(`${site.a}/via/gzip.html`)!.changes, 1);
      assert.equal(rated.get(`${site.a}/`)!.changes, 0);
      assert.ok(rated.get(`${site.a}/via/gzip.html`)!.perDay > 0);
      assert.equal(rated.get(`${site.a}/`)!.perDay, 0);
      // The CLI: the same report, and the page's visit history.
      const cli = await runCli(['changes', '--db', db, '--json']);
      assert.equal(cli.code, 0, cli.stderr);
      assert.deepEqual((JSON.parse(cli.stdout) as { counts: unknown }).counts, counts);
      const gzip = await withStore(db, (store) => pageDetail(store, `${site.a}/via/gzip.html`));
      assert.deepEqual(gzip.visits.map((v) => [v.status, v.changed, v.notModified, v.linksAdded]), [[200, true, false, 1], [304, false, true, 0], [200, null, false, 0]]);
      const since = await runCli(['changes', '--db', db, '--since', 'session:2', '--json']);
      assert.equal((JSON.parse(since.stdout) as { visits: number }).visits, unchanged.visits + found.visits);
      const wrong = await runCli(['changes', '--db', db, '--since', 'yesterday-ish']);
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /--since: 'yesterday-ish' is not a time/);
    } finally {
      await site.close();
    }
  });
});

describe('--warc', () => {
  it('archives every request and response; an independent reader verifies every digest, warcio reads every record, import-warc rebuilds the store', async () => {
    const site = await serveRealWebSite();
    try {
      const db = newDb();
      const warcDir = join(dir.path, 'warc');
      await crawl(db, settingsFor(site, { warcDir }));
      const files = readdirSync(warcDir).map((f) => join(warcDir, f));
      assert.ok(files.length >= 1 && files.every((f) => f.endsWith('.warc.gz')), files.join(' '));
      // Python's zlib and hashlib: every record its own gzip member, every digest right.
      const python = spawnSync('python3', [join(repoRoot, 'test/fixtures/warc_check.py'), ...files], { encoding: 'utf8', maxBuffer: 1 << 26 });
      assert.equal(python.status, 0, python.stderr);
      const records = JSON.parse(python.stdout) as Array<{ type: string; id: string; uri: string; concurrentTo: string | null; status?: number; blockDigestOk: boolean | null; payloadDigestOk?: boolean; truncated: string | null }>;
      const responses = records.filter((r) => r.type === 'response');
      const requests = records.filter((r) => r.type === 'request');
      assert.equal(responses.length, site.log.length, 'one response record per request the server answered');
      assert.equal(requests.length, responses.length);
      for (const r of records) if (r.type !== 'warcinfo') assert.equal(r.blockDigestOk, true, `${r.type} ${r.uri}`);
      for (const r of responses) assert.equal(r.payloadDigestOk, true, r.uri);
      const ids = new Set(responses.map((r) => r.id));
      for (const r of requests) assert.ok(ids.has(r.concurrentTo!), `the request of ${r.uri} is tied to its response`);
      // Each answer the server logged is archived with its status (in the order answers came, not requests).
      assert.deepEqual(
        responses.map((r) => `${r.status} ${new URL(r.uri).host.split(':')[0]}${new URL(r.uri).pathname}`).sort(),
        site.log.map((l) => `${l.status} ${l.host}${l.path}`).sort(),
      );
      assert.deepEqual(responses.filter((r) => r.truncated !== null).map((r) => [new URL(r.uri).pathname, r.truncated]).sort(), [['/enc/bomb.html', 'length'], ['/huge.html', 'length']]);
      // warcio, webrecorder's reader.
      let warcioRecords = 0;
      for (const file of files) {
        for await (const record of WARCParser.iterRecords(createReadStream(file))) {
          await record.readFully();
          warcioRecords++;
        }
      }
      assert.equal(warcioRecords, records.length);
      // Imported again: the crawl's pages (answers, errors, roles) and links (kinds, rel, hreflang, lastmod).
      const imported = newDb();
      const report = await withStore(imported, (store) => importWarc(store, files));
      assert.equal(report.responses, responses.length - records.filter((r) => r.type === 'response' && r.uri.endsWith('/robots.txt')).length);
      const original = await withStore(db, contents);
      const rebuilt = await withStore(imported, contents);
      assert.deepEqual(rebuilt.pages, original.pages);
      assert.deepEqual(rebuilt.links, original.links);
      assert.ok(original.links.size > 60);
      const kinds = new Set([...original.links].map((l) => l.split(' ')[0]));
      // Every kind but canonical (the home page's names itself: no link).
      assert.deepEqual([...kinds].sort(), LINK_KINDS.filter((k) => k !== 'canonical').sort());
      const missing = await runCli(['import-warc', join(dir.path, 'no-such.warc.gz'), '--db', newDb()]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no-such\.warc\.gz: no such file/);
    } finally {
      await site.close();
    }
  });
});

describe('a gzip bomb', () => {
  it('is refused at the cap with a typed error, the crawl staying under 300 MB', async () => {
    const site = await serveRealWebSite();
    try {
      const db = newDb();
      const result = await runCli(['crawl', `${site.a}/enc/bomb.html`, '--db', db, '--allow-ip', '127.0.0.1/32', '--resolve', 'a.test=127.0.0.1', '--delay', '0', '--no-sitemaps', '--json', '-q']);
      assert.equal(result.code, 0, result.stderr);
      const json = JSON.parse(result.stdout) as CrawlReport;
      assert.equal(json.failed, 1);
      assert.ok(json.memory.peakRss > 0 && json.memory.peakRss < 300 * 1024 * 1024, `peak RSS ${(json.memory.peakRss / 1e6).toFixed(0)} MB`);
      const page = await withStore(db, (store) => store.pageByUrl(`${site.a}/enc/bomb.html`));
      assert.equal(page!.error, `body larger than ${10 * 1024 * 1024} bytes once decoded`);
      // 1 MB that gzip makes a few KB, under a 500 KB cap.
      const small = await runCli(['crawl', `${site.a}/enc/bomb.html`, '--db', newDb(), '--allow-ip', '127.0.0.1/32', '--resolve', 'a.test=127.0.0.1', '--max-body', '500000', '--no-sitemaps', '--json', '-q']);
      assert.equal(small.code, 0, small.stderr);
      assert.equal((JSON.parse(small.stdout) as CrawlReport).failed, 1);
    } finally {
      await site.close();
    }
  });
});

const postgres = await startTestServer();
if (typeof postgres === 'string') {
  missingToolTest('a shared crawl of the real-web site', 'postgres', postgres);
} else {
  after(() => postgres.stop());
  describe('a crawl of the real-web site shared by two instances', () => {
    it('records the pages and links a single crawl records, every habit included', async () => {
      const site = await serveRealWebSite();
      try {
        const single = newDb();
        await crawl(single, settingsFor(site));
        const url = await postgres.createDatabase();
        const warcDir = join(dir.path, 'shared-warc');
        await startSharedCrawl(url, settingsFor(site, { checkpointMs: 100, warcDir }), { partitions: 8 });
        const reports = await Promise.all([joinSharedCrawl(url), joinSharedCrawl(url)]);
        for (const r of reports) assert.equal(r.stoppedBy, 'done');
        assert.equal(reports.reduce((n, r) => n + r.sitemaps, 0), 5);
        const store = await PostgresStore.open(url);
        let shared: Awaited<ReturnType<typeof contents>>;
        try {
          shared = await contents(store);
          for (const page of site.reachableOnlyByHabit) assert.equal((await store.pageByUrl(page))?.status, 200, page);
        } finally {
          await store.close();
        }
        const alone = await withStore(single, contents);
        // Which page of a redirect loop is named the loop depends on which is read last: left out.
        const answers = (pages: Map<string, string>): Map<string, string> => new Map([...pages].map(([u, v]) => [u, u.includes('/loop/') ? v.split(' ')[0]! : v]));
        assert.deepEqual(answers(shared.pages), answers(alone.pages));
        assert.deepEqual(shared.links, alone.links);
        // The instances' WARC files hold every fetch.
        const files = readdirSync(warcDir).map((f) => join(warcDir, f));
        const python = spawnSync('python3', [join(repoRoot, 'test/fixtures/warc_check.py'), ...files], { encoding: 'utf8', maxBuffer: 1 << 26 });
        assert.equal(python.status, 0, python.stderr);
        const archived = (JSON.parse(python.stdout) as Array<{ type: string; uri: string }>).filter((r) => r.type === 'response');
        for (const page of site.reachableOnlyByHabit) assert.ok(archived.some((r) => r.uri === page), page);
      } finally {
        await site.close();
      }
    });
  });
}
