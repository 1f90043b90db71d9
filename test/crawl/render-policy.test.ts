/** Which pages --render auto renders (src/crawl/render-policy.ts), decided from their HTML and their host's history. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractLinks } from '../../src/crawl/extract.js';
import { FEW_LINKS, RenderPolicy, SAMPLE } from '../../src/crawl/render-policy.js';

const links = (n: number): string => Array.from({ length: n }, (_, i) => `<a href="/l${i}">${i}</a>`).join('');
const shell = extractLinks('<div id="app"></div><script src="/app.js"></script>');
const staticPage = extractLinks(`<p>text</p>${links(20)}`);
const scriptedArticle = extractLinks(`<script src="/analytics.js"></script>${links(20)}`);

describe('render policy', () => {
  it('never and always do what they say', () => {
    for (const page of [shell, staticPage, scriptedArticle]) {
      assert.equal(new RenderPolicy('never').wants(0, page), false);
      assert.equal(new RenderPolicy('always').wants(0, page), true);
    }
  });

  it('auto: never a page without scripts, always an application shell', () => {
    const policy = new RenderPolicy('auto');
    for (let i = 0; i < 10; i++) {
      policy.learn(0, 5);
      assert.equal(policy.wants(0, staticPage), false, 'no script: nothing to render');
    }
    const fresh = new RenderPolicy('auto');
    for (let i = 0; i < 10; i++) fresh.learn(1, 0);
    assert.equal(fresh.wants(1, shell), true, 'a shell is rendered even where rendering found nothing so far');
    assert.equal(fresh.wants(1, extractLinks(`<script></script>${links(FEW_LINKS - 1)}`)), true);
    assert.equal(fresh.wants(1, extractLinks(`<script></script>${links(FEW_LINKS)}`)), false);
  });

  it('auto: a host sampled, then judged by what rendering found there', () => {
    const policy = new RenderPolicy('auto');
    for (let i = 0; i < SAMPLE; i++) {
      assert.equal(policy.wants(7, scriptedArticle), true, `sample ${i + 1}`);
      policy.learn(7, 0);
    }
    assert.equal(policy.wants(7, scriptedArticle), false, 'nothing gained in the sample: not rendered');
    assert.equal(policy.wants(8, scriptedArticle), true, 'another host has its own sample');
    policy.learn(8, 2);
    for (let i = 0; i < 10; i++) policy.learn(8, 0);
    assert.equal(policy.wants(8, scriptedArticle), true, 'a host where rendering found links keeps being rendered');
  });
});
