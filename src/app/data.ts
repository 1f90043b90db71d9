/** A store's data as a whole: import a graph file into it, delete everything. */
import type { Store } from '../store/store.js';
import type { AppContext } from './context.js';
import { quietContext } from './context.js';
import { type GraphFileOptions, loadGraphFile } from './graph-source.js';
import { refuseWhileCrawling } from './crawl-guard.js';

/** The `import --json` contract. */
export interface ImportJson {
  file: string;
  store: string;
  pagesAdded: number;
  linksAdded: number;
  /** Seconds writing to the store. */
  seconds: number;
  /** Seconds reading the file. */
  load: number;
  /** The store's pages and links afterwards. */
  pages: number;
  links: number;
}

/** Loads a graph file into the store: all of it, or nothing if it fails. */
export async function importGraph(store: Store, path: string, options: GraphFileOptions & { force?: boolean }, context: AppContext = quietContext): Promise<ImportJson> {
  await refuseWhileCrawling(store, 'importing into it', { force: options.force === true });
  const loaded = await loadGraphFile(path, options, context);
  // Checked again once the file is read (a crawl may have started meanwhile).
  await refuseWhileCrawling(store, 'importing into it', { force: options.force === true });
  context.signal?.throwIfAborted();
  context.onProgress?.({ phase: 'import', message: `writing ${loaded.graph.nodeCount.toLocaleString('en-US')} pages and ${loaded.graph.edgeCount.toLocaleString('en-US')} links to ${store.location}` });
  const report = await store.importGraph(loaded.graph);
  const counts = await store.counts();
  return { file: path, store: store.location, ...report, load: loaded.seconds, pages: counts.pages, links: counts.links };
}

/** What reset deleted. */
export interface ResetJson {
  store: string;
  deleted: { pages: number; links: number; runs: number };
}

/** Deletes every page, link, run and score of the store. */
export async function resetStore(store: Store, options: { force?: boolean } = {}): Promise<ResetJson> {
  await refuseWhileCrawling(store, 'resetting it', options);
  const counts = await store.counts();
  await store.reset();
  return { store: store.location, deleted: { pages: counts.pages, links: counts.links, runs: counts.runs } };
}
