/**
 * A site audit from the graph a crawl stored: the problems an SEO analyst looks for first, each as a
 * check with the pages it found and the evidence (what Screaming Frog's SEO Spider reports, from
 * what wga records). Pure: the pages and links come in as arrays, the checks go out; app/audit.ts
 * reads them from a store.
 *
 * Which pages a check looks at:
 * - "HTML pages": answered 2xx, no fetch error, HTML (or no content type), role page (not a sitemap).
 * - "indexable": an HTML page without noindex (meta robots or X-Robots-Tag) and not canonicalised
 *   to another URL.
 * Link kinds: the links of the web graph (anchor, area, frame, iframe, refresh, redirect) make a page
 * "linked"; a sitemap's links make it "in a sitemap"; canonical links name a page's canonical URL.
 */

export type AuditCheckId =
  | 'broken-links'
  | 'redirect-chains'
  | 'missing-title'
  | 'duplicate-title'
  | 'missing-description'
  | 'duplicate-description'
  | 'missing-h1'
  | 'multiple-h1'
  | 'noindex'
  | 'canonicalised'
  | 'canonical-broken'
  | 'orphan'
  | 'not-in-sitemap'
  | 'exact-duplicates'
  | 'near-duplicates'
  | 'deep'
  | 'slow';

export const AUDIT_CHECKS: readonly AuditCheckId[] = [
  'broken-links', 'redirect-chains', 'missing-title', 'duplicate-title', 'missing-description', 'duplicate-description', 'missing-h1', 'multiple-h1',
  'noindex', 'canonicalised', 'canonical-broken', 'orphan', 'not-in-sitemap', 'exact-duplicates', 'near-duplicates', 'deep', 'slow',
];

/** What each check finds, in one line (the table's heading, the docs). */
export const AUDIT_CHECK_TITLES: Record<AuditCheckId, string> = {
  'broken-links': 'pages answering 4xx or 5xx, or failing, with the pages linking to them',
  'redirect-chains': 'redirects followed twice or more, loops, and redirects ending on a broken page',
  'missing-title': 'HTML pages without a title',
  'duplicate-title': 'indexable pages sharing their title with another',
  'missing-description': 'HTML pages without a meta description',
  'duplicate-description': 'indexable pages sharing their meta description with another',
  'missing-h1': 'HTML pages without an h1 heading',
  'multiple-h1': 'HTML pages with more than one h1 heading',
  noindex: 'HTML pages a meta robots tag or an X-Robots-Tag header keeps out of the index',
  canonicalised: 'pages whose canonical link names another URL',
  'canonical-broken': 'pages whose canonical URL answered other than 200',
  orphan: 'pages listed in a sitemap that no crawled page links to',
  'not-in-sitemap': 'indexable, linked pages of a host with a sitemap that no sitemap lists',
  'exact-duplicates': 'groups of HTML pages with the same body',
  'near-duplicates': 'groups of HTML pages whose text is nearly the same (SimHash)',
  deep: 'HTML pages more clicks from the seeds than --max-depth-ok',
  slow: 'pages whose answer took longer than --slow-ms',
};

/** Link kinds as the store codes them (records.ts LINK_KIND_NAMES order). */
export const enum AuditLinkKind {
  Anchor = 0,
  Redirect = 1,
  Canonical = 2,
  Area = 3,
  Frame = 4,
  Iframe = 5,
  Refresh = 6,
  Alternate = 7,
  Sitemap = 8,
}

/** The meta robots and X-Robots-Tag bits (ROBOTS_NOINDEX, ROBOTS_NOFOLLOW). */
export const ROBOTS_NOINDEX = 1;
export const ROBOTS_NOFOLLOW = 2;

export interface AuditPage {
  url: string;
  status: number | null;
  error: string | null;
  contentType: string | null;
  /** 0 page, 1 sitemap. */
  role: number;
  depth: number | null;
  title: string | null;
  contentHash: string | null;
  /** Page fields recorded from store version 7 on; undefined: not recorded (the check says so). */
  description?: string | null;
  h1Count?: number | null;
  h1?: string | null;
  /** ROBOTS_NOINDEX | ROBOTS_NOFOLLOW, from the meta tag and the header together. */
  robots?: number | null;
  responseMs?: number | null;
  /** 64-bit SimHash of the visible text, as 16 hexadecimal digits. */
  simhash?: string | null;
  words?: number | null;
}

export interface AuditLinks {
  source: Int32Array;
  target: Int32Array;
  kind: Uint8Array;
}

export interface AuditOptions {
  /** Depth past which a page is deep. */
  maxDepthOk: number;
  /** Response time past which a page is slow, ms. */
  slowMs: number;
  /** Differing bits of two SimHashes at most for near-duplicates. */
  nearBits: number;
  /** Checks to run (default: all). */
  checks?: readonly AuditCheckId[];
  /** SimHash comparisons at most for near-duplicates (DEFAULT_NEAR_PAIRS). */
  nearPairs?: number;
}

/** Comparisons of two texts' SimHashes at most (about a second): a budget for sites of 10^6 similar pages. */
export const DEFAULT_NEAR_PAIRS = 100_000_000;

/**
 * Defaults. nearBits 7: SimHash bits differ with probability angle / pi (Charikar), so a one-word
 * edit of a 400-word text moves about 1.4 of 64 bits; in 2,000 such edits at most 7 moved, while
 * unrelated texts differ in 32 +- 4 bits (the least of 2,000 pairs: 19).
 */
export const DEFAULT_AUDIT_OPTIONS: AuditOptions = { maxDepthOk: 3, slowMs: 1000, nearBits: 7 };

export interface AuditFinding {
  url: string;
  [evidence: string]: unknown;
}

export interface AuditCheck {
  id: AuditCheckId;
  title: string;
  count: number;
  pages: AuditFinding[];
  /** Why the check could not look (a field the store does not record), when so. */
  unavailable?: string;
  /** A cap that bit (the pages are those found within it). */
  note?: string;
}

/** Why a check of the fields recorded from store version 7 on could not look. */
const NOT_RECORDED = 'no page of the store was read with the fields this check needs (crawled before wga recorded them: crawl again)';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const GRAPH_KIND = new Uint8Array(16);
for (const k of [AuditLinkKind.Anchor, AuditLinkKind.Area, AuditLinkKind.Frame, AuditLinkKind.Iframe, AuditLinkKind.Refresh, AuditLinkKind.Redirect]) GRAPH_KIND[k] = 1;
const KIND_NAMES = ['anchor', 'redirect', 'canonical', 'area', 'frame', 'iframe', 'refresh', 'alternate', 'sitemap'];

function isHtml(p: AuditPage): boolean {
  return p.role === 0 && p.error === null && p.status !== null && p.status >= 200 && p.status < 300 && (p.contentType === null || HTML_TYPES.has(p.contentType));
}

function isBroken(p: AuditPage): boolean {
  if (p.status !== null && p.status >= 400) return true;
  return p.error !== null && !p.error.startsWith('excluded:') && (p.status === null || p.status < 400);
}

/** A 3xx answer: followed, or one the crawler found looping or too long ('redirect loop', 'more than N redirects'). */
function isRedirect(p: AuditPage): boolean {
  return p.status !== null && p.status >= 300 && p.status < 400 && (p.error === null || /redirect/.test(p.error));
}

/** A page's answer in a few words: its status, or why there was none ('HTTP 404' is said as 404). */
function answerOf(p: AuditPage): string {
  if (p.status === null && p.error === null) return 'not fetched';
  if (p.error === null || p.error === `HTTP ${p.status}`) return String(p.status);
  return p.status === null ? p.error : `${p.status} (${p.error})`;
}

/** Out-links by page (CSR), every kind. */
interface Adjacency {
  offsets: Int32Array;
  targets: Int32Array;
  kinds: Uint8Array;
}

function adjacency(n: number, links: AuditLinks, reverse: boolean): Adjacency {
  const from = reverse ? links.target : links.source;
  const to = reverse ? links.source : links.target;
  const offsets = new Int32Array(n + 1);
  for (let e = 0; e < from.length; e++) offsets[from[e]! + 1]!++;
  for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
  const fill = offsets.slice(0, n);
  const targets = new Int32Array(from.length);
  const kinds = new Uint8Array(from.length);
  for (let e = 0; e < from.length; e++) {
    const at = fill[from[e]!]!++;
    targets[at] = to[e]!;
    kinds[at] = links.kind[e]!;
  }
  return { offsets, targets, kinds };
}

/** Runs the checks over the pages and links; pages and findings in URL order. */
export function audit(pages: readonly AuditPage[], links: AuditLinks, options: AuditOptions = DEFAULT_AUDIT_OPTIONS): AuditCheck[] {
  const n = pages.length;
  const out = adjacency(n, links, false);
  const into = adjacency(n, links, true);
  const html = pages.map(isHtml);
  const canonicalOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    for (let e = out.offsets[i]!; e < out.offsets[i + 1]!; e++) if (out.kinds[e] === AuditLinkKind.Canonical && out.targets[e] !== i) canonicalOf[i] = out.targets[e]!;
  }
  const noindex = (i: number): boolean => ((pages[i]!.robots ?? 0) & ROBOTS_NOINDEX) !== 0;
  const indexable = (i: number): boolean => html[i]! && !noindex(i) && canonicalOf[i] === -1;
  const has = (field: keyof AuditPage): boolean => pages.some((p) => p[field] !== undefined && p[field] !== null);
  // An HTML page read with the audit's fields (a store may hold pages read before wga recorded them).
  const read = (i: number): boolean => html[i]! && pages[i]!.h1Count !== undefined && pages[i]!.h1Count !== null;
  /** A cap that bit, per check. */
  const notes = new Map<AuditCheckId, string>();
  const byUrl = (a: AuditFinding, b: AuditFinding): number => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);

  const linkersOf = (i: number): Array<{ url: string; kind: string }> => {
    const list: Array<{ url: string; kind: string }> = [];
    for (let e = into.offsets[i]!; e < into.offsets[i + 1]!; e++) list.push({ url: pages[into.targets[e]!]!.url, kind: KIND_NAMES[into.kinds[e]!] ?? 'anchor' });
    return list.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : a.kind < b.kind ? -1 : 1));
  };
  const linkedFromGraph = (i: number): boolean => {
    for (let e = into.offsets[i]!; e < into.offsets[i + 1]!; e++) if (GRAPH_KIND[into.kinds[e]!] === 1 && into.targets[e] !== i) return true;
    return false;
  };
  const inSitemap = (i: number): boolean => {
    for (let e = into.offsets[i]!; e < into.offsets[i + 1]!; e++) if (into.kinds[e] === AuditLinkKind.Sitemap) return true;
    return false;
  };
  const redirectTarget = (i: number): number => {
    for (let e = out.offsets[i]!; e < out.offsets[i + 1]!; e++) if (out.kinds[e] === AuditLinkKind.Redirect) return out.targets[e]!;
    return -1;
  };
  /** Groups of pages by a text key (trimmed, blank ones left out), each of two pages or more. */
  const groupsBy = (accept: (i: number) => boolean, key: (i: number) => string | null | undefined, evidence: string): AuditFinding[] => {
    const groups = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      if (!accept(i)) continue;
      const k = key(i)?.trim();
      if (k === undefined || k === '') continue;
      const group = groups.get(k);
      if (group === undefined) groups.set(k, [i]);
      else group.push(i);
    }
    const found: AuditFinding[] = [];
    for (const [k, group] of groups) {
      if (group.length < 2) continue;
      const urls = group.map((j) => pages[j]!.url).sort();
      for (const i of group) found.push({ url: pages[i]!.url, [evidence]: k, group: group.length, others: othersOf(urls, pages[i]!.url) });
    }
    return found;
  };
  const each = (accept: (i: number) => boolean, evidence: (i: number) => Record<string, unknown> = () => ({})): AuditFinding[] => {
    const found: AuditFinding[] = [];
    for (let i = 0; i < n; i++) if (accept(i)) found.push({ url: pages[i]!.url, ...evidence(i) });
    return found;
  };

  const run: Record<AuditCheckId, () => AuditFinding[] | string> = {
    'broken-links': () => each((i) => isBroken(pages[i]!), (i) => ({ answer: answerOf(pages[i]!), linkers: linkersOf(i) })),
    'redirect-chains': () => {
      const found: AuditFinding[] = [];
      // A chain starts at a redirect no other redirect leads to; a loop no chain enters starts at its first URL.
      const entered = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        if (!isRedirect(pages[i]!)) continue;
        const t = redirectTarget(i);
        if (t >= 0 && t !== i && isRedirect(pages[t]!)) entered[t] = 1;
      }
      const reported = new Uint8Array(n);
      const follow = (start: number): void => {
        const hops: Array<{ url: string; answer: string }> = [];
        const seen = new Set<number>();
        let at = start;
        let loop = false;
        while (at >= 0 && isRedirect(pages[at]!)) {
          if (seen.has(at)) {
            loop = true;
            break;
          }
          seen.add(at);
          reported[at] = 1;
          hops.push({ url: pages[at]!.url, answer: answerOf(pages[at]!) });
          // The crawler found the loop here (it does not link a redirect back into its chain).
          if (/loop/.test(pages[at]!.error ?? '')) {
            loop = true;
            break;
          }
          at = redirectTarget(at);
        }
        const end = at >= 0 && !loop ? pages[at]! : null;
        if (end !== null) hops.push({ url: end.url, answer: answerOf(end) });
        const redirects = seen.size;
        const endsBroken = end !== null && isBroken(end);
        if (redirects >= 2 || loop || endsBroken) {
          found.push({ url: pages[start]!.url, redirects, loop, endsBroken, final: end === null ? null : end.url, hops });
        }
      };
      for (let i = 0; i < n; i++) if (isRedirect(pages[i]!) && entered[i] === 0) follow(i);
      for (let i = 0; i < n; i++) if (isRedirect(pages[i]!) && reported[i] === 0) follow(i);
      return found;
    },
    'missing-title': () => each((i) => html[i]! && (pages[i]!.title ?? '').trim() === ''),
    'duplicate-title': () => groupsBy(indexable, (i) => pages[i]!.title, 'title'),
    'missing-description': () => (has('h1Count') ? each((i) => read(i) && (pages[i]!.description ?? '').trim() === '') : NOT_RECORDED),
    'duplicate-description': () => (has('h1Count') ? groupsBy((i) => read(i) && indexable(i), (i) => pages[i]!.description, 'description') : NOT_RECORDED),
    'missing-h1': () => (has('h1Count') ? each((i) => read(i) && pages[i]!.h1Count === 0) : NOT_RECORDED),
    'multiple-h1': () => (has('h1Count') ? each((i) => read(i) && pages[i]!.h1Count! > 1, (i) => ({ h1Count: pages[i]!.h1Count, h1: pages[i]!.h1 })) : NOT_RECORDED),
    noindex: () => (has('h1Count') ? each((i) => html[i]! && noindex(i), (i) => ({ nofollow: ((pages[i]!.robots ?? 0) & ROBOTS_NOFOLLOW) !== 0 })) : NOT_RECORDED),
    canonicalised: () => each((i) => canonicalOf[i] !== -1, (i) => ({ canonical: pages[canonicalOf[i]!]!.url })),
    'canonical-broken': () =>
      each(
        (i) => {
          const c = canonicalOf[i]!;
          if (c === -1) return false;
          const t = pages[c]!;
          // A canonical URL never fetched (out of the crawl's scope) is not judged.
          return (t.status !== null || t.error !== null) && !(t.status === 200 && t.error === null);
        },
        (i) => ({ canonical: pages[canonicalOf[i]!]!.url, answer: answerOf(pages[canonicalOf[i]!]!) }),
      ),
    // A seed (depth 0) is where the crawl starts, not an orphan.
    orphan: () => each((i) => pages[i]!.role === 0 && pages[i]!.depth !== 0 && inSitemap(i) && !linkedFromGraph(i), (i) => ({ answer: answerOf(pages[i]!) })),
    'not-in-sitemap': () => {
      // Hosts with a sitemap read (a sitemap page answering 2xx).
      const withSitemap = new Set<string>();
      for (const p of pages) if (p.role === 1 && p.error === null && p.status !== null && p.status >= 200 && p.status < 300) withSitemap.add(hostOf(p.url));
      return each((i) => indexable(i) && linkedFromGraph(i) && !inSitemap(i) && withSitemap.has(hostOf(pages[i]!.url)));
    },
    'exact-duplicates': () => groupsBy((i) => html[i]!, (i) => pages[i]!.contentHash, 'contentHash'),
    'near-duplicates': () => {
      if (!has('h1Count')) return NOT_RECORDED;
      const near = nearDuplicates(pages, html, options.nearBits, options.nearPairs ?? DEFAULT_NEAR_PAIRS);
      if (near.truncated) notes.set('near-duplicates', `stopped after ${near.pairs.toLocaleString('en-US')} comparisons (--near-pairs): the groups found so far`);
      return near.found;
    },
    deep: () => each((i) => html[i]! && pages[i]!.depth !== null && pages[i]!.depth! > options.maxDepthOk, (i) => ({ depth: pages[i]!.depth })),
    slow: () => (has('responseMs') ? each((i) => pages[i]!.responseMs != null && pages[i]!.responseMs! > options.slowMs, (i) => ({ responseMs: pages[i]!.responseMs })) : NOT_RECORDED),
  };

  const wanted = options.checks ?? AUDIT_CHECKS;
  return AUDIT_CHECKS.filter((id) => wanted.includes(id)).map((id) => {
    const result = run[id]();
    if (typeof result === 'string') return { id, title: AUDIT_CHECK_TITLES[id], count: 0, pages: [], unavailable: result };
    const check: AuditCheck = { id, title: AUDIT_CHECK_TITLES[id], count: result.length, pages: result.sort(byUrl) };
    const note = notes.get(id);
    if (note !== undefined) check.note = note;
    return check;
  });
}

/** Other pages of a group named per page at most (`group` gives its size): a template shared by 10^5 pages would list 10^10. */
export const MAX_OTHERS = 20;

/** The first MAX_OTHERS URLs of a group (sorted) but `url`. */
function othersOf(sortedUrls: readonly string[], url: string): string[] {
  const others: string[] = [];
  for (const u of sortedUrls) {
    if (u === url) continue;
    others.push(u);
    if (others.length === MAX_OTHERS) break;
  }
  return others;
}

function hostOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  return match === null ? '' : match[0].toLowerCase();
}

/**
 * Groups of HTML pages whose SimHashes differ in at most `bits` bits (Charikar; Manku, Jain and Das
 * Sarma's use for web pages, 64 bits and k = 3). Pairs are found by splitting the 64 bits into
 * bits + 1 bands: two hashes within `bits` bits agree on at least one whole band (pigeonhole), so
 * only pages sharing a band are compared. Groups are the connected pieces of the pairs. Pages
 * with the same body (exact-duplicates) are not paired here.
 */
export function nearDuplicates(pages: readonly AuditPage[], accept: readonly boolean[], bits: number, maxPairs = DEFAULT_NEAR_PAIRS): { found: AuditFinding[]; pairs: number; truncated: boolean } {
  // Pages with the same SimHash are one entry (a site's template pages often share it: 10^5 pages of
  // one hash would otherwise be 5 x 10^9 comparisons); entries are compared through the bands.
  const byHash = new Map<string, number[]>();
  for (let i = 0; i < pages.length; i++) {
    const h = pages[i]!.simhash;
    if (!accept[i] || h === null || h === undefined || !/^[0-9a-f]{16}$/.test(h)) continue;
    const list = byHash.get(h);
    if (list === undefined) byHash.set(h, [i]);
    else list.push(i);
  }
  const members = [...byHash.values()];
  const n = members.length;
  // The 64 bits as two 32-bit halves: bit b of the hash is bit (b mod 32) of high (b >= 32) or low.
  const high = new Uint32Array(n);
  const low = new Uint32Array(n);
  [...byHash.keys()].forEach((h, k) => {
    high[k] = parseInt(h.slice(0, 8), 16);
    low[k] = parseInt(h.slice(8), 16);
  });
  const bandBits = (k: number, from: number, width: number): number => {
    let key = 0;
    for (let b = 0; b < width; b++) {
      const at = from + b;
      const bit = at < 32 ? (low[k]! >>> at) & 1 : (high[k]! >>> (at - 32)) & 1;
      key = key * 2 + bit;
    }
    return key;
  };
  const parent = Array.from({ length: n }, (_, k) => k);
  const find = (k: number): number => {
    while (parent[k] !== k) k = parent[k] = parent[parent[k]!]!;
    return k;
  };
  // Nearest other text, in bits: 0 within an entry whose pages are not all one body (exact duplicates are their own check).
  const nearest = new Float64Array(n).fill(Infinity);
  members.forEach((list, k) => {
    if (list.length > 1 && new Set(list.map((i) => pages[i]!.contentHash ?? `page ${i}`)).size > 1) nearest[k] = 0;
  });
  const width = Math.ceil(64 / (bits + 1));
  let pairs = 0;
  let truncated = false;
  bands: for (let from = 0; from < 64; from += width) {
    const buckets = new Map<number, number[]>();
    for (let k = 0; k < n; k++) {
      const key = bandBits(k, from, Math.min(width, 64 - from));
      const bucket = buckets.get(key);
      if (bucket === undefined) buckets.set(key, [k]);
      else bucket.push(k);
    }
    for (const bucket of buckets.values()) {
      for (let x = 0; x < bucket.length; x++) {
        for (let y = x + 1; y < bucket.length; y++) {
          if (++pairs > maxPairs) {
            truncated = true;
            break bands;
          }
          const a = bucket[x]!;
          const b = bucket[y]!;
          const distance = popcount32(high[a]! ^ high[b]!) + popcount32(low[a]! ^ low[b]!);
          if (distance > bits) continue;
          parent[find(a)] = find(b);
          nearest[a] = Math.min(nearest[a]!, distance);
          nearest[b] = Math.min(nearest[b]!, distance);
        }
      }
    }
  }
  const groups = new Map<number, number[]>();
  for (let k = 0; k < n; k++) {
    if (nearest[k] === Infinity) continue;
    const root = find(k);
    const group = groups.get(root);
    if (group === undefined) groups.set(root, [k]);
    else group.push(k);
  }
  const found: AuditFinding[] = [];
  for (const group of groups.values()) {
    const urls = group.flatMap((k) => members[k]!.map((i) => pages[i]!.url)).sort();
    for (const k of group) {
      for (const i of members[k]!) {
        const url = pages[i]!.url;
        found.push({ url, group: urls.length, nearestBits: nearest[k], others: othersOf(urls, url) });
      }
    }
  }
  return { found, pairs: Math.min(pairs, maxPairs), truncated };
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
