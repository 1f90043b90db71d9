/**
 * A collapsible tree as nested lists: the crawl tree (pages under the page that first linked
 * them) or the directory tree of URL paths. Children are built only when a branch is opened, so
 * a tree of many thousands of entries costs nothing until explored.
 */
import { type Child, h } from '../dom.js';

export interface TreeItem {
  /** What the row shows (text or an element such as a page link). */
  label: () => Child;
  /** Extra text after the label (counts, scores). */
  note?: string;
  /** Its share of its parent (0..1), drawn as a small bar. */
  share?: number;
  /** A coloured dot before the label (status), of a diameter in pixels (importance). */
  dot?: { colour: string; size: number };
  children: TreeItem[];
}

function row(item: TreeItem, openDepth: number): HTMLLIElement {
  const li = h('li');
  const hasChildren = item.children.length > 0;
  const toggle = h('button', { type: 'button', class: 'toggle', 'aria-expanded': 'false', 'aria-label': hasChildren ? 'open' : null }, hasChildren ? '▸' : '');
  let dot: HTMLElement | null = null;
  if (item.dot !== undefined) {
    dot = h('span', { class: 'dot' });
    dot.style.width = dot.style.height = `${item.dot.size}px`;
    dot.style.background = item.dot.colour;
  }
  let bar: HTMLElement | null = null;
  if (item.share !== undefined) {
    bar = h('span', { class: 'share', title: `${(100 * item.share).toFixed(1)} % of its parent` });
    bar.style.width = `${Math.max(1, Math.round(120 * item.share))}px`;
  }
  li.append(toggle, dot ?? '', h('span', { class: 'label' }, item.label()), item.note === undefined ? '' : h('span', { class: 'size' }, item.note), bar ?? '');
  let list: HTMLUListElement | null = null;
  const setOpen = (open: boolean): void => {
    if (!hasChildren) return;
    if (open && list === null) {
      list = h('ul');
      for (const child of item.children) list.appendChild(row(child, openDepth - 1));
      li.appendChild(list);
    }
    list?.classList.toggle('hidden', !open);
    toggle.textContent = open ? '▾' : '▸';
    toggle.setAttribute('aria-expanded', String(open));
  };
  toggle.addEventListener('click', () => setOpen(toggle.getAttribute('aria-expanded') !== 'true'));
  if (openDepth > 0) setOpen(true);
  return li;
}

/** A tree of `roots`, opened `openDepth` levels deep. */
export function treeList(roots: readonly TreeItem[], openDepth = 1): HTMLElement {
  const list = h('ul');
  for (const item of roots) list.appendChild(row(item, openDepth));
  return h('div', { class: 'tree' }, list);
}
