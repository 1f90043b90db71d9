/**
 * Sitemaps (sitemaps.org protocol 0.9), read as they stream in: an XML
 * <urlset> of <url><loc> (with <lastmod>), an XML <sitemapindex> of
 * <sitemap><loc> naming more sitemaps, or a plain-text sitemap (one URL per
 * line). XML goes through htmlparser2's XML mode (a tokenizer: no tree, no
 * entity expansion beyond the predefined ones, so no billion laughs); the
 * kind is decided by the first character that is not white space ('<': XML).
 * Entries beyond `maxEntries` are counted, not kept; a <loc> longer than a
 * URL may be is cut (the crawler then refuses it as too long).
 * `.xml.gz` files are gunzipped by the fetcher (decode.ts), like a
 * Content-Encoding, before they reach this reader.
 */
import { Parser } from 'htmlparser2';
import { MAX_URL_LENGTH } from './url.js';

/** The protocol's own limit of entries per sitemap file. */
export const DEFAULT_MAX_SITEMAP_ENTRIES = 50_000;

export interface SitemapEntry {
  loc: string;
  /** <lastmod>, milliseconds since the epoch (null when absent or not a W3C datetime). */
  lastmod: number | null;
}

export interface ExtractedSitemap {
  /** urlset: pages; index: more sitemaps; text: a plain-text list of pages; empty: nothing recognised. */
  kind: 'urlset' | 'index' | 'text' | 'empty';
  entries: SitemapEntry[];
  /** Entries beyond the cap, dropped. */
  droppedEntries: number;
}

/** A W3C datetime (YYYY, YYYY-MM, YYYY-MM-DD, with a time and zone) as milliseconds, or null. */
export function parseLastmod(text: string): number | null {
  const value = text.trim();
  if (!/^\d{4}(-\d{2}(-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?)?)?$/.test(value)) return null;
  const time = Date.parse(value.length === 7 ? `${value}-01` : value);
  return Number.isFinite(time) ? time : null;
}

/** The local name of an XML element (sitemaps are sometimes written with a namespace prefix). */
function localName(name: string): string {
  const colon = name.lastIndexOf(':');
  return (colon === -1 ? name : name.slice(colon + 1)).toLowerCase();
}

export class SitemapExtractor {
  private readonly result: ExtractedSitemap = { kind: 'empty', entries: [], droppedEntries: 0 };
  private mode: 'undecided' | 'xml' | 'text' = 'undecided';
  private parser: Parser | null = null;
  // XML: the entry being read and the child whose text is collected.
  private inEntry = false;
  private field: 'loc' | 'lastmod' | null = null;
  private loc = '';
  private lastmod = '';
  // Text: the line not finished yet.
  private line = '';

  constructor(private readonly maxEntries: number = DEFAULT_MAX_SITEMAP_ENTRIES) {}

  write(text: string): void {
    if (this.mode === 'undecided') {
      const start = text.search(/\S/);
      if (start === -1) return;
      // A byte order mark is white space for this purpose.
      const first = text[start] === '\ufeff' ? text.slice(start + 1).trimStart()[0] : text[start];
      if (first === undefined) return;
      this.mode = first === '<' ? 'xml' : 'text';
      if (this.mode === 'xml') this.parser = this.xmlParser();
      else this.result.kind = 'text';
    }
    if (this.mode === 'xml') this.parser!.write(text);
    else this.writeText(text);
  }

  end(): ExtractedSitemap {
    if (this.mode === 'xml') this.parser!.end();
    else if (this.mode === 'text') {
      this.takeLine(this.line);
      this.line = '';
    }
    return this.result;
  }

  private add(loc: string, lastmod: number | null): void {
    if (this.result.entries.length >= this.maxEntries) {
      this.result.droppedEntries++;
      return;
    }
    this.result.entries.push({ loc, lastmod });
  }

  private writeText(text: string): void {
    const lines = (this.line + text).split(/\r?\n|\r/);
    this.line = lines.pop()!;
    // A line that never ends is cut: it cannot be a URL anyway.
    if (this.line.length > MAX_URL_LENGTH + 1) this.line = this.line.slice(0, MAX_URL_LENGTH + 1);
    for (const line of lines) this.takeLine(line);
  }

  private takeLine(line: string): void {
    const url = line.replace(/^\ufeff/, '').trim();
    if (url !== '') this.add(url, null);
  }

  private xmlParser(): Parser {
    return new Parser(
      {
        onopentag: (name) => {
          const local = localName(name);
          if (this.result.kind === 'empty' && (local === 'urlset' || local === 'sitemapindex')) {
            this.result.kind = local === 'urlset' ? 'urlset' : 'index';
            return;
          }
          if (this.result.kind === 'empty') return;
          if (local === (this.result.kind === 'urlset' ? 'url' : 'sitemap')) {
            this.inEntry = true;
            this.loc = '';
            this.lastmod = '';
          } else if (this.inEntry && (local === 'loc' || local === 'lastmod')) this.field = local;
        },
        ontext: (text) => {
          if (this.field === 'loc' && this.loc.length <= MAX_URL_LENGTH) this.loc += text;
          else if (this.field === 'lastmod' && this.lastmod.length < 64) this.lastmod += text;
        },
        onclosetag: (name) => {
          const local = localName(name);
          if (local === 'loc' || local === 'lastmod') this.field = null;
          else if (this.inEntry && local === (this.result.kind === 'urlset' ? 'url' : 'sitemap')) {
            this.inEntry = false;
            const loc = this.loc.trim();
            if (loc !== '') this.add(loc, parseLastmod(this.lastmod));
          }
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }
}

/** Reads a whole sitemap at once. */
export function extractSitemap(text: string, maxEntries = DEFAULT_MAX_SITEMAP_ENTRIES): ExtractedSitemap {
  const extractor = new SitemapExtractor(maxEntries);
  extractor.write(text);
  return extractor.end();
}
