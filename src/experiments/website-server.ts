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
  /**
   * Resolves once no connection is open (checked every 10 ms, at most `limitMs`): after a client
   * died, every request it sent has then been counted (a socket closes after its data is read).
   */
  idle(limitMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface ServeWebsiteOptions {
  port?: number;
  /** Each answer waits this long. */
  delayMs?: number;
  /** Each answer waits for this promise first (tests hold a crawl at a point with it). */
  hold?: (path: string) => Promise<void> | undefined;
}

export async function serveWebsite(site: Website, options: ServeWebsiteOptions = {}): Promise<ServedWebsite> {
  const requests = new Map<string, number>();
  let running = 0;
  const served: ServedWebsite = {
    origin: '',
    port: 0,
    requests,
    maxConcurrent: 0,
    idle: async (limitMs = 60_000) => {
      const end = Date.now() + limitMs;
      while (open > 0) {
        if (Date.now() > end) throw new Error(`the site still has ${open} connection(s) open after ${limitMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
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
    const answer = (): void => {
      if (options.delayMs !== undefined && options.delayMs > 0) setTimeout(send, options.delayMs);
      else send();
    };
    const held = options.hold?.(path);
    if (held === undefined) answer();
    else void held.then(answer);
  });
  let open = 0;
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  served.port = (server.address() as AddressInfo).port;
  served.origin = `http://127.0.0.1:${served.port}`;
  return served;
}
