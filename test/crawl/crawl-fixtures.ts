/**
 * Shared pieces of the crawler's integration tests: an independent model of
 * what a crawl of a generated Website must store (a breadth-first walk over
 * the site's own HTTP answers, with the scope rules written out again here,
 * not taken from the crawler), a logging HTTP server that records every
 * request's host, path and times, and a store-agnostic snapshot of a crawl
 * (through the Store interface only, so SQLite and PostgreSQL are read alike).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import type { Answer, Website } from '../../src/experiments/website.js';
import type { LinkKind, Store, StoreCounts, StoredCrawlPage } from '../../src/store/store.js';
import { cliPath } from '../helpers.js';

// ---- the model -----------------------------------------------------------

export interface ModelOptions {
  /** The seed, e.g. http://127.0.0.1:PORT/ */
  seed: string;
  filters?: RegExp[];
  fences?: RegExp[];
  maxDepth?: number;
}

export type ModelKind = 'html' | 'redirect' | 'missing' | 'other' | 'excluded';

export interface ModelPage {
  url: string;
  kind: ModelKind;
  status: number | null;
  contentType: string | null;
  /** The crawler's depth: clicks from the seed when first found, a redirect adding none. */
  depth: number;
  /** Steps from the seed in the walk, a redirect counting as one. */
  level: number;
  title: string | null;
  /** 'redirect loop' for the page whose redirect closes a loop. */
  error: string | null;
}

export interface Model {
  /** Pages in the order a sequential breadth-first crawl finds them (= store ids 1..n for --strategy bfs). */
  order: string[];
  pages: Map<string, ModelPage>;
  /** "kind source target" for every link a crawl stores. */
  links: Set<string>;
}

/**
 * The only default-skipped extension the generated site links to: its /files/N.pdf
 * are documents, not pages (its /data/N.json are fetched and are not HTML).
 */
const SKIPPED_BY_THE_SITE = new Set(['pdf']);
/** robots.txt of the site with hazards: "Disallow: /private/". */
const DISALLOWED_PREFIX = '/private/';
const MAX_MODEL_PAGES = 200_000;

function inScope(url: URL, seed: URL, depth: number, options: ModelOptions): boolean {
  if (options.maxDepth !== undefined && depth > options.maxDepth) return false;
  if (url.host !== seed.host) return false;
  const last = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  if (dot > 0 && SKIPPED_BY_THE_SITE.has(last.slice(dot + 1).toLowerCase())) return false;
  if ((options.filters ?? []).length > 0 && !options.filters!.some((re) => re.test(url.href))) return false;
  if ((options.fences ?? []).some((re) => re.test(url.href))) return false;
  return true;
}

/** The hrefs of <a> elements, in document order. */
export function hrefsOf(html: string): string[] {
  return [...html.matchAll(/<a\s+href="([^"]*)"/g)].map((m) => m[1]!);
}

/** What a crawl of `site` from `options.seed` must find, by a sequential breadth-first walk of the site's answers. */
export function modelCrawl(site: Website, options: ModelOptions): Model {
  const seed = new URL(options.seed);
  const order: string[] = [];
  const pages = new Map<string, ModelPage>();
  const links = new Set<string>();
  const redirectTo = new Map<string, string>();
  const add = (url: string, depth: number, level: number): void => {
    if (pages.has(url)) return;
    order.push(url);
    pages.set(url, { url, kind: 'html', status: null, contentType: null, depth, level, title: null, error: null });
  };
  add(seed.href, 0, 0);
  for (let next = 0; next < order.length; next++) {
    assert.ok(next < MAX_MODEL_PAGES, 'the model walked too far: is a spider trap in scope?');
    const page = pages.get(order[next]!)!;
    const url = new URL(page.url);
    if (url.pathname.startsWith(DISALLOWED_PREFIX)) {
      page.kind = 'excluded';
      continue;
    }
    const answer: Answer = site.answer(url.pathname);
    page.status = answer.status;
    page.contentType = (answer.headers['content-type'] ?? '').split(';')[0]!.trim() || null;
    if (answer.status >= 300 && answer.status < 400) {
      page.kind = 'redirect';
      const target = new URL(answer.headers.location!, url);
      if (target.href === page.url) {
        page.error = 'redirect loop: the page redirects to itself';
        continue;
      }
      if (!pages.has(target.href)) {
        if (!inScope(target, seed, page.depth, options)) continue;
        add(target.href, page.depth, page.level + 1);
      }
      links.add(`redirect ${page.url} ${target.href}`);
      redirectTo.set(page.url, target.href);
      // A chain of redirects that comes back to this page is a loop.
      let at: string | undefined = target.href;
      for (let step = 0; step < 20 && at !== undefined; step++) {
        at = redirectTo.get(at);
        if (at === page.url) {
          page.error = 'redirect loop';
          break;
        }
      }
    } else if (answer.status >= 400) {
      page.kind = 'missing';
    } else if (page.contentType === 'text/html') {
      page.title = /<title>([^<]*)<\/title>/.exec(answer.body)?.[1] ?? null;
      for (const href of hrefsOf(answer.body)) {
        const target = new URL(href, url);
        target.hash = '';
        if (target.href === page.url) continue;
        // A page already known is linked whatever the depth it is found at now; a new one must be in scope.
        if (!pages.has(target.href)) {
          if (!inScope(target, seed, page.depth + 1, options)) continue;
          add(target.href, page.depth + 1, page.level + 1);
        }
        links.add(`anchor ${page.url} ${target.href}`);
      }
    } else {
      page.kind = 'other';
    }
  }
  return { order, pages, links };
}

/**
 * Pages within `radius` clicks of the seed by the shortest path, a redirect counting as no click
 * (as the crawler counts depth): a 0-1 breadth-first search over the links of the site.
 */
export function clickBall(site: Website, seed: string, radius: number): Set<string> {
  // The calendar is infinite, but /calendar/N is N + 1 clicks away: fencing it beyond the radius changes nothing.
  const model = modelCrawl(site, { seed, fences: [new RegExp(`/calendar/([${radius + 1}-9]|[1-9][0-9]+)\\.html$`)] });
  const out = new Map<string, Array<[string, number]>>();
  for (const link of model.links) {
    const [kind, source, target] = link.split(' ') as [string, string, string];
    if (!out.has(source)) out.set(source, []);
    out.get(source)!.push([target, kind === 'redirect' ? 0 : 1]);
  }
  const distance = new Map<string, number>([[seed, 0]]);
  const deque: string[] = [seed];
  for (let steps = 0; deque.length > 0; steps++) {
    assert.ok(steps < 10 * MAX_MODEL_PAGES);
    const u = deque.shift()!;
    for (const [v, w] of out.get(u) ?? []) {
      const d = distance.get(u)! + w;
      if (d < (distance.get(v) ?? Infinity)) {
        distance.set(v, d);
        if (w === 0) deque.unshift(v);
        else deque.push(v);
      }
    }
  }
  return new Set([...distance].filter(([, d]) => d <= radius).map(([url]) => url));
}

/** Paths the model's crawl requests (every page but those robots.txt excludes). */
export function requestedPaths(model: Model): string[] {
  return [...model.pages.values()].filter((p) => p.kind !== 'excluded').map((p) => new URL(p.url).pathname);
}

/** The store's counts a finished crawl of the model must have. */
export function modelCounts(model: Model): Pick<StoreCounts, 'pages' | 'links' | 'fetched' | 'failed' | 'excluded' | 'frontier'> {
  const pages = [...model.pages.values()];
  return {
    pages: pages.length,
    links: model.links.size,
    fetched: pages.filter((p) => p.kind === 'html').length,
    failed: pages.filter((p) => p.kind === 'missing' || p.error !== null).length,
    excluded: pages.filter((p) => p.kind === 'excluded').length,
    frontier: 0,
  };
}

// ---- a logging server ----------------------------------------------------

export interface LoggedRequest {
  host: string;
  path: string;
  /** performance.now() when the request arrived and when its answer was sent. */
  start: number;
  end: number;
}

export interface LoggingServer {
  origin: string;
  port: number;
  log: LoggedRequest[];
  maxConcurrent: number;
  close(): Promise<void>;
}

/** Serves `answer(path, host)` on 127.0.0.1, logging every request; each answer waits `delayMs`. */
export async function serveLogged(answer: (path: string, host: string) => Answer, options: { delayMs?: number } = {}): Promise<LoggingServer> {
  let running = 0;
  const served: LoggingServer = {
    origin: '',
    port: 0,
    log: [],
    maxConcurrent: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const entry: LoggedRequest = { host: request.headers.host ?? '', path: (request.url ?? '/').split('?')[0]!, start: performance.now(), end: 0 };
    served.log.push(entry);
    running++;
    served.maxConcurrent = Math.max(served.maxConcurrent, running);
    const send = (): void => {
      const a = answer(entry.path, entry.host);
      running--;
      entry.end = performance.now();
      response.writeHead(a.status, a.headers);
      response.end(a.body);
    };
    if ((options.delayMs ?? 0) > 0) setTimeout(send, options.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  served.port = (server.address() as AddressInfo).port;
  served.origin = `http://127.0.0.1:${served.port}`;
  return served;
}

// ---- snapshots of a stored crawl -----------------------------------------

export interface CrawlSnapshot {
  /** By URL. */
  pages: Map<string, StoredCrawlPage>;
  /** "kind source target" with URLs. */
  links: Set<string>;
  state: Record<string, string>;
  counts: StoreCounts;
}

/** Everything a crawl stored, read through the Store interface. */
export async function snapshot(store: Store): Promise<CrawlSnapshot> {
  const crawl = await store.loadCrawl();
  const pages = new Map(crawl.pages.map((p) => [p.url, p]));
  const links = new Set<string>();
  for (const kind of ['anchor', 'redirect', 'canonical'] as LinkKind[]) {
    const { graph } = await store.loadGraph([kind]);
    for (let v = 0; v < graph.nodeCount; v++) {
      for (const w of graph.successors(v)) links.add(`${kind} ${graph.labels.label(v)} ${graph.labels.label(w)}`);
    }
  }
  return { pages, links, state: crawl.state, counts: await store.counts() };
}

/** A URL (or a "kind source target" link) with the origin taken out, to compare crawls of two servers. */
export function withoutOrigin(text: string): string {
  return text.replace(/https?:\/\/[^/ ]+/g, '');
}

/**
 * The cash all pages hold, from the stored raw state: each page's own cash plus what OPIC's
 * lazy pools owe it (the virtual page's payouts since the page last settled; OPIC paper,
 * Section 2: the total stays 1 at every step).
 */
export function storedTotalCash(snap: CrawlSnapshot): number {
  const globals = JSON.parse(snap.state.opic!) as { all: number; unread: number; focused: number };
  let total = 0;
  for (const { opic: o } of snap.pages.values()) {
    total += o.cash + (globals.all - o.seenAll);
    if (o.reads === 0) total += globals.unread - o.seenUnread;
    if (o.focus) total += globals.focused - o.seenFocus;
  }
  return total;
}

/**
 * What every finished crawl must satisfy whatever its history (sessions, kills):
 * each finished page read by OPIC exactly once, the fetch order 1..k without gaps or
 * repeats, the clock G equal to the sum of the histories, and the total cash 1.
 */
export function assertCrawlInvariants(snap: CrawlSnapshot): void {
  const globals = JSON.parse(snap.state.opic!) as { clock: number; reads: number };
  let finished = 0;
  let history = 0;
  const seqs: number[] = [];
  for (const page of snap.pages.values()) {
    const done = page.status !== null || page.error !== null;
    if (done) finished++;
    assert.equal(page.opic.reads, done ? 1 : 0, `${page.url}: OPIC reads`);
    if (page.fetchSeq !== null) {
      seqs.push(page.fetchSeq);
      assert.ok(done, `${page.url} has a fetch_seq but no fetch result`);
    } else if (done) {
      assert.match(page.error ?? '', /^excluded:/, `${page.url}: only pages a rule kept from fetching have no fetch_seq`);
    }
    history += page.opic.history;
  }
  assert.equal(globals.reads, finished, 'OPIC reads = pages finished');
  seqs.sort((a, b) => a - b);
  assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), 'fetch_seq is 1..k, each once');
  assert.ok(Math.abs(history - globals.clock) < 1e-9, `sum of histories ${history} = G ${globals.clock}`);
  const cash = storedTotalCash(snap);
  assert.ok(Math.abs(cash - 1) < 1e-9, `total OPIC cash ${cash}`);
}

/** Asserts the stored crawl is exactly the model's: pages, their answers, links. */
export function assertMatchesModel(snap: CrawlSnapshot, model: Model, options: { depths?: boolean } = {}): void {
  assert.deepEqual(new Set(snap.pages.keys()), new Set(model.pages.keys()), 'the stored pages are the model crawl\'s');
  for (const expected of model.pages.values()) {
    const page = snap.pages.get(expected.url)!;
    const what = `${expected.url} (${expected.kind})`;
    if (expected.kind === 'excluded') {
      assert.equal(page.status, null, what);
      assert.match(page.error ?? '', /^excluded: /, what);
      assert.equal(page.fetchSeq, null, what);
      continue;
    }
    assert.equal(page.status, expected.status, what);
    assert.equal(page.contentType, expected.contentType, what);
    assert.notEqual(page.fetchSeq, null, what);
    if (expected.kind === 'missing') assert.equal(page.error, `HTTP ${expected.status}`, what);
    else assert.equal(page.error, expected.error, what);
    if (options.depths === true) assert.equal(page.depth, expected.depth, `${what}: depth`);
  }
  const missing = [...model.links].filter((l) => !snap.links.has(l));
  const extra = [...snap.links].filter((l) => !model.links.has(l));
  assert.deepEqual({ missing: missing.slice(0, 10), extra: extra.slice(0, 10) }, { missing: [], extra: [] }, 'stored links = model links');
  assert.equal(snap.links.size, model.links.size);
}

// ---- the CLI ---------------------------------------------------------------

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `wga ...args` in a child process (the test process's event loop keeps serving meanwhile). */
export function runCli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A bound, not a timing: generous for a loaded 2-core machine.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * What a crawler asks of every host besides its pages: robots.txt, and /sitemap.xml when
 * robots.txt names no sitemap (sitemaps are read by default).
 */
export const HOST_FILES: ReadonlySet<string> = new Set(['/robots.txt', '/sitemap.xml']);

/** Whether a request path (or a URL ending in one) is one of HOST_FILES. */
export function isHostFile(path: string): boolean {
  for (const file of HOST_FILES) if (path === file || path.endsWith(file)) return true;
  return false;
}
