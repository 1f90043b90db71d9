/**
 * Pages and links from WARC files (ours, Heritrix's, Browsertrix's...): every
 * archived response goes through the crawl's own page pipeline as if it had
 * just been fetched (page-pipeline.ts: decode, extract, links with kinds and
 * rel, redirects and refreshes with their loops, sitemaps), in the order the
 * archive holds them, so a crawl can be parsed again without fetching
 * anything, and a WARC of a wga crawl gives back the crawl's pages and links.
 * The scope is the crawl's (extensions, --filter, --fence) with, by default,
 * the archive's hosts as the seeds' hosts. robots.txt records give the
 * hosts' rules (pages they refuse are stored as the crawler stores them,
 * excluded) and Sitemap lines; a response to a URL named as a sitemap, or to
 * /sitemap.xml, is read as a sitemap. Records are read by webrecorder's warcio.
 */
import { createReadStream } from 'node:fs';
import { WARCParser, type WARCRecord } from 'warcio';
import { InputFormatError } from '../errors.js';
import type { FetchRecord, PageRole } from '../store/store.js';
import { parseContentEncoding } from './decode.js';
import { EMPTY_RESULT, type FetchResult, HTML_TYPES, REDIRECTS, headerText, mediaType, readBody } from './fetcher.js';
import type { Host, Server } from './hosts.js';
import { DONE, type FoundLink, PagePipeline, type PageOutcome, WAITING } from './page-pipeline.js';
import { MAX_ROBOTS_BYTES, RobotsRules } from './robots.js';
import { type CrawlSettings, compileSettings } from './settings.js';
import { resolveUrl } from './url.js';

/** A page as the import found it: its URL, role, answer (null: never archived) and links. */
export interface ImportedPage {
  url: string;
  key: string;
  role: PageRole;
  record: FetchRecord | null;
  links: FoundLink[];
}

export interface WarcImportCounts {
  records: number;
  responses: number;
  /** Responses to URLs outside the scope, or not http(s). */
  skipped: number;
}

/** The response records of WARC files, in order: target URI, status, headers and the payload as archived. */
async function* responses(path: string): AsyncGenerator<{ record: WARCRecord; uri: string; date: number }> {
  const stream = createReadStream(path);
  try {
    for await (const record of WARCParser.iterRecords(stream)) {
      const uri = record.warcTargetURI ?? '';
      if (record.warcType !== 'response' || record.httpHeaders === null) {
        await record.skipFully();
        continue;
      }
      yield { record, uri, date: Date.parse(record.warcDate ?? '') };
    }
  } catch (error) {
    if (error instanceof InputFormatError) throw error;
    throw new InputFormatError(path, undefined, `not a readable WARC file: ${(error as Error).message.slice(0, 200)}`);
  } finally {
    stream.destroy();
  }
}

/** The hosts a set of WARC files holds responses of (a first pass, headers only). */
export async function archivedHosts(paths: readonly string[]): Promise<string[]> {
  const hosts = new Set<string>();
  for (const path of paths) {
    for await (const { uri } of responses(path)) {
      const resolved = resolveUrl(uri);
      if (resolved.ok) hosts.add(resolved.url.hostname);
    }
  }
  return [...hosts];
}

export class WarcImporter extends PagePipeline {
  private readonly answers = new Map<number, FetchRecord>();
  private readonly linksOf = new Map<number, FoundLink[]>();
  private readonly robotsOf = new Map<string, RobotsRules>();
  /** Keys of URLs robots.txt or an index named as sitemaps, with the index (page id) or -1. */
  private readonly sitemapKeys = new Map<string, number>();
  readonly counts: WarcImportCounts = { records: 0, responses: 0, skipped: 0 };

  constructor(settings: CrawlSettings, seedHosts: readonly string[]) {
    // An archive is parsed as it was answered: no page is rendered (the browser's requests were not archived).
    super({ ...settings, render: 'never' }, compileSettings(settings, seedHosts), { rereads: false, warc: null });
  }

  /** Reads one WARC file's responses into pages and links. */
  async read(path: string): Promise<void> {
    for await (const { record, uri, date } of responses(path)) {
      this.counts.records++;
      const resolved = resolveUrl(uri);
      if (!resolved.ok) {
        this.counts.skipped++;
        await record.skipFully();
        continue;
      }
      const status = Number(record.httpHeaders!.statusCode);
      const headers = (name: string): string | undefined => record.httpHeaders!.headers.get(name) ?? undefined;
      const { url, key } = resolved;
      if (url.pathname === '/robots.txt' && url.search === '') {
        const result = await this.answer(record, status, headers, 'text');
        const text = result.status !== null && result.status >= 200 && result.status < 300 ? (result.text ?? '') : '';
        const rules = RobotsRules.fromAnswer(url.href, result.status, text, this.settings.userAgent);
        this.robotsOf.set(url.origin, rules);
        for (const named of rules.sitemaps()) {
          const sitemap = resolveUrl(named, url.origin);
          if (sitemap.ok && sitemap.url.origin === url.origin) this.sitemapKeys.set(sitemap.key, -1);
        }
        continue;
      }
      this.counts.responses++;
      const named = this.sitemapKeys.get(key);
      const probe = named === undefined && url.pathname === '/sitemap.xml' && url.search === '' && this.urls.id(key) === -1;
      const sitemap = named !== undefined || probe;
      const result = await this.answer(record, status, headers, sitemap ? 'sitemap' : 'page');
      // /sitemap.xml that robots.txt did not name is kept only when it is a sitemap (as the crawler keeps it).
      if (probe && (result.error !== null || result.sitemap === null || result.sitemap.kind === 'empty')) continue;
      const known = this.urls.id(key);
      const id = known !== -1 ? known : this.intern(url, key, 0, sitemap ? 'sitemap' : 'page', false);
      if (id < 0) {
        this.counts.skipped++;
        continue;
      }
      if (result.sitemap?.kind === 'index') {
        for (const entry of result.sitemap.entries) {
          const child = resolveUrl(entry.loc, url);
          if (child.ok && child.url.origin === url.origin) this.sitemapKeys.set(child.key, id);
        }
      }
      const refetch = this.state.get(id) === DONE;
      this.state.set(id, DONE);
      this.processAnswer(id, refetch, result);
      const answered = this.answers.get(id);
      if (answered !== undefined && Number.isFinite(date)) answered.fetchedAt = date;
      if (named !== undefined && named >= 0 && !refetch) this.laterLink(named, { target: id, kind: 'sitemap', rel: 0, hreflang: null, lastmod: null });
    }
  }

  /** An archived answer as the fetcher would have given it. */
  private async answer(record: WARCRecord, status: number, header: (name: string) => string | undefined, mode: 'page' | 'sitemap' | 'text'): Promise<FetchResult> {
    const contentType = mediaType(header('content-type'));
    const base: FetchResult = { ...EMPTY_RESULT, status, contentType };
    if (status === 304) return { ...base, notModified: true };
    if (status >= 300 && status < 400) {
      const location = headerText(header('location'));
      if (REDIRECTS.has(status) && location === null) return { ...base, error: `redirect ${status} without Location`, failure: 'final' };
      return { ...base, location: REDIRECTS.has(status) ? location : null };
    }
    if (status >= 400) return { ...base, error: `HTTP ${status}`, failure: status >= 500 || status === 429 || status === 408 ? 'retryable' : 'final' };
    if ((mode === 'page' && !(contentType === null || HTML_TYPES.has(contentType))) || status < 200) return base;
    const truncated = record.warcHeader('WARC-Truncated') ?? null;
    if (truncated !== null && truncated !== 'length' && mode !== 'text') return { ...base, error: `archived body truncated (${truncated})`, failure: 'final' };
    const encoding = parseContentEncoding(header('content-encoding'));
    if (!encoding.ok) return { ...base, error: encoding.problem, failure: 'final' };
    // A chunked body is archived as sent: warcio undoes the chunks (and gzip or deflate with them); a plain one is read raw.
    const chunked = (header('transfer-encoding') ?? '').toLowerCase().includes('chunked');
    const undone = chunked && encoding.codings.every((c) => c !== 'br');
    const payload = Buffer.from(await record.readFully(undone));
    const codings = undone ? [] : encoding.codings;
    const chunks = { *[Symbol.asyncIterator]() { yield payload; }, destroy: () => undefined } as unknown as AsyncIterable<Buffer> & { destroy(): void };
    const limit = mode === 'text' ? MAX_ROBOTS_BYTES : this.settings.maxBodyBytes;
    const read = await readBody(chunks, mode, codings, header('content-type'), limit, () => undefined, {
      maxBodyBytes: this.settings.maxBodyBytes,
      maxSitemapEntries: this.settings.maxSitemapEntries,
    });
    const answered = { ...base, encoding: codings, wireSize: payload.length, size: read.size, etag: headerText(header('etag')), lastModified: headerText(header('last-modified')) };
    if (read.problem !== null) return { ...answered, error: read.problem, failure: 'final' };
    // Cut at the size cap by the crawler that archived it (as wga's --warc keeps a body too large): what the crawler said then.
    if (truncated === 'length' && mode !== 'text') return { ...answered, error: `body larger than ${limit} bytes`, failure: 'final' };
    return { ...answered, page: read.page, sitemap: read.sitemap, text: read.text, contentHash: read.cut ? null : read.hash };
  }

  /** Every page found, in id order: archived answers, and link targets never archived (excluded when robots.txt refuses them). */
  pages(): ImportedPage[] {
    const pages: ImportedPage[] = [];
    for (let id = 0; id < this.urls.size; id++) {
      const url = this.urls.url(id);
      let record = this.answers.get(id) ?? null;
      if (record === null) {
        const rules = this.robotsOf.get(new URL(url).origin);
        if (rules !== undefined && !rules.allows(url)) {
          record = { status: null, contentType: null, fetchedAt: Date.now(), size: null, title: null, error: `excluded: ${rules.disallowAll ?? 'robots.txt disallows it'}` };
        }
      }
      pages.push({ url, key: this.urls.key(id), role: this.roleOf(id), record, links: this.linksOf.get(id) ?? [] });
    }
    return pages;
  }

  // ---- the pipeline's hooks: nothing is fetched, pages are only recorded --------

  protected addPage(id: number, _url: URL, _focus: boolean, _waiting: boolean): void {
    this.state.set(id, WAITING);
  }

  protected nextPage(): number {
    return -1;
  }

  protected pageStarted(): void {}

  protected sitemapStarted(): void {}

  protected sitemapProbeAnswered(): void {}

  protected retryWaits(): void {}

  protected retryReady(): void {}

  protected pageFinished(id: number, outcome: PageOutcome): void {
    // A refetch without a definite answer keeps the one recorded (as a crawl keeps the stored one).
    if (outcome.refetch && (outcome.record.status === null || outcome.record.status >= 500)) return;
    if (outcome.record.notModified === true) {
      const before = this.answers.get(id);
      if (before !== undefined) before.fetchedAt = outcome.record.fetchedAt;
      return;
    }
    this.answers.set(id, outcome.record);
    this.linksOf.set(id, [...outcome.links]);
  }

  protected laterLink(source: number, link: FoundLink): void {
    let list = this.linksOf.get(source);
    if (list === undefined) this.linksOf.set(source, (list = []));
    list.push(link);
  }

  protected setHostSelectable(_host: Host, _selectable: boolean): void {}
  protected setHostServer(_host: Host, _server: Server): void {}
  protected setServerSelectable(_server: Server, _selectable: boolean): void {}

  protected afterPump(): void {}
}

