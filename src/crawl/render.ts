/**
 * Rendering pages in headless Chromium (--render): the page's HTML, as wga
 * fetched it, is loaded in a browser tab, its scripts run, and once the page
 * settles the links of the rendered DOM are read by the same extractor as
 * served HTML (extract.ts), so that both give the same kinds and attributes.
 *
 * The browser never reaches the network by itself. Every request it makes is
 * intercepted (Playwright's routing) and answered here:
 * - the page's own document from the body already fetched (no second request);
 * - a later navigation of the page (location.href = ..., a form, a frame) with
 *   204 No Content, which leaves the document as it is; a navigation of the
 *   top page is reported (RenderedPage.navigatedTo) and recorded as a
 *   client-side redirect, the way a meta refresh is;
 * - subresources of the allowed types (scripts, stylesheets, fetch/XHR by
 *   default) through the crawler's gate (ResourceGate: robots.txt, address
 *   rules, per-host delay, size caps, the crawl's own connections); other
 *   types (images, media, fonts, beacons, event streams...) and other methods
 *   than GET are refused.
 * Behind that, the browser is started with a host resolver that resolves
 * nothing and a proxy that does not exist: a request that escaped the routing
 * (a WebSocket, WebRTC, prefetch) finds no address to connect to.
 *
 * A page has settled when no request of it has been running and its DOM has
 * not changed (a MutationObserver installed before its scripts) for `quietMs`;
 * it is read as it is when `timeoutMs` runs out ('unsettled'). A hung page is
 * closed at a hard deadline; a crashed tab or browser is restarted and the
 * page tried once more before it is given up ('failed', its HTML's links stand).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { ExitCode, WgaError } from '../errors.js';
import type { RenderOutcome } from '../store/store.js';
import { type ExtractedPage, extractLinks } from './extract.js';
import type { ResourceAnswer } from './fetcher.js';

/** Where Chromium is looked for when --browser does not say. */
export const BROWSER_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The resource types a rendered page may load by default (Playwright's names). */
export const DEFAULT_RENDER_RESOURCES = ['script', 'stylesheet', 'fetch', 'xhr'];
/** Every resource type --render-resources may name (documents are the page's own affair). */
export const RENDER_RESOURCE_TYPES = ['script', 'stylesheet', 'fetch', 'xhr', 'image', 'media', 'font', 'texttrack', 'manifest', 'other'];

/** Times the browser is started before --render gives up on it. */
const LAUNCH_ATTEMPTS = 2;
/** Renders of a page tried again after its browser crashed or was killed. */
const RENDER_RETRIES = 3;
/** Extra time past the render timeout before a page is taken for hung and its tab closed. */
const HANG_GRACE_MS = 5000;
/** Timeouts up to this long keep a page from settling while they wait (longer ones are no part of drawing it). */
const TIMER_LIMIT_MS = 5000;
/** Subresource answers kept for the pages that follow (the same app.js on every page of a site). */
const CACHE_BYTES = 64 * 1024 * 1024;

export class BrowserMissingError extends WgaError {
  constructor(looked: readonly string[]) {
    super(`--render: no Chromium found (looked for ${looked.join(', ')}): install it (apt-get install chromium) or give its path with --browser PATH`, ExitCode.usage);
  }
}

/** The browser's executable: `given` when it exists, else the first of BROWSER_CANDIDATES there is; null if none. */
export function findBrowser(given: string | null): string | null {
  if (given !== null) return existsSync(given) ? given : null;
  return BROWSER_CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/** How subresources of a rendered page are fetched: the crawler's rules decide (page-pipeline.ts). */
export interface ResourceGate {
  fetch(url: URL, accept: string): Promise<ResourceAnswer>;
}

export interface RendererOptions {
  browserPath: string;
  userAgent: string;
  /** Tabs rendering at once. */
  concurrency: number;
  /** Longest time for a page, from its load to its links, ms. */
  timeoutMs: number;
  /** Quiet time (no request, no DOM change) after which a page has settled, ms. */
  quietMs: number;
  /** Resource types fetched for a page (the rest refused). */
  resources: readonly string[];
  gate: ResourceGate;
  /** The browser is closed when no page has needed it for this long, ms (started again when one does). */
  idleMs: number;
  /** Distinct targets kept per page (extract.ts). */
  maxLinks?: number;
}

export interface RenderRequest {
  /** The page's URL (its document's). */
  url: string;
  /** Its HTML as fetched and decoded. */
  html: string;
}

export interface RenderedPage {
  outcome: RenderOutcome;
  /** The links, title and base of the rendered DOM (null when rendering failed). */
  page: ExtractedPage | null;
  /** The page's URL once rendered (the history API may have changed it), without its fragment. */
  finalUrl: string | null;
  /** A navigation of the page its scripts started (location.href = ...), not followed. */
  navigatedTo: string | null;
  /** Why rendering failed. */
  error: string | null;
  /** Time the page took of a tab (from getting one to its links), ms. */
  elapsedMs: number;
}

/** Counters of a renderer, for the crawl's report. */
export interface RenderCounters {
  rendered: number;
  unsettled: number;
  failed: number;
  /** Browser (re)starts, and closes after --render-idle without a page. */
  launches: number;
  idleCloses: number;
  /** Subresources fetched through the gate, answered from the cache, refused (by type or method), and failed (by rule or network). */
  subresources: number;
  cacheHits: number;
  blocked: number;
  refused: number;
  /** Milliseconds spent rendering, summed over pages. */
  renderMs: number;
}

interface PageState {
  inFlight: number;
  lastNetwork: number;
  documentServed: boolean;
  navigatedTo: string | null;
}

/** A bounded map of subresource answers, the oldest dropped first. */
class ResourceCache {
  private readonly entries = new Map<string, ResourceAnswer>();
  private bytes = 0;

  get(url: string): ResourceAnswer | undefined {
    return this.entries.get(url);
  }

  put(url: string, answer: ResourceAnswer): void {
    const size = answer.body?.length ?? 0;
    if (size > CACHE_BYTES / 8 || this.entries.has(url)) return;
    this.entries.set(url, answer);
    this.bytes += size;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= CACHE_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= old.body?.length ?? 0;
    }
  }
}

/** Whether an answer may be reused for the crawl's other pages (200, not marked no-store or private). */
function cacheable(answer: ResourceAnswer): boolean {
  if (answer.status !== 200 || answer.body === null) return false;
  const control = answer.headers.find((h) => h.name === 'cache-control')?.value.toLowerCase() ?? '';
  return !/no-store|private/.test(control);
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The page's URL without its fragment. */
function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

export class Renderer {
  readonly counters: RenderCounters = { rendered: 0, unsettled: 0, failed: 0, launches: 0, idleCloses: 0, subresources: 0, cacheHits: 0, blocked: 0, refused: 0, renderMs: 0 };
  private browser: Browser | null = null;
  private context: BrowserContext | null = null;
  private starting: Promise<BrowserContext> | null = null;
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private readonly resources: ReadonlySet<string>;
  private readonly cache = new ResourceCache();
  /** The window property the mutation clock is read from (random: a page cannot expect it). */
  private readonly clockKey = `__wga${randomBytes(6).toString('hex')}`;
  private closed = false;
  /** Closes the browser once no page has needed it for options.idleMs. */
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: RendererOptions) {
    this.resources = new Set(options.resources);
  }

  /** Renders a page (waits for a free tab); never throws for the page's sake: failures come back as 'failed'. */
  async render(request: RenderRequest): Promise<RenderedPage> {
    await this.slot();
    if (this.idleTimer !== null) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    const started = performance.now();
    try {
      let result = await this.renderOnce(request);
      // A crashed tab or browser is no verdict on the page: again, in a fresh one (RENDER_RETRIES times at
      // most: a browser killed for a hung page, or by the system, fails every page it was rendering).
      for (let again = 0; again < RENDER_RETRIES && result.retry && !this.closed; again++) result = await this.renderOnce(request);
      const rendered = result.rendered;
      if (rendered.outcome === 'failed') this.counters.failed++;
      else {
        this.counters.rendered++;
        if (rendered.outcome === 'unsettled') this.counters.unsettled++;
      }
      rendered.elapsedMs = performance.now() - started;
      return rendered;
    } finally {
      this.counters.renderMs += performance.now() - started;
      this.release();
      if (this.running === 0 && !this.closed && this.browser !== null) {
        this.idleTimer = setTimeout(() => {
          this.idleTimer = null;
          if (this.running === 0) void this.closeIdle();
        }, this.options.idleMs);
        // An idle browser does not keep the process alive.
        this.idleTimer.unref();
      }
    }
  }

  /** Whether the browser is running (a render started it and it has not been closed since). */
  browserRunning(): boolean {
    return this.browser !== null;
  }

  /** Closes the browser no page has needed for a while; the next render starts it again. */
  private async closeIdle(): Promise<void> {
    const browser = this.browser;
    if (browser === null || this.starting !== null) return;
    this.browser = null;
    this.context = null;
    this.counters.idleCloses++;
    await closeBrowser(browser);
  }

  /** Closes the browser. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const browser = this.browser;
    this.browser = null;
    this.context = null;
    if (browser !== null) await closeBrowser(browser);
  }

  private async slot(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.running--;
  }

  /** The browser context pages open in, the browser started on first use (and after a crash). */
  private async browserContext(): Promise<BrowserContext> {
    if (this.context !== null && this.browser?.isConnected() === true) return this.context;
    this.starting ??= this.launch().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async launch(): Promise<BrowserContext> {
    const old = this.browser;
    this.browser = null;
    this.context = null;
    if (old !== null) await withDeadline(old.close(), 5000, 'close').catch(() => killBrowser(old));
    const { chromium } = await import('playwright-core');
    const args = [
      // Defence behind the routing: no name resolves and no proxy answers, so nothing unrouted connects.
      '--host-resolver-rules=MAP * ~NOTFOUND',
      '--proxy-server=http://127.0.0.1:9',
      '--proxy-bypass-list=<-loopback>',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-domain-reliability',
      '--disable-sync',
      '--disable-dev-shm-usage',
      '--no-first-run',
    ];
    // Chromium's sandbox does not run as root.
    if (process.getuid?.() === 0) args.push('--no-sandbox');
    // A switch Chromium ignores, on this browser's command line only: its process is found by it
    // (Playwright does not say which it is), to be killed with its group if it stops answering.
    const marker = `--wga-renderer=${process.pid}-${randomBytes(6).toString('hex')}`;
    args.push(marker);
    let browser: Browser | null = null;
    let failure: Error | null = null;
    // Started twice at most: a launch on a loaded machine can lose its browser before it answers.
    for (let attempt = 0; attempt < LAUNCH_ATTEMPTS && browser === null; attempt++) {
      try {
        browser = await chromium.launch({ executablePath: this.options.browserPath, args, timeout: 60_000 });
      } catch (error) {
        failure = error as Error;
        killMarked(marker);
      }
    }
    if (browser === null) {
      throw new WgaError(`--render: Chromium at ${this.options.browserPath} did not start: ${(failure?.message ?? '').split('\n')[0]!.slice(0, 200)}`, ExitCode.usage);
    }
    browserMarkers.set(browser, marker);
    this.counters.launches++;
    const context = await browser.newContext({ serviceWorkers: 'block', userAgent: this.options.userAgent, acceptDownloads: false, viewport: { width: 1280, height: 900 } });
    // For settling, set before any script of the page runs, behind a getter on a random name: the time of the
    // DOM's last change, and the timeouts of up to TIMER_LIMIT_MS waiting to run (a page drawing its links from
    // a timer is not quiet yet; an interval, which never ends, is not counted).
    await context.addInitScript({
      content: `(() => {
        let last = 0; const timers = new Set(); const set = window.setTimeout; const clear = window.clearTimeout;
        Object.defineProperty(window, ${JSON.stringify(this.clockKey)}, { get: () => ({ last, timers: timers.size }) });
        window.setTimeout = function (callback, delay, ...rest) {
          if (typeof callback !== 'function' || !(Number(delay) <= ${TIMER_LIMIT_MS})) return set.call(this, callback, delay, ...rest);
          const id = set.call(this, (...args) => { timers.delete(id); callback(...args); }, delay, ...rest);
          timers.add(id);
          return id;
        };
        window.clearTimeout = function (id) { timers.delete(id); return clear.call(this, id); };
        new MutationObserver(() => { last = performance.now(); }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      })();`,
    });
    if (this.closed) {
      await browser.close().catch(() => undefined);
      throw new WgaError('renderer closed', ExitCode.usage);
    }
    this.browser = browser;
    this.context = context;
    return context;
  }

  private async renderOnce(request: RenderRequest): Promise<{ rendered: RenderedPage; retry: boolean }> {
    const failed = (error: string): RenderedPage => ({ outcome: 'failed', page: null, finalUrl: null, navigatedTo: null, error, elapsedMs: 0 });
    let context: BrowserContext;
    try {
      context = await this.browserContext();
    } catch (error) {
      if (error instanceof WgaError && !this.closed && this.counters.launches === 0) throw error;
      return { rendered: failed((error as Error).message.slice(0, 200)), retry: false };
    }
    const started = performance.now();
    const deadline = started + this.options.timeoutMs;
    const state: PageState = { inFlight: 0, lastNetwork: started, documentServed: false, navigatedTo: null };
    let page: Page | null = null;
    let crashed = false;
    try {
      page = await withDeadline(context.newPage(), 30_000, 'no new tab in 30 s');
      const tab = page;
      tab.on('crash', () => {
        crashed = true;
      });
      // alert(), confirm() and prompt() would hold the page.
      tab.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
      await tab.route('**/*', (route) => this.answer(tab, route, request, state));
      const work = async (): Promise<{ settled: boolean; html: string; url: string }> => {
        let loaded = true;
        try {
          await tab.goto(request.url, { waitUntil: 'load', timeout: this.options.timeoutMs });
        } catch (error) {
          // A load event that never came (a subresource hanging): the page is read as it is.
          if ((error as Error).name !== 'TimeoutError') throw error;
          loaded = false;
        }
        const settled = loaded && (await this.settle(tab, state, deadline));
        return { settled, html: await tab.content(), url: tab.url() };
      };
      // A page is taken for hung only well past its time: a loaded machine slows pages that are not.
      const hardMs = this.options.timeoutMs + Math.max(HANG_GRACE_MS, this.options.timeoutMs);
      const done = await withDeadline(work(), hardMs, `no answer from the page after ${hardMs / 1000} s`);
      const page_ = extractLinks(done.html, this.options.maxLinks);
      return {
        rendered: { outcome: done.settled ? 'settled' : 'unsettled', page: page_, finalUrl: withoutFragment(done.url), navigatedTo: state.navigatedTo, error: null, elapsedMs: 0 },
        retry: false,
      };
    } catch (error) {
      const text = (error as Error).message ?? '';
      // A killed browser may still look connected for a moment after the error it caused: asked again a little later.
      const used = context.browser();
      let disconnected = used === null || !used.isConnected() || /has been closed|browser has disconnected|Target closed|crash/i.test(text);
      if (!disconnected && !text.startsWith('no answer from the page')) {
        await sleep(300);
        disconnected = !used!.isConnected();
      }
      const message = crashed ? 'the browser tab crashed' : disconnected ? 'the browser stopped' : text.split('\n')[0]!.slice(0, 200);
      // The next attempt starts a new browser when this one is gone.
      if (disconnected && this.context === context) {
        const gone = this.browser;
        this.browser = null;
        this.context = null;
        if (gone !== null) void gone.close().catch(() => undefined);
      }
      return { rendered: failed(message), retry: crashed || disconnected };
    } finally {
      if (page !== null) await this.closePage(page);
    }
  }

  /** Closes a tab; a browser that cannot even do that is restarted. */
  private async closePage(page: Page): Promise<void> {
    const browser = page.context().browser();
    try {
      await withDeadline(page.close({ runBeforeUnload: false }), 10_000, 'tab did not close');
    } catch {
      // Only the browser this tab was in, and only if it is still the one in use (another render may have started a new one).
      if (browser === null || browser !== this.browser) return;
      this.browser = null;
      this.context = null;
      killBrowser(browser);
    }
  }

  /** Waits until the page has settled (true) or the deadline passes (false). */
  private async settle(page: Page, state: PageState, deadline: number): Promise<boolean> {
    const quiet = this.options.quietMs;
    const key = this.clockKey;
    for (;;) {
      const now = performance.now();
      if (now >= deadline) return false;
      const clock = (await page.evaluate(`(() => { const c = window[${JSON.stringify(key)}]; return [performance.now() - c.last, c.timers]; })()`)) as [number, number];
      const sinceMutation = Number(clock[0]);
      const timers = Number(clock[1]);
      const sinceNetwork = performance.now() - state.lastNetwork;
      if (state.inFlight === 0 && timers === 0 && sinceNetwork >= quiet && sinceMutation >= quiet) return true;
      const wait = state.inFlight > 0 || timers > 0 ? quiet / 4 : quiet - Math.min(sinceNetwork, sinceMutation);
      await sleep(Math.max(10, Math.min(wait, deadline - performance.now())));
    }
  }

  /** Answers one request of a rendered page (see the top of this file). */
  private async answer(page: Page, route: Route, request: RenderRequest, state: PageState): Promise<void> {
    const asked = route.request();
    const url = asked.url();
    try {
      if (asked.isNavigationRequest()) {
        if (asked.frame() === page.mainFrame()) {
          if (!state.documentServed) {
            state.documentServed = true;
            await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: request.html });
            return;
          }
          state.navigatedTo ??= url;
        }
        // 204: the navigation does not happen; the document stays.
        await route.fulfill({ status: 204 });
        return;
      }
      if (asked.method() !== 'GET' || !this.resources.has(asked.resourceType()) || !/^https?:/.test(url)) {
        this.counters.blocked++;
        await route.abort('blockedbyclient');
        return;
      }
      const key = withoutFragment(url);
      // In flight until answered, from the cache too: the page is not quiet while its script waits for it.
      state.inFlight++;
      state.lastNetwork = performance.now();
      try {
        let answer = this.cache.get(key);
        if (answer !== undefined) this.counters.cacheHits++;
        else {
          this.counters.subresources++;
          answer = await this.options.gate.fetch(new URL(key), asked.headers().accept ?? '*/*');
          if (cacheable(answer)) this.cache.put(key, answer);
        }
        if (answer.status === null || answer.body === null) {
          this.counters.refused++;
          await route.abort(answer.error?.startsWith('excluded') === true ? 'blockedbyclient' : 'failed');
          return;
        }
        await route.fulfill({ status: answer.status, headers: Object.fromEntries(answer.headers.map((h) => [h.name, h.value])), body: answer.body });
      } finally {
        state.inFlight--;
        state.lastNetwork = performance.now();
      }
    } catch {
      // The tab closed while the answer was on its way: nothing to answer.
    }
  }
}

/** The switch on each browser's command line (launch()). */
const browserMarkers = new WeakMap<Browser, string>();

/** Closes a browser, killing it if it does not close within 10 s. */
function closeBrowser(browser: Browser): Promise<void> {
  return withDeadline(browser.close(), 10_000, 'browser did not close').catch(() => killBrowser(browser));
}

/** Ends a browser that does not answer: its process group killed (its tabs' processes with it). */
function killBrowser(browser: Browser): void {
  const marker = browserMarkers.get(browser);
  if (marker !== undefined) killMarked(marker);
  void browser.close().catch(() => undefined);
}

/** Kills the browser whose command line holds `marker`, and its process group (Playwright starts it as a group's leader). */
function killMarked(marker: string): void {
  for (const pid of browserProcesses()) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    if (!cmdline.split('\0').includes(marker)) continue;
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Gone already, or not a group.
      }
    }
  }
}

/** The browser processes this process started (Linux: /proc; elsewhere none are found). */
export function browserProcesses(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && /chrom/i.test(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) pids.push(Number(entry));
    } catch {
      // Ended while listed.
    }
  }
  return pids;
}
