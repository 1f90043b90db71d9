/**
 * What a crawler takes from an HTML page, read as it streams in through
 * htmlparser2 (a tokenizer without recursion, and no tree kept, see
 * FlatParser: malformed or deeply nested markup cannot overflow anything nor
 * cost more than its length): the hyperlinks of <a> and <area>
 * with their rel=nofollow, the first <base href>, <link rel=canonical>,
 * <meta name=robots content=nofollow>, and the title. Hrefs are kept as
 * written; the crawler resolves them against the base.
 */
import { Parser } from 'htmlparser2';

/** Links after this many on one page are counted, not kept (a page is not a link farm's list). */
export const MAX_LINKS_PER_PAGE = 10_000;
/** Characters of title kept. */
export const MAX_TITLE_LENGTH = 500;

export interface ExtractedLink {
  href: string;
  nofollow: boolean;
}

export interface ExtractedPage {
  title: string | null;
  /** The first <base href>, as written. */
  base: string | null;
  links: ExtractedLink[];
  /** Links beyond MAX_LINKS_PER_PAGE, dropped. */
  droppedLinks: number;
  canonical: string | null;
  /** <meta name="robots"> says nofollow (or none): every link is nofollow. */
  nofollowAll: boolean;
}

function relHas(rel: string | undefined, token: string): boolean {
  if (rel === undefined) return false;
  return rel.toLowerCase().split(/\s+/).includes(token);
}

/**
 * htmlparser2's Parser keeps a stack of the open elements, shifted and unshifted at every tag:
 * O(depth) per tag, minutes of CPU for a page of 100,000 nested elements. The extractor needs no
 * tree, so every element but <title> (whose end it waits for) is taken as void and never stacked.
 */
class FlatParser extends Parser {
  protected override isVoidElement(name: string): boolean {
    return name !== 'title';
  }
}

/** A streaming extractor: write() decoded text as it arrives, then end(). */
export class LinkExtractor {
  private readonly parser: Parser;
  private readonly page: ExtractedPage = { title: null, base: null, links: [], droppedLinks: 0, canonical: null, nofollowAll: false };
  private inTitle = false;
  private titleText = '';
  private titleDone = false;

  constructor() {
    this.parser = new FlatParser(
      {
        onopentag: (name, attributes) => this.open(name, attributes),
        ontext: (text) => {
          // Kept with its whitespace runs folded, so that how much is kept does not depend on how the text was chunked.
          if (this.inTitle && this.titleText.length < MAX_TITLE_LENGTH * 2) this.titleText = (this.titleText + text).replace(/\s+/g, ' ');
        },
        onclosetag: (name) => {
          if (name === 'title' && this.inTitle) {
            this.inTitle = false;
            this.titleDone = true;
            const title = this.titleText.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_LENGTH);
            this.page.title = title === '' ? null : title;
          }
        },
      },
      { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    );
  }

  write(text: string): void {
    this.parser.write(text);
  }

  end(): ExtractedPage {
    this.parser.end();
    if (this.inTitle && !this.titleDone) {
      const title = this.titleText.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_LENGTH);
      this.page.title = title === '' ? null : title;
    }
    if (this.page.nofollowAll) for (const link of this.page.links) link.nofollow = true;
    return this.page;
  }

  private open(name: string, attributes: Record<string, string>): void {
    switch (name) {
      case 'a':
      case 'area': {
        const href = attributes.href;
        if (href === undefined) return;
        if (this.page.links.length >= MAX_LINKS_PER_PAGE) {
          this.page.droppedLinks++;
          return;
        }
        this.page.links.push({ href, nofollow: relHas(attributes.rel, 'nofollow') });
        return;
      }
      case 'base':
        if (this.page.base === null && attributes.href !== undefined) this.page.base = attributes.href;
        return;
      case 'link':
        if (this.page.canonical === null && attributes.href !== undefined && relHas(attributes.rel, 'canonical')) this.page.canonical = attributes.href;
        return;
      case 'meta': {
        if ((attributes.name ?? '').toLowerCase() !== 'robots') return;
        const content = (attributes.content ?? '').toLowerCase();
        if (/(^|[\s,])(nofollow|none)($|[\s,])/.test(content)) this.page.nofollowAll = true;
        return;
      }
      case 'title':
        if (!this.titleDone) this.inTitle = true;
        return;
      default:
    }
  }
}

/** Extracts from a whole document at once. */
export function extractLinks(html: string): ExtractedPage {
  const extractor = new LinkExtractor();
  extractor.write(html);
  return extractor.end();
}
