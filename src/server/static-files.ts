/**
 * The GUI's files from dist/web/ (built by the web front end's bundler). index.html gets the
 * server's token as `<meta name="wga-token">` and answers every GUI route (deep links such as
 * /page?url=... or /search?q=...), so the browser's address bar can be bookmarked and shared.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/web/, beside dist/src/ where this file is compiled to. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Shown until the front end is built (npm run build:web). */
const PLACEHOLDER = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>wga</title>
</head>
<body>
<h1>wga</h1>
<p>The GUI's files are not built (dist/web/index.html is missing). The JSON API answers under <a href="/api/info">/api/info</a>.</p>
</body>
</html>
`;

export class StaticFiles {
  private index: { mtimeMs: number; html: string } | null = null;

  constructor(
    private readonly root: string,
    private readonly token: string,
  ) {}

  /** A file under the root for a URL path, or null (no such file, or a path leaving the root). */
  async file(urlPath: string): Promise<{ body: Buffer; type: string } | null> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return null;
    }
    if (decoded.includes('\0') || decoded === '/' || decoded.endsWith('/')) return null;
    const path = normalize(join(this.root, decoded));
    if (!path.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep)) return null;
    if (extname(path) === '.html') return null; // pages are served by index() with the token
    try {
      const info = await stat(path);
      if (!info.isFile()) return null;
      return { body: await readFile(path), type: CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream' };
    } catch {
      return null;
    }
  }

  /** index.html (or the placeholder) with the token's meta tag in its head. */
  async indexHtml(): Promise<string> {
    const path = join(this.root, 'index.html');
    let html = PLACEHOLDER;
    try {
      const info = await stat(path);
      if (this.index !== null && this.index.mtimeMs === info.mtimeMs) return this.index.html;
      html = await readFile(path, 'utf8');
      const injected = inject(html, this.token);
      this.index = { mtimeMs: info.mtimeMs, html: injected };
      return injected;
    } catch {
      return inject(html, this.token);
    }
  }
}

/** Puts the token's meta tag first in <head> (the token is base64url: nothing to escape). */
export function inject(html: string, token: string): string {
  const meta = `<meta name="wga-token" content="${token}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head === null) return `${meta}\n${html}`;
  const at = head.index + head[0].length;
  return `${html.slice(0, at)}\n${meta}${html.slice(at)}`;
}
