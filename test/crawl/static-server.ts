/**
 * A static file server for crawl tests: serves one directory on 127.0.0.1 and
 * an ephemeral port with node:http, and counts the requests for every path, so
 * a test can check that a crawler fetched each page once and nothing else.
 * GET and HEAD only; a path that is not a regular file inside the directory
 * (missing, a directory, or outside it through "..", an encoded slash or a
 * symbolic link) is 404.
 */
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
};

/** The Content-Type a file is served with, from its extension. */
export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

export interface StaticServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  origin: string;
  /** Requests received per decoded path (404s included), e.g. "/index.html". */
  requests: Map<string, number>;
  close(): Promise<void>;
}

/**
 * The file a request path names inside `root` (a real path), or null. The path is decoded
 * once; segments that are empty, "." or ".." or contain a slash or backslash after decoding
 * are refused rather than resolved, and the file's real path must still be inside the root.
 */
export function fileFor(root: string, pathname: string): string | null {
  let decoded: string[];
  try {
    decoded = pathname.split('/').slice(1).map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  if (decoded.length === 0 || decoded.some((s) => s === '' || s === '.' || s === '..' || /[\\/\0]/.test(s))) return null;
  try {
    const real = realpathSync(join(root, ...decoded));
    if (!real.startsWith(root + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** Serves `directory` until close(). */
export async function serveDirectory(directory: string): Promise<StaticServer> {
  const root = realpathSync(directory);
  const requests = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.set(url.pathname, (requests.get(url.pathname) ?? 0) + 1);
    const file = request.method === 'GET' || request.method === 'HEAD' ? fileFor(root, url.pathname) : null;
    if (file === null) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found\n');
      return;
    }
    response.writeHead(200, { 'content-type': contentTypeOf(file), 'content-length': statSync(file).size });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    const stream = createReadStream(file);
    stream.on('error', () => response.destroy());
    stream.pipe(response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
