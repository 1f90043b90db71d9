import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SitemapExtractor, extractSitemap, parseLastmod } from '../../src/crawl/sitemap.js';
import { refreshUrl, relBits, extractLinks } from '../../src/crawl/extract.js';
import { parseContentEncoding } from '../../src/crawl/decode.js';
import { Random } from '../../src/util/random.js';

describe('sitemaps', () => {
  it('reads a urlset with lastmod, an index, and a plain-text list', () => {
    const urlset = extractSitemap(`<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://example.com/a?x=1&amp;y=2 </loc><lastmod>2026-10-01</lastmod><priority>0.5</priority></url>
  <url><loc>https://example.com/b</loc><lastmod>not a date</lastmod></url>
  <url><lastmod>2026-01-01</lastmod></url>
</urlset>`);
    assert.equal(urlset.kind, 'urlset');
    assert.deepEqual(urlset.entries, [
      { loc: 'https://example.com/a?x=1&y=2', lastmod: Date.UTC(2026, 9, 1) },
      { loc: 'https://example.com/b', lastmod: null },
    ]);
    const index = extractSitemap('<sitemapindex><sitemap><loc>https://example.com/s1.xml.gz</loc><lastmod>2026-10-02T08:30:00+02:00</lastmod></sitemap></sitemapindex>');
    assert.deepEqual(index, { kind: 'index', entries: [{ loc: 'https://example.com/s1.xml.gz', lastmod: Date.parse('2026-10-02T06:30:00Z') }], droppedEntries: 0 });
    const text = extractSitemap('\ufeffhttps://example.com/1\r\n\r\n  https://example.com/2  \nhttps://example.com/3');
    assert.deepEqual([text.kind, text.entries.map((e) => e.loc)], ['text', ['https://example.com/1', 'https://example.com/2', 'https://example.com/3']]);
    // Namespace prefixes, and XML that is no sitemap.
    assert.equal(extractSitemap('<s:urlset xmlns:s="x"><s:url><s:loc>https://e.com/p</s:loc></s:url></s:urlset>').entries[0]!.loc, 'https://e.com/p');
    assert.deepEqual(extractSitemap('<html><body><loc>https://e.com/</loc></body></html>'), { kind: 'empty', entries: [], droppedEntries: 0 });
    assert.deepEqual(extractSitemap('   '), { kind: 'empty', entries: [], droppedEntries: 0 });
  });

  it('caps the entries of one sitemap and counts the rest, and gives the same result however the text is split', () => {
    const xml = `<urlset>${Array.from({ length: 120 }, (_, i) => `<url><loc>https://e.com/${i}</loc><lastmod>2026-0${(i % 9) + 1}</lastmod></url>`).join('')}</urlset>`;
    const capped = extractSitemap(xml, 100);
    assert.equal(capped.entries.length, 100);
    assert.equal(capped.droppedEntries, 20);
    assert.equal(capped.entries[3]!.lastmod, Date.UTC(2026, 3, 1));
    const random = new Random(3);
    for (let round = 0; round < 30; round++) {
      const extractor = new SitemapExtractor(100);
      for (let at = 0; at < xml.length; ) {
        const n = 1 + random.nextInt(40);
        extractor.write(xml.slice(at, at + n));
        at += n;
      }
      assert.deepEqual(extractor.end(), capped);
    }
  });

  it('reads W3C datetimes as lastmod and nothing else', () => {
    assert.equal(parseLastmod('2026'), Date.UTC(2026, 0, 1));
    assert.equal(parseLastmod('2026-02'), Date.UTC(2026, 1, 1));
    assert.equal(parseLastmod(' 2026-02-03T04:05:06.5Z '), Date.UTC(2026, 1, 3, 4, 5, 6, 500));
    for (const bad of ['', 'yesterday', '2026-13-01', '1e12', '2026-02-03T04']) assert.equal(parseLastmod(bad), null, bad);
  });
});

describe('links of kinds other than <a>', () => {
  it('reads the URL of a meta refresh in any case and spacing, quoted or not', () => {
    const cases: Array<[string, string | null]> = [
      ['0; url=/a', '/a'],
      ['0;URL=/a', '/a'],
      [" 5 ;  URL='/b c' ", '/b c'],
      ['3,url="/q?x=1"', '/q?x=1'],
      ['0.5; Url = /d', '/d'],
      ['0; /e', '/e'],
      ['5', null],
      ['', null],
      ["0; url=''", null],
    ];
    for (const [content, url] of cases) assert.equal(refreshUrl(content), url, content);
    const page = extractLinks('<meta http-equiv="REFRESH" content="0; url=/next"><meta http-equiv="content-type" content="0; url=/not">');
    assert.deepEqual(page.links.map((l) => [l.kind, l.href]), [['refresh', '/next']]);
  });

  it('reads frames, iframes, alternates with hreflang, and rel tokens', () => {
    const page = extractLinks(
      '<frame src="/f"><iframe src="/i"></iframe><iframe src=""></iframe><link rel="alternate" hreflang="de-AT" href="/de">' +
        '<link rel="alternate" type="application/rss+xml" href="/feed"><a href="/x" rel="nofollow ugc">1</a><a href="/x" rel="nofollow">2</a>' +
        '<a href="/y" rel="sponsored">3</a><a href="/y">4</a><area href="/x">',
    );
    assert.deepEqual(
      page.links.map((l) => [l.kind, l.href, l.rel, l.hreflang]),
      [
        ['frame', '/f', 0, null],
        ['iframe', '/i', 0, null],
        ['alternate', '/de', 0, 'de-AT'],
        ['anchor', '/x', 3, null],
        ['anchor', '/x', 1, null],
        ['anchor', '/y', 4, null],
        ['anchor', '/y', 0, null],
        ['area', '/x', 0, null],
      ],
    );
    assert.equal(relBits('NOFOLLOW Ugc  SPONSORED noopener'), 7);
    // The cap counts distinct links: 20,000 copies of one href do not crowd out the links after them.
    const repeated = extractLinks(`${'<a href="/same" rel="nofollow">'.repeat(20_000)}<a href="/same">x</a><a href="/other">y</a>`);
    assert.deepEqual(repeated.links.map((l) => [l.href, l.rel]), [['/same', 0], ['/other', 0]]);
    assert.equal(repeated.droppedLinks, 0);
    assert.equal(relBits(undefined), 0);
  });
});

describe('Content-Encoding', () => {
  it('names the codings in the order applied, drops identity, refuses what it cannot decode', () => {
    assert.deepEqual(parseContentEncoding('gzip'), { ok: true, codings: ['gzip'] });
    assert.deepEqual(parseContentEncoding('X-GZIP, br'), { ok: true, codings: ['gzip', 'br'] });
    assert.deepEqual(parseContentEncoding(['deflate', 'identity']), { ok: true, codings: ['deflate'] });
    assert.deepEqual(parseContentEncoding(undefined), { ok: true, codings: [] });
    assert.deepEqual(parseContentEncoding('zstd'), { ok: false, problem: "unsupported Content-Encoding 'zstd'" });
    assert.deepEqual(parseContentEncoding('gzip, gzip, gzip, gzip'), { ok: false, problem: 'Content-Encoding with 4 codings' });
  });
});
