/**
 * The crawl benchmark's web server, run as a process of its own so that
 * serving pages does not take CPU from the crawler being measured (both
 * share the machine's cores, as every contender does with the same server).
 * It listens on 127.0.0.1, port 0, and prints one JSON line
 * {"origin": "http://127.0.0.1:PORT", ...} on stdout once it is ready; it
 * stops on SIGTERM, SIGINT or when its stdin closes (its parent died).
 *
 *   node dist/bench/crawl/serve.js website --pages 100000 --seed 1 [--hazards]
 *   node dist/bench/crawl/serve.js static DIR
 *   node dist/bench/crawl/serve.js wide --fanout 200
 *
 * - website: the generated site of src/experiments/website.ts, through
 *   src/experiments/website-server.ts (pages are rendered on each request);
 * - static: the files of DIR (the PostgreSQL manual), read into memory at the
 *   start so that the disk is not measured; "/" is index.html;
 * - wide: an unbounded tree in which every page links to FANOUT new pages of
 *   its own, so after k fetches about k * FANOUT URLs are known and not
 *   fetched, whatever the order of the fetches: the site that measures what
 *   a known but unfetched URL costs a crawler in memory.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { Website } from '../../src/experiments/website.js';
import { serveWebsite } from '../../src/experiments/website-server.js';
import { widePath } from './paths.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.js': 'text/javascript',
  '.txt': 'text/plain',
};

const NOT_FOUND = '<!doctype html><title>Not found</title><h1>404</h1>';


function widePage(n: number, fanout: number): string {
  const links: string[] = [];
  // Page n's children are n * fanout + 1 ... n * fanout + fanout: a tree, so no URL is linked twice.
  for (let i = 1; i <= fanout; i++) {
    const child = n * fanout + i;
    links.push(`<li><a href="${widePath(child)}">item ${child}</a></li>`);
  }
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>Item ${n}</title></head>\n<body><h1>Item ${n}</h1>\n<ul>\n${links.join('\n')}\n</ul></body></html>\n`;
}

async function listen(server: Server): Promise<string> {
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function serveStatic(root: string): Promise<{ origin: string; files: number; bytes: number; close: () => Promise<void> }> {
  const files = new Map<string, Buffer>();
  let bytes = 0;
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (!statSync(path).isFile()) continue;
    const body = readFileSync(path);
    files.set(`/${name}`, body);
    bytes += body.length;
  }
  const server = createServer((request, response) => {
    let path = (request.url ?? '/').split('?')[0]!;
    if (path === '/') path = '/index.html';
    try {
      path = decodeURIComponent(path);
    } catch {
      // A malformed escape is simply not a file.
    }
    const body = files.get(path);
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end(NOT_FOUND);
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream', 'content-length': body.length });
    response.end(body);
  });
  return listen(server).then((origin) => ({
    origin,
    files: files.size,
    bytes,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }));
}

function serveWide(fanout: number): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const match = path === '/' ? ['/', '0'] : /^\/catalogue\/item-(\d+)\/details\.html$/.exec(path);
    if (match === null || !Number.isSafeInteger(Number(match[1]))) {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end(NOT_FOUND);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(widePage(Number(match[1]), fanout));
  });
  return listen(server).then((origin) => ({
    origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }));
}

async function main(argv: string[]): Promise<void> {
  const [kind, ...rest] = argv;
  const option = (name: string, fallback: string): string => {
    const at = rest.indexOf(name);
    return at >= 0 && rest[at + 1] !== undefined ? rest[at + 1]! : fallback;
  };
  let served: { origin: string; close: () => Promise<void> } & Record<string, unknown>;
  if (kind === 'website') {
    const pages = Number(option('--pages', '100000'));
    const seed = Number(option('--seed', '1'));
    const site = new Website({ pages, seed, hazards: rest.includes('--hazards') });
    served = { ...(await serveWebsite(site)), pages, links: site.targets.length };
  } else if (kind === 'static') {
    if (rest[0] === undefined) throw new Error('static needs a directory');
    served = await serveStatic(rest[0]);
  } else if (kind === 'wide') {
    served = { ...(await serveWide(Number(option('--fanout', '200')))) };
  } else throw new Error(`unknown site kind ${kind ?? '(none)'}: website, static or wide`);
  const { close, requests: _requests, ...facts } = served;
  // The parent gone (a broken pipe): nothing left to serve.
  process.stdout.on('error', () => process.exit(0));
  process.stdout.write(`${JSON.stringify(facts)}\n`);
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    void close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`serve: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
