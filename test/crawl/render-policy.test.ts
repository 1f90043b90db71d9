/**
 * Which pages --render auto renders (src/crawl/render-policy.ts): never a page without scripts,
 * always an application shell, the rest by their host's verdict, judged on a sample (rendered only
 * when rendering finds URLs the crawl does not know) and within the time budget.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractLinks } from '../../src/crawl/extract.js';
import { type CrawlProgress, FEW_LINKS, RESAMPLE_FROM, RenderPolicy, SAMPLE, SAMPLE_AFTER } from '../../src/crawl/render-policy.js';

const links = (n: number): string => Array.from({ length: n }, (_, i) => `<a href="/l${i}">${i}</a>`).join('');
const shell = extractLinks('<div id="app"></div><script src="/app.js"></script>');
const staticPage = extractLinks(`<p>text</p>${links(20)}`);
const scriptedArticle = extractLinks(`<script src="/menu.js"></script>${links(20)}`);

/** A policy on a crawl whose progress the test sets. */
function policyAt(progress: CrawlProgress, budget = 0.25, mode: 'auto' | 'never' | 'always' = 'auto'): { policy: RenderPolicy; progress: CrawlProgress } {
  const state = { ...progress };
  return { policy: new RenderPolicy(mode, budget, 2, () => state, () => true), progress: state };
}

/** A long crawl far from its end: the budget affords anything small. */
const roomy = (): CrawlProgress => ({ elapsedMs: 600_000, known: 10_000, finished: 1_000 });

/** Reads `n` pages with scripts of host `host` as served. */
function readPages(policy: RenderPolicy, host: number, n: number, page = scriptedArticle): void {
  for (let i = 0; i < n; i++) policy.finished(host, `http://h${host}`, page);
}

describe('render policy', () => {
  it('never and always do what they say', () => {
    for (const page of [shell, staticPage, scriptedArticle]) {
      assert.equal(policyAt(roomy(), 0.25, 'never').policy.choose(0, 'http://a', page), 'plain');
      assert.equal(policyAt(roomy(), 0.25, 'always').policy.choose(0, 'http://a', page), 'render');
    }
  });

  it('auto: never a page without scripts, always an application shell, whatever the budget', () => {
    const { policy } = policyAt({ elapsedMs: 1, known: 1, finished: 0 }, 0.01);
    readPages(policy, 0, 100, staticPage);
    assert.equal(policy.choose(0, 'http://h0', staticPage), 'plain', 'no script: nothing to render');
    assert.equal(policy.choose(0, 'http://h0', shell), 'shell');
    assert.equal(policy.choose(0, 'http://h0', extractLinks(`<script></script>${links(FEW_LINKS - 1)}`)), 'shell');
    assert.equal(policy.choose(0, 'http://h0', extractLinks(`<script></script>${links(FEW_LINKS)}`)), 'plain', 'no budget for a sample this early');
  });

  it('auto: a page with few links is a shell on an application, not on a site of linked pages with scripts', () => {
    const { policy } = policyAt({ elapsedMs: 1, known: 1, finished: 0 }, 0.01);
    assert.equal(policy.choose(4, 'http://h4', shell), 'shell', 'the first pages of a host: its start may be the shell');
    readPages(policy, 4, SAMPLE_AFTER, shell);
    assert.equal(policy.choose(4, 'http://h4', shell), 'shell', 'an application: its pages are shells');
    readPages(policy, 5, SAMPLE_AFTER * 3, scriptedArticle);
    readPages(policy, 5, SAMPLE_AFTER, shell);
    assert.equal(policy.choose(5, 'http://h5', shell), 'plain', "a manual's small page follows its host's verdict");
  });

  it('auto: a host is sampled once it has pages read, and read as served when rendering finds nothing new', () => {
    const { policy } = policyAt(roomy());
    readPages(policy, 7, SAMPLE_AFTER - 1);
    assert.equal(policy.choose(7, 'http://h7', scriptedArticle), 'plain', 'too few pages read to judge');
    readPages(policy, 7, 1);
    for (let i = 0; i < SAMPLE; i++) assert.equal(policy.choose(7, 'http://h7', scriptedArticle), 'sample', `sample ${i + 1}`);
    assert.equal(policy.choose(7, 'http://h7', scriptedArticle), 'plain', 'no more samples than SAMPLE at once');
    for (let i = 0; i < SAMPLE; i++) assert.equal(policy.sampled(7, [], 100), false);
    assert.equal(policy.verdictOf(7), 'plain');
    assert.equal(policy.choose(7, 'http://h7', scriptedArticle), 'plain');
    // Judged again, on one page, when the pages read reach RESAMPLE_FROM.
    readPages(policy, 7, RESAMPLE_FROM - SAMPLE_AFTER);
    assert.equal(policy.choose(7, 'http://h7', scriptedArticle), 'sample');
    assert.equal(policy.sampled(7, ['http://h7/hidden'], 10), true, 'a new URL found on the second look: rendered now');
    assert.equal(policy.verdictOf(7), 'render');
    const report = policy.report().find((h) => h.host === 'http://h7')!;
    assert.equal(report.sampled, SAMPLE + 1);
    assert.deepEqual(report.examples, ['http://h7/hidden']);
    assert.match(report.reason, /rendering found 1 URL the crawl did not know \(e\.g\. http:\/\/h7\/hidden\); --render never/);
  });

  it('auto: a host where rendering finds URLs is rendered throughout when that fits the budget, else read as served and said so', () => {
    const { policy } = policyAt(roomy());
    readPages(policy, 1, SAMPLE_AFTER);
    readPages(policy, 2, SAMPLE_AFTER);
    for (const host of [1, 2]) for (let i = 0; i < SAMPLE; i++) assert.equal(policy.choose(host, `http://h${host}`, scriptedArticle), 'sample');
    for (let i = 0; i < 2 * SAMPLE; i++) policy.spent(1000, false);
    // Host 1: rendering its ~110 pages (2 tabs, 1 s each: 55 s) fits a quarter of the 6,000 s projected.
    policy.sampled(1, ['http://h1/a'], 100);
    policy.sampled(1, ['http://h1/b'], 100);
    assert.equal(policy.sampled(1, [], 100), true);
    assert.equal(policy.choose(1, 'http://h1', scriptedArticle), 'render');
    assert.equal(policy.choose(1, 'http://h1', staticPage), 'plain', 'a page without scripts stays as served');
    // Host 2: ten million pages waiting do not fit.
    policy.sampled(2, ['http://h2/a'], 10_000_000);
    policy.sampled(2, [], 10_000_000);
    assert.equal(policy.sampled(2, [], 10_000_000), false);
    assert.equal(policy.verdictOf(2), 'over-budget');
    assert.equal(policy.choose(2, 'http://h2', scriptedArticle), 'plain');
    assert.match(policy.report().find((h) => h.host === 'http://h2')!.reason, /would not fit --render-budget 0\.25.*--render always/);
  });

  it('auto: the budget holds back samples on a short crawl, and stops a host rendered throughout when it runs out', () => {
    const { policy, progress } = policyAt({ elapsedMs: 2000, known: 500, finished: 400 });
    readPages(policy, 3, 50);
    // A sample (launch paid, 3 pages over 2 tabs at 1 s) needs about 1.5 s: not within a quarter of 2.5 s.
    assert.equal(policy.choose(3, 'http://h3', scriptedArticle), 'plain');
    assert.match(policy.report()[0]!.reason, /did not afford a sample within --render-budget 0\.25/);
    progress.elapsedMs = 400_000;
    for (let i = 0; i < SAMPLE; i++) assert.equal(policy.choose(3, 'http://h3', scriptedArticle), 'sample');
    policy.sampled(3, ['http://h3/x'], 10);
    policy.sampled(3, [], 10);
    // 60 pages at 1 s over 2 tabs (30 s) fit a quarter of the 500 s projected.
    assert.equal(policy.sampled(3, [], 10), true);
    // Renders that take far longer than thought: once over the budget (125 s of the browser), the host is read as served.
    policy.spent(100_000, false);
    assert.equal(policy.choose(3, 'http://h3', scriptedArticle), 'render');
    policy.spent(200_000, false);
    assert.equal(policy.choose(3, 'http://h3', scriptedArticle), 'plain');
    assert.equal(policy.verdictOf(3), 'budget-ran-out');
    // Shells are not the budget's to refuse, on an application.
    readPages(policy, 6, SAMPLE_AFTER, shell);
    assert.equal(policy.choose(6, 'http://h6', shell), 'shell');
  });
});
