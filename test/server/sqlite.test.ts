import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { startServer } from '../../src/server/server.js';
import { isLoopback } from '../../src/server/security.js';
import { runCli } from '../crawl/crawl-fixtures.js';
import { cliPath, sharedData, temporaryDirectory } from '../helpers.js';
import { serverSuite } from './server-suite.js';
import { openSse } from './sse-client.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let next = 0;
serverSuite('SQLite', async () => join(dir.path, `store-${next++}.sqlite`));

describe('wga serve: starting, remote mode, cancelling', () => {
  it('prints `listening on http://127.0.0.1:PORT/` first and stops on SIGTERM', { timeout: 300_000 }, async () => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--db', join(dir.path, 'cli.sqlite')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    assert.match(first, /^listening on http:\/\/127\.0\.0\.1:\d+\/$/);
    const info = (await (await fetch(`${first.slice('listening on '.length)}api/info`)).json()) as { counts: { pages: number } };
    assert.equal(info.counts.pages, 0);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 0);
  });

  it('refuses a bad --port or --token with one line and a usage status', async () => {
    for (const args of [['--port', '70000'], ['--token', 'short'], ['--port', 'x']]) {
      const child = spawn(process.execPath, [cliPath, 'serve', '--db', join(dir.path, 'bad.sqlite'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      assert.equal(code, 2, stderr);
      assert.match(stderr, /^wga: --(port|token): /);
    }
  });

  it('beyond loopback, needs the token on every request: header, or the cookie set by ?token=', async () => {
    assert.deepEqual(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '0.0.0.0', '192.168.1.4', '::'].map(isLoopback), [true, true, true, true, true, false, false, false]);
    const server = await startServer({ db: join(dir.path, 'remote.sqlite'), remote: true, token: 'a-secret-token-for-tests', warm: false });
    try {
      const base = server.url;
      assert.equal((await fetch(`${base}api/info`)).status, 403);
      assert.equal((await fetch(base)).status, 403, 'not even the page (it holds the token)');
      assert.equal((await fetch(`${base}?token=wrong-token-000000000`, { redirect: 'manual' })).status, 403);
      const opened = await fetch(`${base}page?url=x&token=a-secret-token-for-tests`, { redirect: 'manual' });
      assert.equal(opened.status, 303);
      assert.equal(opened.headers.get('location'), '/page?url=x');
      const cookie = opened.headers.get('set-cookie') ?? '';
      assert.match(cookie, /^wga_token=a-secret-token-for-tests; Path=\/; HttpOnly; SameSite=Strict/);
      const withCookie = await fetch(`${base}api/info`, { headers: { Cookie: cookie.split(';')[0]! } });
      assert.equal(withCookie.status, 200);
      assert.equal((await fetch(`${base}api/info`, { headers: { 'X-WGA-Token': 'a-secret-token-for-tests' } })).status, 200);
      // The cookie alone does not make a change: POST needs the header.
      const post = await fetch(`${base}api/reset`, { method: 'POST', headers: { Cookie: cookie.split(';')[0]! }, body: '{"confirm":"delete all data"}' });
      assert.equal(post.status, 403);
    } finally {
      await server.close();
    }
  });

  it('cancels a running rank job', { timeout: 300_000 }, async () => {
    const db = join(dir.path, 'cancel.sqlite');
    const imported = await runCli(['import', sharedData('hollins', 'hollins.edges.txt'), '--db', db, '-q']);
    assert.equal(imported.code, 0, imported.stderr);
    const server = await startServer({ db, warm: false });
    try {
      const post = (path: string, body: unknown): Promise<Response> =>
        fetch(server.url + path, { method: 'POST', headers: { 'X-WGA-Token': server.token }, body: JSON.stringify(body) });
      // A tolerance that is never reached: the job runs until its 10^6 sweeps or a cancel.
      const started = await post('api/rank', { method: 'traffic', tolerance: 1e-300, maxIterations: 1_000_000 });
      const id = ((await started.json()) as { job: { id: string } }).job.id;
      const events = await openSse(`${server.url}api/jobs/${id}/events`);
      await events.until((e) => e.event === 'progress', 60_000);
      const cancelled = await post(`api/jobs/${id}/cancel`, {});
      assert.equal(((await cancelled.json()) as { job: { state: string } }).job.state, 'cancelled');
      const end = JSON.parse((await events.until((e) => e.event === 'end', 60_000)).data) as { state: string; residuals: unknown[] };
      events.close();
      assert.equal(end.state, 'cancelled');
      assert.ok(end.residuals.length > 0);
      const runs = (await (await fetch(`${server.url}api/runs`)).json()) as { runs: unknown[] };
      assert.equal(runs.runs.length, 0, 'a cancelled ranking saves no run');
    } finally {
      await server.close();
    }
  });
});
