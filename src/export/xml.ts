/**
 * XML text from crawled strings. Crawled URLs and titles are hostile: they can
 * hold markup characters, control characters XML 1.0 forbids (even escaped)
 * and lone UTF-16 surrogates that no UTF-8 encoder can write. Forbidden code
 * points become U+FFFD (the replacement character); markup characters and the
 * whitespace an attribute value would normalise away become references.
 */

/** XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. */
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const SPECIAL = /[&<>"'\t\n\r]/g;
const REFERENCES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};
const NEEDS_WORK = /[&<>"'\t\n\r\u0000-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

/** The string as XML attribute value or text content (the same escaping serves both). */
export function xmlEscape(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(FORBIDDEN, '\uFFFD').replace(SPECIAL, (c) => REFERENCES[c]!);
}

/** The string with what XML cannot hold replaced, for formats that carry it raw (e.g. well-formed UTF-8). */
export function wellFormedText(text: string): string {
  return text.replace(FORBIDDEN, '\uFFFD');
}
