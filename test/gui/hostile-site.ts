/**
 * A small website whose titles, URLs and link texts carry the classic script-injection payloads,
 * served on loopback for the GUI's safety test: if any of them ran, it would set
 * window.__wgaPwned or open a dialog.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PAYLOADS = [
  '<script>window.__wgaPwned = 1; alert(1)</script>',
  '<img src=x onerror="window.__wgaPwned = 2; alert(2)">',
  '"><svg onload="window.__wgaPwned = 3; alert(3)">',
  "'><iframe srcdoc=\"<script>parent.__wgaPwned = 4</script>\">",
] as const;

/** javascript: URLs the pages link to; they must never become clickable. */
export const SCRIPT_URLS = ['javascript:window.__wgaPwned=5;alert(5)', 'JaVaScRiPt:window.__wgaPwned=6'] as const;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The pages: / links to /evil/N for every payload N, each titled with its payload (raw, as a hostile page would). */
export function hostilePage(path: string): { status: number; body: string } | null {
  const links = PAYLOADS.map((p, i) => `<a href="/evil/${i}/${encodeURIComponent(p)}">${p}</a>`).join('\n');
  const scriptLinks = SCRIPT_URLS.map((u) => `<a href="${escapeHtml(u)}">click me</a>`).join('\n');
  if (path === '/') return { status: 200, body: `<!doctype html><html><head><title>${PAYLOADS[0]} hostile home</title></head><body>${links}\n${scriptLinks}</body></html>` };
  const match = /^\/evil\/(\d+)\//.exec(path);
  if (match !== null) {
    const payload = PAYLOADS[Number(match[1])] ?? '';
    // The title carries the payload raw (a browser would run it; the GUI must show it as text).
    return { status: 200, body: `<!doctype html><html><head><title>${payload} hostile ${match[1]}</title></head><body><a href="/">${payload}</a> ${scriptLinks}</body></html>` };
  }
  return null;
}

export async function serveHostileSite(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('User-agent: *\nDisallow:\n');
      return;
    }
    const page = hostilePage(path);
    if (page === null) {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>Not found</title>');
      return;
    }
    response.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
