/**
 * The crawler's fetcher against real HTTP servers on 127.0.0.1 (port 0):
 * keep-alive, content types, the body cap, the timeouts and page deadline,
 * the classification of answers for the retry policy, redirects returned (not
 * followed), and the IP rules applied before any byte reaches a server (the
 * Web Graph Analyzer paper's allowed and forbidden address ranges).
 * Timeouts are a few hundred milliseconds so the suite stays fast; outcomes
 * never depend on how long something took, only on which limit fired.
 */
import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { DEFAULT_USER_AGENT, type FetchResult, Fetcher, type FetcherOptions } from '../../src/crawl/fetcher.js';
import { type IpDecision, IpRules } from '../../src/crawl/ip-rules.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

interface TestServer {
  port: number;
  origin: string;
  /** TCP connections accepted. */
  connections: () => number;
  /** TCP connections the server has seen closed. */
  closedConnections: () => number;
  requests: Seen[];
}

/** An HTTP server on 127.0.0.1 answering by path (404 for unknown paths), closed after the test. */
async function startServer(t: TestContext, routes: Record<string, Handler>): Promise<TestServer> {
  const server = createServer();
  let connections = 0;
  let closed = 0;
  const requests: Seen[] = [];
  server.on('connection', (socket) => {
    connections++;
    socket.on('close', () => closed++);
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '';
    requests.push({ path, headers: request.headers });
    const handler = routes[path.split('?')[0]!];
    if (handler !== undefined) handler(request, response);
    else response.writeHead(404, { 'content-type': 'text/html' }).end('<title>not found</title>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port, origin: `http://127.0.0.1:${port}`, connections: () => connections, closedConnections: () => closed, requests };
}

/** Rules allowing only 127.0.0.1 (loopback is refused by default). */
function loopbackRules(): IpRules {
  return new IpRules({ allow: ['127.0.0.1/32'] });
}

/** A fetcher with short limits, destroyed after the test. */
function makeFetcher(t: TestContext, options: Partial<FetcherOptions> = {}): Fetcher {
  const fetcher = new Fetcher({
    ipRules: loopbackRules(),
    connectTimeoutMs: 500,
    headersTimeoutMs: 500,
    bodyTimeoutMs: 500,
    pageTimeoutMs: 3000,
    ...options,
  });
  t.after(() => fetcher.destroy());
  return fetcher;
}

function html(body: string, headers: Record<string, string> = { 'content-type': 'text/html' }): Handler {
  return (_request, response) => {
    response.writeHead(200, headers).end(body);
  };
}

/** Resolves when `response`'s connection closes (the client hung up or the response ended). */
function closedPromise(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => response.once('close', () => resolve()));
}

/** The fields of a successful answer that carry no error. */
function assertOk(result: FetchResult, status = 200): void {
  assert.equal(result.status, status, `status (error: ${result.error})`);
  assert.equal(result.error, null);
  assert.equal(result.failure, null);
}

describe('Fetcher: pages', () => {
  it('reads a whole HTML page, parses it, and reuses one keep-alive connection', { timeout: 60_000 }, async (t) => {
    // ~120 KB written in several pieces: the last link is only seen if the body was read to its end.
    const filler = `<p>${'x'.repeat(1000)}</p>\n`;
    const parts = ['<html><head><title> Home  page </title></head><body><a href="/first">1</a>', ...Array.from({ length: 120 }, () => filler), '<a href="/last" rel="nofollow">z</a></body></html>'];
    const total = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
    const server = await startServer(t, {
      '/': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        for (const part of parts) response.write(part);
        response.end();
      },
    });
    const fetcher = makeFetcher(t);
    for (let i = 0; i < 3; i++) {
      const result = await fetcher.fetch(new URL(`${server.origin}/?n=${i}`));
      assertOk(result);
      assert.equal(result.contentType, 'text/html');
      assert.equal(result.size, total);
      assert.equal(result.text, null);
      assert.ok(result.page !== null);
      assert.equal(result.page.title, 'Home page');
      assert.deepEqual(
        result.page.links.map((l) => [l.href, l.kind, l.nofollow]),
        [
          ['/first', 'anchor', false],
          ['/last', 'anchor', true],
        ],
      );
      // Not compressed: as many bytes on the wire as decoded.
      assert.equal(result.wireSize, total);
      assert.deepEqual(result.encoding, []);
      assert.match(result.contentHash!, /^xxh64:[0-9a-f]{16}$/);
    }
    assert.deepEqual(server.requests.map((r) => r.path), ['/?n=0', '/?n=1', '/?n=2']);
    // Keep-alive: the three requests went over a single TCP connection.
    assert.equal(server.connections(), 1);
    // close() lets the idle connection go.
    await fetcher.close();
    for (let i = 0; i < 5000 && server.closedConnections() < 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(server.closedConnections(), 1);
  });

  it('sends the configured User-Agent (or the default one) and asks for HTML', { timeout: 60_000 }, async (t) => {
    const server = await startServer(t, { '/': html('<title>ua</title>') });
    assertOk(await makeFetcher(t, { userAgent: 'test-crawler/9.9 (+http://example.invalid/bot)' }).fetch(new URL(`${server.origin}/`)));
    assertOk(await makeFetcher(t).fetch(new URL(`${server.origin}/`)));
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.headers['user-agent'], 'test-crawler/9.9 (+http://example.invalid/bot)');
    assert.equal(server.requests[1]!.headers['user-agent'], DEFAULT_USER_AGENT);
    assert.match(server.requests[0]!.headers.accept ?? '', /text\/html/);
  });

  it('classifies content types: HTML (any case, charset, XHTML, none) parsed; PDF and PNG not', { timeout: 60_000 }, async (t) => {
    const server = await startServer(t, {
      '/pdf': html('%PDF-1.4 <a href="/not-a-link">', { 'content-type': 'application/pdf' }),
      '/png': (_request, response) => {
        response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(2000, 0x89));
      },
      // No Content-Type: parsed as HTML (as fetcher.ts documents).
      '/none': (_request, response) => {
        response.writeHead(200).end('<title>untyped</title><a href="/u">u</a>');
      },
      '/latin1': (_request, response) => {
        response.writeHead(200, { 'content-type': 'Text/HTML; Charset="ISO-8859-1"' }).end(Buffer.from('<title>Caf\u00e9 cr\u00e8me</title>', 'latin1'));
      },
      '/xhtml': html('<html xmlns="http://www.w3.org/1999/xhtml"><title>x</title><a href="/x"/></html>', { 'content-type': 'application/xhtml+xml' }),
    });
    const fetcher = makeFetcher(t);
    const get = (path: string): Promise<FetchResult> => fetcher.fetch(new URL(`${server.origin}${path}`));

    for (const [path, type] of [
      ['/pdf', 'application/pdf'],
      ['/png', 'image/png'],
    ] as const) {
      const result = await get(path);
      assertOk(result);
      assert.equal(result.contentType, type, path);
      assert.equal(result.page, null, path);
      assert.equal(result.text, null, path);
      assert.equal(result.size, 0, path);
    }

    const untyped = await get('/none');
    assertOk(untyped);
    assert.equal(untyped.contentType, null);
    assert.equal(untyped.page?.title, 'untyped');
    assert.deepEqual(untyped.page?.links.map((l) => l.href), ['/u']);

    // The charset of the Content-Type decodes the body: é and è are single latin-1 bytes.
    const latin1 = await get('/latin1');
    assertOk(latin1);
    assert.equal(latin1.contentType, 'text/html');
    assert.equal(latin1.page?.title, 'Caf\u00e9 cr\u00e8me');
    // 25 bytes in latin-1 (it would be 27 in UTF-8).
    assert.equal(latin1.size, 25);

    const xhtml = await get('/xhtml');
    assertOk(xhtml);
    assert.equal(xhtml.contentType, 'application/xhtml+xml');
    assert.deepEqual(xhtml.page?.links.map((l) => l.href), ['/x']);

    // Small unused bodies are drained, so the connection stayed alive through all five answers.
    assert.equal(server.connections(), 1);
  });

  it('does not download a large non-HTML body: it gives up and closes the connection', { timeout: 60_000 }, async (t) => {
    const total = 32 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x25);
    let sent = 0;
    let closed: Promise<void> = Promise.resolve();
    const server = await startServer(t, {
      '/big.pdf': (_request, response) => {
        closed = closedPromise(response);
        // Chunked (no Content-Length), with back-pressure: the server writes only as fast as the client reads.
        response.writeHead(200, { 'content-type': 'application/pdf' });
        const pump = (): void => {
          while (sent < total && !response.destroyed) {
            sent += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
          if (sent >= total) response.end();
        };
        pump();
      },
    });
    const fetcher = makeFetcher(t);
    const result = await fetcher.fetch(new URL(`${server.origin}/big.pdf`));
    assertOk(result);
    assert.equal(result.contentType, 'application/pdf');
    assert.equal(result.page, null);
    await closed;
    // The client hung up long before the end (kernel socket buffers hold a few MB at most).
    assert.ok(sent < total / 2, `server wrote ${sent} bytes of ${total}`);
    assert.equal(server.closedConnections(), 1);
  });

  it('reads robots.txt-like text in text mode, cut at the text limit', { timeout: 60_000 }, async (t) => {
    const body = `User-agent: *\nDisallow: /private\n${'# comment\n'.repeat(100)}`;
    const server = await startServer(t, { '/robots.txt': html(body, { 'content-type': 'text/plain' }) });
    const fetcher = makeFetcher(t);
    const whole = await fetcher.fetch(new URL(`${server.origin}/robots.txt`), 'text');
    assertOk(whole);
    assert.equal(whole.text, body);
    assert.equal(whole.size, body.length);
    assert.equal(whole.page, null);
    const cut = await fetcher.fetch(new URL(`${server.origin}/robots.txt`), 'text', 20);
    assertOk(cut);
    assert.equal(cut.text, body.slice(0, 20));
    assert.equal(cut.size, 20);
  });
});

describe('Fetcher: body size cap', () => {
  it('stops a 50 MB page at a 1 MB cap, fails it as final, and hangs up', { timeout: 60_000 }, async (t) => {
    const total = 50 * 1024 * 1024;
    const cap = 1024 * 1024;
    const chunk = Buffer.from(`<p>${'y'.repeat(64 * 1024 - 8)}</p>\n`);
    let sent = 0;
    let closed: Promise<void> = Promise.resolve();
    const server = await startServer(t, {
      '/huge': (_request, response) => {
        closed = closedPromise(response);
        response.writeHead(200, { 'content-type': 'text/html' });
        const pump = (): void => {
          // Bounded: at most total / chunk.length writes in all.
          while (sent < total && !response.destroyed) {
            sent += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
          if (sent >= total) response.end();
        };
        pump();
      },
    });
    const fetcher = makeFetcher(t, { maxBodyBytes: cap, pageTimeoutMs: 10_000, bodyTimeoutMs: 2000 });
    const heapBefore = process.memoryUsage().heapUsed;
    const result = await fetcher.fetch(new URL(`${server.origin}/huge`));
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    assert.equal(result.status, 200);
    assert.equal(result.failure, 'final');
    assert.equal(result.error, `body larger than ${cap} bytes`);
    assert.equal(result.page, null);
    // Reading stopped in the chunk that crossed the cap (on the wire: it is not compressed).
    assert.ok(result.wireSize > cap && result.wireSize <= cap + 256 * 1024, `wire size ${result.wireSize}`);
    assert.ok(result.size <= cap, `decoded size ${result.size}`);
    await closed;
    assert.equal(server.closedConnections(), 1);
    assert.ok(sent < total / 2, `server wrote ${sent} bytes of ${total}`);
    // The body was never held whole (a generous bound, far below the 50 MB sent at most).
    assert.ok(heapGrowth < 30 * 1024 * 1024, `heap grew by ${heapGrowth} bytes`);
  });
});

describe('Fetcher: timeouts', () => {
  it('gives up on headers that do not come (retryable)', { timeout: 60_000 }, async (t) => {
    // The request is never answered; the server drops it when the test ends.
    const server = await startServer(t, { '/hang': () => undefined });
    const fetcher = makeFetcher(t, { headersTimeoutMs: 200, pageTimeoutMs: 5000 });
    const result = await fetcher.fetch(new URL(`${server.origin}/hang`));
    assert.equal(result.status, null);
    assert.equal(result.failure, 'retryable');
    assert.match(result.error ?? '', /headers timeout/);
    assert.equal(server.requests.length, 1);
  });

  it('gives up on a body that stalls half way (retryable)', { timeout: 60_000 }, async (t) => {
    let closed: Promise<void> = Promise.resolve();
    const server = await startServer(t, {
      '/stall': (_request, response) => {
        closed = closedPromise(response);
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<html><title>half');
      },
    });
    // (undici arms the body timeout on its coarse timer, ~0.5-1 s resolution: the test takes about a second.)
    const fetcher = makeFetcher(t, { bodyTimeoutMs: 200, pageTimeoutMs: 5000 });
    const result = await fetcher.fetch(new URL(`${server.origin}/stall`));
    assert.equal(result.failure, 'retryable');
    assert.match(result.error ?? '', /body timeout/);
    assert.equal(result.page, null);
    await closed;
    assert.equal(server.closedConnections(), 1);
  });

  it('stops a page dripping slowly but steadily at the page deadline (retryable)', { timeout: 60_000 }, async (t) => {
    let drips = 0;
    let closed: Promise<void> = Promise.resolve();
    const server = await startServer(t, {
      '/drip': (_request, response) => {
        closed = closedPromise(response);
        response.writeHead(200, { 'content-type': 'text/html' });
        // One byte every 20 ms: never idle long enough for the body timeout; bounded to 500 bytes (10 s).
        const timer = setInterval(() => {
          if (response.destroyed || drips >= 500) {
            clearInterval(timer);
            if (!response.destroyed) response.end();
            return;
          }
          drips++;
          response.write('.');
        }, 20);
        response.once('close', () => clearInterval(timer));
      },
    });
    // The body timeout is longer than the deadline, so only the deadline can stop this page.
    const fetcher = makeFetcher(t, { bodyTimeoutMs: 2000, pageTimeoutMs: 400 });
    const result = await fetcher.fetch(new URL(`${server.origin}/drip`));
    assert.equal(result.failure, 'retryable');
    assert.equal(result.error, 'page not complete after 0.4 s');
    assert.equal(result.page, null);
    await closed;
    assert.ok(drips < 500, `the server dripped all ${drips} bytes`);
  });

  it('reports a refused connection (closed port) as retryable', { timeout: 60_000 }, async (t) => {
    // Take a free port, then close it: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await makeFetcher(t).fetch(new URL(`http://127.0.0.1:${port}/`));
    assert.equal(result.status, null);
    assert.equal(result.failure, 'retryable');
    assert.equal(result.error, 'connection refused');
  });
});

describe('Fetcher: statuses and redirects', () => {
  it('classifies 4xx as final and 5xx, 429, 408 as retryable, with Retry-After', { timeout: 60_000 }, async (t) => {
    const status = (code: number, headers: Record<string, string> = {}): Handler => (_request, response) => {
      response.writeHead(code, { 'content-type': 'text/html', ...headers }).end(`<title>${code}</title><a href="/no">`);
    };
    const server = await startServer(t, {
      '/403': status(403),
      '/410': status(410),
      '/500': status(500),
      '/503': status(503, { 'retry-after': '7' }),
      '/429': status(429, { 'retry-after': '3600' }),
      '/408': status(408),
    });
    const fetcher = makeFetcher(t);
    const expected: Array<[string, number, 'final' | 'retryable', number | null]> = [
      ['/missing', 404, 'final', null],
      ['/403', 403, 'final', null],
      ['/410', 410, 'final', null],
      ['/500', 500, 'retryable', null],
      ['/503', 503, 'retryable', 7000],
      // Retry-After is capped at a minute.
      ['/429', 429, 'retryable', 60_000],
      ['/408', 408, 'retryable', null],
    ];
    for (const [path, code, failure, retryAfterMs] of expected) {
      const result = await fetcher.fetch(new URL(`${server.origin}${path}`));
      assert.equal(result.status, code, path);
      assert.equal(result.failure, failure, path);
      assert.equal(result.error, `HTTP ${code}`, path);
      assert.equal(result.retryAfterMs, retryAfterMs, path);
      assert.equal(result.page, null, path);
      assert.equal(result.contentType, 'text/html', path);
    }
    // Error bodies are drained: one connection for all of them.
    assert.equal(server.connections(), 1);
  });

  it('returns redirects with their Location, without following them', { timeout: 60_000 }, async (t) => {
    let targetHits = 0;
    const server = await startServer(t, {
      '/target': (_request, response) => {
        targetHits++;
        response.writeHead(200, { 'content-type': 'text/html' }).end('<title>target</title>');
      },
      '/relative': (_request, response) => {
        response.writeHead(302, { location: '../target?x=1' }).end();
      },
      '/no-location': (_request, response) => {
        response.writeHead(301, { 'content-type': 'text/html' }).end('<title>moved</title>');
      },
      '/not-modified': (_request, response) => {
        response.writeHead(304).end();
      },
    });
    const target = `${server.origin}/target`;
    const redirectServer = await startServer(t, Object.fromEntries(
      [301, 302, 303, 307, 308].map((code) => [`/r${code}`, ((_request, response) => {
        response.writeHead(code, { location: target, 'content-type': 'text/html' }).end('<a href="/elsewhere">moved</a>');
      }) as Handler]),
    ));
    const fetcher = makeFetcher(t);
    for (const code of [301, 302, 303, 307, 308]) {
      const result = await fetcher.fetch(new URL(`${redirectServer.origin}/r${code}`));
      assertOk(result, code);
      assert.equal(result.location, target, String(code));
      assert.equal(result.page, null, String(code));
    }
    // A relative Location is returned as sent: the crawler resolves it against the page's URL.
    const sent = await fetcher.fetch(new URL(`${server.origin}/relative`));
    assertOk(sent, 302);
    assert.equal(sent.location, '../target?x=1');

    const missing = await fetcher.fetch(new URL(`${server.origin}/no-location`));
    assert.equal(missing.status, 301);
    assert.equal(missing.failure, 'final');
    assert.equal(missing.location, null);
    assert.match(missing.error ?? '', /without Location/);

    const notModified = await fetcher.fetch(new URL(`${server.origin}/not-modified`));
    assertOk(notModified, 304);
    assert.equal(notModified.location, null);

    // Nothing followed a redirect.
    assert.equal(targetHits, 0);
    assert.equal(redirectServer.requests.length, 5);
    assert.equal(redirectServer.connections(), 1);
  });
});

describe('Fetcher: address rules', () => {
  it('refuses loopback by default: the server receives no connection', { timeout: 60_000 }, async (t) => {
    const server = await startServer(t, { '/': html('<title>secret</title>') });
    const fetcher = makeFetcher(t, { ipRules: new IpRules() });
    const result = await fetcher.fetch(new URL(`${server.origin}/`));
    assert.equal(result.failure, 'excluded');
    assert.equal(result.status, null);
    assert.match(result.error ?? '', /^excluded: address 127\.0\.0\.1 is loopback/);
    // The IPv4-mapped IPv6 spelling of the same address is refused as well.
    const mapped = await fetcher.fetch(new URL(`http://[::ffff:127.0.0.1]:${server.port}/`));
    assert.equal(mapped.failure, 'excluded');
    assert.match(mapped.error ?? '', /loopback/);
    assert.equal(server.requests.length, 0);
    assert.equal(server.connections(), 0);
  });

  it('uses the resolve map for host names: allowed when the address is, excluded when not', { timeout: 60_000 }, async (t) => {
    const server = await startServer(t, { '/': html('<title>named</title>') });
    const resolve = new Map([['site.test', '127.0.0.1']]);
    // URL host names are lower case; the map is keyed by lower-case names.
    const url = new URL(`http://Site.Test:${server.port}/`);

    const allowed = await makeFetcher(t, { resolve }).fetch(url);
    assertOk(allowed);
    assert.equal(allowed.page?.title, 'named');
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0]!.headers.host, `site.test:${server.port}`);

    const refused = await makeFetcher(t, { resolve, ipRules: new IpRules() }).fetch(url);
    assert.equal(refused.failure, 'excluded');
    assert.match(refused.error ?? '', /^excluded: site\.test: address 127\.0\.0\.1 is loopback/);
    // The lookup refused the address: no connection was even opened.
    assert.equal(server.requests.length, 1);
    assert.equal(server.connections(), 1);
  });

  it('refuses IPv6 loopback by default and when only 127.0.0.1 is allowed', { timeout: 60_000 }, async (t) => {
    const byDefault = makeFetcher(t, { ipRules: new IpRules() });
    const literal = await byDefault.fetch(new URL('http://[::1]:9/'));
    assert.equal(literal.failure, 'excluded');
    assert.match(literal.error ?? '', /::1 is loopback/);
    const named = await makeFetcher(t, { ipRules: new IpRules(), resolve: new Map([['six.test', '::1']]) }).fetch(new URL('http://six.test:9/'));
    assert.equal(named.failure, 'excluded');
    assert.match(named.error ?? '', /six\.test: address ::1 is loopback/);
    // An allow list for 127.0.0.1 does not extend to ::1.
    const v4only = await makeFetcher(t).fetch(new URL('http://[::1]:9/'));
    assert.equal(v4only.failure, 'excluded');
    assert.match(v4only.error ?? '', /not in any --allow-ip range/);
  });

  it('lets a deny range override an allow range', { timeout: 60_000 }, async (t) => {
    const server = await startServer(t, { '/': html('<title>x</title>') });
    const ipRules = new IpRules({ allow: ['127.0.0.0/8'], deny: ['127.0.0.1/32'] });
    const fetcher = makeFetcher(t, { ipRules, resolve: new Map([['deny.test', '127.0.0.1']]) });
    const literal = await fetcher.fetch(new URL(`${server.origin}/`));
    assert.equal(literal.failure, 'excluded');
    assert.match(literal.error ?? '', /--deny-ip 127\.0\.0\.1\/32/);
    const named = await fetcher.fetch(new URL(`http://deny.test:${server.port}/`));
    assert.equal(named.failure, 'excluded');
    assert.match(named.error ?? '', /--deny-ip 127\.0\.0\.1\/32/);
    assert.equal(server.requests.length, 0);
    assert.equal(server.connections(), 0);
    // The same allow range without the deny reaches the server.
    assertOk(await makeFetcher(t, { ipRules: new IpRules({ allow: ['127.0.0.0/8'] }) }).fetch(new URL(`${server.origin}/`)));
    assert.equal(server.requests.length, 1);
  });

  it('checks the connected address again after connecting, before sending anything', { timeout: 60_000 }, async (t) => {
    const server = await startServer(t, { '/': html('<title>x</title>') });
    // Rules that allow the first address asked about (the lookup) and refuse every later one:
    // stands in for a lookup that let through an address the socket check must catch.
    class FlipRules extends IpRules {
      readonly asked: string[] = [];
      override check(text: string): IpDecision {
        this.asked.push(text);
        if (this.asked.length === 1) return super.check(text);
        return { allowed: false, reason: `address ${text} refused after connecting` };
      }
    }
    const ipRules = new FlipRules({ allow: ['127.0.0.1/32'] });
    const fetcher = makeFetcher(t, { ipRules, resolve: new Map([['flip.test', '127.0.0.1']]) });
    const result = await fetcher.fetch(new URL(`http://flip.test:${server.port}/`));
    assert.equal(result.failure, 'excluded');
    assert.equal(result.error, 'excluded: address 127.0.0.1 refused after connecting');
    assert.deepEqual(ipRules.asked, ['127.0.0.1', '127.0.0.1']);
    // The socket was closed before a request was written on it.
    assert.equal(server.requests.length, 0);
  });
});

describe('Fetcher: keep-alive connections under --keep-alive-hosts', () => {
  it('keeps the idle connections of the hosts used last open, closes the others, and reuses what it kept', async (t) => {
    const server = await startServer(t, { '/': html('<title>x</title>') });
    const names = Array.from({ length: 10 }, (_, i) => `h${i}.test`);
    const fetcher = makeFetcher(t, { keepAliveHosts: 3, resolve: new Map(names.map((n) => [n, '127.0.0.1'])) });
    for (const name of names) assertOk(await fetcher.fetch(new URL(`http://${name}:${server.port}/`)));
    // One connection per host, of which the 7 used longest ago were closed.
    assert.equal(server.connections(), 10);
    await until(() => server.closedConnections() === 7);
    assert.deepEqual(fetcher.connectionCounters, { opened: 10, closedIdle: 7, maxOpen: 4 });
    // The last three hosts still have theirs: asking them again opens nothing.
    for (const name of names.slice(7)) assertOk(await fetcher.fetch(new URL(`http://${name}:${server.port}/`)));
    assert.equal(server.connections(), 10);
    // A host closed before connects again, and the oldest kept one (h7) goes.
    assertOk(await fetcher.fetch(new URL(`http://${names[0]}:${server.port}/`)));
    assert.equal(server.connections(), 11);
    await until(() => server.closedConnections() === 8);
    assert.equal(fetcher.connectionCounters.closedIdle, 8);
  });

  it('does not close a connection whose request is running, whatever the cap', async (t) => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = await startServer(t, {
      '/slow': (_request, response) => void gate.then(() => response.writeHead(200, { 'content-type': 'text/html' }).end('<title>slow</title>')),
      '/': html('<title>x</title>'),
    });
    const fetcher = makeFetcher(t, { keepAliveHosts: 1, pageTimeoutMs: 10_000, headersTimeoutMs: 10_000, resolve: new Map([['a.test', '127.0.0.1'], ['b.test', '127.0.0.1'], ['c.test', '127.0.0.1']]) });
    const slow = fetcher.fetch(new URL(`http://a.test:${server.port}/slow`));
    assertOk(await fetcher.fetch(new URL(`http://b.test:${server.port}/`)));
    assertOk(await fetcher.fetch(new URL(`http://c.test:${server.port}/`)));
    release();
    assertOk(await slow);
    // a.test's request ran through b's and c's: b and c were closed as each ended, a kept while it ran.
    assert.equal(fetcher.connectionCounters.closedIdle, 2);
    assert.equal(server.connections(), 3);
  });
});

/** Polls `condition` every 10 ms for at most 5 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), 'waited 5 s');
}
