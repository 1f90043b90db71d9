/**
 * A generated site spread over many hosts, on loopback, for the shared-crawl
 * tests and benchmark: src/experiments/website.ts's link graph (a tree plus
 * power-law links, every page reachable from page 0) without its hazards,
 * page N living at http://hK.test:PORT/p/N.html with K = N mod `hosts`. One
 * server answers for every host (by the Host header: a page asked of the
 * wrong host is a 404); crawlers reach the names with --resolve
 * hK.test=127.0.0.1. Every request is logged; answers can wait `delayMs`
 * (a network-bound crawl). With `sitemapDelayMs`, each host's robots.txt names
 * a sitemap index /sitemap-index.xml listing one sitemap /sitemaps/pages.xml of
 * the host's pages, both answered after that delay.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Website } from '../../src/experiments/website.js';

export interface MultiHostSite {
  port: number;
  pages: number;
  hosts: number;
  /** The URL of page n. */
  url(n: number): string;
  /** --resolve entries for every host. */
  resolve: Record<string, string>;
  /** Requests by "host path" (robots.txt included). */
  requests: Map<string, number>;
  /** The site's links between pages, as "sourceURL targetURL". */
  links(): Set<string>;
  close(): Promise<void>;
}

export function hostName(n: number, hosts: number): string {
  return `h${n % hosts}.test`;
}

export async function serveMultiHostSite(options: { pages: number; hosts: number; seed?: number; delayMs?: number; sitemapDelayMs?: number }): Promise<MultiHostSite> {
  const site = new Website({ pages: options.pages, seed: options.seed ?? 1, hazards: false });
  const { pages, hosts } = options;
  const requests = new Map<string, number>();
  let port = 0;
  const url = (n: number): string => `http://${hostName(n, hosts)}:${port}/p/${n}.html`;
  const render = (n: number): string => {
    const links: string[] = [];
    for (let e = site.offsets[n]!; e < site.offsets[n + 1]!; e++) links.push(`<li><a href="${url(site.targets[e]!)}">page ${site.targets[e]}</a></li>`);
    return `<!doctype html><html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1><ul>${links.join('')}</ul></body></html>`;
  };
  const server: Server = createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const path = (request.url ?? '/').split('?')[0]!;
    const key = `${host} ${path}`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
    const origin = `http://${host}:${port}`;
    const sitemaps = options.sitemapDelayMs !== undefined;
    if (sitemaps && path === '/robots.txt') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap-index.xml\n`);
      return;
    }
    if (sitemaps && (path === '/sitemap-index.xml' || path === '/sitemaps/pages.xml')) {
      const body =
        path === '/sitemap-index.xml'
          ? `<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemaps/pages.xml</loc></sitemap></sitemapindex>\n`
          : `<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from({ length: pages }, (_, n) => n)
              .filter((n) => hostName(n, hosts) === host)
              .map((n) => `<url><loc>${url(n)}</loc></url>`)
              .join('')}</urlset>\n`;
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end(body);
      }, options.sitemapDelayMs);
      return;
    }
    const answer = (): void => {
      const match = /^\/p\/(\d+)\.html$/.exec(path);
      const n = match === null ? -1 : Number(match[1]);
      if (n >= 0 && n < pages && hostName(n, hosts) === host) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(render(n));
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
      }
    };
    if ((options.delayMs ?? 0) > 0) setTimeout(answer, options.delayMs);
    else answer();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const resolve: Record<string, string> = {};
  for (let k = 0; k < Math.min(hosts, pages); k++) resolve[`h${k}.test`] = '127.0.0.1';
  return {
    port,
    pages,
    hosts,
    url,
    resolve,
    requests,
    links: () => {
      const set = new Set<string>();
      for (let n = 0; n < pages; n++) for (let e = site.offsets[n]!; e < site.offsets[n + 1]!; e++) set.add(`${url(n)} ${url(site.targets[e]!)}`);
      return set;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
