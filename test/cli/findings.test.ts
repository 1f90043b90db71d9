/**
 * Issue 26's findings, each run again as written there: a test per finding, named after it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { redactLocation } from '../../src/store/open.js';
import { repoRoot, temporaryDirectory } from '../helpers.js';
import { runCli, serveLogged } from '../crawl/crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

describe('issue 26 findings', () => {
  it('`wga help` and `wga help CMD` exit with status 0', async () => {
    const help = await runCli(['help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout + help.stderr, /Usage: wga/);
    const crawl = await runCli(['help', 'crawl']);
    assert.equal(crawl.code, 0, crawl.stderr);
    assert.match(crawl.stdout + crawl.stderr, /--no-sitemaps/);
    // A missing command is still bad usage.
    assert.equal((await runCli([])).code, 2);
  });

  it('postgres://u@host/db?password=SECRET: the password is masked in every message', async () => {
    assert.equal(redactLocation('postgres://u@db.example/crawl?password=SECRET&sslmode=disable'), 'postgres://u@db.example/crawl?password=***&sslmode=disable');
    assert.equal(redactLocation('postgres://u:SECRET@db.example/crawl'), 'postgres://u:***@db.example/crawl');
    assert.equal(redactLocation('postgresql://u@db.example/crawl?sslpassword=SECRET'), 'postgresql://u@db.example/crawl?sslpassword=***');
    // A store that cannot be reached: the message names it, without the password.
    const result = await runCli(['stats', '--db', 'postgres://u@127.0.0.1:1/crawl?password=SECRET&connect_timeout=2']);
    assert.notEqual(result.code, 0);
    assert.ok(!result.stderr.includes('SECRET'), result.stderr);
    assert.match(result.stderr, /password=\*\*\*/);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  });

  it('a PostgreSQL address that accepts the connection but never answers ends in one line, not a wait', { timeout: 120_000 }, async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const result = await runCli(['stats', '--db', `postgres://u@127.0.0.1:${port}/crawl?connect_timeout=2`], { timeoutMs: 100_000 });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /127\.0\.0\.1/);
      assert.match(result.stderr, /timeout/i);
      assert.ok(sockets.length >= 1, 'it did connect');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('http://[::127.0.0.1]/ is refused by the address rules, and a crawl whose seeds are all refused exits non-zero naming the reason per seed', async () => {
    const server = await serveLogged(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<a href="/x">x</a>' }));
    try {
      const db = join(dir.path, 'refused.sqlite');
      const result = await runCli(['crawl', `http://[::127.0.0.1]:${server.port}/`, `http://127.0.0.1:${server.port}/`, '--db', db, '--delay', '0', '--json']);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(server.log.length, 0, 'no request reached the server');
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 3, result.stderr);
      assert.match(lines[0]!, /seed http:\/\/\[::127\.0\.0\.1\]:\d+\/: excluded: ::7f00:1 carries 127\.0\.0\.1: address 127\.0\.0\.1 is loopback/);
      assert.match(lines[1]!, /seed http:\/\/127\.0\.0\.1:\d+\/: excluded: address 127\.0\.0\.1 is loopback/);
      assert.match(lines[2]!, /nothing was fetched/);
      const json = JSON.parse(result.stdout) as { seedAnswers: Array<{ url: string; status: number | null; error: string | null }> };
      assert.equal(json.seedAnswers.length, 2);
      for (const seed of json.seedAnswers) assert.match(seed.error ?? '', /^excluded: /);
      // Allowed, the same crawl works and exits 0.
      const allowed = await runCli(['crawl', `http://127.0.0.1:${server.port}/`, '--db', join(dir.path, 'allowed.sqlite'), '--allow-ip', '127.0.0.1/32', '--delay', '0', '-q']);
      assert.equal(allowed.code, 0, allowed.stderr);
    } finally {
      await server.close();
    }
  });

  it('every spelling of a loopback address is refused without a request: numeric forms, trailing dot, IPv6 forms carrying IPv4, names and IDNs resolving to it', async () => {
    const server = await serveLogged(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<a href="/x">x</a>' }));
    try {
      const p = server.port;
      // [seed as typed, the page's URL once normalised, the reason's address]
      const forms: Array<[string, string, RegExp]> = [
        [`http://2130706433:${p}/`, `http://127.0.0.1:${p}/`, /address 127\.0\.0\.1 is loopback/],
        [`http://0x7f.0.0.1:${p}/`, `http://127.0.0.1:${p}/`, /127\.0\.0\.1 is loopback/],
        [`http://0177.0.0.1:${p}/`, `http://127.0.0.1:${p}/`, /127\.0\.0\.1 is loopback/],
        [`http://127.1:${p}/`, `http://127.0.0.1:${p}/`, /127\.0\.0\.1 is loopback/],
        [`http://127.0.0.1.:${p}/`, `http://127.0.0.1:${p}/`, /127\.0\.0\.1 is loopback/],
        [`http://[::ffff:7f00:1]:${p}/`, `http://[::ffff:7f00:1]:${p}/`, /127\.0\.0\.1 is loopback/],
        [`http://[::127.0.0.1]:${p}/`, `http://[::7f00:1]:${p}/`, /::7f00:1 carries 127\.0\.0\.1/],
        [`http://[64:ff9b::127.0.0.1]:${p}/`, `http://[64:ff9b::7f00:1]:${p}/`, /64:ff9b::7f00:1 carries 127\.0\.0\.1/],
        [`http://[2002:7f00:1::]:${p}/`, `http://[2002:7f00:1::]:${p}/`, /2002:7f00:1:: carries 127\.0\.0\.1/],
        // Teredo: the client's address is the last 32 bits, inverted (0x80fffffe is 127.0.0.1).
        [`http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${p}/`, `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${p}/`, /carries 127\.0\.0\.1/],
        [`http://[::ffff:0:7f00:1]:${p}/`, `http://[::ffff:0:7f00:1]:${p}/`, /carries 127\.0\.0\.1/],
        [`http://localhost:${p}/`, `http://localhost:${p}/`, /localhost: address 127\.0\.0\.1 is loopback/],
        [`http://bücher.example:${p}/`, `http://xn--bcher-kva.example:${p}/`, /xn--bcher-kva\.example: address 127\.0\.0\.1 is loopback/],
      ];
      const db = join(dir.path, 'forms.sqlite');
      const result = await runCli(['crawl', ...forms.map(([seed]) => seed), '--resolve', 'bücher.example=127.0.0.1', '--db', db, '--delay', '0', '--json']);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(server.log.length, 0, 'no request reached the server');
      const json = JSON.parse(result.stdout) as { seedAnswers: Array<{ url: string; status: number | null; error: string | null }> };
      const bySeed = new Map(json.seedAnswers.map((s) => [s.url, s]));
      const pages = await runCli(['pages', '--db', db, '--status', 'excluded', '--json']);
      const stored = new Set((JSON.parse(pages.stdout) as { pages: Array<{ url: string }> }).pages.map((page) => page.url));
      for (const [seed, url, reason] of forms) {
        assert.ok(stored.has(url), `${seed}: stored as ${url}; stored: ${[...stored].join(' ')}`);
        const answer = bySeed.get(seed);
        assert.ok(answer !== undefined, seed);
        assert.equal(answer.status, null, seed);
        assert.match(answer.error ?? '', /^excluded: /, seed);
        assert.match(answer.error ?? '', reason, seed);
      }
      // A zone id has no place in a URL (RFC 6874 is not in the URL standard): a bad seed, named.
      const zone = await runCli(['crawl', `http://[fe80::1%25lo]:${p}/`, '--db', join(dir.path, 'zone.sqlite'), '--delay', '0']);
      assert.equal(zone.code, 2, zone.stderr);
      assert.match(zone.stderr, /^wga: .*fe80::1%25lo.*\n$/);
      assert.equal(server.log.length, 0);
    } finally {
      await server.close();
    }
  });

  it('wga reset --db S --yes while another process crawls into S is refused, naming it; so are import and runs --delete', { timeout: 300_000 }, async () => {
    const { Website } = await import('../../src/experiments/website.js');
    const { serveWebsite } = await import('../../src/experiments/website-server.js');
    const site = await serveWebsite(new Website({ pages: 400, seed: 5 }), { delayMs: 30 });
    const db = join(dir.path, 'busy.sqlite');
    const { spawn } = await import('node:child_process');
    const { cliPath } = await import('../helpers.js');
    const crawler = spawn(process.execPath, [cliPath, 'crawl', `${site.origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '-q'], { stdio: 'ignore' });
    const finished = new Promise<number | null>((resolve) => crawler.on('close', (code) => resolve(code)));
    try {
      const { SqliteStore } = await import('../../src/store/sqlite.js');
      // Bounded wait for the crawl's lock (its first checkpoint).
      for (let i = 0; i < 600; i++) {
        const store = SqliteStore.open(db);
        const locked = (await store.crawlState()).lock !== undefined;
        await store.close();
        if (locked) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const reset = await runCli(['reset', '--db', db, '--yes']);
      assert.equal(reset.code, 2, reset.stderr);
      assert.match(reset.stderr, new RegExp(`a crawl is writing this store \\(pid ${crawler.pid} on [^,]+, started 20\\d\\d-.*\\): stop it before resetting it`));
      assert.equal(reset.stderr.trim().split('\n').length, 1);
      const imported = await runCli(['import', join(repoRoot, 'data/harvard500/harvard500.edges.tsv'), '--db', db]);
      assert.equal(imported.code, 2, imported.stderr);
      assert.match(imported.stderr, /stop it before importing into it/);
      const deleted = await runCli(['runs', '--db', db, '--delete', '1']);
      assert.equal(deleted.code, 2, deleted.stderr);
      crawler.kill('SIGINT');
      assert.equal(await finished, 0, 'the crawl, undisturbed, ends cleanly');
      // A lock left by a process that is gone: refused without --force, taken with it.
      const store = SqliteStore.open(db);
      const { hostname } = await import('node:os');
      const dead = { owner: 'x', hostname: hostname(), pid: 2 ** 22 + 17, heartbeat: Date.now(), startedAt: Date.now() };
      (store as unknown as { db: { prepare(sql: string): { run(...a: unknown[]): void } } }).db
        .prepare('INSERT INTO crawl_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run('lock', JSON.stringify(dead));
      await store.close();
      const stale = await runCli(['reset', '--db', db, '--yes']);
      assert.equal(stale.code, 2, stale.stderr);
      assert.match(stale.stderr, /whose process is gone \(pid 4194321 on .*give --force/);
      const forced = await runCli(['reset', '--db', db, '--yes', '--force']);
      assert.equal(forced.code, 0, forced.stderr);
    } finally {
      if (crawler.exitCode === null) crawler.kill('SIGKILL');
      await site.close();
    }
  });

  it('--threads 10000 is refused, as are a --concurrency or --per-host no crawl can hold', async () => {
    const graph = join(repoRoot, 'data/harvard500/harvard500.edges.tsv');
    const threads = await runCli(['rank', graph, '--threads', '10000', '-q']);
    assert.equal(threads.code, 2, threads.stderr);
    assert.match(threads.stderr, /--threads: expected an integer from 1 to 256, got '10000'/);
    for (const option of ['--concurrency', '--per-host']) {
      const crawl = await runCli(['crawl', 'http://127.0.0.1:9/', '--db', join(dir.path, `${option}.sqlite`), option, '1000000']);
      assert.equal(crawl.code, 2, crawl.stderr);
      assert.match(crawl.stderr, new RegExp(`${option}: expected an integer from 1 to 10000`));
    }
  });

  it('wga compare a.json b.json reads the JSON score files wga rank --out a.json writes (and TSV beside them)', async () => {
    const graph = join(repoRoot, 'data/harvard500/harvard500.edges.tsv');
    const a = join(dir.path, 'a.json');
    const b = join(dir.path, 'b.tsv');
    assert.equal((await runCli(['rank', graph, '--out', a, '-q'])).code, 0);
    assert.equal((await runCli(['rank', graph, '--method', 'opic', '--out', b, '-q'])).code, 0);
    const json = await runCli(['compare', a, b, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const tsv = join(dir.path, 'a.tsv');
    assert.equal((await runCli(['rank', graph, '--out', tsv, '-q'])).code, 0);
    const same = await runCli(['compare', tsv, b, '--json']);
    // The same comparison whichever format the PageRank scores came in.
    assert.deepEqual(JSON.parse(json.stdout), { ...(JSON.parse(same.stdout) as object), reference: a });
  });

  it("wga pages --status 4xx --linkers on the demo store lists the demo's broken pages with the pages linking to them, as the store's tables say", { timeout: 300_000 }, async () => {
    const db = join(dir.path, 'demo.sqlite');
    const demo = await runCli(['demo', '--db', db, '--passes', '1', '--json']);
    assert.equal(demo.code, 0, demo.stderr);
    const result = await runCli(['pages', '--db', db, '--status', '4xx', '--linkers', '--limit', '100000', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout) as { total: number; pages: Array<{ url: string; status: number; linkers: { total: number; urls: string[] } }> };
    const Database = (await import('better-sqlite3')).default;
    const sql = new Database(db, { readonly: true });
    try {
      const broken = sql.prepare('SELECT id, url, status FROM pages WHERE status >= 400 AND status < 500 ORDER BY id').all() as Array<{ id: number; url: string; status: number }>;
      assert.ok(broken.length > 10, `the demo site has broken pages (${broken.length})`);
      assert.equal(json.total, broken.length);
      assert.deepEqual(json.pages.map((p) => [p.url, p.status]), broken.map((p) => [p.url, p.status]));
      const linkers = sql.prepare('SELECT DISTINCT s.url AS url FROM links l JOIN pages s ON s.id = l.source WHERE l.target = ? ORDER BY s.url');
      for (const [i, page] of broken.entries()) {
        const expected = (linkers.all(page.id) as Array<{ url: string }>).map((r) => r.url);
        assert.ok(expected.length > 0, `${page.url} is linked from somewhere`);
        assert.equal(json.pages[i]!.linkers.total, expected.length, page.url);
        assert.deepEqual(json.pages[i]!.linkers.urls, expected.slice(0, 20), page.url);
      }
    } finally {
      sql.close();
    }
    const text = await runCli(['pages', '--db', db, '--status', '4xx,5xx,failed', '--linkers', '--limit', '2']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^\d+ pages of .* answered 4xx, 5xx, failed \(the first 2\)\n\d{3} {2}http[^\n]*\n {4}linked from http/);
    const bad = await runCli(['pages', '--db', db, '--status', '4xx,oops']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--status: 'oops' is not 2xx/);
  });

  it('import of a large file, stats --db of a large store and export show their progress on stderr, in the crawl\'s style', { timeout: 300_000 }, async () => {
    // 400,000 pages in a ring with chords: 1,200,000 links over two read ranges of the store.
    const lines: string[] = [];
    const n = 400_000;
    for (let u = 0; u < n; u++) for (const step of [1, 7, 1000]) lines.push(`http://h${u % 50}.example/p${u}\thttp://h${(u + step) % 50}.example/p${(u + step) % n}`);
    const file = join(dir.path, 'ring.tsv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const db = join(dir.path, 'ring.db');
    // Every update shown (WGA_PROGRESS_MS=0), not only those after a second, so that the test does not depend on speed.
    const env = { WGA_PROGRESS_MS: '0' };
    const imported = await runCli(['import', file, '--db', db], { env });
    assert.equal(imported.code, 0, imported.stderr);
    const writes = imported.stderr.split('\n').filter((l) => /^writing to .*ring\.db: [\d,]+ of 1,200,000 links \(\d+%\), [\d.]+ s$/.test(l));
    assert.ok(writes.length >= 10, `import progress:\n${imported.stderr}`);
    const stats = await runCli(['stats', '--db', db], { env });
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stderr, /^reading the graph of .*ring\.db: [\d,]+ links \(50% of the pages\), [\d.]+ s$/m);
    assert.match(stats.stderr, /^reading the graph of .*ring\.db: 1,200,000 links \(100% of the pages\), [\d.]+ s$/m);
    const exported = await runCli(['export', '--db', db, '--format', 'tsv', '--out', join(dir.path, 'ring.out.tsv')], { env });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, /^reading the graph of .*ring\.db: 1,200,000 links/m);
    // -q: nothing on stderr.
    const quiet = await runCli(['stats', '--db', db, '-q'], { env });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
  });

  it('single-bit flips in a BV file wga wrote are refused, every one, naming the damaged file', async () => {
    // A graph of 300 pages exported as BV by `wga export`, then each of 400 bits of its .graph flipped in turn.
    const edgesFile = join(dir.path, 'flips.tsv');
    const lines: string[] = [];
    for (let u = 0; u < 300; u++) for (const step of [1, 3, 17, 101]) lines.push(`${u}\t${(u * 7 + step) % 300}`);
    writeFileSync(edgesFile, `${lines.join('\n')}\n`);
    const base = join(dir.path, 'flips');
    const exported = await runCli(['export', edgesFile, '--format', 'bv', '--out', base, '-q']);
    assert.equal(exported.code, 0, exported.stderr);
    const graph = readFileSync(`${base}.graph`);
    const { readWebGraph } = await import('../../src/formats/webgraph-bv.js');
    const { InputFormatError } = await import('../../src/errors.js');
    assert.equal((await readWebGraph(base)).graph.edgeCount, lines.length, 'the file as written reads');
    const bits = graph.length * 8;
    for (let k = 0; k < 400; k++) {
      const bit = Math.floor((k * bits) / 400);
      const flipped = Buffer.from(graph);
      flipped[bit >> 3]! ^= 0x80 >> (bit & 7);
      writeFileSync(`${base}.graph`, flipped);
      await assert.rejects(readWebGraph(base), (error: unknown) => error instanceof InputFormatError && error.message.startsWith(`${base}.graph: `), `bit ${bit}`);
    }
    // Through the CLI: one line naming the file, exit status 1.
    const read = await runCli(['stats', base]);
    assert.equal(read.code, 1);
    assert.match(read.stderr, /^wga: .*flips\.graph: the file's digest is xxh64:[0-9a-f]{16}, not the xxh64:[0-9a-f]{16} its \.properties records: the file is damaged or from another graph\n$/);
    writeFileSync(`${base}.graph`, graph);
    assert.equal((await runCli(['stats', base, '-q'])).code, 0);
  });

  it('a label file with fewer lines than the graph has pages is refused, naming the counts; --labels-partial keeps the ids of the others', async () => {
    const graphFile = join(dir.path, 'three.txt');
    writeFileSync(graphFile, '0 1\n1 2\n2 0\n');
    const labels = join(dir.path, 'two-labels.txt');
    writeFileSync(labels, 'id url\n0 http://a.example/\n1 http://b.example/\n');
    const refused = await runCli(['rank', graphFile, '--labels', labels]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^wga: .*two-labels\.txt: labels 2 of the graph's 3 pages \(1 have none\): every page needs a line, or give --labels-partial to keep the ids of the others\n$/);
    const partial = await runCli(['rank', graphFile, '--labels', labels, '--labels-partial', '--json']);
    assert.equal(partial.code, 0, partial.stderr);
    const pages = (JSON.parse(partial.stdout) as { top: Array<{ label: string }> }).top.map((t) => t.label).sort();
    assert.deepEqual(pages, ['2', 'http://a.example/', 'http://b.example/']);
  });

  it('import says which labels it merged because they are one URL once normalised, with an example', async () => {
    const file = join(dir.path, 'merge.tsv');
    writeFileSync(file, 'http://A.example/x\thttp://b.example/\nhttp://a.example/x\thttp://c.example/\nhttp://b.example/\thttp://c.example/\n');
    const imported = await runCli(['import', file, '--db', join(dir.path, 'merge.sqlite'), '--json']);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /^wga: 1 labels are the same URL as another once normalised, and were merged with it \(e\.g\. http:\/\/a\.example\/x with http:\/\/A\.example\/x\)$/m);
    const json = JSON.parse(imported.stdout) as { pages: number; links: number; merged: { count: number; examples: string[][] } };
    assert.equal(json.pages, 3);
    assert.equal(json.links, 3);
    assert.equal(json.merged.count, 1);
  });

  it('the links-per-page cap counts distinct targets, not repeated hrefs', async () => {
    const { extractLinks } = await import('../../src/crawl/extract.js');
    const repeated = '<a href="/menu">menu</a>'.repeat(30_000);
    const distinct = Array.from({ length: 500 }, (_, i) => `<a href="/p${i}">${i}</a>`).join('');
    const page = extractLinks(`${repeated}${distinct}`, 501);
    assert.equal(page.droppedLinks, 0);
    const hrefs = new Set(page.links.map((l) => l.href));
    assert.equal(hrefs.size, 501, 'the menu link and every distinct one');
    assert.ok(hrefs.has('/p499'));
  });

  it('--max-links-per-page: a page over the cap keeps its first targets, and the crawl, stats and the page view count it', async () => {
    // The hub links to 80 targets, each through three fragments; the others link home.
    const hub = Array.from({ length: 240 }, (_, i) => `<a href="/t${i % 80}#f${i}">${i}</a>`).join('');
    const server = await serveLogged((path) => ({ status: 200, headers: { 'content-type': 'text/html' }, body: path === '/' ? hub : '<a href="/">home</a>' }));
    try {
      const db = join(dir.path, 'cap.sqlite');
      const crawl = await runCli(['crawl', `http://127.0.0.1:${server.port}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--max-links-per-page', '50', '--no-live', '--json']);
      assert.equal(crawl.code, 0, crawl.stderr);
      const report = JSON.parse(crawl.stdout) as { pagesOverLinkCap: number; fetched: number };
      assert.equal(report.pagesOverLinkCap, 1);
      assert.equal(report.fetched, 51, 'the hub and its first 50 targets');
      const stats = await runCli(['stats', '--db', db]);
      assert.match(stats.stdout, /over the link cap\s+1 pages linked to more targets than --max-links-per-page/);
      const page = await runCli(['page', `http://127.0.0.1:${server.port}/`, '--db', db, '--json']);
      // 240 anchors, 150 of them to the 50 targets kept (three fragments each): 90 dropped.
      assert.equal((JSON.parse(page.stdout) as { linksDropped: number }).linksDropped, 90);
      const plain = await runCli(['page', `http://127.0.0.1:${server.port}/`, '--db', db]);
      assert.match(plain.stdout, /link cap\s+90 links to targets past --max-links-per-page not kept/);
      // The default keeps every target.
      const whole = join(dir.path, 'whole.sqlite');
      const all = await runCli(['crawl', `http://127.0.0.1:${server.port}/`, '--db', whole, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--no-live', '--json']);
      assert.equal((JSON.parse(all.stdout) as { pagesOverLinkCap: number; fetched: number }).fetched, 81);
    } finally {
      await server.close();
    }
  });

  it('a crawl and rank/scc/levels --save print the run ids they saved', async () => {
    const server = await serveLogged((path) => ({ status: 200, headers: { 'content-type': 'text/html' }, body: path === '/' ? '<a href="/a">a</a>' : '<a href="/">home</a>' }));
    try {
      const db = join(dir.path, 'runs.sqlite');
      const crawl = await runCli(['crawl', `http://127.0.0.1:${server.port}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '-q']);
      assert.equal(crawl.code, 0, crawl.stderr);
      assert.match(crawl.stdout, /saved as runs 1 \(opic\), 2 \(live\)/);
      const rank = await runCli(['rank', '--db', db, '--save', '-q']);
      assert.match(rank.stdout, /saved as run 3 \(pagerank\)/);
      const scc = await runCli(['scc', '--db', db, '--save', '-q']);
      assert.match(scc.stdout, /saved as run 4 \(scc\)/);
      const levels = await runCli(['levels', '--db', db, '--root', `http://127.0.0.1:${server.port}/`, '--save', '-q']);
      assert.match(levels.stdout, /saved as run 5 \(levels\)/);
    } finally {
      await server.close();
    }
  });

  it("the README cites the three papers instead of a folder a clone does not have", () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    assert.ok(!readme.includes('../shared'), 'no ../shared in the README');
    for (const cite of ['Web Graph Analyzer Tool', 'ValueTools 2006', 'Adaptive On-Line Page Importance Computation', 'WWW 2003', 'Tomlin']) assert.ok(readme.includes(cite), cite);
  });
});
