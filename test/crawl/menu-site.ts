/**
 * A generated documentation-like site for --render auto's verdicts (render-auto.test.ts): pages of
 * plain HTML linked as a tree (/p/i links to /p/2i+1 and /p/2i+2), each with a script (/menu.js)
 * that writes a navigation menu, the way Doxygen and Sphinx manuals do. The menu links to /p/0,
 * /p/1 and /p/2, pages the crawl finds anyway; with `hidden`, it also links to /hidden/0 ...
 * /hidden/(HIDDEN-1), which no HTML links to (routes only a script writes): their own pages have the
 * same menu and a link back to /p/1.
 * `links` is what a browser user sees: "source target" URL pairs (served and menu links, no self-links).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const HIDDEN = 4;

export interface MenuSite {
  origin: string;
  /** Every page a browser user reaches, by URL. */
  pages: Set<string>;
  /** "source target" for every link a browser user sees. */
  links: Set<string>;
  /** Of those, the links only the menu writes ("source target"). */
  menuOnly: Set<string>;
  /** Page requests answered, by path (a page read again shows twice). */
  requests: Map<string, number>;
  close(): Promise<void>;
}

const MENU = ['/p/0', '/p/1', '/p/2'];

function menuScript(hidden: boolean): string {
  const targets = [...MENU, ...(hidden ? Array.from({ length: HIDDEN }, (_, j) => `/hidden/${j}`) : [])];
  return `(() => {
  const nav = document.createElement('nav');
  for (const to of ${JSON.stringify(targets)}) {
    const a = document.createElement('a');
    a.href = to;
    a.textContent = to;
    nav.appendChild(a);
  }
  document.body.prepend(nav);
})();`;
}

/** The served links of a page. */
function servedLinks(path: string, n: number): string[] {
  if (path.startsWith('/hidden/')) return ['/p/1'];
  const i = Number(path.slice(3));
  return [2 * i + 1, 2 * i + 2].filter((j) => j < n).map((j) => `/p/${j}`);
}

function page(path: string, n: number): string {
  const anchors = servedLinks(path, n).map((to) => `<li><a href="${to}">${to}</a></li>`).join('');
  // Enough links that no page is taken for an application shell; the menu script on every page.
  const filler = anchors === '' ? '<li><a href="#top">top</a></li><li><a href="#end">end</a></li><li><a href="#more">more</a></li>' : '';
  return `<!doctype html><html><head><title>Page ${path}</title><script src="/menu.js" defer></script></head>
<body><h1 id="top">${path}</h1><ul>${anchors}${filler}<li><a href="#a">a</a></li><li><a href="#b">b</a></li></ul><p id="end">Text.</p></body></html>`;
}

/** Serves the site with `n` tree pages on 127.0.0.1. */
export async function serveMenuSite(n: number, options: { hidden: boolean }): Promise<MenuSite> {
  const script = menuScript(options.hidden);
  const requests = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const send = (status: number, type: string, body: string): void => {
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    const isPage = (/^\/p\/\d+$/.test(path) && Number(path.slice(3)) < n) || (options.hidden && /^\/hidden\/\d+$/.test(path) && Number(path.slice(8)) < HIDDEN);
    if (isPage) requests.set(path, (requests.get(path) ?? 0) + 1);
    if (path === '/menu.js') send(200, 'text/javascript', script);
    else if (isPage) send(200, 'text/html; charset=utf-8', page(path, n));
    else send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const menu = [...MENU, ...(options.hidden ? Array.from({ length: HIDDEN }, (_, j) => `/hidden/${j}`) : [])];
  const paths = [...Array.from({ length: n }, (_, i) => `/p/${i}`), ...(options.hidden ? Array.from({ length: HIDDEN }, (_, j) => `/hidden/${j}`) : [])];
  const links = new Set<string>();
  const menuOnly = new Set<string>();
  for (const path of paths) {
    const served = servedLinks(path, n);
    for (const to of new Set([...served, ...menu])) {
      if (to === path) continue;
      links.add(`${origin}${path} ${origin}${to}`);
      if (!served.includes(to)) menuOnly.add(`${origin}${path} ${origin}${to}`);
    }
  }
  return {
    origin,
    pages: new Set(paths.map((p) => `${origin}${p}`)),
    links,
    menuOnly,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
