/**
 * A farm of web hosts on a few loopback addresses, as shared hosting puts them: host k
 * (`h<k>.<domain>`) is served from addresses[k % addresses.length], all on one port. Each host has
 * a home page linking to its `pages` pages and to the next hosts' homes, so a crawl from h0 reaches
 * every host. The server answers after `answerDelayMs` and records, per address and per host, the
 * requests running at once (the most seen) and the start time of every request: politeness is
 * checked on what the servers saw.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FarmRequest {
  address: string;
  host: string;
  path: string;
  /** performance.now() at arrival. */
  at: number;
}

export interface HostFarm {
  port: number;
  hosts: number;
  addresses: readonly string[];
  hostName(k: number): string;
  addressOf(k: number): string;
  home(k: number): string;
  requests: FarmRequest[];
  /** The most requests running at once, per address and per host name. */
  maxPerAddress: Map<string, number>;
  maxPerHost: Map<string, number>;
  /** Every page the farm serves (homes and pages). */
  pageUrls(): string[];
  close(): Promise<void>;
}

export async function serveHostFarm(options: { hosts: number; pages: number; domain: string; addresses: readonly string[]; answerDelayMs: number }): Promise<HostFarm> {
  const { hosts, pages, domain, addresses } = options;
  const requests: FarmRequest[] = [];
  const running = new Map<string, number>();
  const maxPerAddress = new Map<string, number>();
  const maxPerHost = new Map<string, number>();
  /** Counts a request in or out of `running` under `kind key`; the most at once goes to `max` under `key`. */
  const bump = (kind: string, key: string, by: number, max?: Map<string, number>): void => {
    const value = (running.get(`${kind} ${key}`) ?? 0) + by;
    running.set(`${kind} ${key}`, value);
    if (max !== undefined) max.set(key, Math.max(max.get(key) ?? 0, value));
  };
  let port = 0;
  const hostName = (k: number): string => `h${k}.${domain}`;
  const home = (k: number): string => `http://${hostName(k)}:${port}/`;
  const handler = (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse): void => {
    const address = request.socket.localAddress ?? '';
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const path = (request.url ?? '/').split('?')[0]!;
    requests.push({ address, host, path, at: performance.now() });
    bump('a', address, 1, maxPerAddress);
    bump('h', host, 1, maxPerHost);
    setTimeout(() => {
      bump('a', address, -1);
      bump('h', host, -1);
      const k = Number(/^h(\d+)\./.exec(host)?.[1] ?? -1);
      const page = /^\/p\/(\d+)$/.exec(path);
      if (k < 0 || k >= hosts || addresses[k % addresses.length] !== address || (path !== '/' && (page === null || Number(page[1]) >= pages))) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
        return;
      }
      const links: string[] = [];
      if (path === '/') {
        for (let p = 0; p < pages; p++) links.push(`/p/${p}`);
        for (let j = 1; j <= 3; j++) links.push(home((k + j) % hosts));
      } else links.push('/');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>${host}${path}</title>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`);
    }, options.answerDelayMs);
  };
  const servers: Server[] = [];
  for (const address of addresses) {
    const server = createServer(handler);
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => resolve());
    });
    if (port === 0) port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  return {
    port,
    hosts,
    addresses,
    hostName,
    addressOf: (k) => addresses[k % addresses.length]!,
    home,
    requests,
    maxPerAddress,
    maxPerHost,
    pageUrls: () => Array.from({ length: hosts }, (_, k) => [home(k), ...Array.from({ length: pages }, (_, p) => `${home(k)}p/${p}`)]).flat(),
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
