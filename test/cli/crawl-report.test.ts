/**
 * The crawl report's lines on rendering (cli/commands/crawl.ts, renderRows), on reports built by
 * hand: a browser that started and rendered nothing by the end is said so, not "0 pages, 0.000 s each".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawlJson } from '../../src/app/crawl.js';
import { renderRows } from '../../src/cli/commands/crawl.js';
import type { RenderCounters } from '../../src/crawl/render.js';

function report(renderer: RenderCounters | null, render: 'auto' | 'always' | 'never' = 'auto'): CrawlJson {
  return { renderer, renderUnavailable: false, renderHosts: [], renderedLinks: 7, settings: { render } } as unknown as CrawlJson;
}

const counters = (rendered: number, failed: number, renderMs: number): RenderCounters => ({
  rendered,
  unsettled: 1,
  failed,
  launches: 1,
  idleCloses: 0,
  subresources: 3,
  cacheHits: 2,
  blocked: 1,
  refused: 0,
  renderMs,
});

describe('the crawl report on rendering', () => {
  it('says a browser that finished no page rendered none', () => {
    assert.deepEqual(renderRows(report(counters(0, 0, 0))), [['rendered in Chromium', 'none: the browser started, and no page had finished rendering when the crawl ended']]);
  });

  it('gives the pages rendered and the mean time of those that finished', () => {
    const rows = renderRows(report(counters(3, 1, 2000)));
    assert.deepEqual(rows[0], ['rendered in Chromium', '3 pages (1 not settled in time, 1 failed; 0.500 s each)']);
    assert.deepEqual(rows[1], ['links only rendering found', '7']);
  });

  it('says nothing with --render never, and "none" when the browser never started', () => {
    assert.deepEqual(renderRows(report(null, 'never')), []);
    assert.deepEqual(renderRows(report(null, 'always')), [['rendered (--render always)', 'none']]);
  });
});
