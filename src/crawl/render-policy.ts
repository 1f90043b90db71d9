/**
 * Which fetched pages are rendered in a browser (--render, render.ts).
 * never: none. always: every HTML page. auto: the pages whose HTML suggests
 * that scripts build them, and those of hosts where rendering has been seen to
 * find links their HTML lacks:
 * - a page without a <script> is never rendered (nothing could change it);
 * - a page with scripts and fewer than FEW_LINKS links to click (an application
 *   shell, a menu built from JSON) is always rendered;
 * - of every host, the first SAMPLE pages with scripts are rendered, whatever
 *   their HTML holds; when one of them gained links, every page of the host
 *   with scripts is rendered from then on, else only the shells are.
 * A static site (no scripts: the PostgreSQL manual) costs no render at all.
 */
import type { ExtractedPage } from './extract.js';

export type RenderMode = 'never' | 'auto' | 'always';
export const RENDER_MODES: readonly RenderMode[] = ['never', 'auto', 'always'];

/** Pages with scripts and fewer links than this to click are taken for application shells. */
export const FEW_LINKS = 3;
/** Pages with scripts rendered per host before auto judges whether its scripts add links. */
export const SAMPLE = 3;

interface HostVerdict {
  sampled: number;
  gained: number;
}

export class RenderPolicy {
  private readonly hosts = new Map<number, HostVerdict>();

  constructor(readonly mode: RenderMode) {}

  /** Whether to render a page of host `host` (the crawl's host id) whose HTML gave `page`. */
  wants(host: number, page: ExtractedPage): boolean {
    if (this.mode !== 'auto') return this.mode === 'always';
    if (page.scripts === 0) return false;
    let clickable = 0;
    for (const link of page.links) if (link.kind === 'anchor' || link.kind === 'area') clickable++;
    if (clickable < FEW_LINKS) return true;
    const verdict = this.hosts.get(host);
    return verdict === undefined || verdict.gained > 0 || verdict.sampled < SAMPLE;
  }

  /** What rendering a page of `host` gave: how many links only the rendered page has. */
  learn(host: number, linksGained: number): void {
    let verdict = this.hosts.get(host);
    if (verdict === undefined) this.hosts.set(host, (verdict = { sampled: 0, gained: 0 }));
    verdict.sampled++;
    if (linksGained > 0) verdict.gained++;
  }
}
