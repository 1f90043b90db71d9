import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_URL_LENGTH, hostOf, resolveUrl, urlKey } from '../../src/crawl/url.js';

function key(href: string, base?: string): string {
  const resolved = resolveUrl(href, base);
  assert.ok(resolved.ok, `${href} should resolve`);
  return resolved.key;
}

describe('URL keys', () => {
  it('fold case of scheme and host, default ports, fragments, empty paths and dot segments', () => {
    const same = [
      'http://Example.COM/a/b',
      'HTTP://example.com:80/a/b',
      'http://example.com/a/./c/../b#top',
      'http://example.com/a/%62',
    ];
    for (const url of same) assert.equal(key(url), 'http://example.com/a/b', url);
    assert.equal(key('https://example.com'), 'https://example.com/');
    assert.equal(key('https://example.com:443/?'), 'https://example.com/');
    assert.notEqual(key('https://example.com:8443/'), key('https://example.com/'));
  });

  it('decode unreserved percent-encodings and upper-case the others, keep the query order', () => {
    assert.equal(key('http://x.org/%7euser/%2fa%2Fb?q=%61%2b'), 'http://x.org/~user/%2Fa%2Fb?q=a%2B');
    assert.notEqual(key('http://x.org/?a=1&b=2'), key('http://x.org/?b=2&a=1'));
  });

  it('resolve relative links against the page (or its base href)', () => {
    assert.equal(key('../c.html', 'http://x.org/a/b/index.html'), 'http://x.org/a/c.html');
    assert.equal(key('?page=2', 'http://x.org/list.html?page=1'), 'http://x.org/list.html?page=2');
    assert.equal(key('//cdn.x.org/i.png', 'https://x.org/'), 'https://cdn.x.org/i.png');
    assert.equal(key('#section', 'http://x.org/a'), 'http://x.org/a');
  });

  it('fold an empty fragment and a lone question mark, which the URL object keeps in its href', () => {
    for (const href of ['http://x.org/a#', 'http://x.org/a?', 'http://x.org/a?#', 'http://x.org/a?#top', 'http://x.org/a#?q']) {
      assert.equal(key(href), 'http://x.org/a', href);
    }
    assert.equal(key('http://x.org/a?q=1#'), 'http://x.org/a?q=1');
    assert.equal(key('http://x.org/a?q#b'), 'http://x.org/a?q');
    // A URL with nothing to fold is its own key (the same string the URL object gives).
    const plain = new URL('http://x.org/a/b?c=d&e=f');
    assert.equal(urlKey(plain), plain.href);
  });

  it('turn international domain names into their ASCII form', () => {
    assert.equal(key('http://bücher.example/'), 'http://xn--bcher-kva.example/');
    assert.equal(hostOf('http://bücher.example/x'), 'xn--bcher-kva.example');
  });

  it('refuse other schemes, malformed and overlong URLs', () => {
    for (const [href, problem] of [
      ['javascript:alert(1)', 'scheme'],
      ['mailto:a@b.c', 'scheme'],
      ['ftp://x.org/', 'scheme'],
      ['http://[::1', 'invalid'],
      ['http://', 'invalid'],
      [`http://x.org/${'a'.repeat(MAX_URL_LENGTH)}`, 'too-long'],
    ] as const) {
      const resolved = resolveUrl(href, 'http://x.org/');
      assert.equal(resolved.ok, false, href);
      if (!resolved.ok) assert.equal(resolved.problem, problem, href);
    }
    assert.equal(urlKey(new URL('http://x.org/a b')), 'http://x.org/a%20b');
  });
});
