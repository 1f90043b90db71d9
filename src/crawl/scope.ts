/**
 * The sector of the web a crawl collects, decided from the URL alone (the
 * address rules are in ip-rules.ts, checked when connecting). As in the Web
 * Graph Analyzer paper (Section 4.3): a URL must match at least one "filter"
 * regular expression and no "fence" expression. Besides: the file extensions
 * fetched, the hosts (those of the seeds, their domains, or any), and the
 * depth in clicks from the seeds. Regular expressions are matched against
 * the normalised URL (crawl/url.ts: lower-case scheme and host, no default
 * port, no fragment).
 */
import { OptionError } from '../errors.js';

export type HostScope = 'seeds' | 'domain' | 'any';
export const HOST_SCOPES: readonly HostScope[] = ['seeds', 'domain', 'any'];

/**
 * Extensions never fetched unless --extensions allows them: files that are
 * not web pages (images, styles, scripts, archives, media, documents, fonts).
 */
export const DEFAULT_SKIPPED_EXTENSIONS: readonly string[] = [
  '7z', 'apk', 'avi', 'bin', 'bmp', 'bz2', 'css', 'csv', 'deb', 'dmg', 'doc', 'docx', 'eot', 'epub', 'exe', 'flac', 'flv',
  'gif', 'gz', 'ico', 'iso', 'jar', 'jpeg', 'jpg', 'js', 'm4a', 'm4v', 'mjs', 'mkv', 'mov', 'mp3', 'mp4', 'mpeg', 'mpg',
  'msi', 'odp', 'ods', 'odt', 'ogg', 'otf', 'pdf', 'png', 'ppt', 'pptx', 'ps', 'rar', 'rpm', 'svg', 'tar', 'tgz', 'tif',
  'tiff', 'ttf', 'wav', 'webm', 'webp', 'wmv', 'woff', 'woff2', 'xls', 'xlsx', 'xz', 'zip',
];

export interface ScopeOptions {
  /** A URL must match at least one (none given: every URL passes). */
  filters?: readonly RegExp[];
  /** A URL matching any is never fetched. */
  fences?: readonly RegExp[];
  /** Extensions allowed (lower case, no dot); null: every extension but DEFAULT_SKIPPED_EXTENSIONS. */
  extensions?: readonly string[] | null;
  /** 'seeds': the seeds' hosts only; 'domain': those hosts and their subdomains; 'any'. */
  hosts?: HostScope;
  /** Hosts of the seeds (lower case). */
  seedHosts?: readonly string[];
  /** Pages deeper than this many clicks from a seed are not fetched (Infinity: no limit). */
  maxDepth?: number;
}

/** Compiles a user's regular expression, naming the option when it does not compile. */
export function compilePattern(text: string, option: string): RegExp {
  try {
    return new RegExp(text);
  } catch (error) {
    throw new OptionError(option, `'${text}' is not a regular expression: ${(error as Error).message}`);
  }
}

/** The extension of a URL path's last segment (lower case, no dot), or '' if it has none. */
export function extensionOf(pathname: string): string {
  const slash = pathname.lastIndexOf('/');
  const dot = pathname.lastIndexOf('.');
  if (dot <= slash + 1) return '';
  return pathname.slice(dot + 1).toLowerCase();
}

/** The domain a host's subdomains share: the host without a leading "www.". */
function domainOf(host: string): string {
  return host.startsWith('www.') ? host.slice(4) : host;
}

export class Scope {
  private readonly filters: readonly RegExp[];
  private readonly fences: readonly RegExp[];
  private readonly allowed: Set<string> | null;
  private readonly skipped: Set<string>;
  private readonly hosts: HostScope;
  private readonly seedHosts: Set<string>;
  private readonly domains: string[];
  readonly maxDepth: number;

  constructor(options: ScopeOptions = {}) {
    this.filters = options.filters ?? [];
    this.fences = options.fences ?? [];
    this.allowed = options.extensions == null ? null : new Set(options.extensions.map((e) => e.toLowerCase().replace(/^\./, '')));
    this.skipped = new Set(DEFAULT_SKIPPED_EXTENSIONS);
    this.hosts = options.hosts ?? 'any';
    this.seedHosts = new Set((options.seedHosts ?? []).map((h) => h.toLowerCase()));
    this.domains = [...new Set([...this.seedHosts].map(domainOf))];
    this.maxDepth = options.maxDepth ?? Infinity;
    if (!(this.maxDepth >= 0)) throw new OptionError('--max-depth', `must be at least 0, got ${this.maxDepth}`);
  }

  /**
   * Why the URL is out of the crawl's sector, or null when it is in (depth: clicks from a seed).
   * A sitemap (`sitemap`: one robots.txt or an index names) is no page of the sector: its extension
   * (.xml, .xml.gz) and --filter do not apply to it, its hosts and --fence do.
   */
  exclusion(url: URL, key: string, depth: number, sitemap = false): string | null {
    if (depth > this.maxDepth) return `deeper than --max-depth ${this.maxDepth}`;
    const host = url.hostname;
    if (this.hosts === 'seeds' && !this.seedHosts.has(host)) return `host ${host} is not a seed's host`;
    if (this.hosts === 'domain' && !this.domains.some((d) => host === d || host.endsWith(`.${d}`))) return `host ${host} is outside the seeds' domains`;
    const extension = sitemap ? '' : extensionOf(url.pathname);
    if (extension !== '') {
      if (this.allowed !== null ? !this.allowed.has(extension) : this.skipped.has(extension)) return `extension .${extension} is not fetched`;
    }
    if (!sitemap && this.filters.length > 0 && !this.filters.some((re) => test(re, key))) return 'matches no --filter';
    const fence = this.fences.find((re) => test(re, key));
    if (fence !== undefined) return `matches --fence ${fence.source}`;
    return null;
  }
}

/** RegExp.test without the lastIndex state of global and sticky expressions. */
function test(re: RegExp, text: string): boolean {
  re.lastIndex = 0;
  return re.test(text);
}
