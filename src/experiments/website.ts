/**
 * A generated website to crawl on loopback: the demo's site, the crawler's
 * test site and the benchmark's. Pages /p/N.html (N = 0 is also "/") link
 * along a power-law web graph (generators.ts, in-degree ~ k^-2.1) plus a
 * tree (page N is linked from page floor((N - 1) / 8)) so that every page is
 * reachable from the home page. The hazards of real sites are optional:
 * - broken links: some pages link to /missing/N.html (404);
 * - redirects: some links go through /go/N (301 to /p/N.html), a few through
 *   /old/N (301 to /go/N: a chain), and the home page links to a loop
 *   /loop/a -> /loop/b -> /loop/a;
 * - robots.txt disallows /private/, which some pages link to;
 * - a spider trap: /calendar/N.html links to /calendar/(N+1).html, forever;
 * - files: links to /files/N.pdf (not a page) and /data/N.json (not HTML).
 * Everything is a pure function of the options: the same seed, the same site.
 */
import { powerLawGraph } from './generators.js';
import { Random } from '../util/random.js';

export interface WebsiteOptions {
  pages: number;
  seed?: number;
  /** Add the hazards listed above: true. */
  hazards?: boolean;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class Website {
  readonly pages: number;
  readonly hazards: boolean;
  /** CSR out-links between pages (tree and power-law links, distinct, no self-links). */
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  private readonly extra: Map<number, string[]> = new Map();

  constructor(options: WebsiteOptions) {
    this.pages = options.pages;
    this.hazards = options.hazards ?? true;
    const seed = options.seed ?? 1;
    const { graph } = powerLawGraph({ nodes: this.pages, seed, danglingShare: 0.1 });
    const lists: number[][] = Array.from({ length: this.pages }, () => []);
    for (let u = 0; u < this.pages; u++) {
      const seen = new Set<number>();
      if (u > 0) {
        const parent = Math.floor((u - 1) / 8);
        lists[parent]!.push(u);
      }
      for (let e = graph.outOffsets[u]!; e < graph.outOffsets[u + 1]!; e++) {
        const v = graph.outTargets[e]!;
        if (v !== u && !seen.has(v)) {
          seen.add(v);
          lists[u]!.push(v);
        }
      }
    }
    this.offsets = new Int32Array(this.pages + 1);
    let total = 0;
    const distinct = lists.map((list, u) => [...new Set(list)].filter((v) => v !== u));
    for (let u = 0; u < this.pages; u++) {
      this.offsets[u] = total;
      total += distinct[u]!.length;
    }
    this.offsets[this.pages] = total;
    this.targets = new Int32Array(total);
    distinct.forEach((list, u) => this.targets.set(list, this.offsets[u]!));
    if (this.hazards) this.addHazards(new Random(seed + 7));
  }

  /** Path of page n. */
  static path(n: number): string {
    return n === 0 ? '/' : `/p/${n}.html`;
  }

  /** Page number of a page path, or -1. */
  static pageOf(path: string): number {
    if (path === '/' || path === '/index.html') return 0;
    const match = /^\/p\/(\d+)\.html$/.exec(path);
    return match === null ? -1 : Number(match[1]);
  }

  private addHazards(random: Random): void {
    const add = (page: number, href: string): void => {
      const list = this.extra.get(page) ?? [];
      list.push(href);
      this.extra.set(page, list);
    };
    add(0, '/loop/a');
    add(0, '/calendar/0.html');
    add(0, '/robots-test/');
    for (let n = 1; n < this.pages; n++) {
      if (n % 50 === 0) add(n, `/missing/${n}.html`);
      if (n % 40 === 3) add(n, `/go/${random.nextInt(this.pages)}`);
      if (n % 200 === 7) add(n, `/old/${random.nextInt(this.pages)}`);
      if (n % 60 === 11) add(n, `/private/${n}.html`);
      if (n % 90 === 13) add(n, `/files/${n}.pdf`);
      if (n % 90 === 17) add(n, `/data/${n}.json`);
    }
  }

  /** The answer to GET `path` (without query). */
  answer(path: string): Answer {
    const page = Website.pageOf(path);
    if (page >= 0 && page < this.pages) return html(this.render(page));
    if (path === '/robots.txt') {
      return { status: 200, headers: { 'content-type': 'text/plain' }, body: this.hazards ? 'User-agent: *\nDisallow: /private/\n' : 'User-agent: *\nDisallow:\n' };
    }
    if (this.hazards) {
      let match = /^\/go\/(\d+)$/.exec(path);
      if (match !== null && Number(match[1]) < this.pages) return redirect(Website.path(Number(match[1])));
      match = /^\/old\/(\d+)$/.exec(path);
      if (match !== null) return redirect(`/go/${match[1]}`);
      if (path === '/loop/a') return redirect('/loop/b');
      if (path === '/loop/b') return redirect('/loop/a');
      match = /^\/calendar\/(\d+)\.html$/.exec(path);
      if (match !== null) {
        const n = Number(match[1]);
        return html(document(`Calendar ${n}`, [`/calendar/${n + 1}.html`, '/']));
      }
      match = /^\/private\/(\d+)\.html$/.exec(path);
      if (match !== null) return html(document('Private', ['/']));
      match = /^\/data\/(\d+)\.json$/.exec(path);
      if (match !== null) return { status: 200, headers: { 'content-type': 'application/json' }, body: `{"page":${match[1]}}` };
      if (path === '/robots-test/') return html(document('Robots test', ['/private/secret.html']));
    }
    return { status: 404, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>Not found</title><h1>404</h1>' };
  }

  /** The HTML of page n. */
  render(n: number): string {
    const links: string[] = [];
    for (let e = this.offsets[n]!; e < this.offsets[n + 1]!; e++) links.push(Website.path(this.targets[e]!));
    for (const href of this.extra.get(n) ?? []) links.push(href);
    return document(`Page ${n}`, links);
  }
}

function document(title: string, links: readonly string[]): string {
  const items = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1>
<p>A page of a generated website, made to be crawled on loopback by wga.</p>
<ul>
${items}
</ul></body></html>
`;
}

function html(body: string): Answer {
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body };
}

function redirect(location: string): Answer {
  return { status: 301, headers: { location, 'content-type': 'text/html' }, body: '' };
}
