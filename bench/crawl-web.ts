/**
 * A crawl of a multi-host test web (issue 38): HOSTS host names under web.test, spread over
 * SERVERS loopback addresses (127.0.0.1, .2, ...), named by a real DNS server (dnsmasq from Debian,
 * one wildcard per address: h<k>.s<a>.web.test), each host with PAGES pages. Links follow a power
 * law: each page links to 8 pages, 6 of its own host, 2 of other hosts chosen with probability
 * falling as 1 / rank (a few hosts get most of the links between hosts). One host in 20 answers
 * after 200 ms, one in 50 fails every page with 503.
 *
 * wga crawls it with `--dns` pointed at the dnsmasq and `--per-ip`, `--ip-delay` as given; the
 * servers record the requests running at once per address and per host. Reported: pages/s over
 * the first and the last tenth of the crawl (from wga's progress lines), peak RSS, the most
 * requests at once seen by one address and by one host, the DNS queries dnsmasq answered, and
 * wga's report.
 *
 *   npm run bench:crawl-web -- --hosts 10000 --servers 4 --pages 20 --max-pages 100000
 *
 * Options: --hosts N (10,000); --servers S (4); --pages P (20 per host); --max-pages M (100,000);
 * --per-ip N, --ip-delay MS, --per-host N, --delay MS, --concurrency C (wga's options; defaults:
 * 4, 0, 1, 0, 64); --no-live.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledCli } from './crawl/paths.js';

interface Options {
  hosts: number;
  servers: number;
  pages: number;
  maxPages: number;
  perIp: number;
  ipDelay: number;
  perHost: number;
  delay: number;
  concurrency: number;
  live: boolean;
}

function parse(argv: string[]): Options {
  const o: Options = { hosts: 10_000, servers: 4, pages: 20, maxPages: 100_000, perIp: 4, ipDelay: 0, perHost: 1, delay: 0, concurrency: 64, live: true };
  const keys: Record<string, keyof Options> = {
    '--hosts': 'hosts', '--servers': 'servers', '--pages': 'pages', '--max-pages': 'maxPages', '--per-ip': 'perIp', '--ip-delay': 'ipDelay',
    '--per-host': 'perHost', '--delay': 'delay', '--concurrency': 'concurrency',
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--no-live') o.live = false;
    else if (keys[argv[i]!] !== undefined) (o as unknown as Record<string, number>)[keys[argv[i]!]!] = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return o;
}

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'wga-web-'));
  const addresses = Array.from({ length: o.servers }, (_, a) => `127.0.0.${a + 1}`);
  const hostName = (k: number): string => `h${k}.s${k % o.servers}.web.test`;
  // Zipf over hosts for links between hosts: the cumulative weights 1/1, 1/2, 1/3...
  const cumulative = new Float64Array(o.hosts);
  for (let k = 0, sum = 0; k < o.hosts; k++) cumulative[k] = sum += 1 / (k + 1);
  const zipf = (u: number): number => {
    const target = u * cumulative[o.hosts - 1]!;
    let lo = 0;
    let hi = o.hosts - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Slow and failing hosts picked by a hash of the host number, so that every address has its share.
  const slow = (k: number): boolean => Math.imul(k + 1, 0x9e3779b1) >>> 0 < 0x100000000 / 20;
  const failing = (k: number): boolean => (Math.imul(k + 7, 0x85ebca6b) >>> 0) % 50 === 0;
  let port = 0;
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const bump = (key: string, by: number): void => {
    const v = (running.get(key) ?? 0) + by;
    running.set(key, v);
    if (v > (most.get(key) ?? 0)) most.set(key, v);
  };
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const address = request.socket.localAddress ?? '';
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const k = Number(/^h(\d+)\./.exec(host)?.[1] ?? -1);
    const page = Number(/^\/p(\d+)$/.exec(request.url ?? '')?.[1] ?? -1);
    bump(`a ${address}`, 1);
    bump(`h ${host}`, 1);
    const answer = (): void => {
      bump(`a ${address}`, -1);
      bump(`h ${host}`, -1);
      if (k < 0 || k >= o.hosts || page < 0 || page >= o.pages) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end();
        return;
      }
      if (failing(k)) {
        response.writeHead(503, { 'content-type': 'text/plain' });
        response.end();
        return;
      }
      const next = random(k * 1_000_003 + page);
      const links: string[] = [];
      for (let l = 0; l < 6; l++) links.push(`/p${Math.floor(next() * o.pages)}`);
      for (let l = 0; l < 2; l++) links.push(`http://${hostName(zipf(next()))}:${port}/p${Math.floor(next() * o.pages)}`);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>${host} ${page}</title>${links.map((h) => `<a href="${h}">x</a>`).join('')}`);
    };
    if (slow(k)) setTimeout(answer, 200);
    else answer();
  };
  const servers: Server[] = [];
  for (const address of addresses) {
    const server = createServer(handler);
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => resolve());
    });
    if (port === 0) port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  // dnsmasq: one wildcard per server address; every query logged.
  const dnsPort = 20_000 + Math.floor(Math.random() * 20_000);
  const log = join(dir, 'dnsmasq.log');
  const dnsmasq: ChildProcess = spawn(
    'dnsmasq',
    ['--keep-in-foreground', '--no-resolv', '--no-hosts', '--bind-interfaces', '--listen-address=127.0.0.1', `--port=${dnsPort}`, '--local-ttl=3600', '--log-queries',
      `--log-facility=${log}`, '--user=root', '--pid-file=', ...addresses.map((a, i) => `--address=/s${i}.web.test/${a}`)],
    { stdio: 'ignore' },
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const db = join(dir, 'web.sqlite');
  const args = [compiledCli, 'crawl', `http://${hostName(0)}:${port}/p0`, `http://${hostName(1)}:${port}/p0`, '--db', db, '--hosts', 'any', '--filter', `^http://h\\d+\\.s\\d+\\.web\\.test:${port}/`,
    '--allow-ip', '127.0.0.0/8', '--dns', `127.0.0.1:${dnsPort}`, '--per-ip', String(o.perIp), '--ip-delay', String(o.ipDelay), '--per-host', String(o.perHost),
    '--delay', String(o.delay), '--concurrency', String(o.concurrency), '--max-pages', String(o.maxPages), '--retries', '0', '--json', ...(o.live ? [] : ['--no-live'])];
  // BENCH_NODE_ARGS: options for the crawler's node (a profile: --cpu-prof --cpu-prof-dir=DIR).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M %e %U %S', process.execPath, ...nodeArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const progress: Array<{ at: number; fetched: number }> = [];
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const match of d.toString().matchAll(/^([\d,]+) fetched, /gm)) progress.push({ at: performance.now() - started, fetched: Number(match[1]!.replace(/,/g, '')) });
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  dnsmasq.kill('SIGTERM');
  for (const server of servers) server.close();
  if (code !== 0) throw new Error(`wga crawl failed (${code}): ${stderr.slice(-2000)}`);
  const [maxKb, wall, user, system] = stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number, number];
  const report = JSON.parse(stdout) as { fetched: number; failed: number; known: number; hosts: number; servers: number; seconds: number; dns: Record<string, number> };
  // Pages/s over the first and the last tenth of the pages fetched: the time each count was
  // reached, interpolated between progress lines (every 5 s), the start at (0 s, 0 pages).
  const points = [{ at: 0, fetched: 0 }, ...progress];
  const timeOf = (f: number): number => {
    for (let i = 1; i < points.length; i++) {
      const [a, b] = [points[i - 1]!, points[i]!];
      if (b.fetched >= f) return a.at + ((b.at - a.at) * (f - a.fetched)) / Math.max(1, b.fetched - a.fetched);
    }
    return points[points.length - 1]!.at;
  };
  const rate = (from: number, to: number): number => ((to - from) * 1000) / (timeOf(to) - timeOf(from));
  const total = progress.length > 0 ? progress[progress.length - 1]!.fetched : report.fetched;
  const queries = readFileSync(log, 'utf8').match(/query\[A\]/g)?.length ?? 0;
  const perAddress = addresses.map((a) => most.get(`a ${a}`) ?? 0);
  let perHost = 0;
  for (const [key, value] of most) if (key.startsWith('h ')) perHost = Math.max(perHost, value);
  console.log(`web: ${o.hosts.toLocaleString('en-US')} hosts on ${o.servers} addresses, ${o.pages} pages each; wga --per-ip ${o.perIp} --ip-delay ${o.ipDelay} --per-host ${o.perHost} --delay ${o.delay} --concurrency ${o.concurrency}${o.live ? '' : ' --no-live'}`);
  console.log(`fetched ${report.fetched.toLocaleString('en-US')} (failed ${report.failed.toLocaleString('en-US')}), known ${report.known.toLocaleString('en-US')}, hosts ${report.hosts.toLocaleString('en-US')} on ${report.servers} addresses, in ${report.seconds.toFixed(1)} s (wall ${wall} s, CPU ${(user + system).toFixed(1)} s)`);
  console.log(`pages/s: first tenth ${rate(0, total / 10).toFixed(0)}, last tenth ${rate((9 * total) / 10, total).toFixed(0)}, whole ${(report.fetched / report.seconds).toFixed(0)}`);
  console.log(`peak RSS ${(maxKb / 1024).toFixed(0)} MB; most requests at once per address ${perAddress.join(', ')}; per host ${perHost}`);
  console.log(`DNS: dnsmasq answered ${queries} A queries; wga ${JSON.stringify(report.dns)}`);
  rmSync(dir, { recursive: true, force: true });
}

await main();
