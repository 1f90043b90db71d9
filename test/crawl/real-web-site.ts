/**
 * A small site with the habits of the real web, served on loopback under two
 * host names (a.test and b.test, reached with --resolve), each page reachable
 * only through the habit it tests, so the URLs a crawl records tell which
 * habits it handles (pages under /via/ are found through nothing else):
 * - compression: pages sent gzip, br, deflate (zlib and raw) when asked, one
 *   sent gzip unasked; an unknown coding (zstd), a broken gzip body and a gzip
 *   bomb (200 MB of zeros, a few hundred KB on the wire);
 * - <meta http-equiv=refresh> (odd case and spacing), a 301 redirect, a
 *   redirect loop;
 * - sitemaps: a.test's robots.txt names a sitemap index of an XML sitemap
 *   (with lastmod), a gzipped one (.xml.gz) and a plain-text one; b.test's
 *   robots.txt names none, and its /sitemap.xml lists a page;
 * - link kinds and rel: nofollow, ugc and sponsored anchors, <area>, <frame>,
 *   <iframe>, <link rel=alternate hreflang>, <link rel=canonical>;
 * - what already worked: a charset other than UTF-8, <base href>, a 429 with
 *   Retry-After, a slow page and a huge one;
 * - every HTML page has an ETag and a Last-Modified (but /no-validators.html),
 *   honoured with a 304; pages can be edited and deleted between crawls.
 * Every request is logged with its host, path and the headers a test checks.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';

export interface LoggedRequest {
  host: string;
  path: string;
  acceptEncoding: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  status: number;
}

export interface RealWebSite {
  port: number;
  /** http://a.test:PORT and http://b.test:PORT. */
  a: string;
  b: string;
  resolve: Record<string, string>;
  log: LoggedRequest[];
  /** Page bodies by "host path" (HTML pages only): edit or delete them between crawls. */
  pages: Map<string, string>;
  /** Every page a full crawl with the defaults must record as fetched with 200 (URLs). */
  reachableOnlyByHabit: string[];
  close(): Promise<void>;
}

const BOMB_BYTES = 200 * 1024 * 1024;
const HUGE_BYTES = 11 * 1024 * 1024;

function html(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
}

/** A page under /via/: a leaf with a link home. */
function leaf(name: string): string {
  return html(name, `<p>Found through ${name}.</p><a href="/">home</a>`);
}

export async function serveRealWebSite(): Promise<RealWebSite> {
  const log: LoggedRequest[] = [];
  const pages = new Map<string, string>();
  let port = 0;
  const origin = (host: string): string => `http://${host}:${port}`;
  let bomb: Buffer | null = null;
  let tooManyServed = false;

  const build = (): void => {
    const a = origin('a.test');
    const b = origin('b.test');
    pages.set(
      'a.test /',
      html(
        'Home',
        [
          '<link rel="canonical" href="/">',
          '<link rel="alternate" hreflang="de" href="/kinds/de.html">',
          '<a href="/enc/gzip.html">gzip</a> <a href="/enc/br.html">br</a> <a href="/enc/deflate.html">deflate</a>',
          '<a href="/enc/deflate-raw.html">raw deflate</a> <a href="/enc/unasked.html">unasked</a>',
          '<a href="/enc/zstd.html">zstd</a> <a href="/enc/broken.html">broken</a> <a href="/enc/bomb.html">bomb</a>',
          '<a href="/refresh.html">refresh</a> <a href="/moved">moved</a> <a href="/loop/a">loop</a>',
          '<a rel="nofollow" href="/kinds/nofollow.html">nofollow</a> <a rel="UGC  sponsored" href="/kinds/ugc.html">ugc</a>',
          '<map name="m"><area shape="rect" coords="0,0,1,1" href="/kinds/area.html"></map>',
          '<iframe src="/kinds/iframe.html"></iframe> <a href="/frames.html">frames</a>',
          '<a href="/latin1.html">latin-1</a> <a href="/based/page.html">base</a> <a href="/busy.html">busy</a>',
          '<a href="/slow.html">slow</a> <a href="/huge.html">huge</a> <a href="/no-validators.html">no validators</a>',
          `<a href="${b}/">the other host</a>`,
        ].join('\n'),
      ),
    );
    for (const coding of ['gzip', 'br', 'deflate', 'deflate-raw', 'unasked', 'zstd', 'broken']) {
      pages.set(`a.test /enc/${coding}.html`, html(coding, `<p>Sent ${coding}.</p><a href="/via/${coding}.html">onwards</a>`));
    }
    pages.set('a.test /refresh.html', html('refresh', '<META HTTP-EQUIV="Refresh" CONTENT=" 0 ;  URL=\'/via/refresh.html\' ">'));
    pages.set('a.test /frames.html', `<html><frameset><frame src="/kinds/frame.html"></frameset></html>`);
    pages.set('a.test /based/page.html', html('base', '<base href="/elsewhere/"><a href="../via/base.html">through the base</a>'));
    pages.set('a.test /busy.html', html('busy', '<a href="/via/retry-after.html">after the wait</a>'));
    pages.set('a.test /slow.html', html('slow', '<a href="/via/slow.html">after a while</a>'));
    pages.set('a.test /no-validators.html', html('no validators', '<a href="/via/no-validators.html">on</a>'));
    for (const name of ['gzip', 'br', 'deflate', 'deflate-raw', 'unasked', 'refresh', 'redirect', 'sitemap-xml', 'sitemap-gz', 'sitemap-txt', 'latin1', 'base', 'retry-after', 'slow', 'no-validators']) {
      pages.set(`a.test /via/${name}.html`, leaf(name));
    }
    for (const name of ['nofollow', 'ugc', 'area', 'frame', 'iframe', 'de']) pages.set(`a.test /kinds/${name}.html`, leaf(name));
    pages.set('b.test /', html('B', '<p>The other host.</p>'));
    pages.set('b.test /via/default-sitemap.html', leaf('default-sitemap'));
    void a;
  };

  const etagOf = (body: string): string => `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
  const LAST_MODIFIED = 'Tue, 01 Sep 2026 10:00:00 GMT';

  const sitemapXml = (entries: Array<[string, string | null]>): string =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries
      .map(([loc, lastmod]) => `  <url><loc>${loc}</loc>${lastmod === null ? '' : `<lastmod>${lastmod}</lastmod>`}</url>`)
      .join('\n')}\n</urlset>\n`;

  const handle = (request: IncomingMessage, host: string, path: string): { status: number; headers: Record<string, string | number>; body: Buffer | string } => {
    const a = origin('a.test');
    const b = origin('b.test');
    const accept = request.headers['accept-encoding'] ?? '';
    if (path === '/robots.txt') {
      if (host === 'a.test') return { status: 200, headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nDisallow: /private/\n\nSitemap: ${a}/sitemap-index.xml\n` };
      return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow:\n' };
    }
    if (host === 'a.test' && path === '/sitemap-index.xml') {
      const index = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${['/sitemaps/pages.xml', '/sitemaps/more.xml.gz', '/sitemaps/list.txt']
        .map((p) => `  <sitemap><loc>${a}${p}</loc></sitemap>`)
        .join('\n')}\n</sitemapindex>\n`;
      return { status: 200, headers: { 'content-type': 'application/xml' }, body: index };
    }
    if (host === 'a.test' && path === '/sitemaps/pages.xml') {
      return { status: 200, headers: { 'content-type': 'application/xml' }, body: sitemapXml([[`${a}/via/sitemap-xml.html`, '2026-10-01'], [`${a}/`, null]]) };
    }
    if (host === 'a.test' && path === '/sitemaps/more.xml.gz') {
      return { status: 200, headers: { 'content-type': 'application/gzip' }, body: gzipSync(sitemapXml([[`${a}/via/sitemap-gz.html`, '2026-10-02T08:30:00+02:00']])) };
    }
    if (host === 'a.test' && path === '/sitemaps/list.txt') {
      return { status: 200, headers: { 'content-type': 'text/plain' }, body: `${a}/via/sitemap-txt.html\r\n\r\n` };
    }
    if (host === 'b.test' && path === '/sitemap.xml') {
      return { status: 200, headers: { 'content-type': 'application/xml' }, body: sitemapXml([[`${b}/via/default-sitemap.html`, null]]) };
    }
    if (host === 'a.test' && path === '/moved') return { status: 301, headers: { location: '/via/redirect.html' }, body: '' };
    if (host === 'a.test' && path === '/loop/a') return { status: 302, headers: { location: '/loop/b' }, body: '' };
    if (host === 'a.test' && path === '/loop/b') return { status: 302, headers: { location: '/loop/a' }, body: '' };
    if (host === 'a.test' && path === '/busy.html' && !tooManyServed) {
      tooManyServed = true;
      return { status: 429, headers: { 'retry-after': '1', 'content-type': 'text/plain' }, body: 'slow down' };
    }
    if (host === 'a.test' && path === '/latin1.html') {
      // "Café" in Latin-1, and a link whose text and href hold é (0xE9).
      const body = Buffer.concat([
        Buffer.from('<!doctype html><html><head><title>Caf', 'latin1'),
        Buffer.from([0xe9]),
        Buffer.from('</title></head><body><a href="/via/latin1.html?q=', 'latin1'),
        Buffer.from([0xe9]),
        Buffer.from('">caf', 'latin1'),
        Buffer.from([0xe9]),
        Buffer.from('</a></body></html>', 'latin1'),
      ]);
      return { status: 200, headers: { 'content-type': 'text/html; charset=iso-8859-1' }, body };
    }
    if (host === 'a.test' && path === '/enc/bomb.html') {
      bomb ??= gzipSync(Buffer.alloc(BOMB_BYTES, 0x20), { level: 9 });
      return { status: 200, headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' }, body: bomb };
    }
    if (host === 'a.test' && path === '/huge.html') {
      return { status: 200, headers: { 'content-type': 'text/html' }, body: `<html><body>${'x'.repeat(HUGE_BYTES)}</body></html>` };
    }
    const page = pages.get(`${host} ${path}`);
    if (page === undefined) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
    const validators: Record<string, string> = path === '/no-validators.html' ? {} : { etag: etagOf(page), 'last-modified': LAST_MODIFIED };
    if (validators.etag !== undefined && request.headers['if-none-match'] === validators.etag) return { status: 304, headers: validators, body: '' };
    const headers: Record<string, string | number> = { 'content-type': 'text/html; charset=utf-8', ...validators };
    const raw = Buffer.from(page, 'utf8');
    const coding = /^\/enc\/([a-z-]+)\.html$/.exec(path)?.[1];
    if (coding === 'unasked') return { status: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(raw) };
    if (coding === 'zstd') return { status: 200, headers: { ...headers, 'content-encoding': 'zstd' }, body: raw };
    if (coding === 'broken') return { status: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(raw).subarray(0, 20) };
    if (coding === 'deflate-raw' && accept.includes('deflate')) return { status: 200, headers: { ...headers, 'content-encoding': 'deflate' }, body: deflateRawSync(raw) };
    // Every other HTML page: br, gzip or deflate when asked (br first, as browsers are answered), else as it is.
    const wanted = coding === 'gzip' ? 'gzip' : coding === 'deflate' ? 'deflate' : accept.includes('br') ? 'br' : accept.includes('gzip') ? 'gzip' : null;
    if (wanted === 'br' && accept.includes('br')) return { status: 200, headers: { ...headers, 'content-encoding': 'br' }, body: brotliCompressSync(raw) };
    if (wanted === 'gzip' && accept.includes('gzip')) return { status: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(raw) };
    if (wanted === 'deflate' && accept.includes('deflate')) return { status: 200, headers: { ...headers, 'content-encoding': 'deflate' }, body: deflateSync(raw) };
    return { status: 200, headers, body: raw };
  };

  const server: Server = createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const path = (request.url ?? '/').split('?')[0]!;
    const answer = handle(request, host, path);
    log.push({
      host,
      path,
      acceptEncoding: request.headers['accept-encoding'],
      ifNoneMatch: request.headers['if-none-match'],
      ifModifiedSince: request.headers['if-modified-since'],
      status: answer.status,
    });
    const send = (): void => {
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    };
    if (path === '/slow.html') setTimeout(send, 1500);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  build();
  const a = origin('a.test');
  const b = origin('b.test');
  const via = ['gzip', 'br', 'deflate', 'deflate-raw', 'unasked', 'refresh', 'redirect', 'sitemap-xml', 'sitemap-gz', 'sitemap-txt', 'base', 'retry-after', 'slow', 'no-validators'];
  return {
    port,
    a,
    b,
    resolve: { 'a.test': '127.0.0.1', 'b.test': '127.0.0.1' },
    log,
    pages,
    reachableOnlyByHabit: [
      ...via.map((name) => `${a}/via/${name}.html`),
      `${a}/via/latin1.html?q=%C3%A9`,
      ...['nofollow', 'ugc', 'area', 'frame', 'iframe', 'de'].map((name) => `${a}/kinds/${name}.html`),
      `${b}/via/default-sitemap.html`,
    ],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
