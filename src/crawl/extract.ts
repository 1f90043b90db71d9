/**
 * What a crawler takes from an HTML page, read as it streams in through
 * htmlparser2's tokenizer (no recursion, and no tree kept, see LinkExtractor:
 * malformed or deeply nested markup cannot overflow anything nor cost more
 * than its length): the links of <a> and <area> (href, rel tokens
 * nofollow, ugc and sponsored), <frame> and <iframe> (src), <meta
 * http-equiv=refresh> (its URL), <link rel=alternate hreflang>, the first
 * <base href>, <link rel=canonical>, <meta name=robots content=nofollow>, and
 * the title. Hrefs are kept as written; the crawler resolves them against the
 * base. Links are kept as written, repeats included, up to a cap of distinct
 * targets (DEFAULT_MAX_LINKS_PER_PAGE, --max-links-per-page): at the cap, repeats
 * of a target (the same href up to its fragment: genindex.html#a and
 * genindex.html#b are one target) are merged (nofollow, ugc or sponsored only if
 * every copy says so, as the crawler merges links to one target) and only new
 * targets count against it; the links of targets past it are counted (droppedLinks).
 *
 * For a site audit it also keeps the first <meta name=description>, the h1 headings (the first's
 * text, and their number), whether <meta name=robots> says noindex, and the visible text's word
 * count and SimHash (text-fingerprint.ts): the text outside <script>, <style>, <noscript>,
 * <template> and <title>, entities decoded, runs of text between tags read as separate words.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { Tokenizer } from 'htmlparser2';
import { REL_BITS } from '../store/store.js';
import { MAX_TEXT_CHARS, fingerprintText } from './text-fingerprint.js';

/**
 * Distinct targets kept per page by default: links to more are counted, not kept. Large: the index
 * pages of real manuals link to a few thousand targets (Python's genindex-all.html: 17,242 anchors
 * to 414 pages); the cap is for link farms.
 */
export const DEFAULT_MAX_LINKS_PER_PAGE = 100_000;
/** Links written (repeats included) kept before they are merged per target. */
const MERGE_AFTER = 10_000;
/** Characters of title kept. */
export const MAX_TITLE_LENGTH = 500;
/** Characters of a title read before its entities are decoded (`&eacute;` is 8 characters for 1). */
const MAX_RAW_TITLE_LENGTH = MAX_TITLE_LENGTH * 10;
/** Characters of a meta description and of an h1 heading kept. */
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_H1_LENGTH = 500;

/** Elements that end a run of words (text on either side is not one word): block elements and line breaks. */
const WORD_BREAKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'td', 'th', 'tr', 'ul', 'option', 'img', 'body',
]);
/** The longest name in WORD_BREAKS. */
const LONGEST_BREAK_NAME = 10;

/** Characters of an hreflang kept (BCP 47 tags are short; x-default is the longest common one). */
const MAX_HREFLANG_LENGTH = 35;

/** The kinds of link an HTML page holds (store.ts's LinkKind, less those an answer or a sitemap makes). */
export type HtmlLinkKind = 'anchor' | 'area' | 'frame' | 'iframe' | 'refresh' | 'alternate';

export interface ExtractedLink {
  href: string;
  kind: HtmlLinkKind;
  /** rel bits (store.ts REL_BITS): nofollow, ugc, sponsored. */
  rel: number;
  /** rel has nofollow (or the page's <meta name=robots> says nofollow). */
  nofollow: boolean;
  /** Of an alternate link. */
  hreflang: string | null;
}

export interface ExtractedPage {
  title: string | null;
  /** The first <base href>, as written. */
  base: string | null;
  links: ExtractedLink[];
  /** Links to targets past the cap of distinct targets (--max-links-per-page), dropped. */
  droppedLinks: number;
  canonical: string | null;
  /** <meta name="robots"> says nofollow (or none): every link is nofollow. */
  nofollowAll: boolean;
  /** <script> elements (with src or inline): what --render auto looks at (render-policy.ts). */
  scripts: number;
  /** A <noscript> element is present. */
  noscript: boolean;
  /** The first <meta name=description>'s content, whitespace folded; null when none or empty. */
  description: string | null;
  /** The first h1's text, and the number of h1 elements. */
  h1: string | null;
  h1Count: number;
  /** <meta name="robots"> says noindex (or none). */
  noindex: boolean;
  /** Words of the visible text, and its SimHash (text-fingerprint.ts). */
  words: number;
  simhash: string | null;
}

function relHas(rel: string | undefined, token: string): boolean {
  if (rel === undefined) return false;
  return rel.toLowerCase().split(/\s+/).includes(token);
}

/** The rel bits of a rel attribute's tokens. */
export function relBits(rel: string | undefined): number {
  if (rel === undefined) return 0;
  let bits = 0;
  for (const token of rel.toLowerCase().split(/\s+/)) {
    if (token === 'nofollow') bits |= REL_BITS.nofollow;
    else if (token === 'ugc') bits |= REL_BITS.ugc;
    else if (token === 'sponsored') bits |= REL_BITS.sponsored;
  }
  return bits;
}

/**
 * The URL of a <meta http-equiv=refresh> content, as HTML's "shared declarative refresh steps"
 * read it: a time (digits and dots), then ';' or ',' and spaces, then an optional "url" and "=",
 * then the URL, quoted or not. null when there is no URL (a refresh of the page itself).
 */
export function refreshUrl(content: string): string | null {
  const match = /^\s*[0-9.]*\s*(?:[;,]\s*)?(?:url\s*=\s*)?(.*)$/is.exec(content);
  let url = (match?.[1] ?? '').trim();
  if (url === '') return null;
  const quote = url[0];
  if (quote === '"' || quote === "'") {
    const end = url.indexOf(quote, 1);
    url = end === -1 ? url.slice(1) : url.slice(1, end);
  }
  url = url.trim();
  return url === '' ? null : url;
}

/** The elements whose attributes (or, for <title>, text) the extractor reads; every other tag is skipped unread. */
const READ_ELEMENTS = new Set(['a', 'area', 'frame', 'iframe', 'base', 'link', 'meta', 'title', 'script', 'noscript', 'style', 'template', 'h1']);
/** The longest name in READ_ELEMENTS: a longer tag name is not sliced nor lowercased. */
const LONGEST_READ_NAME = 8;

/**
 * A streaming extractor: write() decoded text as it arrives, then end().
 *
 * It listens to htmlparser2's Tokenizer itself rather than through its Parser: the Parser builds
 * an attribute object (names lowercased, values concatenated) for every tag and keeps a stack of
 * open elements (O(depth) per tag), where the extractor needs the attributes of ten elements and no
 * tree. Entities are left to the tokenizer's fast path (text skipped to the next '<' by indexOf)
 * and decoded by the `entities` package only in what is kept (the attributes read and the title),
 * in the same modes the tokenizer would use (attribute and legacy text). It reads a manual in about
 * half the Parser's time (1.9 times as fast on PostgreSQL's, 1.8 on libstdc++'s: bench/extract.ts).
 */
export class LinkExtractor {
  private readonly tokenizer: Tokenizer;
  private readonly page: ExtractedPage = {
    title: null, base: null, links: [], droppedLinks: 0, canonical: null, nofollowAll: false, scripts: 0, noscript: false,
    description: null, h1: null, h1Count: 0, noindex: false, words: 0, simhash: null,
  };
  /** The element whose text is not visible text (HIDDEN_TEXT) being read, or null. */
  private hidden: string | null = null;
  /** The visible text as written (entities undecoded); a tag of WORD_BREAKS since its last run. */
  private text = '';
  private wordBreak = false;
  private inH1 = false;
  private h1Text = '';
  /** Once MERGE_AFTER links are written: index in page.links of each kind and target kept. */
  private kept: Map<string, number> | null = null;
  /**
   * The chunks written that a name or value still to be read may start in, from bufferOffset on: dropped
   * as names are read, so at most the page's decoded text (capped by the fetcher) when none are.
   */
  private readonly buffers: string[] = [];
  private bufferOffset = 0;
  /** The open tag being read (a READ_ELEMENTS name), or null while skipping one. */
  private tag: string | null = null;
  private attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  private attributeName = '';
  private attributeValue = '';
  private inTitle = false;
  /** The title as written (entities undecoded), whitespace runs folded as it comes. */
  private titleText = '';
  private titleDone = false;

  /** `maxLinks`: distinct targets kept (the rest counted in droppedLinks). */
  constructor(private readonly maxLinks = DEFAULT_MAX_LINKS_PER_PAGE) {
    this.tokenizer = new Tokenizer({ decodeEntities: false }, {
      onopentagname: (start, end) => {
        if (end - start > LONGEST_BREAK_NAME) {
          this.tag = null;
          return;
        }
        const name = this.slice(start, end).toLowerCase();
        if (WORD_BREAKS.has(name)) this.wordBreak = true;
        this.tag = end - start <= LONGEST_READ_NAME && READ_ELEMENTS.has(name) ? name : null;
        // Without a prototype: an attribute named __proto__ or constructor is an attribute like any other.
        if (this.tag !== null) this.attributes = Object.create(null) as Record<string, string>;
      },
      onattribname: (start, end) => {
        if (this.tag === null) return;
        this.attributeName = this.slice(start, end).toLowerCase();
        this.attributeValue = '';
      },
      onattribdata: (start, end) => {
        if (this.tag !== null) this.attributeValue += this.slice(start, end);
      },
      onattribend: () => {
        // The first of an attribute written twice counts, as in browsers.
        if (this.tag !== null && !Object.hasOwn(this.attributes, this.attributeName)) this.attributes[this.attributeName] = decodeHTMLAttribute(this.attributeValue);
      },
      onopentagend: () => this.openTagEnd(),
      // HTML (not XML): <a href=x/> opens an element like <a href=x>.
      onselfclosingtag: () => this.openTagEnd(),
      onclosetag: (start, end) => {
        if (end - start > LONGEST_BREAK_NAME) return;
        const name = this.slice(start, end).toLowerCase();
        if (WORD_BREAKS.has(name)) this.wordBreak = true;
        if (name === this.hidden) this.hidden = null;
        if (name === 'h1' && this.inH1) {
          this.inH1 = false;
          this.keepH1();
        }
        if (!this.inTitle || name !== 'title') return;
        this.inTitle = false;
        this.titleDone = true;
        this.keepTitle();
      },
      ontext: (start, end) => {
        if (this.hidden === null && this.text.length < MAX_TEXT_CHARS) {
          // Runs between inline tags (<b>, <a>) continue their words, as a browser shows them.
          const run = this.slice(start, end);
          const joined = this.wordBreak ? ` ${run}` : run;
          this.wordBreak = false;
          this.text += joined;
          if (this.inH1 && this.h1Text.length < MAX_H1_LENGTH * 10) this.h1Text = (this.h1Text + joined).replace(/\s+/g, ' ');
        }
        // Folded as it comes and cut at a fixed length, so that what is kept does not depend on how the
        // text was chunked; room for entities (MAX_TITLE_LENGTH applies once they are decoded).
        if (this.inTitle && this.titleText.length < MAX_RAW_TITLE_LENGTH) {
          this.titleText = (this.titleText + this.slice(start, end)).replace(/\s+/g, ' ').slice(0, MAX_RAW_TITLE_LENGTH);
        }
      },
      onattribentity: () => {},
      ontextentity: () => {},
      oncdata: () => {},
      oncomment: () => {},
      ondeclaration: () => {},
      onprocessinginstruction: () => {},
      onend: () => {},
    });
  }

  write(text: string): void {
    this.buffers.push(text);
    this.tokenizer.write(text);
  }

  end(): ExtractedPage {
    this.tokenizer.end();
    if (this.inTitle && !this.titleDone) this.keepTitle();
    if (this.inH1) this.keepH1();
    const text = this.text.length > MAX_TEXT_CHARS ? this.text.slice(0, MAX_TEXT_CHARS) : this.text;
    const { words, simhash } = fingerprintText(text.includes('&') ? decodeHTML(text) : text);
    this.page.words = words;
    this.page.simhash = simhash;
    if (this.page.nofollowAll) {
      for (const link of this.page.links) {
        if (link.kind === 'alternate') continue;
        link.nofollow = true;
        link.rel |= REL_BITS.nofollow;
      }
    }
    return this.page;
  }

  /** The text between two of the tokenizer's offsets (counted from the first chunk written), which may span chunks. */
  private slice(start: number, end: number): string {
    const buffers = this.buffers;
    while (start - this.bufferOffset >= buffers[0]!.length) this.bufferOffset += buffers.shift()!.length;
    let text = buffers[0]!.slice(start - this.bufferOffset, end - this.bufferOffset);
    while (end - this.bufferOffset > buffers[0]!.length) {
      this.bufferOffset += buffers.shift()!.length;
      text += buffers[0]!.slice(0, end - this.bufferOffset);
    }
    return text;
  }

  private openTagEnd(): void {
    if (this.tag === null) return;
    const name = this.tag;
    this.tag = null;
    this.open(name, this.attributes);
  }

  private keepTitle(): void {
    const title = decodeHTML(this.titleText).replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_LENGTH);
    this.page.title = title === '' ? null : title;
  }

  private keepH1(): void {
    if (this.page.h1 !== null || this.page.h1Count !== 1) return;
    const h1 = decodeHTML(this.h1Text).replace(/\s+/g, ' ').trim().slice(0, MAX_H1_LENGTH);
    this.page.h1 = h1 === '' ? null : h1;
  }

  private add(kind: HtmlLinkKind, href: string, rel: number, hreflang: string | null = null): void {
    let links = this.page.links;
    if (this.kept === null) {
      if (links.length < MERGE_AFTER && links.length < this.maxLinks) {
        // Repeats are merged by the crawler (per target and kind) or here once many links are written:
        // a Map per page would cost every page what only index pages and link farms need.
        links.push({ href, kind, rel, nofollow: (rel & REL_BITS.nofollow) !== 0, hreflang });
        return;
      }
      this.compact();
      // compact() made a new array: the link goes into that one.
      links = this.page.links;
    }
    // A link written again merges into its first copy; a new target is kept while there is room.
    const id = targetId(kind, href);
    const at = this.kept!.get(id);
    if (at !== undefined) {
      // Written again: nofollow (ugc, sponsored) only if every copy says so.
      const link = links[at]!;
      link.rel &= rel;
      link.nofollow = (link.rel & REL_BITS.nofollow) !== 0;
      return;
    }
    if (links.length >= this.maxLinks) {
      this.page.droppedLinks++;
      return;
    }
    this.kept!.set(id, links.length);
    links.push({ href, kind, rel, nofollow: (rel & REL_BITS.nofollow) !== 0, hreflang });
  }

  /** The links kept so far with their repeats merged (the cap counts distinct links, not hrefs written). */
  private compact(): void {
    const kept = new Map<string, number>();
    const merged: ExtractedLink[] = [];
    for (const link of this.page.links) {
      const id = targetId(link.kind, link.href);
      const at = kept.get(id);
      if (at === undefined) {
        kept.set(id, merged.length);
        merged.push(link);
      } else {
        const first = merged[at]!;
        first.rel &= link.rel;
        first.nofollow = (first.rel & REL_BITS.nofollow) !== 0;
      }
    }
    this.page.links = merged;
    this.kept = kept;
  }

  private open(name: string, attributes: Record<string, string>): void {
    switch (name) {
      case 'a':
      case 'area': {
        const href = attributes.href;
        if (href === undefined) return;
        this.add(name === 'a' ? 'anchor' : 'area', href, relBits(attributes.rel));
        return;
      }
      case 'frame':
      case 'iframe': {
        const src = attributes.src;
        if (src === undefined || src.trim() === '') return;
        this.add(name, src, 0);
        return;
      }
      case 'base':
        if (this.page.base === null && attributes.href !== undefined) this.page.base = attributes.href;
        return;
      case 'link': {
        const href = attributes.href;
        if (href === undefined) return;
        if (this.page.canonical === null && relHas(attributes.rel, 'canonical')) this.page.canonical = href;
        const hreflang = attributes.hreflang?.trim();
        if (hreflang !== undefined && hreflang !== '' && relHas(attributes.rel, 'alternate')) this.add('alternate', href, 0, hreflang.slice(0, MAX_HREFLANG_LENGTH));
        return;
      }
      case 'meta': {
        if ((attributes['http-equiv'] ?? '').trim().toLowerCase() === 'refresh') {
          const url = refreshUrl(attributes.content ?? '');
          if (url !== null) this.add('refresh', url, 0);
          return;
        }
        const metaName = (attributes.name ?? '').trim().toLowerCase();
        if (metaName === 'description') {
          if (this.page.description === null) {
            const description = (attributes.content ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_DESCRIPTION_LENGTH);
            if (description !== '') this.page.description = description;
          }
          return;
        }
        if (metaName !== 'robots') return;
        const content = (attributes.content ?? '').toLowerCase();
        if (/(^|[\s,])(nofollow|none)($|[\s,])/.test(content)) this.page.nofollowAll = true;
        if (/(^|[\s,])(noindex|none)($|[\s,])/.test(content)) this.page.noindex = true;
        return;
      }
      case 'h1':
        this.page.h1Count++;
        if (this.page.h1Count === 1) this.inH1 = true;
        return;
      case 'style':
      case 'template':
        this.hidden ??= name;
        return;
      case 'title':
        if (!this.titleDone) this.inTitle = true;
        this.hidden ??= name;
        return;
      case 'script':
        this.page.scripts++;
        this.hidden ??= name;
        return;
      case 'noscript':
        this.page.noscript = true;
        this.hidden ??= name;
        return;
      default:
    }
  }
}

/** A link's kind and target as written, up to its fragment (links to one target differing only there are merged). */
function targetId(kind: HtmlLinkKind, href: string): string {
  const hash = href.indexOf('#');
  return `${kind} ${hash === -1 ? href : href.slice(0, hash)}`;
}

/** Extracts from a whole document at once. */
export function extractLinks(html: string, maxLinks = DEFAULT_MAX_LINKS_PER_PAGE): ExtractedPage {
  const extractor = new LinkExtractor(maxLinks);
  extractor.write(html);
  return extractor.end();
}
