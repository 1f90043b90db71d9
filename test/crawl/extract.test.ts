import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeHTML } from 'entities';
import { Parser } from 'htmlparser2';
import { DEFAULT_MAX_LINKS_PER_PAGE, type ExtractedPage, LinkExtractor, MAX_TITLE_LENGTH, extractLinks, relBits } from '../../src/crawl/extract.js';
import { MAX_URL_LENGTH, resolveUrl } from '../../src/crawl/url.js';
import { Random } from '../../src/util/random.js';

/** Streams `html` to an extractor in the given chunk lengths (the rest in one last chunk). */
function extractChunked(html: string, lengths: readonly number[]): ExtractedPage {
  const extractor = new LinkExtractor();
  let at = 0;
  for (const length of lengths) {
    if (at >= html.length) break;
    extractor.write(html.slice(at, at + length));
    at += length;
  }
  if (at < html.length) extractor.write(html.slice(at));
  return extractor.end();
}

function hrefs(page: ExtractedPage): string[] {
  return page.links.map((link) => link.href);
}

/** A page using everything the extractor reads, with entities, odd spacing and case. */
const SAMPLE = `<!DOCTYPE html>
<HTML lang="fr">
<head>
  <meta charset="utf-8">
  <title>
     Caf&eacute; &amp; cr&egrave;me   &mdash; accueil
  </title>
  <base target="_blank">
  <BASE HREF="https://cdn.example/base/">
  <base href="https://ignored.example/">
  <link rel="stylesheet" href="/style.css">
  <link REL="Alternate CANONICAL" href="https://example.com/canonical">
  <link rel="canonical" href="https://ignored.example/second-canonical">
  <script>document.write('<a href="/in-script">x</a>');</script>
  <style>a[href="/in-style"] { color: red }</style>
</head>
<body>
  <!-- <a href="/in-comment">commented out</a> -->
  <p>Some <b>bold</b> text &lt;a href="/escaped"&gt; and a stray < sign, 3 < 4 > 2.</p>
  <a href="relative/page.html">one</a>
  <A HREF='/absolute?x=1&amp;y=2'>two</A>
  <a href=unquoted.html>three</a>
  <a rel="NoFollow external" href="http://other.example/">four</a>
  <a name="anchor-without-href">no href</a>
  <a href="">empty</a>
  <a href="  spaced.html  ">spaced</a>
  <map><area shape="rect" href="/area-link" rel="nofollow"><area shape="rect"></map>
  <textarea><a href="/in-textarea"></a></textarea>
  <a href="#fragment">fragment</a>
  <a href="&#x2F;entity&#47;path">entities in href</a>
  <svg><a href="/in-svg">svg link</a></svg>
</body>
</HTML>`;

describe('LinkExtractor', () => {
  it('reads hyperlinks of <a> and <area>, rel=nofollow, the first <base href>, rel=canonical and the title', () => {
    const page = extractLinks(SAMPLE);
    assert.equal(page.title, 'Café & crème — accueil');
    assert.equal(page.base, 'https://cdn.example/base/');
    assert.equal(page.canonical, 'https://example.com/canonical');
    assert.equal(page.nofollowAll, false);
    assert.equal(page.droppedLinks, 0);
    const a = (href: string, rel = 0, kind: 'anchor' | 'area' = 'anchor') => ({ href, kind, rel, nofollow: rel === 1, hreflang: null });
    assert.deepEqual(page.links, [
      a('relative/page.html'),
      a('/absolute?x=1&y=2'),
      a('unquoted.html'),
      a('http://other.example/', 1),
      a(''),
      a('  spaced.html  '),
      a('/area-link', 1, 'area'),
      a('#fragment'),
      a('/entity/path'),
      a('/in-svg'),
    ]);
    for (const hidden of ['/in-script', '/in-style', '/in-comment', '/escaped', '/in-textarea']) {
      assert.ok(!hrefs(page).includes(hidden), `${hidden} is not a link`);
    }
  });

  it('gives empty results for a page without anything to extract', () => {
    for (const html of ['', 'plain text, no markup', '<html><head></head><body></body></html>', '<title>   </title>', '<title></title><a>no href</a>']) {
      const { words, simhash, ...page } = extractLinks(html);
      assert.deepEqual(page, { title: null, base: null, links: [], droppedLinks: 0, canonical: null, nofollowAll: false, scripts: 0, noscript: false, description: null, h1: null, h1Count: 0, noindex: false }, html);
      // The visible text's words: 'plain text, no markup', and the link's 'no href'.
      assert.equal(words, html.startsWith('plain') ? 4 : html.includes('no href') ? 2 : 0, html);
      assert.equal(simhash === null, words === 0, html);
    }
  });

  it('reads what a site audit needs: the meta description, the h1 headings, noindex, the visible words and their fingerprint', () => {
    const html =
      '<html><head><title>T &amp; x</title><meta name=Description content="  A  page\n about things "><meta name=description content="second">' +
      '<meta name="ROBOTS" content="NoIndex, follow"><style>p { color: red }</style><script>var hidden = "words"</script></head>' +
      '<body><h1>Hello <b>wor</b>ld &amp; more</h1><p>one two&nbsp;three</p><h1>Second</h1><noscript>not counted</noscript><template>nor this</template>end<br>x</body></html>';
    const page = extractLinks(html);
    assert.equal(page.description, 'A page about things');
    assert.equal(page.h1, 'Hello world & more');
    assert.equal(page.h1Count, 2);
    assert.equal(page.noindex, true);
    assert.equal(page.nofollowAll, false);
    // Hello world more | one two three | Second | end | x: inline tags keep a word whole, blocks and <br> part words.
    assert.equal(page.words, 9);
    assert.equal(extractLinks('<meta name=robots content=none>').noindex, true);
    assert.equal(extractLinks('<meta name=robots content=nofollow>').noindex, false);
    // However the text comes in chunks, the same words and fingerprint.
    const extractor = new LinkExtractor();
    for (let at = 0; at < html.length; at += 7) extractor.write(html.slice(at, at + 7));
    const chunked = extractor.end();
    assert.equal(chunked.words, page.words);
    assert.equal(chunked.simhash, page.simhash);
    assert.equal(chunked.h1, page.h1);
  });

  it('counts the scripts and notes a <noscript> (what --render auto looks at), wherever they are', () => {
    const page = extractLinks('<head><script src="/a.js"></script><SCRIPT>var x = "<script>";</SCRIPT></head><body><NoScript>Enable JavaScript</NoScript><script type="module">1</script>');
    assert.equal(page.scripts, 3);
    assert.equal(page.noscript, true);
    const plain = extractLinks('<p>script noscript</p><!-- <script></script> --><a href="/x">x</a>');
    assert.deepEqual([plain.scripts, plain.noscript], [0, false]);
  });

  it('marks every link nofollow when <meta name=robots> says nofollow or none, wherever it is', () => {
    const later = '<a href="/a">a</a><a href="/b" rel="nofollow">b</a><meta name="ROBOTS" content="NoIndex, NoFollow">';
    const page = extractLinks(later);
    assert.equal(page.nofollowAll, true);
    assert.deepEqual(
      page.links.map((l) => [l.href, l.nofollow, l.rel]),
      [
        ['/a', true, 1],
        ['/b', true, 1],
      ],
    );
    for (const content of ['nofollow', 'none', 'noindex,nofollow', 'index, nofollow', ' NOFOLLOW ', 'noarchive none']) {
      assert.equal(extractLinks(`<meta name="robots" content="${content}"><a href="/x">x</a>`).nofollowAll, true, content);
    }
    for (const content of ['index, follow', 'noindex', 'nofollowers', 'nonessential', '']) {
      const other = extractLinks(`<meta name="robots" content="${content}"><a href="/x">x</a>`);
      assert.equal(other.nofollowAll, false, content);
      assert.equal(other.links[0]!.nofollow, false, content);
    }
    // Other meta tags and other names do not count.
    assert.equal(extractLinks('<meta name="description" content="nofollow"><meta content="nofollow">').nofollowAll, false);
    assert.equal(extractLinks('<meta name="googlebot" content="nofollow">').nofollowAll, false);
  });

  it('reads rel as a list of tokens', () => {
    const page = extractLinks(
      '<a href="/1" rel="nofollow">1</a><a href="/2" rel="noopener  NOFOLLOW\tugc">2</a><a href="/3" rel="nofollowed">3</a><a href="/4" rel="">4</a>',
    );
    assert.deepEqual(
      page.links.map((l) => l.nofollow),
      [true, true, false, false],
    );
    assert.equal(extractLinks('<link rel="canonicalish" href="/no"><link rel="canonical">').canonical, null);
    assert.equal(extractLinks('<link rel="canonical" href="">').canonical, '');
  });

  it('caps the title at MAX_TITLE_LENGTH characters and takes the first title only', () => {
    const long = 'word '.repeat(1000);
    const page = extractLinks(`<title>${long}</title><title>second</title>`);
    assert.equal(page.title, long.slice(0, MAX_TITLE_LENGTH));
    assert.equal(page.title!.length, MAX_TITLE_LENGTH);
    assert.equal(extractLinks('<title>first</title><title>second</title>').title, 'first');
    assert.equal(extractLinks('<svg><title>icon</title></svg><title>page</title>').title, 'icon');
    // An unclosed title runs to the end of the document (as browsers read it).
    assert.equal(extractLinks('<title>never closed <a href="/x">x</a>').title, 'never closed <a href="/x">x</a>');
    // Markup inside a title is text.
    assert.equal(extractLinks('<title>a <b>b</b> &amp; c</title>').title, 'a <b>b</b> & c');
  });

  it('survives malformed markup: unclosed tags, garbage, stray < and broken attributes', () => {
    const cases: Array<[string, string[]]> = [
      ['<a href="/one">one<a href="/two">two', ['/one', '/two']],
      ['<div><p><a href="/x">x</div></span></a></a></p>', ['/x']],
      ['< a href="/not-a-tag"> <a href="/real">', ['/real']],
      ['a < b && c <<< d <a href="/after-stray">', ['/after-stray']],
      ['<a href="/unterminated', []],
      ['<a href=\'/mixed"quote\'>m</a>', ['/mixed"quote']],
      ['<a href="/dup" href="/second">dup</a>', ['/dup']],
      ['<<a href="/double-open">', ['/double-open']],
      ['</a href="/closing-tag"><a/href="/slash">', ['/slash']],
      ['<!-- unterminated comment <a href="/hidden">', []],
      ['<![CDATA[<a href="/cdata">]]><a href="/after">', ['/after']],
      ['\u0000\u0001<a href="/ctl">\ufffd</a>\ud800', ['/ctl']],
      ['<a href="/ok">ok</a><script>unterminated script <a href="/s">', ['/ok']],
    ];
    for (const [html, expected] of cases) assert.deepEqual(hrefs(extractLinks(html)), expected, html);
    // Random bytes never throw.
    const random = new Random(7);
    const alphabet = '<>/="\' a=href!-&;#x\n\tbase title meta link area';
    for (let round = 0; round < 200; round++) {
      let text = '';
      for (let k = 0; k < 300; k++) text += alphabet[random.nextInt(alphabet.length)];
      const page = extractLinks(text);
      assert.ok(Array.isArray(page.links));
      assert.ok(page.links.length <= DEFAULT_MAX_LINKS_PER_PAGE);
    }
  });

  it('reads 100,000 nested elements without overflowing the stack', { timeout: 60_000 }, () => {
    const depth = 100_000;
    const html = `<title>deep</title>${'<div>'.repeat(depth)}<a href="/deep">deep</a>${'<span><b>'.repeat(depth / 2)}<a href="/deeper">x</a>${'</div>'.repeat(depth)}<a href="/after">after</a>`;
    const page = extractLinks(html);
    assert.equal(page.title, 'deep');
    assert.deepEqual(hrefs(page), ['/deep', '/deeper', '/after']);
  });

  it('keeps the first --max-links-per-page targets and counts the links to others', () => {
    assert.equal(DEFAULT_MAX_LINKS_PER_PAGE, 100_000);
    const cap = 12_000;
    const extra = 2345;
    const html = Array.from({ length: cap + extra }, (_, i) => `<a href="/p${i}">${i}</a>`).join('\n');
    const page = extractLinks(`<meta name=robots content=nofollow>${html}<a>no href: not counted</a>`, cap);
    assert.equal(page.links.length, cap);
    assert.equal(page.droppedLinks, extra);
    assert.equal(page.links[0]!.href, '/p0');
    assert.equal(page.links[cap - 1]!.href, `/p${cap - 1}`);
    assert.ok(page.links.every((l) => l.nofollow));
    // <base>, canonical and title after the cap are still read.
    const after = extractLinks(`${html}<base href="/b/"><link rel=canonical href="/c"><title>t</title>`, cap);
    assert.equal(after.base, '/b/');
    assert.equal(after.canonical, '/c');
    assert.equal(after.title, 't');
    assert.equal(extractLinks(Array.from({ length: cap }, () => '<a href=x>').join(''), cap).droppedLinks, 0);
    // The default keeps them all.
    assert.equal(extractLinks(html).links.length, cap + extra);
    // A small cap counts too.
    const small = extractLinks('<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a><a href=/a#x>a again</a>', 2);
    assert.deepEqual([small.links.map((l) => l.href), small.droppedLinks], [['/a', '/b'], 1]);
  });

  it("an index page's links to one target through many fragments count as one target (Python's genindex-all.html)", () => {
    // 17,000 anchors to 400 pages, each through many fragments: every page kept, however the cap is set above 400.
    const anchors = Array.from({ length: 17_000 }, (_, i) => `<a href="library/m${i % 400}.html#entry-${i}">e${i}</a>`).join('');
    const page = extractLinks(anchors, 10_000);
    assert.equal(page.droppedLinks, 0);
    assert.equal(new Set(page.links.map((l) => l.href.split('#')[0])).size, 400);
    const capped = extractLinks(anchors, 300);
    assert.equal(new Set(capped.links.map((l) => l.href.split('#')[0])).size, 300);
    // The links to the 100 targets past the cap: 42 full rounds of 400 anchors hold 100 each.
    assert.equal(capped.droppedLinks, 42 * 100);
  });

  it('gives the same result however the input is split into chunks', () => {
    const whole = extractLinks(SAMPLE);
    // Every split point into two chunks: inside tags, attribute values, entities, comments and the title.
    for (let cut = 0; cut <= SAMPLE.length; cut++) {
      assert.deepEqual(extractChunked(SAMPLE, [cut]), whole, `split at ${cut}: ${JSON.stringify(SAMPLE.slice(Math.max(0, cut - 10), cut + 10))}`);
    }
    // One character at a time, and random chunk lengths.
    assert.deepEqual(extractChunked(SAMPLE, Array.from({ length: SAMPLE.length }, () => 1)), whole);
    const random = new Random(11);
    for (let round = 0; round < 50; round++) {
      const lengths = Array.from({ length: 200 }, () => 1 + random.nextInt(12));
      assert.deepEqual(extractChunked(SAMPLE, lengths), whole, `round ${round}`);
    }
    // Empty writes change nothing.
    assert.deepEqual(extractChunked(SAMPLE, [0, 5, 0, 0, 17, 0]), whole);
  });

  it('gives the same title for long titles however they are split', () => {
    // Whitespace runs fold to one space: how much raw text is kept must not depend on the chunks.
    const titles = [
      `${'a'.repeat(300)}${' '.repeat(3000)}${'b'.repeat(3000)}`,
      `${' \n\t'.repeat(2000)}middle${'c '.repeat(400)}`,
      `x${'  y'.repeat(1500)}`,
    ];
    for (const title of titles) {
      const html = `<title>${title}</title><a href="/x">x</a>`;
      const whole = extractLinks(html);
      assert.equal(whole.title, title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_LENGTH));
      for (const size of [1, 7, 100, 999, 1000, 1001, 2048]) {
        const chunks = Array.from({ length: Math.ceil(html.length / size) }, () => size);
        assert.deepEqual(extractChunked(html, chunks), whole, `chunks of ${size}`);
      }
    }
  });

  it('keeps the same title however it is split when its entities make it long to write', () => {
    const cases: Array<[string, string]> = [
      // 5,600 characters as written, 700 once decoded: cut at MAX_TITLE_LENGTH.
      ['&eacute;'.repeat(700), '\u00e9'.repeat(MAX_TITLE_LENGTH)],
      // 33 characters written for each one decoded: what is read before decoding (5,000 characters) is the bound.
      ['&CounterClockwiseContourIntegral;'.repeat(200), `${'\u2233'.repeat(151)}&CounterClockwise`],
    ];
    for (const [written, expected] of cases) {
      const html = `<title>${written}</title><a href=x>`;
      for (const size of [1, 3, 33, 1000, html.length]) {
        const page = extractChunked(html, Array.from({ length: Math.ceil(html.length / size) }, () => size));
        assert.equal(page.title, expected, `chunks of ${size}`);
        assert.equal(page.links.length, 1);
      }
    }
  });
});

/**
 * What htmlparser2's own Parser (a tree of open elements kept) reads from the same markup: the
 * reader the extractor replaced, written by others. Links with the entities its tokenizer decodes;
 * the title read raw and decoded by `entities` afterwards, because its tokenizer leaves an entity
 * right after a '<' in a title undecoded (`<&amp;`), where browsers (and the extractor) decode it.
 */
function readWithParser(html: string): { links: string[]; title: string | null } {
  const links: string[] = [];
  new Parser(
    {
      onopentag: (name, attributes) => {
        if ((name === 'a' || name === 'area') && attributes.href !== undefined) links.push(`${name === 'a' ? 'anchor' : 'area'} ${attributes.href} ${relBits(attributes.rel)}`);
        else if ((name === 'frame' || name === 'iframe') && attributes.src !== undefined && attributes.src.trim() !== '') links.push(`${name} ${attributes.src} 0`);
      },
    },
    { decodeEntities: true },
  ).end(html);
  let inTitle = false;
  let titleSeen = false;
  let titleText: string | null = null;
  new Parser(
    {
      onopentag: (name) => {
        if (name === 'title' && !titleSeen) {
          inTitle = titleSeen = true;
          titleText = '';
        }
      },
      ontext: (text) => {
        if (inTitle) titleText += text;
      },
      onclosetag: (name) => {
        if (name === 'title') inTitle = false;
      },
    },
    { decodeEntities: false },
  ).end(html);
  const title = titleText === null ? null : decodeHTML(titleText).replace(/\s+/g, ' ').trim();
  return { links, title: title === '' ? null : title };
}

describe('LinkExtractor against htmlparser2\'s Parser', () => {
  it('reads the same links and title from random markup, entities and case included, however it is chunked', () => {
    const pieces = [
      '<a href="x&amp;y">', '<A HREF=z&lt;q REL="NoFollow ugc">', `<a href='p&#x41;' href=dup>`, '<area href=&quot;>', '<title>', '</title>',
      '</TITLE >', 'T&eacute;x&ampt  ', '&#10;', '<iframe src=" i ">', '<frame src=f/>', '<script>', '</script>', '<a href=s>', '<style>',
      '</style>', '<!-- c -->', '<![CDATA[x]]>', '<!doctype html>', '<?pi?>', 'text ', '<', '>', '&', '"', "'", '=', ' ', '\n', '<a', ' href',
      '"u"', '/>', '<textarea>', '</textarea>', '<svg><a href=v/></svg>', '<a href>', '<averylongtagname href=x>', '&amp', '<a href="&notin;&noti;&copy=1">',
      '<IFRAME SRC=&#0;>', '<a hReF="&#x1F600;&#xD800;">',
    ];
    const random = new Random(29);
    for (let round = 0; round < 3000; round++) {
      let html = '';
      for (let i = 1 + random.nextInt(30); i > 0; i--) html += pieces[random.nextInt(pieces.length)];
      const expected = readWithParser(html);
      const size = 1 + random.nextInt(12);
      const page = extractChunked(html, Array.from({ length: Math.ceil(html.length / size) }, () => size));
      assert.deepEqual(page.links.map((link) => `${link.kind} ${link.href} ${link.rel}`), expected.links, JSON.stringify(html));
      assert.equal(page.title, expected.title, JSON.stringify(html));
    }
  });

  it('decodes an attribute\'s entities as attributes are decoded (a legacy entity before = or a letter or digit is kept as written)', () => {
    const page = extractLinks('<a href="/q?a=1&amp;b=2&copy=3&copy;4&lt5&lt">x</a><title>&lt;T&gt;&nbsp;&amp</title>');
    assert.equal(page.links[0]!.href, '/q?a=1&b=2&copy=3\u00a94&lt5<');
    assert.equal(page.title, '<T> &');
    assert.equal(extractLinks('<title>a <&amp; b</title>').title, 'a <& b');
  });
});

describe('Extracted links resolved with resolveUrl', () => {
  /** Resolves every link of a page as the crawler does: against the page's <base href>, itself resolved against the page. */
  function resolvePage(html: string, pageUrl: string) {
    const page = extractLinks(html);
    const baseResolved = page.base === null ? null : resolveUrl(page.base, pageUrl);
    const base = baseResolved !== null && baseResolved.ok ? baseResolved.url : pageUrl;
    return page.links.map((link) => ({ link, resolved: resolveUrl(link.href, base) }));
  }

  it('resolves relative links against the page or its base', () => {
    const html = [
      '<a href="../up.html">',
      '<a href="./same.html">',
      '<a href="?q=2">',
      '<a href="//other.example/path">',
      '<a href="/root">',
      '<a href="#top">',
      '<a href="">',
      '<a href="  child/  ">',
      '<a href="HTTP://UPPER.EXAMPLE:80/A">',
      '<a href="https://example.com:443/x?">',
    ].join('');
    const keys = resolvePage(html, 'https://example.com/dir/sub/page.html?q=1#frag').map(({ resolved }) => (resolved.ok ? resolved.key : resolved.problem));
    assert.deepEqual(keys, [
      'https://example.com/dir/up.html',
      'https://example.com/dir/sub/same.html',
      'https://example.com/dir/sub/page.html?q=2',
      'https://other.example/path',
      'https://example.com/root',
      'https://example.com/dir/sub/page.html?q=1',
      'https://example.com/dir/sub/page.html?q=1',
      'https://example.com/dir/sub/child/',
      'http://upper.example/A',
      'https://example.com/x',
    ]);
    const based = resolvePage('<base href="/other/base/"><a href="x.html"><a href="../y.html"><a href="//cdn.example/z">', 'http://example.com/a/b.html');
    assert.deepEqual(
      based.map(({ resolved }) => (resolved.ok ? resolved.key : resolved.problem)),
      ['http://example.com/other/base/x.html', 'http://example.com/other/y.html', 'http://cdn.example/z'],
    );
  });

  it('turns international domain names into punycode keys', () => {
    const [first, second] = resolvePage('<a href="http://bücher.example/straße?q=ü">a</a><a href="//MÜNCHEN.example/">b</a>', 'https://example.com/');
    assert.ok(first!.resolved.ok && second!.resolved.ok);
    assert.equal(first!.resolved.key, 'http://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC');
    assert.equal(first!.resolved.url.hostname, 'xn--bcher-kva.example');
    assert.equal(second!.resolved.key, 'https://xn--mnchen-3ya.example/');
  });

  it('rejects javascript:, mailto:, data: and other schemes, and invalid or overlong URLs', () => {
    const html = [
      '<a href="javascript:void(0)">',
      '<a href="JavaScript:alert(1)">',
      '<a href=" javascript:alert(1)">',
      '<a href="mailto:someone@example.com">',
      '<a href="data:text/html,<b>x</b>">',
      '<a href="tel:+331234">',
      '<a href="ftp://example.com/file">',
      '<a href="file:///etc/passwd">',
      '<a href="http://[::1">',
      '<a href="http://exa mple.com/">',
      '<a href="http://">',
      '<a href="https://example.com:99999/">',
      `<a href="/${'a'.repeat(MAX_URL_LENGTH)}">`,
    ].join('');
    const problems = resolvePage(html, 'http://example.com/').map(({ link, resolved }) => [link.href.slice(0, 30), resolved.ok ? 'ok' : resolved.problem]);
    assert.deepEqual(
      problems.map(([, problem]) => problem),
      ['scheme', 'scheme', 'scheme', 'scheme', 'scheme', 'scheme', 'scheme', 'scheme', 'invalid', 'invalid', 'invalid', 'invalid', 'too-long'],
      JSON.stringify(problems),
    );
  });

  it('resolves nothing against a base that does not parse (the page is the base then)', () => {
    const resolved = resolvePage('<base href="http://[broken"><a href="x.html">', 'http://example.com/dir/page.html');
    assert.equal(resolved.length, 1);
    assert.ok(resolved[0]!.resolved.ok);
    assert.equal(resolved[0]!.resolved.key, 'http://example.com/dir/x.html');
  });
});
