/**
 * Client-side routes on location.pathname (`/crawl`, `/rank`, `/pages`, `/search?q=`, `/page?url=`,
 * `/graph`, `/data`), kept in the address bar with history.pushState so every view can be
 * bookmarked, shared and reloaded (the server answers index.html for these paths).
 */

/** What a view does when shown: fill `root`; the returned function (if any) runs when it is left. */
export type View = (root: HTMLElement, query: URLSearchParams) => void | (() => void) | Promise<void | (() => void)>;

export interface Route {
  path: string;
  title: string;
  view: View;
  /** The tab it belongs to (e.g. /page and /search under Pages). */
  tab: string;
}

let routes: Route[] = [];
let leave: (() => void) | null = null;
let outlet: HTMLElement | null = null;
let onShown: ((route: Route) => void) | null = null;
let generation = 0;
/** The view of `/`. */
let home = '/crawl';

export function startRouter(table: Route[], root: HTMLElement, shown: (route: Route) => void, homePath = '/crawl'): void {
  routes = table;
  home = homePath;
  outlet = root;
  onShown = shown;
  window.addEventListener('popstate', () => void show());
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = (event.target as Element | null)?.closest?.('a[data-route]');
    if (!(a instanceof HTMLAnchorElement)) return;
    event.preventDefault();
    navigate(a.pathname + a.search);
  });
  void show();
}

/** Goes to an in-app URL (path and query), adding a history entry. */
export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  void show();
}

/** Changes the query of the current view in the address bar without showing it again. */
export function setQuery(params: Record<string, string>): void {
  const query = new URLSearchParams(params).toString();
  history.replaceState(null, '', query === '' ? location.pathname : `${location.pathname}?${query}`);
}

async function show(): Promise<void> {
  if (outlet === null) return;
  const mine = ++generation;
  leave?.();
  leave = null;
  const path = location.pathname === '/' ? home : location.pathname.replace(/\/+$/, '');
  const route = routes.find((r) => r.path === path) ?? routes.find((r) => r.path === '/not-found')!;
  document.title = `${route.title} · wga`;
  onShown?.(route);
  const container = document.createElement('section');
  container.className = 'view';
  container.dataset.view = route.path.slice(1);
  outlet.replaceChildren(container);
  try {
    const cleanup = await route.view(container, new URLSearchParams(location.search));
    if (typeof cleanup === 'function') {
      if (mine === generation) leave = cleanup;
      else cleanup();
    }
  } catch (error) {
    const box = document.createElement('div');
    box.className = 'notice error';
    box.setAttribute('role', 'alert');
    box.textContent = error instanceof Error ? error.message : String(error);
    container.appendChild(box);
  }
}
