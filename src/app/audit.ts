/**
 * `audit`: the site audit (analysis/audit.ts) of a store's pages and links. The pages and links are
 * read once, in batches, into the arrays the checks run on.
 */
import { AUDIT_CHECKS, type AuditCheck, type AuditCheckId, AuditLinkKind, type AuditOptions, type AuditPage, DEFAULT_AUDIT_OPTIONS, DEFAULT_NEAR_PAIRS, audit } from '../analysis/audit.js';
import { OptionError } from '../errors.js';
import type { LinkKind, Store } from '../store/store.js';

const KIND_CODES: Record<LinkKind, AuditLinkKind> = {
  anchor: AuditLinkKind.Anchor,
  redirect: AuditLinkKind.Redirect,
  canonical: AuditLinkKind.Canonical,
  area: AuditLinkKind.Area,
  frame: AuditLinkKind.Frame,
  iframe: AuditLinkKind.Iframe,
  refresh: AuditLinkKind.Refresh,
  alternate: AuditLinkKind.Alternate,
  sitemap: AuditLinkKind.Sitemap,
};

/** The `audit --json` contract (docs/audit.md). */
export interface AuditJson {
  store: string;
  pages: number;
  links: number;
  settings: { maxDepthOk: number; slowMs: number; nearBits: number; nearPairs: number };
  checks: AuditCheck[];
  seconds: number;
}

/** --check ID,...: ids among AUDIT_CHECKS. */
export function auditChecksOption(text: string | undefined, name = '--check'): AuditCheckId[] | undefined {
  if (text === undefined) return undefined;
  const ids = text.split(',').map((t) => t.trim()).filter((t) => t !== '');
  for (const id of ids) {
    if (!AUDIT_CHECKS.includes(id as AuditCheckId)) throw new OptionError(name, `unknown check '${id.slice(0, 60)}': expected ids among ${AUDIT_CHECKS.join(', ')}`);
  }
  if (ids.length === 0) throw new OptionError(name, 'expected one check id or more');
  return ids as AuditCheckId[];
}

/** Reads the store's pages and links and runs the checks. */
export async function auditStore(store: Store, options: Partial<AuditOptions> = {}): Promise<AuditJson> {
  const started = performance.now();
  const settings: AuditOptions = { ...DEFAULT_AUDIT_OPTIONS, ...options };
  const pages: AuditPage[] = [];
  const indexOf = new Map<number, number>();
  for await (const batch of store.pageBatches()) {
    for (const p of batch) {
      indexOf.set(p.id, pages.length);
      const page: AuditPage = {
        url: p.url, status: p.status, error: p.error, contentType: p.contentType, role: p.role === 'sitemap' ? 1 : 0, depth: p.depth, title: p.title, contentHash: p.contentHash,
      };
      if (p.audit !== null) Object.assign(page, p.audit);
      pages.push(page);
    }
  }
  const sources: number[] = [];
  const targets: number[] = [];
  const kinds: number[] = [];
  for await (const batch of store.linkBatches()) {
    for (const link of batch) {
      const s = indexOf.get(link.source);
      const t = indexOf.get(link.target);
      if (s === undefined || t === undefined) continue;
      sources.push(s);
      targets.push(t);
      kinds.push(KIND_CODES[link.kind]);
    }
  }
  const checks = audit(pages, { source: Int32Array.from(sources), target: Int32Array.from(targets), kind: Uint8Array.from(kinds) }, settings);
  return {
    store: store.location,
    pages: pages.length,
    links: sources.length,
    settings: { maxDepthOk: settings.maxDepthOk, slowMs: settings.slowMs, nearBits: settings.nearBits, nearPairs: settings.nearPairs ?? DEFAULT_NEAR_PAIRS },
    checks,
    seconds: (performance.now() - started) / 1000,
  };
}
