/**
 * `import-warc`: pages and links from WARC files into a store, through the crawl's own page
 * pipeline (crawl/warc-import.ts), so that a crawl archived with --warc (or by Heritrix) can be
 * parsed again without fetching anything.
 */
import { statSync } from 'node:fs';
import { FileNotFoundError, OptionError } from '../errors.js';
import { completeSettings } from '../crawl/settings.js';
import { archivedHosts, WarcImporter } from '../crawl/warc-import.js';
import type { NewLink, Store } from '../store/store.js';
import { type AppContext, quietContext } from './context.js';
import { choiceOption } from './values.js';
import { refuseWhileCrawling } from './crawl-guard.js';

export interface ImportWarcOptions {
  /** Links kept to: the hosts the archive has answers of ('archived', the default), or 'any'. */
  hosts?: string;
  filter?: string[];
  fence?: string[];
  extensions?: string;
  force?: boolean;
}

/** The `import-warc --json` contract. */
export interface ImportWarcJson {
  files: string[];
  store: string;
  records: number;
  responses: number;
  skipped: number;
  pagesAdded: number;
  linksAdded: number;
  seconds: number;
  pages: number;
  links: number;
}

export async function importWarc(store: Store, paths: readonly string[], options: ImportWarcOptions = {}, context: AppContext = quietContext): Promise<ImportWarcJson> {
  const started = performance.now();
  if (paths.length === 0) throw new OptionError('files', 'give at least one WARC file');
  for (const path of paths) {
    let file = false;
    try {
      file = statSync(path).isFile();
    } catch {
      file = false;
    }
    if (!file) throw new FileNotFoundError(path);
  }
  const hosts = choiceOption('--hosts', options.hosts, ['archived', 'any'] as const, 'archived');
  const seedHosts = hosts === 'archived' ? await archivedHosts(paths) : [];
  const settings = completeSettings({
    seeds: [],
    hosts: hosts === 'archived' ? 'seeds' : 'any',
    filters: options.filter ?? [],
    fences: options.fence ?? [],
    extensions: options.extensions === undefined || options.extensions === 'any' ? null : options.extensions.split(',').map((e) => e.trim().replace(/^\./, '').toLowerCase()).filter((e) => e !== ''),
  });
  const importer = new WarcImporter(settings, seedHosts);
  for (const path of paths) {
    context.onProgress?.({ phase: 'load', message: `reading ${path}: ${importer.counts.responses.toLocaleString('en-US')} responses so far` });
    await importer.read(path);
    context.signal?.throwIfAborted();
  }
  await refuseWhileCrawling(store, 'importing into it', { force: options.force === true });
  const pages = importer.pages();
  context.onProgress?.({ phase: 'import', message: `writing ${pages.length.toLocaleString('en-US')} pages to ${store.location}` });
  const before = await store.counts();
  const ids = await store.addPages(
    pages.map((p) => p.url),
    pages.map((p) => p.key),
    null,
    pages.map((p) => p.role),
  );
  for (let i = 0; i < pages.length; i++) {
    const record = pages[i]!.record;
    if (record !== null) await store.recordFetch(ids[i]!, record);
  }
  const links: NewLink[] = [];
  pages.forEach((page, i) => {
    for (const link of page.links) {
      links.push({ source: ids[i]!, target: ids[link.target]!, kind: link.kind, nofollow: (link.rel & 1) !== 0, rel: link.rel, hreflang: link.hreflang, lastmod: link.lastmod });
    }
  });
  const linksAdded = await store.addLinks(links);
  const after = await store.counts();
  return {
    files: [...paths],
    store: store.location,
    ...importer.counts,
    pagesAdded: after.pages - before.pages,
    linksAdded,
    seconds: (performance.now() - started) / 1000,
    pages: after.pages,
    links: after.links,
  };
}
