/**
 * Politeness per server address and the crawler's own DNS, checked on what the servers and the
 * resolver saw: a farm of host names on two loopback addresses (host-farm.ts) records the requests
 * running at once per address and when each arrived; a real DNS server (dnsmasq from Debian, on a
 * loopback port) logs every query; a UDP socket that never answers plays a dead resolver.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite.js';
import { missingToolTest, temporaryDirectory } from '../helpers.js';
import { runCli } from './crawl-fixtures.js';
import { type HostFarm, serveHostFarm } from './host-farm.js';

const ADDRESSES = ['127.0.0.1', '127.0.0.2'];
const dir = temporaryDirectory();
after(() => dir.cleanup());
let counter = 0;
const newDb = (): string => join(dir.path, `polite-${++counter}.sqlite`);

interface CrawlJson {
  stoppedBy: string;
  fetched: number;
  failed: number;
  hosts: number;
  servers: number;
  dns: { lookups: number; cached: number; failed: number; timeouts: number; evicted: number; maxInFlight: number };
}

/** The stored pages: URL to status (null: failed) and error. */
async function storedPages(db: string): Promise<Map<string, { status: number | null; error: string | null }>> {
  const store = SqliteStore.open(db);
  try {
    const pages = new Map<string, { status: number | null; error: string | null }>();
    for await (const batch of store.pageBatches()) for (const p of batch) pages.set(p.url, { status: p.status, error: p.error });
    return pages;
  } finally {
    await store.close();
  }
}

/** Gaps between the arrivals of consecutive requests at one address, ms. */
function gapsAt(farm: HostFarm, address: string): number[] {
  const times = farm.requests.filter((r) => r.address === address).map((r) => r.at);
  return times.slice(1).map((t, i) => t - times[i]!);
}

function farmArgs(farm: HostFarm, extra: string[]): string[] {
  const resolve = Array.from({ length: farm.hosts }, (_, k) => ['--resolve', `${farm.hostName(k)}=${farm.addressOf(k)}`]).flat();
  return ['crawl', farm.home(0), '--hosts', 'any', '--filter', `^http://h\\d+\\.farm\\.test:${farm.port}/`, '--allow-ip', '127.0.0.0/8', '--no-live', '--json', '-q', ...resolve, ...extra];
}

describe('politeness per server address', () => {
  it('--per-ip 3 --ip-delay 25: 40 host names on one address never get more than 3 requests at once, spaced by the delay', async () => {
    const farm = await serveHostFarm({ hosts: 80, pages: 2, domain: 'farm.test', addresses: ADDRESSES, answerDelayMs: 60 });
    try {
      const db = newDb();
      const run = await runCli(farmArgs(farm, ['--db', db, '--delay', '0', '--per-host', '2', '--concurrency', '32', '--per-ip', '3', '--ip-delay', '25']));
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout) as CrawlJson;
      assert.equal(report.stoppedBy, 'done');
      assert.equal(report.hosts, 80);
      assert.equal(report.servers, 2);
      // Every page of every host stored with 200.
      const pages = await storedPages(db);
      for (const url of farm.pageUrls()) assert.equal(pages.get(url)?.status, 200, url);
      for (const address of ADDRESSES) {
        // The limit is reached (40 hosts want more) and never passed, robots.txt and sitemaps included.
        assert.equal(farm.maxPerAddress.get(address), 3, `${address}: most requests at once`);
        // Starts are 25 ms apart at the crawler. Arrivals at the server drift (a request on a new
        // connection arrives later than one on a kept one; a loaded machine adds its own delays), so
        // two arrivals may be closer: any 10 in a row still span 9 delays, less one delayed first one.
        const times = farm.requests.filter((r) => r.address === address).map((r) => r.at);
        for (let i = 0; i + 9 < times.length; i++) assert.ok(times[i + 9]! - times[i]! >= 9 * 25 - 60, `${address}: 10 arrivals in ${(times[i + 9]! - times[i]!).toFixed(1)} ms`);
        const gaps = gapsAt(farm, address).sort((a, b) => a - b);
        assert.ok(gaps[Math.floor(gaps.length / 2)]! >= 25, `${address}: median gap ${gaps[Math.floor(gaps.length / 2)]!.toFixed(1)} ms`);
      }
    } finally {
      await farm.close();
    }
  });

  it('the defaults: 4 x --per-host at once per address, a quarter of --delay between two', async () => {
    const farm = await serveHostFarm({ hosts: 40, pages: 1, domain: 'farm.test', addresses: ADDRESSES, answerDelayMs: 80 });
    try {
      const db = newDb();
      const run = await runCli(farmArgs(farm, ['--db', db, '--delay', '40', '--concurrency', '32']));
      assert.equal(run.code, 0, run.stderr);
      const text = await runCli(['stats', '--db', db]);
      assert.equal(text.code, 0, text.stderr);
      for (const address of ADDRESSES) {
        const most = farm.maxPerAddress.get(address)!;
        assert.ok(most >= 2 && most <= 4, `${address}: ${most} requests at once`);
        const gaps = gapsAt(farm, address).sort((a, b) => a - b);
        assert.ok(gaps[Math.floor(gaps.length / 2)]! >= 10, `${address}: median gap ${gaps[Math.floor(gaps.length / 2)]!.toFixed(1)} ms`);
      }
      // One host never more than --per-host (1) at once.
      for (const [host, most] of farm.maxPerHost) assert.equal(most, 1, host);
    } finally {
      await farm.close();
    }
  });
});

const dnsmasq = spawnSync('dnsmasq', ['--version']).status === 0 ? null : 'dnsmasq is not installed (apt-get install dnsmasq)';

if (dnsmasq !== null) {
  describe("the crawler's DNS", () => missingToolTest('asks a real DNS server', 'dnsmasq', dnsmasq));
} else {
  describe("the crawler's DNS", () => {
    let farm: HostFarm;
    before(async () => {
      farm = await serveHostFarm({ hosts: 30, pages: 1, domain: 'farm.test', addresses: ['127.0.0.1'], answerDelayMs: 5 });
    });
    after(async () => farm.close());

    /** A dnsmasq answering 127.0.0.1 for every name under farm.test with this TTL, logging its queries. */
    async function startDnsmasq(ttl: number): Promise<{ port: number; log: string; queries: () => Map<string, number>; stop: () => Promise<void> }> {
      const log = join(dir.path, `dnsmasq-${++counter}.log`);
      for (let attempt = 0; ; attempt++) {
        const port = 20000 + Math.floor(Math.random() * 30000);
        const child: ChildProcess = spawn(
          'dnsmasq',
          ['--keep-in-foreground', '--no-resolv', '--no-hosts', '--bind-interfaces', '--listen-address=127.0.0.1', `--port=${port}`, '--address=/farm.test/127.0.0.1',
            `--local-ttl=${ttl}`, '--log-queries', `--log-facility=${log}`, '--user=root', '--pid-file='],
          { stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let stderr = '';
        child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        // Up when it answers (its log says so), or failed (a port taken).
        const outcome = await Promise.race([exited.then(() => 'exited'), waitForLog(log, 'started, version')]);
        if (outcome !== 'exited') {
          return {
            port,
            log,
            queries: () => {
              const counts = new Map<string, number>();
              for (const match of readFileSync(log, 'utf8').matchAll(/query\[(A|AAAA)\] (\S+) from/g)) counts.set(`${match[1]} ${match[2]}`, (counts.get(`${match[1]} ${match[2]}`) ?? 0) + 1);
              return counts;
            },
            stop: async () => {
              child.kill('SIGTERM');
              await exited;
            },
          };
        }
        if (attempt >= 5) assert.fail(`dnsmasq did not start: ${stderr}`);
      }
    }

    it('asks each name once per TTL (the floor when the TTL is lower), A and AAAA, with at most --dns-concurrency lookups at once', async () => {
      for (const [ttl, extra] of [
        [3600, []],
        [0, ['--dns-min-ttl', '60']],
      ] as const) {
        const server = await startDnsmasq(ttl);
        try {
          const db = newDb();
          const run = await runCli(['crawl', farm.home(0), '--db', db, '--hosts', 'any', '--allow-ip', '127.0.0.1/32', '--delay', '0', '--concurrency', '16', '--no-live', '--json', '-q',
            '--dns', `127.0.0.1:${server.port}`, '--dns-concurrency', '3', ...extra]);
          assert.equal(run.code, 0, run.stderr);
          const report = JSON.parse(run.stdout) as CrawlJson;
          const pages = await storedPages(db);
          for (const url of farm.pageUrls()) assert.equal(pages.get(url)?.status, 200, url);
          const queries = server.queries();
          for (let k = 0; k < farm.hosts; k++) {
            assert.equal(queries.get(`A ${farm.hostName(k)}`), 1, `ttl ${ttl}: A ${farm.hostName(k)}`);
            assert.equal(queries.get(`AAAA ${farm.hostName(k)}`), 1, `ttl ${ttl}: AAAA ${farm.hostName(k)}`);
          }
          assert.equal(queries.size, 2 * farm.hosts, 'no other name asked');
          assert.equal(report.dns.lookups, farm.hosts);
          assert.ok(report.dns.cached > 0, 'connections after the first answered from the cache');
          assert.ok(report.dns.maxInFlight <= 3 && report.dns.maxInFlight >= 1, `at most 3 lookups at once (${report.dns.maxInFlight})`);
          assert.equal(report.dns.failed, 0);
        } finally {
          await server.stop();
        }
      }
    });

    it('a resolver that never answers costs --dns-timeout per name, once; the hosts it fails are recorded and the crawl goes on', async () => {
      const silent = createSocket('udp4');
      const asked = new Map<string, number>();
      silent.on('message', (message) => {
        // The queried name, from the question section (labels after the 12-byte header).
        const labels: string[] = [];
        for (let at = 12; at < message.length && message[at]! > 0; at += message[at]! + 1) labels.push(message.subarray(at + 1, at + 1 + message[at]!).toString('latin1'));
        asked.set(labels.join('.'), (asked.get(labels.join('.')) ?? 0) + 1);
      });
      await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
      try {
        const db = newDb();
        // h0 is resolved by --resolve; the hosts it links to must be looked up, of a resolver that says nothing.
        const run = await runCli(['crawl', farm.home(0), '--db', db, '--hosts', 'any', '--allow-ip', '127.0.0.1/32', '--delay', '0', '--no-live', '--json', '-q',
          '--resolve', `${farm.hostName(0)}=127.0.0.1`, '--dns', `127.0.0.1:${silent.address().port}`, '--dns-timeout', '1', '--retries', '2', '--retry-delay', '10']);
        assert.equal(run.code, 0, run.stderr);
        const report = JSON.parse(run.stdout) as CrawlJson;
        assert.equal(report.stoppedBy, 'done');
        const pages = await storedPages(db);
        assert.equal(pages.get(farm.home(0))?.status, 200);
        assert.equal(pages.get(`${farm.home(0)}p/0`)?.status, 200);
        for (const k of [1, 2, 3]) {
          const page = pages.get(farm.home(k));
          assert.equal(page?.status, null, farm.hostName(k));
          assert.match(page?.error ?? '', new RegExp(`DNS gave no answer for ${farm.hostName(k).replace(/\./g, '\\.')}`));
        }
        // Each name looked up once (c-ares tries twice, A and AAAA), however many requests its host would have had.
        assert.equal(report.dns.lookups, 3);
        assert.equal(report.dns.timeouts, 3);
        for (const k of [1, 2, 3]) assert.ok((asked.get(farm.hostName(k)) ?? 0) <= 4, `${farm.hostName(k)} asked ${asked.get(farm.hostName(k))} times`);
      } finally {
        silent.close();
      }
    });

    it('refuses a --dns that is not an address in one line', async () => {
      const run = await runCli(['crawl', farm.home(0), '--db', newDb(), '--dns', 'resolver.example:53']);
      assert.equal(run.code, 2);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, /--dns: give the resolver as an IP address/);
    });
  });
}

async function waitForLog(path: string, text: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    try {
      if (readFileSync(path, 'utf8').includes(text)) return 'up';
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return 'exited';
}
