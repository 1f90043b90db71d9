/**
 * Which fetched pages are rendered in a browser (--render, render.ts).
 * never: none. always: every HTML page. auto: rendering costs what it finds.
 * - A page without a <script> is never rendered (nothing could change it).
 * - An application shell is always rendered: read as served it leads nowhere. A page is taken for
 *   one when it has scripts and fewer than FEW_LINKS links to click, on a host whose pages are
 *   mostly such (an application), or whose first pages are being read (its start page may be the
 *   shell). On a host mostly of pages with links (a manual whose small pages have a script-built
 *   menu), a page with few links follows the host's verdict like the others.
 * - Every other page with scripts follows its host's verdict, all pages of a host alike (a graph
 *   where some pages carry a script-written menu and others do not distorts every ranking).
 *   A host is judged on a sample: once it has SAMPLE_AFTER pages read, SAMPLE of its pages with
 *   scripts are rendered beside the crawl (they are recorded as served at once; what rendering
 *   found is only looked at). The host is rendered throughout only when rendering found URLs the
 *   crawl did not know otherwise (routes only a script writes): links among pages the crawl finds
 *   anyway (menus, breadcrumbs, version switchers) change nothing. A host read as served is judged
 *   again each time its pages read double (from RESAMPLE_FROM), on one page.
 * - A time budget: rendering chosen by auto (samples and whole hosts, not shells) may take at most
 *   `budget` times the crawl's time. A sample waits until the time elapsed affords it (a crawl of a
 *   few seconds starts no browser for one); rendering a whole host must fit the crawl's time as
 *   projected to its end (elapsed x known / finished); a host whose rendering would not fit is read as
 *   served (verdict 'over-budget'), and one whose rendering outgrows it midway stops being rendered
 *   ('budget-ran-out', said in the report since its graph then mixes both).
 * The policy is pure bookkeeping: the crawl's page pipeline (page-pipeline.ts) asks it, renders,
 * and tells it what rendering found and took.
 */
import type { ExtractedPage } from './extract.js';

export type RenderMode = 'never' | 'auto' | 'always';
export const RENDER_MODES: readonly RenderMode[] = ['never', 'auto', 'always'];

/** Pages with scripts and fewer links than this to click are taken for application shells. */
export const FEW_LINKS = 3;
/** Pages with scripts rendered to judge a host. */
export const SAMPLE = 3;
/** Pages of a host read before it is judged (so that "known otherwise" means something). */
export const SAMPLE_AFTER = 10;
/** A host read as served is judged again when its pages read reach this, then each time they double. */
export const RESAMPLE_FROM = 200;
/** What a render is taken to cost before one has been measured, ms of a tab. */
const FIRST_RENDER_MS = 1000;
/** What starting the browser is taken to cost, ms. */
const LAUNCH_MS = 1000;
/** Candidate URLs kept per host to show in the report. */
const EXAMPLES = 3;
/** Distinct new URLs kept per host to count them. */
const NEW_URLS_KEPT = 10_000;

/**
 * Per host: 'undecided' (not judged yet), 'sampling', 'plain' (rendering found nothing the crawl
 * does not find), 'render', 'over-budget' (rendering would find pages, but does not fit the
 * budget), 'budget-ran-out' (was rendered until the budget ran out).
 */
export type HostVerdict = 'undecided' | 'sampling' | 'plain' | 'render' | 'over-budget' | 'budget-ran-out';

/** What the pipeline does with a fetched HTML page: read it as served, render it (as its host's page, or as a shell), or read it as served and render it as a sample. */
export type RenderChoice = 'plain' | 'render' | 'shell' | 'sample';

/** Where the crawl stands, for the budget. */
export interface CrawlProgress {
  elapsedMs: number;
  /** Pages known (fetched or waiting) and pages finished. */
  known: number;
  finished: number;
}

/** Per host, what auto decided and why (the crawl's report). */
export interface HostRenderReport {
  host: string;
  verdict: HostVerdict;
  /** One line: why, and how to get the other choice. */
  reason: string;
  /** Pages rendered as a sample, as the host's pages, and as application shells. */
  sampled: number;
  rendered: number;
  shells: number;
  /** URLs only rendering found that the crawl did not know, in the samples, and a few of them. */
  newUrls: number;
  examples: string[];
}

interface HostState {
  name: string;
  verdict: HostVerdict;
  /** Pages of the host read (finished), those with scripts, and those of them with almost no links (shell-like). */
  finished: number;
  scripted: number;
  fewLinks: number;
  /** Samples of the round under way: started, and their results in. */
  sampleStarted: number;
  sampleDone: number;
  /** New URLs the round's samples found. */
  roundNew: number;
  sampled: number;
  rendered: number;
  shells: number;
  /** The distinct new URLs the samples found (at most NEW_URLS_KEPT kept), and a few for the report. */
  newUrls: Set<string>;
  examples: string[];
  /** finished at which a 'plain' host is judged again. */
  resampleAt: number;
  /** Pages the round samples (SAMPLE, or 1 when judged again). */
  roundSize: number;
}

export class RenderPolicy {
  private readonly hosts = new Map<number, HostState>();
  /** Tab-milliseconds of the renders auto chose (samples and hosts), and of shells. */
  private budgetedMs = 0;
  private shellMs = 0;
  private budgetedCount = 0;
  private shellCount = 0;

  /**
   * `budget`: the most rendering's time may be, as a multiple of the crawl's (projected) time.
   * `tabs`: pages rendered at once. `browserRunning`: whether starting it is still to pay.
   */
  constructor(
    readonly mode: RenderMode,
    private readonly budget: number,
    private readonly tabs: number,
    private readonly progress: () => CrawlProgress,
    private readonly browserRunning: () => boolean = () => false,
  ) {}

  /** Whether a page is an application shell (scripts, almost nothing to click). */
  static isShell(page: ExtractedPage): boolean {
    if (page.scripts === 0) return false;
    let clickable = 0;
    for (const link of page.links) if ((link.kind === 'anchor' || link.kind === 'area') && ++clickable >= FEW_LINKS) return false;
    return true;
  }

  /** What to do with a page of host `host` (the crawl's host id, named `name`) whose HTML gave `page`. */
  choose(host: number, name: string, page: ExtractedPage): RenderChoice {
    if (this.mode !== 'auto') return this.mode === 'always' ? 'render' : 'plain';
    if (page.scripts === 0) return 'plain';
    const state = this.stateOf(host, name);
    if (RenderPolicy.isShell(page) && (state.finished < SAMPLE_AFTER || 2 * state.fewLinks >= state.scripted)) {
      state.shells++;
      return 'shell';
    }
    if (state.verdict === 'render') {
      if (this.fits(0)) return 'render';
      state.verdict = 'budget-ran-out';
      return 'plain';
    }
    const due =
      (state.verdict === 'undecided' && state.finished >= SAMPLE_AFTER) ||
      (state.verdict === 'sampling' && state.sampleStarted < state.roundSize) ||
      (state.verdict === 'plain' && state.finished >= state.resampleAt);
    if (!due) return 'plain';
    if (state.verdict !== 'sampling') {
      const size = state.verdict === 'undecided' ? SAMPLE : 1;
      // A sample is paid for by the time the crawl has taken so far, not by a projection of it: a crawl
      // of a few seconds starts no browser for it.
      if (!this.fits(this.launchCost() + (size * this.meanRenderMs()) / this.tabs, false)) return 'plain';
      state.verdict = 'sampling';
      state.roundSize = size;
      state.sampleStarted = 0;
      state.sampleDone = 0;
      state.roundNew = 0;
    }
    state.sampleStarted++;
    return 'sample';
  }

  /** A page of `host` was read (whatever was done with it); `page`: what its HTML gave, null when it was no HTML page. */
  finished(host: number, name: string, page: ExtractedPage | null): void {
    const state = this.stateOf(host, name);
    state.finished++;
    if (page === null || page.scripts === 0) return;
    state.scripted++;
    if (RenderPolicy.isShell(page)) state.fewLinks++;
  }

  /** A render the policy chose took `ms` of a tab; `shell` when the page was an application shell. */
  spent(ms: number, shell: boolean): void {
    if (shell) {
      this.shellMs += ms;
      this.shellCount++;
    } else {
      this.budgetedMs += ms;
      this.budgetedCount++;
    }
  }

  /** A page of a host being rendered throughout was rendered. */
  renderedPage(host: number): void {
    const state = this.hosts.get(host);
    if (state !== undefined) state.rendered++;
  }

  /**
   * A sample's result: `newUrls` the URLs only its rendering found that the crawl did not know.
   * Returns true when the host is now to be rendered throughout (its pages read as served so far
   * are then read again, rendered: the pipeline's affair).
   */
  sampled(host: number, newUrls: readonly string[], waiting: number): boolean {
    const state = this.hosts.get(host);
    if (state === undefined || state.verdict !== 'sampling') return false;
    state.sampleDone++;
    state.sampled++;
    state.roundNew += newUrls.length;
    for (const url of newUrls) {
      if (state.newUrls.size < NEW_URLS_KEPT) state.newUrls.add(url);
      if (state.examples.length < EXAMPLES && !state.examples.includes(url)) state.examples.push(url);
    }
    if (state.sampleDone < state.roundSize) return false;
    if (state.roundNew === 0) {
      state.verdict = 'plain';
      state.resampleAt = Math.max(RESAMPLE_FROM, 2 * state.finished);
      return false;
    }
    // Rendering finds pages: the host is rendered throughout if that fits the budget (the pages
    // with scripts read so far, read again, and those waiting, in the share of them with scripts).
    const share = state.finished === 0 ? 1 : state.scripted / state.finished;
    const pages = state.scripted + share * waiting;
    if (this.fits((pages * this.meanRenderMs()) / this.tabs)) {
      state.verdict = 'render';
      return true;
    }
    state.verdict = 'over-budget';
    return false;
  }

  /**
   * Whether a sample under way could still lead to rendering a host: rendering its pages with
   * scripts read so far must fit the budget. When none could (a large host on a short crawl), the
   * crawl does not wait for the samples to end (page-pipeline.ts).
   */
  samplesMatter(): boolean {
    for (const state of this.hosts.values()) {
      if (state.verdict === 'sampling' && this.fits((state.scripted * this.meanRenderMs()) / this.tabs)) return true;
    }
    return false;
  }

  /** The verdict on a host (undefined: none of its pages had scripts). */
  verdictOf(host: number): HostVerdict | undefined {
    return this.hosts.get(host)?.verdict;
  }

  /** Per host that had pages with scripts: the verdict, why, and how to get the other choice. */
  report(): HostRenderReport[] {
    const out: HostRenderReport[] = [];
    for (const state of this.hosts.values()) {
      if (state.scripted === 0 && state.shells === 0 && state.sampled === 0) continue;
      out.push({
        host: state.name,
        verdict: state.verdict,
        reason: this.reasonOf(state),
        sampled: state.sampled,
        rendered: state.rendered,
        shells: state.shells,
        newUrls: state.newUrls.size,
        examples: [...state.examples],
      });
    }
    return out;
  }

  /** The budget's figures: tab-seconds spent on chosen renders and on shells, the limit's multiple. */
  budgetFigures(): { budget: number; budgetedMs: number; shellMs: number; budgetedCount: number; shellCount: number; tabs: number } {
    return { budget: this.budget, budgetedMs: this.budgetedMs, shellMs: this.shellMs, budgetedCount: this.budgetedCount, shellCount: this.shellCount, tabs: this.tabs };
  }

  private reasonOf(state: HostState): string {
    const budget = `--render-budget ${this.budget}`;
    const shells = state.shells > 0 ? `; ${state.shells} application shell${state.shells === 1 ? '' : 's'} rendered` : '';
    switch (state.verdict) {
      case 'undecided':
        return state.finished < SAMPLE_AFTER
          ? `not judged: fewer than ${SAMPLE_AFTER} pages read${shells}; --render always renders every page`
          : `not judged: the crawl's time did not afford a sample within ${budget}${shells}; --render always renders every page`;
      case 'sampling':
        return `not judged: the crawl ended while its sample was rendered, and rendering its pages would not have fit ${budget}${shells}; --render always renders every page`;
      case 'plain':
        return `read as served: rendering ${state.sampled} page${state.sampled === 1 ? '' : 's'} found no URL the crawl did not find anyway${shells}; --render always renders every page`;
      case 'render':
        return `rendered: rendering found ${state.newUrls.size} URL${state.newUrls.size === 1 ? '' : 's'} the crawl did not know (e.g. ${state.examples[0] ?? '?'}); --render never reads every page as served`;
      case 'over-budget':
        return `read as served: rendering found ${state.newUrls.size} URL${state.newUrls.size === 1 ? '' : 's'} the crawl did not know (e.g. ${state.examples[0] ?? '?'}), but rendering its pages would not fit ${budget}${shells}; --render always (or a larger ${'--render-budget'}) renders them`;
      case 'budget-ran-out':
        return `partly rendered (${state.rendered} pages): ${budget} ran out, the rest read as served; --render always renders every page`;
    }
  }

  private stateOf(host: number, name: string): HostState {
    let state = this.hosts.get(host);
    if (state === undefined) {
      state = { name, verdict: 'undecided', finished: 0, scripted: 0, fewLinks: 0, sampleStarted: 0, sampleDone: 0, roundNew: 0, sampled: 0, rendered: 0, shells: 0, newUrls: new Set(), examples: [], resampleAt: RESAMPLE_FROM, roundSize: SAMPLE };
      this.hosts.set(host, state);
    }
    return state;
  }

  private meanRenderMs(): number {
    const count = this.budgetedCount + this.shellCount;
    return count === 0 ? FIRST_RENDER_MS : (this.budgetedMs + this.shellMs) / count;
  }

  private launchCost(): number {
    return this.browserRunning() ? 0 : LAUNCH_MS;
  }

  /**
   * Whether rendering `moreMs` more (wall time) keeps auto's renders within the budget of the
   * crawl's time: the time so far, or (`projected`) that time scaled to the crawl's end as the
   * pages known and finished project it (the whole host's rendering is spread over what is left).
   */
  private fits(moreMs: number, projected = true): boolean {
    const { elapsedMs, known, finished } = this.progress();
    const time = projected ? elapsedMs * Math.max(1, finished === 0 ? 1 : known / finished) : elapsedMs;
    return this.budgetedMs / this.tabs + moreMs <= this.budget * time;
  }
}
