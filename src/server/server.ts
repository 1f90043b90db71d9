/**
 * `wga serve`: the HTTP server of the GUI and the JSON API over one store, or over one compact
 * graph file (graph-routes.ts). Listens on loopback (127.0.0.1) and a free port unless told
 * otherwise; beyond loopback it insists on a token.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import { compactInfo } from '../app/compact-graph.js';
import { isCompactPath } from '../formats/compact-file.js';
import { type GraphServerContext, buildGraphRoutes } from './graph-routes.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { CrawlWatch } from './crawl-watch.js';
import { GraphCache } from './graph-cache.js';
import { toErrorResponse } from './http-errors.js';
import { JobList } from './jobs.js';
import { type ServerContext, buildRoutes } from './routes.js';
import { allowedHosts, generateToken, isLoopback, validToken } from './security.js';
import { DEFAULT_WEB_ROOT, StaticFiles } from './static-files.js';
import { OptionError } from '../errors.js';
import { stats } from '../app/stats.js';
import { sccAnalysis } from '../app/structure.js';

export interface ServeOptions {
  /** The store: a SQLite file or a postgres:// URL (or `graph`). */
  db?: string;
  /** A compact graph file (.wgc) to serve instead of a store: read in place, never loaded whole. */
  graph?: string;
  host?: string;
  /** 0 (the default): a free port. */
  port?: number;
  /** The secret for requests that change something; generated when not given. */
  token?: string;
  /** Where the GUI's built files are (default: dist/web/). */
  webRoot?: string;
  /** Every request needs the token (default: when `host` is not a loopback address). */
  remote?: boolean;
  /** Load the graph right away, so the first analyses answer fast (default true). */
  warm?: boolean;
  log?: (text: string) => void;
}

export interface RunningServer {
  /** http://HOST:PORT/ */
  url: string;
  host: string;
  port: number;
  token: string;
  /** The token was generated (not given with --token). */
  generatedToken: boolean;
  /** Listening beyond loopback (every request needs the token). */
  remote: boolean;
  /** The store served (null when serving a graph file). */
  store: Store | null;
  /** What is served: the store's location or the graph file's path. */
  serving: string;
  close(): Promise<void>;
}

function version(): string {
  const packageJson = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((text: string) => process.stderr.write(`${text}\n`));
  if (options.token !== undefined && !validToken(options.token)) {
    throw new OptionError('--token', 'expected 16 to 200 characters of A-Z, a-z, 0-9, ".", "_", "~", "-"');
  }
  const token = options.token ?? generateToken();
  if (options.graph !== undefined) return startGraphServer(options.graph, options, host, token, log);
  if (options.db === undefined) throw new OptionError('--db', 'missing: the store to serve (a SQLite file or a postgres:// URL), or --graph G.wgc');
  const store = await openStore(options.db, { create: true });
  const cache = new GraphCache(store);
  const context: ServerContext = {
    store,
    db: options.db,
    version: version(),
    token,
    remote: options.remote ?? !isLoopback(host),
    allowedHosts: new Set(),
    cache,
    jobs: new JobList(),
    crawl: new CrawlWatch(store, options.db, {
      changed: () => cache.invalidate(),
      describeError: (error) => toErrorResponse(error, log).body.error,
      counts: (checkpoint) => cache.counts(checkpoint),
    }),
    files: new StaticFiles(options.webRoot ?? DEFAULT_WEB_ROOT, token),
    log,
  };
  const app = buildRoutes(context);
  let server: Server;
  try {
    server = await listen(app, host, options.port ?? 0);
  } catch (error) {
    await store.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  for (const allowed of allowedHosts(host, port)) context.allowedHosts.add(allowed);
  let closing = false;
  if (options.warm !== false) {
    // Load the graph and answer what the first views ask (stats, the components) before anyone asks.
    cache
      .counts()
      .then(() => cache.memo('stats', (source) => stats(source)))
      .then(() => cache.memo('scc', (source) => sccAnalysis(source.graph)))
      // The URL -> page index is built on the first look-up of a URL.
      .then(() => cache.memo('labels', (source) => source.graph.labels.id('')))
      // A server closed while it loads ends the load with its store: nothing to report then.
      .catch((error: unknown) => closing || log(`wga serve: could not load the graph: ${(error as Error).message}`));
  }
  return {
    ...address(host, port, token, options, context.remote),
    store,
    serving: store.location,
    close: async () => {
      closing = true;
      context.jobs.cancelAll();
      await context.crawl.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}

/** Where a running server answers, and with which token. */
function address(host: string, port: number, token: string, options: ServeOptions, remote: boolean): Pick<RunningServer, 'url' | 'host' | 'port' | 'token' | 'generatedToken' | 'remote'> {
  const shown = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shown}:${port}/`, host, port, token, generatedToken: options.token === undefined, remote };
}

/** An HTTP server for `app` listening on host:port (0: a free one); a typed error names the option at fault. */
async function listen(app: Hono, host: string, port: number): Promise<Server> {
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  // SSE streams stay open: no request timeout for them; idle keep-alive sockets close quickly.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 5000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new OptionError(e.code === 'EADDRINUSE' ? '--port' : '--host', `cannot listen on ${host}:${port}: ${e.code ?? e.message}`);
  }
  return server;
}

/** `wga serve --graph G.wgc`: the graph file's API and GUI; the file is checked before listening. */
async function startGraphServer(graph: string, options: ServeOptions, host: string, token: string, log: (text: string) => void): Promise<RunningServer> {
  // A missing or damaged file is the user's error now, not every request's later.
  if (!isCompactPath(graph)) throw new OptionError('--graph', `expects a compact graph file (.wgc), got '${graph}': convert it first (wga convert ${graph} GRAPH.wgc), or import it into a store and serve that (--db)`);
  compactInfo(graph);
  const context: GraphServerContext = {
    graph,
    version: version(),
    token,
    remote: options.remote ?? !isLoopback(host),
    allowedHosts: new Set(),
    files: new StaticFiles(options.webRoot ?? DEFAULT_WEB_ROOT, token),
    log,
  };
  const server = await listen(buildGraphRoutes(context), host, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  for (const allowed of allowedHosts(host, port)) context.allowedHosts.add(allowed);
  return {
    ...address(host, port, token, options, context.remote),
    store: null,
    serving: graph,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
