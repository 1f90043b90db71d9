/**
 * Serves a generated Website (website.ts) over HTTP on 127.0.0.1, counting
 * requests per path and the most requests it had at once per connection
 * pool, so tests can check what a crawl asked for.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Website } from './website.js';

export interface ServedWebsite {
  /** http://127.0.0.1:PORT */
  origin: string;
  port: number;
  requests: Map<string, number>;
  /** Most requests in progress at the same time. */
  maxConcurrent: number;
  close(): Promise<void>;
}

export async function serveWebsite(site: Website, options: { port?: number; delayMs?: number } = {}): Promise<ServedWebsite> {
  const requests = new Map<string, number>();
  let running = 0;
  const served: ServedWebsite = {
    origin: '',
    port: 0,
    requests,
    maxConcurrent: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    running++;
    served.maxConcurrent = Math.max(served.maxConcurrent, running);
    const send = (): void => {
      const answer = site.answer(path);
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
      running--;
    };
    if (options.delayMs !== undefined && options.delayMs > 0) setTimeout(send, options.delayMs);
    else send();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  served.port = (server.address() as AddressInfo).port;
  served.origin = `http://127.0.0.1:${served.port}`;
  return served;
}
