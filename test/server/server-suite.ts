/**
 * The HTTP API against the CLI on one store: every endpoint's JSON equals what `wga ... --json`
 * prints for the same store (run as a child process); bad parameters get 4xx JSON errors; changes
 * need the token; the Host header is checked; rank jobs report their convergence; a crawl is
 * watched live by two clients alike, also when another process runs it. Run on SQLite and
 * PostgreSQL (sqlite.test.ts, postgres.test.ts).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Website } from '../../src/experiments/website.js';
import { serveWebsite } from '../../src/experiments/website-server.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { sharedData } from '../helpers.js';
import { openSse } from './sse-client.js';

const edges = sharedData('hollins', 'hollins.edges.txt');
const urls = sharedData('hollins', 'hollins.urls.txt');
const HOME = 'http://www.hollins.edu/';
/** The test site's spider trap (/calendar/N links to N+1 forever), fenced off as the crawl tests do. */
const TRAP = '/calendar/';

type Json = Record<string, unknown>;

async function cli(args: string[]): Promise<Json> {
  if (!args.includes('--json')) args = [...args, '--json'];
  const result = await runCli(args, { timeoutMs: 120_000 });
  assert.equal(result.code, 0, `wga ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Json;
}

/** The document without its timings (they differ between two computations). */
function untimed(document: Json): Json {
  const { timings: _timings, ...rest } = document;
  return rest;
}

/** A raw request (fetch does not let a test set the Host header). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function assertJsonError(status: number, body: Json, expectedStatus: number, parameter?: string): void {
  assert.equal(status, expectedStatus, JSON.stringify(body));
  const error = body['error'] as { code: string; message: string; parameter?: string };
  assert.equal(typeof error.code, 'string');
  assert.equal(typeof error.message, 'string');
  assert.doesNotMatch(error.message, /\n\s+at /, 'no stack trace');
  if (parameter !== undefined) assert.equal(error.parameter, parameter, error.message);
}

export function serverSuite(name: string, newDb: () => Promise<string>): void {
  describe(`wga serve on ${name}: the API equals the CLI`, () => {
    let db = '';
    let server: RunningServer;
    let base = '';
    const logged: string[] = [];

    const get = async (path: string): Promise<{ status: number; body: Json }> => {
      const response = await fetch(base + path);
      return { status: response.status, body: (await response.json()) as Json };
    };
    const send = async (method: string, path: string, body?: unknown, token: string | null = server.token): Promise<{ status: number; body: Json }> => {
      const response = await fetch(base + path, {
        method,
        headers: { 'Content-Type': 'application/json', ...(token === null ? {} : { 'X-WGA-Token': token }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    /** Starts a job and waits for its end over SSE; returns the end event's job and the progress events. */
    /** Also `seen`: the residuals the job already had when the stream opened (its first, `job`, event). */
    const runJob = async (path: string, body: unknown): Promise<{ job: Json; progress: Json[]; seen: number }> => {
      const started = await send('POST', path, body);
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const id = (started.body['job'] as Json)['id'] as string;
      const stream = await openSse(`${base}api/jobs/${id}/events`);
      try {
        assert.match(stream.contentType, /^text\/event-stream/);
        const end = await stream.until((e) => e.event === 'end', 120_000);
        const first = stream.events.find((e) => e.event === 'job');
        const seen = first === undefined ? 0 : ((JSON.parse(first.data) as Json)['residuals'] as unknown[]).length;
        return { job: JSON.parse(end.data) as Json, progress: stream.events.filter((e) => e.event === 'progress').map((e) => JSON.parse(e.data) as Json), seen };
      } finally {
        stream.close();
      }
    };

    before(async () => {
      db = await newDb();
      await cli(['import', edges, '--labels', urls, '--db', db, '--json', '-q']);
      await cli(['rank', '--db', db, '--save', '--json', '-q']);
      await cli(['rank', '--db', db, '--method', 'montecarlo', '--walks', '5', '--save', '--json', '-q']);
      server = await startServer({ db, log: (text) => logged.push(text) });
      base = server.url;
    });
    after(async () => {
      await server?.close();
      assert.deepEqual(logged, [], 'no internal errors logged');
    });

    it('answers stats as `wga stats --json`', async () => {
      const { status, body } = await get('api/stats');
      assert.equal(status, 200);
      assert.deepEqual(untimed(body), untimed(await cli(['stats', '--db', db])));
      assert.equal(body['nodes'], 6012);
    });

    it('answers a page as `wga page --json`, its links paged', async () => {
      const expected = await cli(['page', HOME, '--db', db]);
      const all = await get(`api/page?url=${encodeURIComponent(HOME)}&limit=100000`);
      assert.equal(all.status, 200);
      assert.deepEqual({ ...all.body, links: { ...(all.body['links'] as Json), limit: null } }, expected);
      assert.equal((expected['inLinks'] as string[]).length, 829);
      const paged = await get(`api/page?url=${encodeURIComponent(HOME)}&offset=10&limit=5`);
      assert.deepEqual(paged.body['inLinks'], (expected['inLinks'] as string[]).slice(10, 15));
      assert.deepEqual(paged.body['links'], { offset: 10, limit: 5, inTotal: 829, outTotal: 25 });
    });

    it('searches as `wga search --json`, by URL and by neighbour', async () => {
      const cases: Array<[string, string[]]> = [
        ['q=admiss&limit=7', ['search', 'admiss', '--limit', '7']],
        ['q=http%3A%2F%2Fwww.hollins.edu%2Fa&mode=prefix', ['search', 'http://www.hollins.edu/a', '--prefix']],
        ['q=about_tour&mode=linksTo&limit=20', ['search', 'about_tour', '--links-to', '--limit', '20']],
        ['q=about_tour&mode=linkedFrom', ['search', 'about_tour', '--linked-from']],
        ['q=http%3A%2F%2Fwww.hollins.edu%2Fab&mode=linksTo&prefix=1', ['search', 'http://www.hollins.edu/ab', '--links-to', '--prefix']],
      ];
      for (const [query, args] of cases) {
        const { status, body } = await get(`api/search?${query}`);
        assert.equal(status, 200);
        const expected = await cli([...args, '--db', db]);
        assert.deepEqual(body, expected, query);
        assert.ok((expected['pages'] as unknown[]).length > 0, `${query} finds pages`);
      }
    });

    it('lists runs, shows the top of one, compares two and exports scores as the CLI does', async () => {
      assert.deepEqual((await get('api/runs')).body, await cli(['runs', '--db', db]));
      assert.deepEqual((await get('api/runs/1?top=5')).body, await cli(['top', '--run', '1', '--top', '5', '--db', db]));
      assert.deepEqual((await get('api/top?score=montecarlo&top=3')).body, await cli(['top', '--score', 'montecarlo', '--top', '3', '--db', db]));
      const compared = await get('api/compare?a=1&b=2');
      assert.deepEqual(compared.body, await cli(['compare', '1', '2', '--db', db]));
      assert.ok((compared.body['kendallTau'] as number) > 0.5);
      const tsv = await fetch(`${base}api/runs/1/scores`);
      assert.equal(tsv.status, 200);
      assert.match(tsv.headers.get('content-type') ?? '', /^text\/tab-separated-values/);
      const text = await tsv.text();
      const exported = await runCli(['runs', '--export', '1', '--db', db]);
      assert.equal(text, exported.stdout);
      const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      assert.equal(lines.length, 6012);
      assert.equal(lines[0]!.split('\t')[0], HOME);
    });

    it('answers the pages table sorted and filtered, every page once, and a bad filter with a 400 naming it', async () => {
      const all = (await get('api/pages-table?sort=inLinks&order=desc&limit=10000')).body as Json;
      const rows = all['rows'] as Json[];
      const stats = await cli(['stats', '--db', db]);
      assert.equal(all['total'], stats['nodes']);
      assert.equal(new Set(rows.map((r) => r['url'])).size, rows.length);
      const inLinks = rows.map((r) => r['inLinks'] as number);
      assert.deepEqual(inLinks, [...inLinks].sort((a, b) => b - a));
      const degrees = await cli(['degrees', '--top', '1', '--db', db]);
      assert.equal(inLinks[0], ((degrees['topIn'] as Json[])[0]!)['degree']);
      assert.equal(inLinks.reduce((a, b) => a + b, 0), stats['edges']);
      const deep = (await get('api/pages-table?filter.inLinks=>=10&sort=url&limit=5')).body as Json;
      assert.equal(deep['total'], inLinks.filter((n) => n >= 10).length);
      const bad = await get('api/pages-table?filter.inLinks=many');
      assertJsonError(bad.status, bad.body as Json, 400, 'filter.inLinks');
      const badSort = await get('api/pages-table?sort=nope');
      assertJsonError(badSort.status, badSort.body as Json, 400, 'sort');
    });

    it('answers the site audit as `wga audit --json`, and a bad check id with a 400 naming the parameter', async () => {
      const api = await get('api/audit?check=broken-links,deep&maxDepthOk=2');
      assert.equal(api.status, 200);
      const { seconds: _a, ...fromApi } = api.body as Json;
      const { seconds: _b, ...fromCli } = await cli(['audit', '--check', 'broken-links,deep', '--max-depth-ok', '2', '--json', '--db', db]);
      assert.deepEqual(fromApi, fromCli);
      assert.deepEqual(((api.body as Json)['checks'] as Json[]).map((c) => c['id']), ['broken-links', 'deep']);
      const bad = await get('api/audit?check=nope');
      assertJsonError(bad.status, bad.body as Json, 400, 'check');
    });

    it('answers scc, levels and degrees as the CLI does', async () => {
      const sccApi = await get(`api/scc?root=${encodeURIComponent(HOME)}&top=5`);
      assert.deepEqual(untimed(sccApi.body), untimed(await cli(['scc', '--root', HOME, '--top', '5', '--db', db])));
      const bowTie = sccApi.body['bowTie'] as Record<string, number>;
      assert.equal(Object.values(bowTie).reduce((a, b) => a + b, 0), 6012);
      const levelsApi = await get(`api/levels?root=${encodeURIComponent(HOME)}&maxLevel=4`);
      assert.deepEqual(untimed(levelsApi.body), untimed(await cli(['levels', '--root', HOME, '--max-level', '4', '--db', db])));
      assert.deepEqual((levelsApi.body['histogram'] as number[]).slice(0, 2), [1, 25]);
      const withPage = await get(`api/levels?root=${encodeURIComponent(HOME)}&page=${encodeURIComponent('http://www.hollins.edu/about/about_tour.htm')}`);
      assert.deepEqual(withPage.body['page'], { label: 'http://www.hollins.edu/about/about_tour.htm', level: 1 });
      assert.deepEqual((await get('api/degrees?top=4')).body, await cli(['degrees', '--top', '4', '--db', db]));
    });

    it('draws a neighbourhood, the crawl tree and the directory tree from the stored graph', async () => {
      const page = await cli(['page', HOME, '--db', db]);
      const near = (await get(`api/neighbourhood?url=${encodeURIComponent(HOME)}&limit=30`)).body;
      const nodes = near['nodes'] as Array<{ id: number; url: string; distance: number }>;
      assert.equal(nodes.length, 30);
      assert.equal(near['truncated'], true);
      assert.equal(nodes[0]!.url, HOME);
      assert.equal(near['center'], page['id']);
      const neighbours = new Set([...(page['in'] as Array<{ url: string }>), ...(page['out'] as Array<{ url: string }>)].map((l) => l.url));
      for (const node of nodes.slice(1)) assert.ok(neighbours.has(node.url), `${node.url} links to or from the centre`);
      const ids = new Set(nodes.map((n) => n.id));
      for (const [s, t] of near['edges'] as Array<[number, number]>) assert.ok(ids.has(s) && ids.has(t));
      const fromCenter = (near['edges'] as Array<[number, number]>).filter(([s]) => s === page['id']).length;
      const outNeighbours = nodes.filter((n) => (page['out'] as Array<{ url: string }>).some((l) => l.url === n.url)).length;
      assert.equal(fromCenter, outNeighbours, 'every drawn out-link of the centre is an edge');

      const tree = (await get(`api/crawl-tree?root=${encodeURIComponent(HOME)}&limit=50`)).body;
      const treeNodes = tree['nodes'] as Array<{ id: number; url: string; depth: number; parent: number | null }>;
      const levels = await cli(['levels', '--root', HOME, '--db', db]);
      assert.equal(tree['total'], levels['reached']);
      assert.equal(tree['sampled'], true);
      const byId = new Map(treeNodes.map((n) => [n.id, n]));
      for (const node of treeNodes) {
        if (node.parent === null) continue;
        const parent = byId.get(node.parent);
        assert.ok(parent !== undefined, 'ancestors are kept');
        assert.equal(node.depth, parent.depth + 1);
      }
      // The depth of a page in the tree is its level (clicks from the root).
      const deepest = treeNodes.reduce((a, b) => (b.depth > a.depth ? b : a));
      const deepestLevel = await get(`api/levels?root=${encodeURIComponent(HOME)}&page=${encodeURIComponent(deepest.url)}`);
      assert.equal((deepestLevel.body['page'] as Json)['level'], deepest.depth);

      const dirs = (await get('api/dir-tree?maxChildren=5&maxDepth=3')).body;
      assert.equal(dirs['pages'], 6012);
      const sites = dirs['children'] as Array<{ name: string; pages: number }>;
      assert.ok(sites.some((s) => s.name === 'http://www.hollins.edu'));
      assert.equal(sites.reduce((a, s) => a + s.pages, 0) + (dirs['otherPages'] as number), 6012);

      // The host graph, as `wga stats --hosts` builds it.
      const hosts = (await get('api/hosts')).body;
      const hostStats = await cli(['stats', '--hosts', '--db', db]);
      assert.equal(hosts['hosts'], hostStats['nodes']);
      assert.equal(hosts['hostLinks'], hostStats['edges']);
      const hostNodes = hosts['nodes'] as Array<{ host: string; pages: number }>;
      assert.equal(hostNodes.reduce((a, h) => a + h.pages, 0), 6012);
      assert.equal(hostNodes.find((h) => h.host === 'www.hollins.edu')?.pages, sites.find((s) => s.name === 'http://www.hollins.edu')?.pages);

      // The pay-level-domain graph, as `wga rank --level domain` ranks it.
      const domains = (await get('api/hosts?level=domain')).body;
      assert.equal(domains['level'], 'domain');
      const domainRank = await cli(['rank', '--level', 'domain', '--db', db, '--top', '1000', '--tolerance', '1e-10']);
      assert.equal(domains['hosts'], domainRank['nodes']);
      const domainNodes = domains['nodes'] as Array<{ host: string; pages: number; pagerank: number }>;
      assert.ok(domainNodes.length < hostNodes.length, 'hosts of one domain merge');
      assert.equal(domainNodes.reduce((a, d) => a + d.pages, 0), 6012);
      const ranked = new Map((domainRank['top'] as Array<{ label: string; score: number }>).map((t) => [t.label, t.score]));
      for (const d of domainNodes) assert.ok(Math.abs(d.pagerank - ranked.get(d.host)!) < 1e-9, d.host);
      assert.ok(domainNodes.some((d) => d.host === 'hollins.edu'));

      // The distances plot's data, as `wga distances --exact` computes it.
      const exact = (await get('api/distances?exact=true')).body;
      const exactCli = await cli(['distances', '--exact', '--db', db]);
      assert.equal(exact['averageDistance'], exactCli['averageDistance']);
      assert.deepEqual(exact['distribution'], exactCli['distribution']);
      const estimated = (await get('api/distances?runs=3&log2m=6')).body;
      assert.equal(estimated['runs'], 3);
      assert.ok(Math.abs((estimated['averageDistance'] as number) - (exact['averageDistance'] as number)) / (exact['averageDistance'] as number) < 0.05);
    });

    it('refuses bad parameters with a 4xx JSON error naming the parameter', async () => {
      const cases: Array<[string, number, string | undefined]> = [
        ['api/page', 400, 'url'],
        ['api/page?url=http%3A%2F%2Fnowhere.example%2F', 404, 'url'],
        ['api/page?url=x&limit=-3', 400, 'limit'],
        ['api/page?url=x&offset=abc', 400, 'offset'],
        ['api/search?q=a&mode=fuzzy', 400, 'mode'],
        ['api/search', 400, 'q'],
        ['api/search?q=a&limit=0', 400, 'limit'],
        ['api/runs/abc', 400, 'id'],
        ['api/runs/999', 404, undefined],
        ['api/compare?a=1', 400, 'b'],
        ['api/levels', 400, 'root'],
        ['api/hosts?level=galaxy', 400, 'level'],
        ['api/distances?runs=99', 400, 'runs'],
        ['api/distances?log2m=30', 400, 'log2m'],
        ['api/levels?root=nope', 404, 'root'],
        ['api/levels?root=x&maxLevel=-1', 400, 'maxLevel'],
        ['api/scc?root=nope', 404, 'root'],
        ['api/neighbourhood?url=x&depth=3', 400, 'depth'],
        ['api/jobs/nope', 404, undefined],
        ['api/nothing', 404, undefined],
      ];
      for (const [path, status, parameter] of cases) {
        const answer = await get(path);
        assertJsonError(answer.status, answer.body, status, parameter);
      }
      const badBodies: Array<[unknown, string]> = [
        [{ method: 'pagerank', damping: 1.5 }, 'damping'],
        [{ method: 'nosuch' }, 'method'],
        [{ method: 'pagerank', maxIterations: 0 }, 'maxIterations'],
        [{ method: 'montecarlo', root: [HOME] }, 'method'],
        [{ method: 'pagerank', bogus: 1 }, 'bogus'],
        [{ method: 'pagerank', focus: '(' }, 'focus'],
      ];
      for (const [body, parameter] of badBodies) {
        const answer = await send('POST', 'api/rank', body);
        assertJsonError(answer.status, answer.body, 400, parameter);
      }
      const notJson = await fetch(`${base}api/rank`, { method: 'POST', headers: { 'X-WGA-Token': server.token, 'Content-Type': 'application/json' }, body: '{' });
      assertJsonError(notJson.status, (await notJson.json()) as Json, 400, 'body');
      const crawl = await send('POST', 'api/crawl', { seeds: ['http://a.example/'], maxPages: 'many' });
      assertJsonError(crawl.status, crawl.body, 400, 'maxPages');
      const render = await send('POST', 'api/crawl', { seeds: ['http://a.example/'], render: 'sometimes' });
      assertJsonError(render.status, render.body, 400, 'render');
      // A browser path is no HTTP parameter: the server runs no executable a request names.
      const browser = await send('POST', 'api/crawl', { seeds: ['http://a.example/'], browser: '/bin/sh' });
      assertJsonError(browser.status, browser.body, 400, 'browser');
    });

    it('needs the token for every change, and a Host of its own', async () => {
      for (const [method, path, body] of [
        ['POST', 'api/rank', { method: 'pagerank' }],
        ['POST', 'api/reset', { confirm: 'delete all data' }],
        ['DELETE', 'api/runs/1', undefined],
        ['POST', 'api/crawl', { seeds: ['http://a.example/'] }],
        ['POST', 'api/import', { path: edges }],
      ] as const) {
        const missing = await send(method, path, body, null);
        assertJsonError(missing.status, missing.body, 403);
        const wrong = await send(method, path, body, `${server.token.slice(1)}x`);
        assertJsonError(wrong.status, wrong.body, 403);
      }
      assert.equal((await get('api/runs')).body['runs'] !== undefined, true);
      assert.equal(((await get('api/runs')).body['runs'] as unknown[]).length, 2, 'nothing was deleted');
      const port = server.port;
      const evil = await rawGet(port, '/api/stats', { Host: 'attacker.example' });
      assert.equal(evil.status, 403);
      assert.equal((JSON.parse(evil.body) as { error: { code: string } }).error.code, 'bad-host');
      const rebound = await rawGet(port, '/', { Host: `attacker.example:${port}` });
      assert.equal(rebound.status, 403);
      assert.doesNotMatch(rebound.body, new RegExp(server.token), 'the token is not given to another Host');
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) assert.equal((await rawGet(port, '/api/info', { Host: host })).status, 200, host);
    });

    it('serves index.html with the token for every GUI route, and security headers', async () => {
      for (const path of ['', 'page?url=http%3A%2F%2Fwww.hollins.edu%2F', 'search?q=%3Cscript%3E', 'crawl', 'rank', 'graph', 'data']) {
        const response = await fetch(base + path);
        assert.equal(response.status, 200, path);
        assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        const html = await response.text();
        assert.ok(html.includes(`<meta name="wga-token" content="${server.token}">`), path);
        assert.ok(!html.includes('<script>alert'), 'nothing of the address is echoed');
      }
      const traversal = await fetch(`${base}..%2F..%2Fpackage.json`);
      assert.ok(!(await traversal.text()).includes('"name": "wga"'), 'no file outside dist/web');
    });

    it('runs PageRank as a job with its convergence curve, the same ranking as `wga rank`, and saves it', async () => {
      const { job, progress, seen } = await runJob('api/rank', { method: 'pagerank', solver: 'power', tolerance: 1e-9, top: 10 });
      assert.equal(job['state'], 'done', JSON.stringify(job['error']));
      const result = job['result'] as Json;
      const expected = await cli(['rank', '--db', db, '--solver', 'power', '--tolerance', '1e-9', '--top', '10', '-q']);
      assert.deepEqual(result['top'], expected['top']);
      assert.equal(result['iterations'], expected['iterations']);
      const residuals = job['residuals'] as Array<[number, number]>;
      assert.equal(residuals.length, expected['iterations']);
      assert.deepEqual(residuals.map(([i]) => i), Array.from({ length: residuals.length }, (_, i) => i + 1));
      assert.ok(residuals[residuals.length - 1]![1] <= 1e-9 && residuals[0]![1] > 1e-3, 'residual falls from the first iteration to the tolerance');
      // Every point reached this client, in the job's state when it subscribed or streamed after (a fast
      // job may be over before the stream opens: then it saw them all in its first event).
      assert.ok(seen + progress.length >= residuals.length && progress.length <= residuals.length, `${seen} + ${progress.length} of ${residuals.length}`);
      assert.equal(typeof result['run'], 'number');
      const runs = (await get('api/runs')).body['runs'] as Array<{ id: number; method: string }>;
      assert.ok(runs.some((r) => r.id === result['run'] && r.method === 'pagerank'));
    });

    it('streams Gauss-Seidel\'s convergence curve sweep by sweep, ending with the residual of `wga rank`', async () => {
      const { job, progress, seen } = await runJob('api/rank', { method: 'pagerank', solver: 'gauss-seidel', top: 5, save: false });
      assert.equal(job['state'], 'done', JSON.stringify(job['error']));
      const result = job['result'] as Json;
      const expected = await cli(['rank', '--db', db, '--solver', 'gauss-seidel', '--top', '5', '-q']);
      assert.deepEqual(result['top'], expected['top']);
      assert.equal(result['iterations'], expected['iterations']);
      const residuals = job['residuals'] as Array<[number, number]>;
      // A point per sweep (the measured residual replaces the last sweep's), not one point at the end.
      assert.deepEqual(residuals.map(([i]) => i), Array.from({ length: expected['iterations'] as number }, (_, i) => i + 1));
      assert.deepEqual(residuals[residuals.length - 1], [result['iterations'], result['residual']]);
      // Every point reached this client: in the job's state when it subscribed, or streamed after.
      assert.ok(seen + progress.length >= residuals.length, `${seen} + ${progress.length} of ${residuals.length}`);
    });

    it('runs Monte Carlo as a job with the same walks and error bars as `wga rank --method montecarlo`', async () => {
      const { job } = await runJob('api/rank', { method: 'montecarlo', walks: 8, seed: 5, top: 5, save: false });
      assert.equal(job['state'], 'done', JSON.stringify(job['error']));
      const result = job['result'] as Json;
      const expected = await cli(['rank', '--db', db, '--method', 'montecarlo', '--walks', '8', '--seed', '5', '--top', '5', '-q']);
      assert.deepEqual(result['top'], expected['top']);
      assert.ok(((result['top'] as Json[])[0]!['relativeError'] as number) > 0);
      assert.equal(result['run'], null);
      const listed = (await get('api/jobs')).body['jobs'] as Json[];
      assert.equal(listed[0]!['id'], job['id']);
    });

    it('deletes a run, as `wga runs --delete` would', async () => {
      const before = ((await get('api/runs')).body['runs'] as Array<{ id: number }>).map((r) => r.id);
      const deleted = await send('DELETE', 'api/runs/2');
      assert.equal(deleted.status, 200);
      assert.equal((deleted.body['deleted'] as Json)['method'], 'montecarlo');
      assert.deepEqual((await get('api/runs')).body, await cli(['runs', '--db', db]));
      assert.deepEqual(((await get('api/runs')).body['runs'] as Array<{ id: number }>).map((r) => r.id), before.filter((id) => id !== 2));
      assertJsonError((await send('DELETE', 'api/runs/2')).status, (await send('DELETE', 'api/runs/2')).body, 404);
    });

    it('deletes all data only with the confirmation, then imports an uploaded graph file', async () => {
      const refused = await send('POST', 'api/reset', { confirm: 'yes' });
      assertJsonError(refused.status, refused.body, 400, 'confirm');
      assert.equal(((await get('api/info')).body['counts'] as Json)['pages'], 6012);
      const reset = await send('POST', 'api/reset', { confirm: 'delete all data' });
      assert.equal(reset.status, 200);
      assert.deepEqual((reset.body['deleted'] as Json)['pages'], 6012);
      assert.equal((await get('api/stats')).body['nodes'], 0);
      // Upload the edge list (URLs as labels: a TSV of URL pairs) as the GUI's file input sends it.
      const labels = new Map(readFileSync(urls, 'utf8').split('\n').slice(1).filter((l) => l.trim() !== '').map((l) => {
        const [id, url] = l.trim().split(/\s+/);
        return [id!, url!];
      }));
      const body = readFileSync(edges, 'utf8').split('\n').filter((l) => /^\d/.test(l)).map((l) => l.trim().split(/\s+/).map((id) => labels.get(id)).join('\t')).join('\n');
      const upload = await fetch(`${base}api/import?name=hollins.tsv`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-WGA-Token': server.token }, body });
      assert.equal(upload.status, 202);
      const id = (((await upload.json()) as Json)['job'] as Json)['id'] as string;
      const stream = await openSse(`${base}api/jobs/${id}/events`);
      const end = JSON.parse((await stream.until((e) => e.event === 'end', 120_000)).data) as Json;
      stream.close();
      assert.equal(end['state'], 'done', JSON.stringify(end['error']));
      const result = end['result'] as Json;
      assert.equal(result['pages'], 6012);
      assert.equal(result['links'], 23875);
      const stats = (await get('api/stats')).body;
      assert.deepEqual(untimed(stats), untimed(await cli(['stats', '--db', db])));
      assert.equal(stats['edges'], 23875);
    });

    it("notices another process's reset, import and saved run (the store's data version)", { timeout: 120_000 }, async () => {
      /** The server's answer once it differs from `before` (it reads the store's stamp at most once a second). */
      const changed = async (path: string, before: string): Promise<Json> => {
        const deadline = Date.now() + 20_000;
        for (;;) {
          const body = (await get(path)).body;
          if (JSON.stringify(body) !== before || Date.now() > deadline) return body;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      };
      const statsBefore = JSON.stringify((await get('api/stats')).body);
      assert.equal(JSON.parse(statsBefore).edges, 23875);
      const reset = await runCli(['reset', '--db', db, '--yes']);
      assert.equal(reset.code, 0, reset.stderr);
      const afterReset = await changed('api/stats', statsBefore);
      assert.equal(afterReset['nodes'], 0, 'the reset is seen');
      const imported = await runCli(['import', edges, '--labels', urls, '--db', db]);
      assert.equal(imported.code, 0, imported.stderr);
      const afterImport = await changed('api/stats', JSON.stringify(afterReset));
      assert.deepEqual(untimed(afterImport), untimed(await cli(['stats', '--db', db])), 'the import is seen');
      const info = (await get('api/info')).body['counts'] as Json;
      assert.equal(info['links'], 23875);
      // A run saved, then deleted, by other processes: the counts follow.
      const infoBefore = (await get('api/info')).body;
      await cli(['rank', '--db', db, '--save']);
      const withRun = (await changed('api/info', JSON.stringify(infoBefore)))['counts'] as Json;
      assert.equal(withRun['runs'], ((infoBefore['counts'] as Json)['runs'] as number) + 1);
    });
  });

  describe(`wga serve on ${name}: crawls watched live`, () => {
    it('two SSE clients see the same progress of a crawl started over the API, ending as `wga crawl` does', { timeout: 180_000 }, async () => {
      const site = new Website({ pages: 400, seed: 21 });
      // 25 ms a page at 4 connections: a crawl of about 3 s, so that statuses while it runs carry a live PageRank.
      const served = await serveWebsite(site, { delayMs: 25 });
      const db = await newDb();
      const reference = await newDb();
      const server = await startServer({ db, warm: false });
      try {
        const watchers = [await openSse(`${server.url}api/crawl/events`), await openSse(`${server.url}api/crawl/events`)];
        const seeds = [`${served.origin}/`];
        const started = await fetch(`${server.url}api/crawl`, {
          method: 'POST',
          headers: { 'X-WGA-Token': server.token, 'Content-Type': 'application/json' },
          // A live PageRank vector every 50 ms, so that the crawl's statuses carry some.
          body: JSON.stringify({ seeds, allowIp: ['127.0.0.1/32'], delay: 0, concurrency: 4, perHost: 4, fence: [TRAP], liveInterval: 50 }),
        });
        assert.equal(started.status, 202, await started.clone().text());
        const statusOf = (e: { data: string }): Json => JSON.parse(e.data) as Json;
        const finished = (e: { event: string; data: string }): boolean => e.event === 'status' && statusOf(e)['running'] === false && statusOf(e)['report'] !== null;
        const ends = await Promise.all(watchers.map((w) => w.until(finished, 150_000)));
        for (const w of watchers) w.close();
        const [a, b] = watchers.map((w) => w.events.map(statusOf));
        // Each tick's status goes to every watcher: the ticks both saw are equal.
        const byTime = new Map(b!.map((s) => [s['updatedAt'], JSON.stringify(s)]));
        const shared = a!.filter((s) => byTime.has(s['updatedAt']));
        assert.ok(shared.length >= 2, `the watchers shared ${shared.length} ticks`);
        for (const s of shared) assert.equal(JSON.stringify(s), byTime.get(s['updatedAt']));
        assert.ok(a!.some((s) => s['running'] === true && s['owner'] === 'server'), 'progress while running');
        const report = statusOf(ends[0]!)['report'] as Json;
        const cliCrawl = await cli(['crawl', ...seeds, '--db', reference, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--concurrency', '4', '--per-host', '4', '--fence', TRAP, '-q']);
        for (const key of ['known', 'fetched', 'failed', 'excluded', 'redirects', 'other', 'frontier', 'stoppedBy']) {
          assert.deepEqual(report[key], cliCrawl[key], key);
        }
        assert.ok((report['fetched'] as number) >= 400, 'every page of the site was fetched');
        // A server opened on the store the CLI crawled shows that finished crawl from the store alone:
        // its counters and its curve of pages fetched over time (from the visits).
        const other = await startServer({ db: reference, warm: false });
        try {
          const status = ((await (await fetch(`${other.url}api/crawl`)).json()) as { crawl: Json }).crawl;
          assert.equal(status['running'], false);
          const counters = status['counters'] as Json;
          for (const key of ['fetched', 'redirects', 'other', 'frontier']) assert.equal(counters[key], cliCrawl[key], `stored ${key}`);
          assert.equal(counters['hosts'], 1);
          // Page requests: every fetch the crawl reported (robots.txt and sitemaps are not pages).
          assert.equal(counters['requests'], cliCrawl['fetches']);
          const history = status['history'] as { seconds: number[]; requests: number[] };
          assert.equal(history.requests.at(-1), cliCrawl['fetches']);
          assert.equal(history.seconds.length, history.requests.length);
          assert.ok(history.seconds.at(-1)! <= (cliCrawl['seconds'] as number) + 1, 'within the crawl\'s time');
          for (let i = 1; i < history.requests.length; i++) {
            assert.ok(history.requests[i]! > history.requests[i - 1]! && history.seconds[i]! >= history.seconds[i - 1]!, 'a curve that never goes back');
          }
        } finally {
          await other.close();
        }
        const info = (await (await fetch(`${server.url}api/info`)).json()) as { counts: Json };
        assert.equal(info.counts['fetched'], report['fetched']);
        // The live PageRank: while crawling, the crawler's latest vector over the pages known then;
        // after the crawl, its final vector, the ranking `wga top --score live` prints.
        type LiveJson = { pages: number; ageMs: number; final: boolean; top: Array<{ url: string; importance: number }> } | null;
        const liveWhileRunning = a!.filter((s) => s['running'] === true).map((s) => s['live'] as LiveJson).filter((l) => l !== null);
        assert.ok(liveWhileRunning.length >= 1, `a live PageRank while the crawl ran: ${JSON.stringify(a!.map((s) => [s['running'], s['fetches'], s['live']]))}`);
        for (const l of liveWhileRunning) {
          assert.equal(l!.final, false);
          assert.ok(l!.pages >= 1 && l!.pages <= (report['known'] as number), `covers ${l!.pages} pages`);
          assert.ok(l!.top.length >= 1 && l!.top.length <= 10);
          for (let i = 1; i < l!.top.length; i++) assert.ok(l!.top[i - 1]!.importance >= l!.top[i]!.importance, 'best first');
        }
        const liveAtEnd = statusOf(ends[0]!)['live'] as LiveJson;
        assert.notEqual(liveAtEnd, null);
        assert.equal(liveAtEnd!.final, true);
        assert.equal(liveAtEnd!.pages, report['known']);
        const cliLive = await cli(['top', '--db', db, '--score', 'live', '--top', '10']);
        assert.deepEqual(liveAtEnd!.top.map((t) => t.url), (cliLive['top'] as Array<{ url: string }>).map((t) => t.url));
        assert.deepEqual(liveAtEnd!.top.map((t) => t.importance), (cliLive['top'] as Array<{ score: number }>).map((t) => t.score));
      } finally {
        await server.close();
        await served.close();
      }
    });

    it('shows no live PageRank for a crawl started with live off, and refuses the pagerank strategy without it', { timeout: 120_000 }, async () => {
      const site = new Website({ pages: 60, seed: 5 });
      const served = await serveWebsite(site, { delayMs: 0 });
      const db = await newDb();
      const server = await startServer({ db, warm: false });
      try {
        const post = (body: Json): Promise<Response> =>
          fetch(`${server.url}api/crawl`, { method: 'POST', headers: { 'X-WGA-Token': server.token, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        const seeds = [`${served.origin}/`];
        const refused = await post({ seeds, allowIp: ['127.0.0.1/32'], delay: 0, live: false, strategy: 'pagerank' });
        assertJsonError(refused.status, (await refused.json()) as Json, 400);
        const badInterval = await post({ seeds, allowIp: ['127.0.0.1/32'], delay: 0, liveInterval: 'soon' });
        const badBody = (await badInterval.json()) as Json;
        assertJsonError(badInterval.status, badBody, 400, 'liveInterval');
        assert.match((badBody['error'] as { message: string }).message, /^liveInterval: /);
        const badShare = await post({ seeds, allowIp: ['127.0.0.1/32'], delay: 0, liveShare: 2 });
        const badShareBody = (await badShare.json()) as Json;
        assertJsonError(badShare.status, badShareBody, 400, 'liveShare');
        assert.match((badShareBody['error'] as { message: string }).message, /^liveShare: .*\(0, 1\]/);
        const watcher = await openSse(`${server.url}api/crawl/events`);
        const started = await post({ seeds, allowIp: ['127.0.0.1/32'], delay: 0, live: false, fence: [TRAP] });
        assert.equal(started.status, 202, await started.clone().text());
        const end = await watcher.until((e) => e.event === 'status' && (JSON.parse(e.data) as Json)['running'] === false && (JSON.parse(e.data) as Json)['report'] !== null, 100_000);
        watcher.close();
        for (const e of watcher.events) assert.equal((JSON.parse(e.data) as Json)['live'], null);
        const report = (JSON.parse(end.data) as Json)['report'] as Json;
        assert.ok((report['fetched'] as number) >= 60);
        assert.equal(report['live'], null);
      } finally {
        await server.close();
        await served.close();
      }
    });

    it('shows a crawl run by another process (wga crawl) from the store', { timeout: 180_000 }, async () => {
      const site = new Website({ pages: 300, seed: 8 });
      const served = await serveWebsite(site, { delayMs: 20 });
      const db = await newDb();
      const server = await startServer({ db, warm: false });
      try {
        const crawl = runCli(['crawl', `${served.origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--concurrency', '1', '--checkpoint', '100', '--fence', TRAP, '-q', '--json'], { timeoutMs: 150_000 });
        const watcher = await openSse(`${server.url}api/crawl/events`);
        const seen = await watcher.until((e) => {
          const s = JSON.parse(e.data) as Json;
          return s['owner'] === 'other' && s['running'] === true && ((s['counters'] as Json)['fetched'] as number) > 0;
        }, 120_000);
        const status = JSON.parse(seen.data) as Json;
        assert.equal((status['lock'] as Json)['pid'] !== process.pid, true);
        // The other process's live PageRank, from its checkpoints (app/live-rank.ts).
        const withLive = await watcher.until((e) => {
          const s = JSON.parse(e.data) as Json;
          return s['owner'] === 'other' && s['running'] === true && s['live'] !== null;
        }, 120_000);
        const live = (JSON.parse(withLive.data) as Json)['live'] as { pages: number; final: boolean; top: Array<{ url: string; importance: number }> };
        assert.equal(live.final, false);
        assert.ok(live.pages >= 1);
        assert.ok(live.top.length >= 1 && live.top.length <= 10);
        for (const t of live.top) assert.ok(t.url.startsWith(served.origin), t.url);
        const stop = await fetch(`${server.url}api/crawl/stop`, { method: 'POST', headers: { 'X-WGA-Token': server.token } });
        assertJsonError(stop.status, (await stop.json()) as Json, 409);
        const done = await crawl;
        assert.equal(done.code, 0, done.stderr);
        // After the crawl exited, the watcher sees it stopped at its last checkpoint (the status's
        // `fetches` is the checkpoint's), with the counts the crawl reported. (A status read earlier could
        // say stopped if a loaded machine delayed a checkpoint past the lock's heartbeat limit.)
        const { fetched, fetches } = JSON.parse(done.stdout) as { fetched: number; fetches: number };
        const final = await watcher.until((e) => {
          const s = JSON.parse(e.data) as Json;
          return s['running'] === false && s['fetches'] === fetches;
        }, 60_000);
        watcher.close();
        assert.equal(((JSON.parse(final.data) as Json)['counters'] as Json)['fetched'], fetched);
        assert.ok(fetched >= 300);
      } finally {
        await server.close();
        await served.close();
      }
    });
  });
}
