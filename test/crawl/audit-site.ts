/**
 * A generated site with each problem of the site audit (analysis/audit.ts) planted on known pages,
 * on loopback, for test/crawl/audit.test.ts. Every other page is fine: its own title, description
 * and h1, 400 words of its own (drawn from a vocabulary large enough that two pages share almost
 * nothing), listed in the sitemap, at most three clicks from the home page, answering at once.
 * `planted` names the pages each check must find, and no other.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuditSite {
  origin: string;
  /** Check id to the paths it must list (sorted). */
  planted: Record<string, string[]>;
  /** The fine pages (paths), in none of the lists. */
  fine: string[];
  close(): Promise<void>;
}

/** A deterministic stream of 32-bit numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 400 words of a page of its own (a vocabulary of 50,000 made-up words). */
function textOf(seed: number): string[] {
  const next = random(seed * 7919 + 13);
  return Array.from({ length: 400 }, () => `w${Math.floor(next() * 50_000).toString(36)}`);
}

interface PageSpec {
  title?: string | null;
  description?: string | null;
  h1s?: string[];
  words?: string[];
  links?: string[];
  head?: string;
  headers?: Record<string, string>;
  status?: number;
  location?: string;
  delayMs?: number;
}

export async function serveAuditSite(options: { slowMs: number }): Promise<AuditSite> {
  const pages = new Map<string, PageSpec>();
  let seed = 1;
  const fine = (path: string, extra: PageSpec = {}): void => {
    const n = seed++;
    pages.set(path, { title: `Page ${path}`, description: `About ${path}, page ${n}.`, h1s: [`Heading ${path}`], words: textOf(n), links: [], ...extra });
  };
  // The home page links to every page but the orphan, the deep chain's tail and the targets of redirects.
  const linked = ['/a', '/b', '/notitle', '/dup1', '/dup2', '/dd1', '/dd2', '/noh1', '/twoh1', '/noindex-meta', '/noindex-header', '/canon', '/canonbad',
    '/unlisted', '/ex1', '/ex2', '/nd1', '/nd2', '/slow', '/d1', '/r1', '/l1', '/rb'];
  fine('/', { links: linked });
  fine('/a', { links: ['/missing'] });
  fine('/b', { links: ['/error'] });
  pages.set('/missing', { status: 404 });
  pages.set('/error', { status: 500 });
  pages.set('/missing2', { status: 404 });
  fine('/notitle', { title: null });
  fine('/dup1', { title: 'Same title' });
  fine('/dup2', { title: 'Same title' });
  fine('/dd1', { description: 'The same description' });
  fine('/dd2', { description: 'The same description' });
  fine('/noh1', { h1s: [] });
  fine('/twoh1', { h1s: ['First', 'Second'] });
  fine('/noindex-meta', { head: '<meta name="robots" content="noindex, follow">' });
  fine('/noindex-header', { headers: { 'x-robots-tag': 'noindex' } });
  fine('/canon', { head: '<link rel="canonical" href="/a">' });
  fine('/canonbad', { head: '<link rel="canonical" href="/missing2">' });
  fine('/unlisted');
  fine('/orphan');
  // Exact duplicates: the same body, word for word.
  const same: PageSpec = { title: 'Twin', description: 'Twin page', h1s: ['Twin'], words: textOf(999), links: [] };
  pages.set('/ex1', same);
  pages.set('/ex2', same);
  // Near-duplicates: 400 words, one of them different.
  const near = textOf(1234);
  fine('/nd1', { words: near });
  fine('/nd2', { words: [...near.slice(0, 200), 'different', ...near.slice(201)] });
  fine('/slow', { delayMs: options.slowMs + 250 });
  fine('/d1', { links: ['/d2'] });
  fine('/d2', { links: ['/d3'] });
  fine('/d3', { links: ['/d4'] });
  fine('/d4', { links: ['/d5'] });
  fine('/d5');
  // Redirects: a chain of two to a fine page, a loop, one ending on a broken page.
  pages.set('/r1', { status: 301, location: '/r2' });
  pages.set('/r2', { status: 301, location: '/a' });
  pages.set('/l1', { status: 302, location: '/l2' });
  pages.set('/l2', { status: 302, location: '/l1' });
  pages.set('/rb', { status: 301, location: '/missing3' });
  pages.set('/missing3', { status: 404 });

  let origin = '';
  // The sitemap lists the indexable pages but /unlisted and the deep ones (a page a sitemap lists is one
  // click from the sitemap, read first), and the orphan.
  const listed = ['/', '/a', '/b', '/notitle', '/dup1', '/dup2', '/dd1', '/dd2', '/noh1', '/twoh1', '/canonbad', '/ex1', '/ex2', '/nd1', '/nd2', '/slow',
    '/d1', '/orphan'];
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
      return;
    }
    if (path === '/sitemap.xml') {
      response.writeHead(200, { 'content-type': 'application/xml' }).end(
        `<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${listed.map((p) => `<url><loc>${origin}${p}</loc></url>`).join('')}</urlset>\n`,
      );
      return;
    }
    const page = pages.get(path);
    if (page === undefined) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<title>not found</title>');
      return;
    }
    const answer = (): void => {
      if (page.status !== undefined && page.status >= 300 && page.status < 400) {
        response.writeHead(page.status, { location: page.location! }).end();
        return;
      }
      if (page.status !== undefined) {
        response.writeHead(page.status, { 'content-type': 'text/html' }).end(`<title>${page.status}</title>`);
        return;
      }
      const head = [page.title === null || page.title === undefined ? '' : `<title>${page.title}</title>`, page.description === null || page.description === undefined ? '' : `<meta name="description" content="${page.description}">`, page.head ?? ''].join('');
      const body = [...(page.h1s ?? []).map((h) => `<h1>${h}</h1>`), `<p>${(page.words ?? []).join(' ')}</p>`, `<ul>${(page.links ?? []).map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul>`].join('');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(page.headers ?? {}) }).end(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`);
    };
    if (page.delayMs !== undefined) setTimeout(answer, page.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const planted: Record<string, string[]> = {
    // The page of the loop where the crawler found it is failed ('redirect loop'), as `wga pages --status failed` says.
    'broken-links': ['/error', '/l2', '/missing', '/missing2', '/missing3'],
    'redirect-chains': ['/l1', '/r1', '/rb'],
    'missing-title': ['/notitle'],
    // The exact duplicates share their title and description too.
    'duplicate-title': ['/dup1', '/dup2', '/ex1', '/ex2'],
    'missing-description': [],
    'duplicate-description': ['/dd1', '/dd2', '/ex1', '/ex2'],
    'missing-h1': ['/noh1'],
    'multiple-h1': ['/twoh1'],
    noindex: ['/noindex-header', '/noindex-meta'],
    canonicalised: ['/canon', '/canonbad'],
    'canonical-broken': ['/canonbad'],
    orphan: ['/orphan'],
    'not-in-sitemap': ['/d2', '/d3', '/d4', '/d5', '/unlisted'],
    'exact-duplicates': ['/ex1', '/ex2'],
    'near-duplicates': ['/nd1', '/nd2'],
    deep: ['/d4', '/d5'],
    slow: ['/slow'],
  };
  const named = new Set(Object.values(planted).flat());
  return {
    origin,
    planted,
    fine: [...pages.keys()].filter((p) => !named.has(p) && pages.get(p)!.status === undefined),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
