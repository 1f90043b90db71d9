/** The pages table's sorting and filtering (app/pages-table.ts), on rows made by hand. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type PageTableRow, type PagesTable, queryPagesTable } from '../../src/app/pages-table.js';
import { OptionError } from '../../src/errors.js';

function row(url: string, status: number | null, words: number | null, title: string | null): PageTableRow {
  return {
    url, status, indexable: 'yes', title, titleLength: title?.length ?? null, description: null, h1: null, h1Count: null, words, depth: 1, inLinks: 0, outLinks: 0,
    pagerank: null, opic: null, responseMs: null, size: null, canonical: null, rendered: null,
  };
}

const table = (): PagesTable => ({
  rows: [row('d', 200, 30, 'Beta'), row('a', 404, null, null), row('c', 200, 10, 'alpha'), row('b', 500, 20, 'Beta'), row('e', null, 10, 'gamma')],
  runs: { pagerank: null, opic: null },
});
const urls = (t: PagesTable, sort: string, descending: boolean, filters: Record<string, string> = {}, offset = 0, limit = 100): string[] =>
  queryPagesTable(t, { sort: sort as never, descending, filters, offset, limit }).rows.map((r) => r.url as string);

describe('the pages table', () => {
  it('sorts numbers and text either way, empty cells last, ties in reading order', () => {
    const t = table();
    assert.deepEqual(urls(t, 'words', false), ['c', 'e', 'b', 'd', 'a']);
    assert.deepEqual(urls(t, 'words', true), ['d', 'b', 'c', 'e', 'a']);
    assert.deepEqual(urls(t, 'title', false), ['d', 'b', 'c', 'e', 'a']);
    assert.deepEqual(urls(t, 'status', true), ['b', 'a', 'd', 'c', 'e']);
    // Asked again (the order is kept), and paged.
    assert.deepEqual(urls(t, 'words', true, {}, 1, 2), ['b', 'c']);
  });

  it('filters text by substring and numbers by value, test, range and class; - keeps empty cells', () => {
    const t = table();
    assert.deepEqual(urls(t, 'url', false, { title: 'BETA' }), ['b', 'd']);
    assert.deepEqual(urls(t, 'url', false, { status: '5xx' }), ['b']);
    assert.deepEqual(urls(t, 'url', false, { status: '200' }), ['c', 'd']);
    assert.deepEqual(urls(t, 'url', false, { words: '>=20' }), ['b', 'd']);
    assert.deepEqual(urls(t, 'url', false, { words: '10..20' }), ['b', 'c', 'e']);
    assert.deepEqual(urls(t, 'url', false, { words: '-' }), ['a']);
    assert.deepEqual(urls(t, 'url', false, { title: '-' }), ['a']);
    assert.deepEqual(urls(t, 'url', false, { status: '2xx', words: '<20' }), ['c']);
    const result = queryPagesTable(t, { sort: 'url', descending: false, filters: { words: '>5' }, offset: 1, limit: 2 });
    assert.equal(result.total, 4);
    assert.deepEqual(result.rows.map((r) => r.url), ['c', 'd']);
    assert.throws(() => urls(t, 'url', false, { words: 'many' }), (error: unknown) => error instanceof OptionError && /filter\.words/.test(error.message));
  });
});
