/**
 * The only way the GUI builds its DOM. Crawled strings (titles, URLs, anchors) are hostile: they
 * go in as text nodes or as values of attributes that cannot run code, never through innerHTML.
 * `h` refuses event-handler attributes and URL-bearing ones (href, src, action...): links are made
 * by `pageLink` (an in-app route) and `externalLink` (only http/https URLs become clickable).
 */

export type Child = Node | string | number | null | undefined | false;
export type Attributes = Record<string, string | number | boolean | null | undefined>;

const FORBIDDEN_ATTRIBUTE = /^(on|href$|src$|srcdoc$|action$|formaction$|xlink:href$|style$)/i;

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

function setAttributes(element: Element, attributes: Attributes | undefined): void {
  if (attributes === undefined) return;
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (FORBIDDEN_ATTRIBUTE.test(name)) throw new Error(`dom: attribute '${name}' must be set by a dedicated helper`);
    element.setAttribute(name, value === true ? '' : String(value));
  }
}

/** An HTML element with attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes?: Attributes, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element; text inside it (labels, <title> tooltips) is a text node too. */
export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes?: Attributes, ...children: Child[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** True for an absolute http: or https: URL (the only ones the GUI makes clickable off-site). */
export function isWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A link opening `url` in a new tab when it is http(s); any other URL (javascript:, data:...) is plain text. */
export function externalLink(url: string, text: string = url): HTMLElement {
  if (!isWebUrl(url)) return h('span', { class: 'url', title: url }, text);
  const a = h('a', { class: 'external', target: '_blank', rel: 'noopener noreferrer nofollow', title: url }, text);
  a.href = new URL(url).href;
  return a;
}

/** An in-app link to a route (e.g. `/page?url=...`); the router handles the click. */
export function routeLink(path: string, params: Record<string, string>, text: Child, attributes?: Attributes): HTMLAnchorElement {
  const a = h('a', { ...attributes, 'data-route': '' }, text);
  const query = new URLSearchParams(params).toString();
  a.href = query === '' ? path : `${path}?${query}`;
  return a;
}

/** A link to a page's detail view, labelled by its URL (as text). */
export function pageLink(url: string, text: string = url): HTMLAnchorElement {
  return routeLink('/page', { url }, text, { class: 'page-link', title: url });
}

/** Numbers as people read them. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatScore(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  return Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? x.toPrecision(4) : x.toExponential(3);
}

/** A table with a header row; cells are children (text or elements). */
export function table(headers: readonly string[], rows: readonly (readonly Child[])[], numeric: readonly number[] = []): HTMLTableElement {
  const head = headers.every((text) => text === '') ? null : h('thead', undefined, h('tr', undefined, ...headers.map((text, i) => h('th', { class: numeric.includes(i) ? 'num' : null }, text))));
  const body = h('tbody');
  for (const row of rows) body.appendChild(h('tr', undefined, ...row.map((cell, i) => h('td', { class: numeric.includes(i) ? 'num' : null }, cell))));
  return h('table', { class: 'data' }, head, body);
}

/** A labelled form field. */
export function field(label: string, input: HTMLElement, help?: string): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'label' }, label), input, help === undefined ? null : h('small', undefined, help));
}

/** A message box for errors and notes. */
export function notice(kind: 'error' | 'info' | 'ok', text: string): HTMLElement {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
