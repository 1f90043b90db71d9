/**
 * `wga experiment ordering`: replays the first pass of a crawl over a
 * stored crawl's graph or a generated site with each strategy and reports
 * how early each fetches the important pages and how good each running
 * estimate is (experiments/crawl-ordering.ts); writes CSV, SVG plots and a
 * summary.
 */
import { type AppContext, quietContext } from './context.js';
import type { CrawlStrategy } from '../crawl/frontier.js';
import { type OrderingResult, runOrderingExperiment, type UnfetchedConvention } from '../experiments/crawl-ordering.js';
import { writeOrderingReport } from '../experiments/ordering-report.js';
import { Website } from '../experiments/website.js';
import { ExitCode, OptionError, WgaError } from '../errors.js';
import { buildFromEdges } from '../graph/builder.js';
import { EdgeBuffer } from '../graph/edge-buffer.js';
import type { Graph } from '../graph/graph.js';
import { IdentityLabels } from '../graph/labels.js';
import { openStore } from '../store/open.js';

export interface OrderingInput {
  /** A store holding a crawl: its graph, from the pages at depth 0 (or `seedUrl`). */
  db?: string;
  seedUrl?: string;
  /** Else a generated site (experiments/website.ts, without hazards) of this many pages, from its home page. */
  pages?: number;
  siteSeed?: number;
  strategies?: CrawlStrategy[];
  updateEvery?: number;
  /** The live PageRank's treatment of unfetched pages (crawl-ordering.ts): 'links-seen', as the crawler does. */
  unfetched?: UnfetchedConvention;
  /** The site's name in the plots and summary (default: the store, or the generated site's size). */
  title?: string;
  /** Directory for ordering.csv, the SVG plots and summary.md. */
  out: string;
  /** The command line, for the summary. */
  command: string;
}

export interface OrderingOutput extends OrderingResult {
  site: string;
  files: string[];
}

async function storedGraph(db: string, seedUrl: string | undefined): Promise<{ graph: Graph; seeds: number[]; site: string }> {
  const store = await openStore(db);
  try {
    const { graph, pageIds } = await store.loadGraph();
    const index = new Map<number, number>();
    pageIds.forEach((id, v) => index.set(id, v));
    let seedIds: number[];
    if (seedUrl !== undefined) {
      const page = await store.pageByUrl(seedUrl);
      if (page === null) throw new OptionError('--seed-url', `${seedUrl} is not a page of ${store.location}`);
      seedIds = [page.id];
    } else {
      seedIds = (await store.loadCrawl()).pages.filter((p) => p.depth === 0).map((p) => p.id);
      if (seedIds.length === 0) throw new WgaError(`${store.location}: holds no crawl with seeds (depth 0); give --seed-url`, ExitCode.usage);
    }
    return { graph, seeds: seedIds.map((id) => index.get(id)!), site: store.location };
  } finally {
    await store.close();
  }
}

function generatedGraph(pages: number, seed: number): { graph: Graph; seeds: number[]; site: string } {
  const site = new Website({ pages, seed, hazards: false });
  const edges = new EdgeBuffer();
  for (let u = 0; u < pages; u++) for (let e = site.offsets[u]!; e < site.offsets[u + 1]!; e++) edges.push(u, site.targets[e]!);
  const { graph } = buildFromEdges(pages, edges, new IdentityLabels(pages));
  return { graph, seeds: [0], site: `generated site of ${pages.toLocaleString('en-US')} pages (seed ${seed})` };
}

export async function orderingExperiment(input: OrderingInput, context: AppContext = quietContext): Promise<OrderingOutput> {
  const { graph, seeds, site: described } = input.db !== undefined ? await storedGraph(input.db, input.seedUrl) : generatedGraph(input.pages ?? 100_000, input.siteSeed ?? 1);
  const result = runOrderingExperiment(graph, {
    seeds,
    ...(input.strategies === undefined ? {} : { strategies: input.strategies }),
    ...(input.updateEvery === undefined ? {} : { updateEvery: input.updateEvery }),
    ...(input.unfetched === undefined ? {} : { unfetched: input.unfetched }),
    onProgress: (message) => context.onProgress?.({ phase: 'ordering', message }),
  });
  const site = input.title ?? described;
  const files = await writeOrderingReport(result, input.out, site, input.command);
  return { ...result, site, files };
}
