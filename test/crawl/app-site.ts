/**
 * A generated single-page application for the rendering tests (render.test.ts) and the rendering
 * benchmark (bench/crawl-render.ts): the server answers every page path with the same HTML shell,
 * and its script builds each page's links from a JSON route table (/routes.json), the way an SPA's
 * router does. Besides the routed pages /p/0 ... /p/(N-1):
 * - /p/moved: its script moves it to /p/moved-to with the history API (replaceState);
 * - /p/timer: its links appear 300 ms after load, from a timer (no request);
 * - /p/never: its DOM changes every 20 ms forever (it never settles: only a renderer starved for
 *   longer than the quiet time would see it quiet);
 * - /p/hang (with `hang`): its script never returns (the render times out, the page's HTML stands);
 * - /static.html: a page of plain HTML, no script (--render auto must not render it);
 * - the shell asks for subresources the crawl must refuse: a script on 127.0.0.2 (a refused
 *   address when only 127.0.0.1 is allowed), a fetch of /private/data.json (robots.txt disallows
 *   /private/), and an image (a type not loaded by default).
 * `links` is what a browser user reaches by clicking from /p/0: "source target" URL pairs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AppSite {
  origin: string;
  /** The server on 127.0.0.2 (same port) the shell's refused script points at. */
  refusedOrigin: string;
  /** Every request each server answered: "host path". */
  log: string[];
  refusedLog: string[];
  /** Routed page URLs (the seed is pages[0]). */
  pages: string[];
  /** "source target" for every anchor a user can click, by URL. */
  links: Set<string>;
  /** Of those, the nofollow ones. */
  nofollow: Set<string>;
  close(): Promise<void>;
}

/** The route table: page i links to 2i+1, 2i+2 (a tree: every page reachable) and to i+7 (cross links). */
function routeTable(n: number): Record<string, string[]> {
  const routes: Record<string, string[]> = {};
  for (let i = 0; i < n; i++) {
    const to = [2 * i + 1, 2 * i + 2, i + 7].filter((j) => j < n && j !== i).map((j) => `/p/${j}`);
    routes[`/p/${i}`] = [...new Set(to)];
  }
  routes['/p/0']!.push('/p/moved', '/p/timer', '/p/never', '/static.html');
  routes['/p/moved-to'] = ['/p/3'];
  routes['/p/timer'] = ['/p/4', '/p/5'];
  routes['/p/never'] = ['/p/6'];
  return routes;
}

const APP_JS = `
(async () => {
  const routes = await (await fetch('/routes.json')).json();
  let path = location.pathname;
  if (path === '/p/moved') { history.replaceState(null, '', '/p/moved-to'); path = '/p/moved-to'; }
  const nav = document.getElementById('app');
  const draw = (targets) => {
    for (const to of targets) {
      const a = document.createElement('a');
      a.href = to;
      a.textContent = to;
      if (path === '/p/0' && to === '/p/1') a.rel = 'nofollow';
      a.addEventListener('click', (e) => { e.preventDefault(); history.pushState(null, '', to); });
      nav.appendChild(a);
    }
  };
  document.title = 'App ' + path;
  if (path === '/p/timer') setTimeout(() => draw(routes[path] || []), 300);
  else draw(routes[path] || []);
  if (path === '/p/never') { let n = 0; setInterval(() => { nav.dataset.tick = String(n++); }, 20); }
  if (window.PROBES) fetch('/private/data.json').catch(() => undefined);
})();
`;

function shell(refusedOrigin: string | null): string {
  const evil = refusedOrigin === null ? '' : `<script src="${refusedOrigin}/evil.js"></script>`;
  const image = refusedOrigin === null ? '' : '<img src="/logo.png" alt="">';
  return `<!doctype html><html><head><title>Loading</title><script src="/app.js" defer></script>
${evil}</head>
<body><noscript>This application needs JavaScript.</noscript><div id="app"></div>${image}</body></html>`;
}

const STATIC_HTML = '<!doctype html><html><head><title>Static</title></head><body><p>Plain.</p><a href="/p/2">two</a> <a href="/p/8">eight</a></body></html>';

/**
 * Serves the application with `n` routed pages (at least 10) on 127.0.0.1, and the refused host on
 * 127.0.0.2. `probes: false` leaves out the requests a crawler must refuse (for benchmarks, where
 * crawlers without wga's rules would follow them).
 */
export async function serveAppSite(n: number, options: { probes?: boolean; hang?: boolean } = {}): Promise<AppSite> {
  const probes = options.probes ?? true;
  const routes = routeTable(n);
  // hang: /p/0 also links to /p/hang, whose script never returns (a render that must time out).
  if (options.hang === true) routes['/p/0']!.push('/p/hang');
  const routesJson = JSON.stringify(routes);
  const log: string[] = [];
  const refusedLog: string[] = [];
  const site = { origin: '', refusedOrigin: '' };
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    log.push(`${request.headers.host ?? ''} ${path}`);
    const send = (status: number, type: string, body: string): void => {
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    if (path === '/robots.txt') send(200, 'text/plain', 'User-agent: *\nDisallow: /private/\n');
    else if (path === '/app.js') send(200, 'text/javascript', APP_JS);
    else if (path === '/routes.json') send(200, 'application/json', routesJson);
    else if (path === '/static.html') send(200, 'text/html; charset=utf-8', STATIC_HTML);
    else if (path === '/p/hang') send(200, 'text/html; charset=utf-8', '<!doctype html><title>Hang</title><script>for (;;) {}</script><a href="/p/1">1</a>');
    else if (path === '/' || path.startsWith('/p/')) send(200, 'text/html; charset=utf-8', shell(probes ? site.refusedOrigin : null).replace('<title>', probes ? '<script>window.PROBES = 1</script><title>' : '<title>'));
    else send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const refused: Server = createServer((request, response) => {
    refusedLog.push(`${request.headers.host ?? ''} ${request.url ?? ''}`);
    response.writeHead(200, { 'content-type': 'text/javascript' });
    response.end('document.body.append(Object.assign(document.createElement("a"), { href: "/p/evil" }));');
  });
  await new Promise<void>((resolve) => refused.listen(port, '127.0.0.2', resolve));
  site.origin = `http://127.0.0.1:${port}`;
  site.refusedOrigin = `http://127.0.0.2:${port}`;
  // What a user reaches by clicking from /p/0: the routed pages (the moved page shows /p/moved-to's links), and the static page's links.
  const links = new Set<string>();
  const nofollow = new Set<string>();
  const reached = new Set<string>(['/p/0']);
  const queue = ['/p/0'];
  const linksOf = (path: string): string[] => {
    if (path === '/static.html') return ['/p/2', '/p/8'];
    // Its HTML's link: what stands when its render fails.
    if (path === '/p/hang') return ['/p/1'];
    return routes[path === '/p/moved' ? '/p/moved-to' : path] ?? [];
  };
  while (queue.length > 0) {
    const path = queue.shift()!;
    for (const to of linksOf(path)) {
      links.add(`${site.origin}${path} ${site.origin}${to}`);
      if (path === '/p/0' && to === '/p/1') nofollow.add(`${site.origin}${path} ${site.origin}${to}`);
      if (!reached.has(to)) {
        reached.add(to);
        queue.push(to);
      }
    }
  }
  return {
    ...site,
    log,
    refusedLog,
    pages: [...reached].map((p) => `${site.origin}${p}`),
    links,
    nofollow,
    close: async () => {
      server.closeAllConnections();
      refused.closeAllConnections();
      await Promise.all([new Promise<void>((r) => server.close(() => r())), new Promise<void>((r) => refused.close(() => r()))]);
    },
  };
}
