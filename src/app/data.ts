/** A store's data as a whole: import a graph file into it, delete everything. */
import type { Store } from '../store/store.js';
import { keyOfLabel } from '../store/records.js';
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
  /** Labels that are one page in a store (the same URL once normalised): how many were merged, and a few examples. */
  merged: { count: number; examples: Array<[string, string]> };
}

/** Labels of a graph that normalise to the same URL (store.ts keys): they become one page. */
export function mergedLabels(labels: { label(v: number): string }, n: number, examples = 3): ImportJson['merged'] {
  const first = new Map<string, string>();
  const merged: ImportJson['merged'] = { count: 0, examples: [] };
  for (let v = 0; v < n; v++) {
    const label = labels.label(v);
    // Labels that are not URLs are keys as they are: two of them cannot meet.
    if (!label.includes(':')) continue;
    const { key } = keyOfLabel(label);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, label);
    else {
      merged.count++;
      if (merged.examples.length < examples) merged.examples.push([earlier, label]);
    }
  }
  return merged;
}

/** Loads a graph file into the store: all of it, or nothing if it fails. */
export async function importGraph(store: Store, path: string, options: GraphFileOptions & { force?: boolean }, context: AppContext = quietContext): Promise<ImportJson> {
  await refuseWhileCrawling(store, 'importing into it', { force: options.force === true });
  const loaded = await loadGraphFile(path, options, context);
  // Checked again once the file is read (a crawl may have started meanwhile).
  await refuseWhileCrawling(store, 'importing into it', { force: options.force === true });
  context.signal?.throwIfAborted();
  context.onProgress?.({ phase: 'import', message: `writing ${loaded.graph.nodeCount.toLocaleString('en-US')} pages and ${loaded.graph.edgeCount.toLocaleString('en-US')} links to ${store.location}` });
  const merged = mergedLabels(loaded.graph.labels, loaded.graph.nodeCount);
  const started = performance.now();
  const report = await store.importGraph(loaded.graph, undefined, (links, share) =>
    context.onProgress?.({
      phase: 'import',
      message: `writing to ${store.location}: ${links.toLocaleString('en-US')} of ${loaded.graph.edgeCount.toLocaleString('en-US')} links (${(100 * (share ?? 0)).toFixed(0)}%), ${((performance.now() - started) / 1000).toFixed(1)} s`,
      done: links,
      total: loaded.graph.edgeCount,
    }),
  );
  const counts = await store.counts();
  return { file: path, store: store.location, ...report, load: loaded.seconds, pages: counts.pages, links: counts.links, merged };
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
