/**
 * What every request of either server (a store's, a graph file's) goes through first: security
 * headers on every answer, a Host of ours (DNS rebinding), the token beyond loopback and for every
 * change, and errors as the API's JSON (http-errors.ts).
 */
import type { Hono } from 'hono';
import { HttpError, toErrorResponse } from './http-errors.js';
import { SECURITY_HEADERS, TOKEN_COOKIE, TOKEN_HEADER, sameToken } from './security.js';
import type { StaticFiles } from './static-files.js';

export interface GuardContext {
  token: string;
  /** Listening beyond loopback: every request needs the token (header, cookie or ?token=). */
  remote: boolean;
  /** Host header values accepted (set once listening, when the port is known). */
  allowedHosts: Set<string>;
  log: (text: string) => void;
}

export function guard(app: Hono, server: GuardContext): void {
  app.onError((error, c) => {
    const { status, body } = toErrorResponse(error, server.log);
    return c.json(body, status as 400);
  });

  // Every answer: security headers. Every request: a Host of ours (DNS rebinding), and the token where needed.
  app.use('*', async (c, next) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    const host = (c.req.header('host') ?? '').toLowerCase();
    if (!server.allowedHosts.has(host)) {
      throw new HttpError(403, 'bad-host', `Host '${host.slice(0, 100)}' is not this server's; use the address it printed`);
    }
    const method = c.req.method;
    const header = c.req.header(TOKEN_HEADER);
    if (server.remote) {
      const cookie = /(?:^|;\s*)wga_token=([^;]*)/.exec(c.req.header('cookie') ?? '')?.[1];
      const given = c.req.query('token') || undefined;
      if (given !== undefined && sameToken(given, server.token) && method === 'GET' && !c.req.path.startsWith('/api/')) {
        // Opened with ?token=: keep it in a cookie for this site's later requests (and EventSource), then drop it from the address.
        const url = new URL(c.req.url);
        url.searchParams.delete('token');
        c.header('Set-Cookie', `${TOKEN_COOKIE}=${server.token}; Path=/; HttpOnly; SameSite=Strict`);
        return c.redirect(`${url.pathname}${url.search}`, 303);
      }
      if (!sameToken(header, server.token) && !sameToken(cookie, server.token)) {
        throw new HttpError(403, 'forbidden', 'this server listens beyond loopback: open it with the ?token= address it printed, or send the X-WGA-Token header');
      }
    }
    if (method !== 'GET' && method !== 'HEAD' && !sameToken(header, server.token)) {
      throw new HttpError(403, 'forbidden', `${method} needs the server's token in the X-WGA-Token header (the page has it in <meta name="wga-token">)`);
    }
    await next();
    return undefined;
  });
}

/** After the API routes: the GUI's files, else index.html for every page route (deep links); only GET. */
export function serveGui(app: Hono, files: StaticFiles): void {
  app.get('*', async (c) => {
    const file = await files.file(c.req.path);
    if (file !== null) return c.body(new Uint8Array(file.body), 200, { 'Content-Type': file.type });
    c.header('Cache-Control', 'no-store');
    return c.html(await files.indexHtml());
  });
  app.all('*', () => {
    throw new HttpError(405, 'bad-request', 'only GET is answered outside /api/');
  });
}
