import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SKIPPED_EXTENSIONS, HOST_SCOPES, Scope, type ScopeOptions, compilePattern, extensionOf } from '../../src/crawl/scope.js';
import { resolveUrl } from '../../src/crawl/url.js';
import { ExitCode, OptionError } from '../../src/errors.js';

/** Why `href` is out of the scope (null: in), at `depth` clicks from a seed; the URL is resolved as the crawler does. */
function exclusion(scope: Scope, href: string, depth = 0): string | null {
  const resolved = resolveUrl(href);
  assert.ok(resolved.ok, `${href} should resolve`);
  return scope.exclusion(resolved.url, resolved.key, depth);
}

function inScope(scope: Scope, href: string, depth = 0): boolean {
  return exclusion(scope, href, depth) === null;
}

function scope(options: ScopeOptions): Scope {
  return new Scope(options);
}

describe('extensionOf', () => {
  it("takes the last segment's extension in lower case, without the dot", () => {
    const cases: Array<[string, string]> = [
      ['/a/b.html', 'html'],
      ['/A/B.PDF', 'pdf'],
      ['/x.tar.gz', 'gz'],
      ['/index.php', 'php'],
      ['/', ''],
      ['', ''],
      ['/dir/', ''],
      ['/file', ''],
      ['/a.b/c', ''], // a dot in a directory name is not the file's extension
      ['/a.b/', ''],
      ['/.htaccess', ''], // a leading dot names a hidden file, it is not an extension
      ['/dir/.profile', ''],
      ['/trailing.', ''],
      ['/two..dots', 'dots'],
      ['no-slash.txt', 'txt'],
      ['/%E2%82%AC.Jpeg', 'jpeg'],
    ];
    for (const [path, extension] of cases) assert.equal(extensionOf(path), extension, path);
  });
});

describe('compilePattern', () => {
  it('compiles regular expressions', () => {
    const re = compilePattern('^https?://example\\.com/', '--filter');
    assert.ok(re instanceof RegExp);
    assert.equal(re.test('http://example.com/a'), true);
    assert.equal(re.test('http://example.org/a'), false);
  });

  it('names the option when a pattern does not compile', () => {
    for (const [text, option] of [
      ['(', '--filter'],
      ['[a-', '--fence'],
      ['*x', '--focus'],
      ['a{2,1}', '--filter'],
    ] as const) {
      assert.throws(
        () => compilePattern(text, option),
        (error: unknown) =>
          error instanceof OptionError &&
          error.option === option &&
          error.exitCode === ExitCode.usage &&
          error.message.startsWith(`${option}: '${text}' is not a regular expression`),
        text,
      );
    }
  });
});

describe('Scope', () => {
  it('lets everything through by default but the skipped extensions', () => {
    const open = new Scope();
    assert.equal(open.maxDepth, Infinity);
    for (const url of ['http://a.example/', 'https://b.example/x/y?z=1', 'http://c.example/page.html', 'http://c.example/run.php?x=1', 'http://c.example/dir.d/']) {
      assert.equal(exclusion(open, url, 1_000_000), null, url);
    }
    for (const extension of DEFAULT_SKIPPED_EXTENSIONS) {
      assert.equal(exclusion(open, `http://a.example/file.${extension}`), `extension .${extension} is not fetched`);
      assert.equal(exclusion(open, `http://a.example/FILE.${extension.toUpperCase()}?download=1`), `extension .${extension} is not fetched`);
    }
    // The query string is not part of the path: a .php page asking for an image is a page.
    assert.equal(exclusion(open, 'http://a.example/show.php?file=x.jpg'), null);
    // Nor the fragment.
    assert.equal(exclusion(open, 'http://a.example/page#photo.png'), null);
  });

  it('skips images, styles, scripts, archives, media, documents and fonts by default', () => {
    for (const extension of ['png', 'jpg', 'gif', 'css', 'js', 'zip', 'gz', 'mp4', 'mp3', 'pdf', 'docx', 'woff2', 'exe', 'svg', 'webp', 'ico']) {
      assert.ok(DEFAULT_SKIPPED_EXTENSIONS.includes(extension), extension);
    }
    for (const extension of ['html', 'htm', 'php', 'asp', 'aspx', 'jsp', 'shtml', 'xhtml', 'cgi', '']) {
      assert.ok(!DEFAULT_SKIPPED_EXTENSIONS.includes(extension), extension);
    }
    assert.equal(new Set(DEFAULT_SKIPPED_EXTENSIONS).size, DEFAULT_SKIPPED_EXTENSIONS.length, 'no repeats');
    for (const extension of DEFAULT_SKIPPED_EXTENSIONS) assert.match(extension, /^[a-z0-9]+$/);
  });

  it('takes an allow-list of extensions instead of the default list when given one', () => {
    const pages = scope({ extensions: ['.HTML', 'php', 'pdf'] });
    assert.equal(exclusion(pages, 'http://a.example/x.html'), null);
    assert.equal(exclusion(pages, 'http://a.example/x.HTML'), null);
    assert.equal(exclusion(pages, 'http://a.example/x.php'), null);
    assert.equal(exclusion(pages, 'http://a.example/report.pdf'), null, 'listed: allowed although skipped by default');
    assert.equal(exclusion(pages, 'http://a.example/x.htm'), 'extension .htm is not fetched');
    assert.equal(exclusion(pages, 'http://a.example/x.jpg'), 'extension .jpg is not fetched');
    // URLs without an extension are always in: most pages have none.
    assert.equal(exclusion(pages, 'http://a.example/dir/'), null);
    assert.equal(exclusion(pages, 'http://a.example/about'), null);
    const none = scope({ extensions: [] });
    assert.equal(exclusion(none, 'http://a.example/a'), null);
    assert.equal(exclusion(none, 'http://a.example/a.html'), 'extension .html is not fetched');
    // null means the default list.
    assert.equal(exclusion(scope({ extensions: null }), 'http://a.example/a.png'), 'extension .png is not fetched');
  });

  it('requires a match of at least one filter, matched against the normalised key', () => {
    const filtered = scope({ filters: [/^https?:\/\/www\.example\.com\/docs\//, /\/blog\/\d+$/] });
    assert.equal(exclusion(filtered, 'http://www.example.com/docs/a'), null);
    assert.equal(exclusion(filtered, 'HTTP://WWW.EXAMPLE.COM:80/docs/b#top'), null, 'the key folds case, default port and fragment');
    assert.equal(exclusion(filtered, 'https://other.example/blog/42'), null);
    assert.equal(exclusion(filtered, 'http://www.example.com/doc/'), 'matches no --filter');
    assert.equal(exclusion(filtered, 'https://other.example/blog/42/'), 'matches no --filter');
    assert.equal(exclusion(filtered, 'http://www.example.com/x/../docs/c'), null, 'dot segments are resolved first');
  });

  it('refuses any URL matching a fence, even when a filter matches', () => {
    const fenced = scope({ filters: [/example\.com/], fences: [/\/private\//, /[?&]session=/i] });
    assert.equal(exclusion(fenced, 'http://example.com/public/a'), null);
    assert.equal(exclusion(fenced, 'http://example.com/private/a'), 'matches --fence \\/private\\/');
    assert.equal(exclusion(fenced, 'http://example.com/a?x=1&SESSION=2'), 'matches --fence [?&]session=');
    assert.equal(exclusion(fenced, 'http://example.org/a'), 'matches no --filter');
    // Fences alone.
    const onlyFences = scope({ fences: [/logout/] });
    assert.equal(exclusion(onlyFences, 'http://any.example/a'), null);
    assert.ok(exclusion(onlyFences, 'http://any.example/logout')?.startsWith('matches --fence'));
  });

  it('gives the same answer every time with global and sticky expressions', () => {
    // RegExp.test with /g or /y moves lastIndex: a naive second call would fail.
    const sticky = scope({ filters: [/example/g], fences: [/secret/gy, /hidden/g] });
    for (let k = 0; k < 4; k++) {
      assert.equal(exclusion(sticky, 'http://example.com/a'), null, `call ${k}`);
      assert.ok(exclusion(sticky, 'http://example.com/hidden')?.includes('--fence'), `call ${k}`);
    }
  });

  it("keeps to the seeds' hosts, their domains, or any host", () => {
    assert.deepEqual([...HOST_SCOPES], ['seeds', 'domain', 'any']);
    const seedHosts = ['www.example.com', 'Blog.Example.ORG'];
    const seeds = scope({ hosts: 'seeds', seedHosts });
    const domain = scope({ hosts: 'domain', seedHosts });
    const any = scope({ hosts: 'any', seedHosts });
    const cases: Array<[string, boolean, boolean]> = [
      // url, in 'seeds', in 'domain'
      ['http://www.example.com/a', true, true],
      ['https://www.example.com:8443/a', true, true], // another port of the same host
      ['http://WWW.EXAMPLE.COM/a', true, true],
      ['http://example.com/a', false, true], // a seed's "www." is dropped for its domain
      ['http://shop.example.com/a', false, true],
      ['http://a.b.example.com/a', false, true],
      ['http://blog.example.org/a', true, true],
      ['http://x.blog.example.org/a', false, true],
      ['http://example.org/a', false, false], // blog.example.org's domain is itself
      ['http://notexample.com/a', false, false], // a suffix, not a subdomain
      ['http://example.com.evil.net/a', false, false],
      ['http://www.example.co/a', false, false],
    ];
    for (const [url, inSeeds, inDomain] of cases) {
      assert.equal(inScope(seeds, url), inSeeds, `seeds: ${url}`);
      assert.equal(inScope(domain, url), inDomain, `domain: ${url}`);
      assert.equal(inScope(any, url), true, `any: ${url}`);
    }
    assert.equal(exclusion(seeds, 'http://example.net/'), "host example.net is not a seed's host");
    assert.equal(exclusion(domain, 'http://example.net/'), "host example.net is outside the seeds' domains");
    // No seeds: nothing is in 'seeds' or 'domain' scope.
    assert.equal(inScope(scope({ hosts: 'seeds' }), 'http://a.example/'), false);
    assert.equal(inScope(scope({ hosts: 'domain' }), 'http://a.example/'), false);
  });

  it('compares hosts in their ASCII (punycode) form, as URL gives them', () => {
    const idn = scope({ hosts: 'domain', seedHosts: [new URL('http://bücher.example/').hostname] });
    assert.equal(inScope(idn, 'http://bücher.example/a'), true);
    assert.equal(inScope(idn, 'http://www.xn--bcher-kva.example/a'), true);
    assert.equal(inScope(idn, 'http://bucher.example/a'), false);
  });

  it('refuses pages deeper than maxDepth, and rejects a negative or NaN maxDepth naming --max-depth', () => {
    const shallow = scope({ maxDepth: 2 });
    assert.equal(shallow.maxDepth, 2);
    assert.equal(exclusion(shallow, 'http://a.example/', 0), null);
    assert.equal(exclusion(shallow, 'http://a.example/', 2), null);
    assert.equal(exclusion(shallow, 'http://a.example/', 3), 'deeper than --max-depth 2');
    const seedsOnly = scope({ maxDepth: 0 });
    assert.equal(exclusion(seedsOnly, 'http://a.example/', 0), null);
    assert.equal(exclusion(seedsOnly, 'http://a.example/', 1), 'deeper than --max-depth 0');
    for (const bad of [-1, -0.5, Number.NaN, -Infinity]) {
      assert.throws(
        () => new Scope({ maxDepth: bad }),
        (error: unknown) => error instanceof OptionError && error.option === '--max-depth' && error.exitCode === ExitCode.usage,
        String(bad),
      );
    }
  });

  it('reports the first reason in a fixed order: depth, host, extension, filter, fence', () => {
    const strict = scope({ maxDepth: 1, hosts: 'seeds', seedHosts: ['a.example'], filters: [/never-matches/], fences: [/a/] });
    assert.equal(exclusion(strict, 'http://b.example/x.png', 5), 'deeper than --max-depth 1');
    assert.equal(exclusion(strict, 'http://b.example/x.png', 1), "host b.example is not a seed's host");
    assert.equal(exclusion(strict, 'http://a.example/x.png', 1), 'extension .png is not fetched');
    assert.equal(exclusion(strict, 'http://a.example/x.html', 1), 'matches no --filter');
    const fenced = scope({ filters: [/a\.example/], fences: [/a\.example/] });
    assert.equal(exclusion(fenced, 'http://a.example/x.html'), 'matches --fence a\\.example');
  });
});
