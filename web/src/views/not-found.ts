/** Any path the GUI does not know. */
import { h, routeLink } from '../dom.js';

export function notFoundView(root: HTMLElement): void {
  root.append(h('h1', undefined, 'Not found'), h('p', undefined, 'This address is not a view of wga. Go to ', routeLink('/crawl', {}, 'Crawl'), ' or ', routeLink('/pages', {}, 'Pages'), '.'));
}
