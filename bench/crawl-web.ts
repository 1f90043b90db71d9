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
 * wga's report; the checkpoints' write times over the first and the last tenth.
 *
 * With --kill-at F, wga is killed (SIGKILL) once it has fetched F of --max-pages, and `wga crawl
 * --resume` finishes the crawl: reported are the time to its first request. With --check, the
 * store is compared at the end with the web itself: the pages reachable from the seeds (a
 * breadth-first search over the generator), those answered 200 and every link of theirs, which
 * is what an uninterrupted crawl that empties its frontier stores (--max-pages at least the web).
 *
 *   npm run bench:crawl-web -- --hosts 10000 --servers 4 --pages 20 --max-pages 100000
 *
 * Options: --hosts N (10,000); --servers S (4); --pages P (20 per host); --max-pages M (100,000);
 * --per-ip N, --ip-delay MS, --per-host N, --delay MS, --concurrency C (wga's options; defaults:
 * 4, 0, 1, 0, 64); --no-live; --kill-at F (0: none); --check.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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
  killAt: number;
  check: boolean;
}

function parse(argv: string[]): Options {
  const o: Options = { hosts: 10_000, servers: 4, pages: 20, maxPages: 100_000, perIp: 4, ipDelay: 0, perHost: 1, delay: 0, concurrency: 64, live: true, killAt: 0, check: false };
  const keys: Record<string, keyof Options> = {
    '--hosts': 'hosts', '--servers': 'servers', '--pages': 'pages', '--max-pages': 'maxPages', '--per-ip': 'perIp', '--ip-delay': 'ipDelay',
    '--per-host': 'perHost', '--delay': 'delay', '--concurrency': 'concurrency', '--kill-at': 'killAt',
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--no-live') o.live = false;
    else if (argv[i] === '--check') o.check = true;
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

/**
 * The store against the web: the pages reachable from the two seeds (h0 and h1's /p0) by the links of
 * pages that answer 200, their count, the 200 pages' count and their links, compared as sets (an
 * order-free digest of the (source, target) URL pairs).
 */
function checkAgainstWeb(db: string, o: Options, linksOf: (k: number, page: number) => Array<[number, number]>, hostName: (k: number) => string, port: number, failing: (k: number) => boolean): string {
  const total = o.hosts * o.pages;
  const seen = new Uint8Array(total);
  const queue = new Int32Array(total);
  let head = 0;
  let tail = 0;
  for (const seed of [0, o.pages]) {
    seen[seed] = 1;
    queue[tail++] = seed;
  }
  const url = (id: number): string => `http://${hostName(Math.floor(id / o.pages))}:${port}/p${id % o.pages}`;
  const digest = (source: string, target: string): number => {
    let h = 0x811c9dc5;
    const text = `${source} ${target}`;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return h >>> 0;
  };
  let ok = 0;
  let links = 0;
  let sum = 0;
  while (head < tail) {
    const id = queue[head++]!;
    const k = Math.floor(id / o.pages);
    if (failing(k)) continue;
    ok++;
    const targets = new Set<number>();
    // wga keeps no link from a page to itself.
    for (const [h, p] of linksOf(k, id % o.pages)) if (h * o.pages + p !== id) targets.add(h * o.pages + p);
    for (const t of targets) {
      links++;
      sum = (sum + digest(url(id), url(t))) % 4294967296;
      if (seen[t] === 0) {
        seen[t] = 1;
        queue[tail++] = t;
      }
    }
  }
  const store = new Database(db, { readonly: true });
  const known = store.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  const stored200 = store.prepare('SELECT count(*) FROM pages WHERE status = 200').pluck().get() as number;
  let storedLinks = 0;
  let storedSum = 0;
  for (const [source, target] of store.prepare('SELECT s.url, t.url FROM links JOIN pages s ON s.id = links.source JOIN pages t ON t.id = links.target').raw().iterate() as IterableIterator<[string, string]>) {
    storedLinks++;
    storedSum = (storedSum + digest(source, target)) % 4294967296;
  }
  // The store's bytes: the pages table with its indexes per page, the links table with its index per link (SQLite's dbstat).
  const bytesOf = (names: string[]): number => store.prepare(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`).pluck().get(...names) as number;
  const indexesOf = (table: string): string[] => (store.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").pluck().all(table) as string[]);
  const pageBytes = bytesOf(['pages', ...indexesOf('pages')]);
  const linkBytes = bytesOf(['links', ...indexesOf('links')]);
  const fileBytes = (store.prepare('PRAGMA page_count').pluck().get() as number) * (store.prepare('PRAGMA page_size').pluck().get() as number);
  store.close();
  const storeLine = `store ${(fileBytes / 2 ** 20).toFixed(0)} MB: pages and their indexes ${(pageBytes / known).toFixed(0)} bytes per page, links and theirs ${(linkBytes / Math.max(1, storedLinks)).toFixed(1)} bytes per link, the rest (visits, state) ${((fileBytes - pageBytes - linkBytes) / 2 ** 20).toFixed(0)} MB`;
  const same = known === tail && stored200 === ok && storedLinks === links && storedSum === sum;
  return `check against the web: reachable ${tail.toLocaleString('en-US')} (stored ${known.toLocaleString('en-US')}), answering 200 ${ok.toLocaleString('en-US')} (stored ${stored200.toLocaleString('en-US')}), links ${links.toLocaleString('en-US')} (stored ${storedLinks.toLocaleString('en-US')}), digest ${same ? 'equal' : 'DIFFERENT'}: ${same ? 'the same pages and links as an uninterrupted crawl' : 'NOT the same'}\n${storeLine}`;
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
  /** A page's links: 6 to its own host, 2 to hosts drawn by the power law, as [host, page]. */
  const linksOf = (k: number, page: number): Array<[number, number]> => {
    const next = random(k * 1_000_003 + page);
    const links: Array<[number, number]> = [];
    for (let l = 0; l < 6; l++) links.push([k, Math.floor(next() * o.pages)]);
    for (let l = 0; l < 2; l++) {
      const h = zipf(next());
      links.push([h, Math.floor(next() * o.pages)]);
    }
    return links;
  };
  let port = 0;
  /** Requests seen, and the time of the last one (performance.now()). */
  let requests = 0;
  let lastRequestAt = 0;
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
    requests++;
    lastRequestAt = performance.now();
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
      const links = linksOf(k, page).map(([h, p]) => (h === k ? `/p${p}` : `http://${hostName(h)}:${port}/p${p}`));
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
  const progress: Array<{ at: number; fetched: number; checkpointMs: number }> = [];
  /** One run of wga: resolves with its exit code, stdout, stderr and /usr/bin/time's line; `onProgress` may kill it. */
  const run = (argv: string[], onProgress: (fetched: number, child: ChildProcess) => void): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn('/usr/bin/time', ['-f', '%M %e %U %S', process.execPath, ...nodeArgs, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        for (const match of d.toString().matchAll(/^([\d,]+) fetched, [^\n]*?(?:checkpoint (\d+) ms)?(?: \||$)/gm)) {
          const fetched = Number(match[1]!.replace(/,/g, ''));
          progress.push({ at: performance.now() - started, fetched, checkpointMs: match[2] === undefined ? Number.NaN : Number(match[2]) });
          onProgress(fetched, child);
        }
      });
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  let killed = false;
  let first = await run(args, (fetched, child) => {
    if (o.killAt > 0 && !killed && fetched >= o.killAt * o.maxPages) {
      killed = true;
      // /usr/bin/time's child is the crawler: SIGKILL to the crawler itself, not to time.
      spawn('pkill', ['-KILL', '-P', String(child.pid)]);
    }
  });
  let resumeLine = '';
  if (killed) {
    const killedAt = performance.now();
    const before = requests;
    const resumeArgs = [compiledCli, 'crawl', '--resume', '--db', db, '--dns', `127.0.0.1:${dnsPort}`, '--json'];
    const resumed = run(resumeArgs, () => {});
    // The first request of the resumed crawl: the server's count moves.
    const firstRequest = await new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        if (requests > before) {
          clearInterval(poll);
          resolve(lastRequestAt - killedAt);
        }
      }, 5);
    });
    const killedRun = first;
    first = await resumed;
    resumeLine = `killed (SIGKILL) at ${[...killedRun.stderr.matchAll(/^([\d,]+) fetched, /gm)].pop()?.[1] ?? '?'} fetched (the last progress line; peak RSS ${(Number(killedRun.stderr.trim().split('\n').pop()!.split(' ')[0]) / 1024).toFixed(0)} MB); --resume sent its first request ${(firstRequest / 1000).toFixed(1)} s after the kill`;
  }
  const { code, stdout, stderr } = first;
  dnsmasq.kill('SIGTERM');
  for (const server of servers) server.close();
  if (code !== 0) throw new Error(`wga crawl failed (${code}): ${stderr.slice(-2000)}`);
  const [maxKb, wall, user, system] = stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number, number];
  const report = JSON.parse(stdout) as { fetched: number; failed: number; excluded: number; redirects: number; other: number; requests: number; known: number; hosts: number; servers: number; seconds: number; dns: Record<string, number>; checkpoints: Record<string, number>; stoppedBy: string };
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
  console.log(`stopped by: ${report.stoppedBy}`);
  console.log(`fetched ${report.fetched.toLocaleString('en-US')} (failed ${report.failed.toLocaleString('en-US')}, excluded ${report.excluded.toLocaleString('en-US')}, redirects ${report.redirects.toLocaleString('en-US')}, other ${report.other.toLocaleString('en-US')}; requests ${report.requests.toLocaleString('en-US')}), known ${report.known.toLocaleString('en-US')}, hosts ${report.hosts.toLocaleString('en-US')} on ${report.servers} addresses, in ${report.seconds.toFixed(1)} s (wall ${wall} s, CPU ${(user + system).toFixed(1)} s)`);
  console.log(`pages/s: first tenth ${rate(0, total / 10).toFixed(0)}, last tenth ${rate((9 * total) / 10, total).toFixed(0)}, whole ${rate(0, total).toFixed(0)} (from the first start to the end, the kill and the resume included)`);
  console.log(`peak RSS ${(maxKb / 1024).toFixed(0)} MB; most requests at once per address ${perAddress.join(', ')}; per host ${perHost}`);
  const tenth = (from: number, to: number): number => {
    const times = progress.filter((p) => p.fetched >= from && p.fetched <= to && !Number.isNaN(p.checkpointMs)).map((p) => p.checkpointMs);
    return times.length === 0 ? Number.NaN : times.reduce((a, b) => a + b, 0) / times.length;
  };
  console.log(`checkpoint write (the last one at each progress line): first tenth ${tenth(0, total / 10).toFixed(0)} ms, last tenth ${tenth((9 * total) / 10, total).toFixed(0)} ms on average; ${JSON.stringify(report.checkpoints)}`);
  if (resumeLine !== '') console.log(resumeLine);
  if (o.check) console.log(checkAgainstWeb(db, o, linksOf, hostName, port, failing));
  console.log(`DNS: dnsmasq answered ${queries} A queries; wga ${JSON.stringify(report.dns)}`);
  // BENCH_KEEP=1 keeps the store and the DNS log for a look afterwards.
  if (process.env.BENCH_KEEP === "1") console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

await main();
