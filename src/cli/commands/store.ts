/**
 * Commands on a store: import a graph file, look up a page, search pages by
 * URL or by their neighbours' URLs, list the top pages of a stored run, and
 * reset (the queries of the Web Graph Analyzer paper's GUI, Section 4.5).
 */
import { createInterface } from 'node:readline/promises';
import { sharedCrawlInstances } from '../../app/shared-crawl.js';
import { printShares } from './crawl-shared.js';
import type { Command } from 'commander';
import { OptionError, WgaError, ExitCode } from '../../errors.js';
import { openStore } from '../../store/open.js';
import type { LinkRecord, PageRecord, Store } from '../../store/store.js';
import { type GraphInputOptions, addGraphFileOptions, loadFromOptions } from '../graph-input.js';
import { count, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { integerOption } from '../values.js';

interface StoreOptions {
  db?: string;
  json?: boolean;
}

function requireDb(options: StoreOptions): string {
  if (options.db === undefined) throw new OptionError('--db', 'missing: the store (a SQLite file or a postgres:// URL)');
  return options.db;
}

async function withStore<T>(options: StoreOptions, work: (store: Store) => Promise<T>, create = false): Promise<T> {
  const store = await openStore(requireDb(options), { create });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The `page --json` contract (documented in the README). */
export interface PageJson {
  url: string;
  key: string;
  host: string;
  status: number | null;
  contentType: string | null;
  fetchedAt: string | null;
  title: string | null;
  inDegree: number;
  outDegree: number;
  inLinks: string[];
  outLinks: string[];
  /** Every stored score of the page: run id, method and value. */
  scores: Array<{ run: number; method: string; value: number }>;
}

function pageRow(page: PageRecord): string[] {
  return [String(page.id), page.status === null ? '-' : String(page.status), safeLabel(page.url)];
}

function linkList(links: LinkRecord[]): string[] {
  return links.map((l) => (l.kind === 'anchor' && !l.nofollow ? l.url : `${l.url} (${l.kind}${l.nofollow ? ', nofollow' : ''})`));
}

export function registerStoreCommands(program: Command): void {
  addGraphFileOptions(
    program
      .command('import')
      .description('load a graph file (edge list or WebGraph BV) into a store: all of it, or nothing if it fails')
      .argument('<graph>', 'graph file')
      .option('--db <store>', 'the store to load into: a SQLite file (created if missing) or a postgres:// URL')
      .option('--json', 'print one JSON document'),
  ).action(async (path: string, options: GraphInputOptions) => {
    const db = requireDb(options);
    const loaded = await loadFromOptions(path, options);
    await withStore(
      { db },
      async (store) => {
        const report = await store.importGraph(loaded.graph);
        const counts = await store.counts();
        const result = { file: path, store: store.location, ...report, load: loaded.seconds, pages: counts.pages, links: counts.links };
        if (options.json === true) printJson(result);
        else {
          print(
            `imported ${path} into ${store.location}: ${count(report.pagesAdded)} pages and ${count(report.linksAdded)} links added ` +
              `(store: ${count(counts.pages)} pages, ${count(counts.links)} links); read ${seconds(loaded.seconds)}, write ${seconds(report.seconds)}`,
          );
        }
      },
      true,
    );
  });

  program
    .command('page')
    .description("a page of the store: its links in and out (URLs), degrees and every stored score")
    .argument('<url>', 'the page URL (or any label it was imported with)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--limit <n>', 'how many links to show each way (default: 20; --json lists all)')
    .option('--json', 'print one JSON document')
    .action(async (url: string, options: StoreOptions & { limit?: string }) => {
      const limit = integerOption('--limit', options.limit, 20, 0);
      await withStore(options, async (store) => {
        const page = await store.pageByUrl(url);
        if (page === null) throw new WgaError(`${store.location}: no page '${safeLabel(url)}' in the store`, ExitCode.usage);
        const [inLinks, outLinks, degrees, scores] = await Promise.all([
          store.links(page.id, 'in'),
          store.links(page.id, 'out'),
          store.degrees(page.id),
          store.scoresOf(page.id),
        ]);
        const report: PageJson = {
          url: page.url,
          key: page.key,
          host: page.host,
          status: page.status,
          contentType: page.contentType,
          fetchedAt: page.fetchedAt === null ? null : new Date(page.fetchedAt).toISOString(),
          title: page.title,
          inDegree: degrees.inDegree,
          outDegree: degrees.outDegree,
          inLinks: linkList(inLinks),
          outLinks: linkList(outLinks),
          scores,
        };
        if (options.json === true) {
          printJson(report);
          return;
        }
        print(table([
          ['page', safeLabel(page.url)],
          ['title', page.title === null ? '-' : safeLabel(page.title)],
          ['fetched', page.fetchedAt === null ? 'never' : `${report.fetchedAt} (status ${page.status}, ${page.contentType ?? '?'})`],
          ['links', `${count(degrees.inDegree)} in, ${count(degrees.outDegree)} out`],
        ]));
        if (scores.length > 0) {
          print('\nstored scores');
          print(table(scores.map((s) => [`run ${s.run}`, s.method, score(s.value)])));
        }
        for (const [title, list] of [
          ['links in (pages linking here)', report.inLinks],
          ['links out', report.outLinks],
        ] as const) {
          print(`\n${title}`);
          for (const line of list.slice(0, limit)) print(`  ${safeLabel(line)}`);
          if (list.length > limit) print(`  ... ${count(list.length - limit)} more`);
        }
      });
    });

  program
    .command('search')
    .description('search pages by URL (substring or prefix), or by the URLs of the pages they link to or from')
    .argument('<text>', 'text the URL contains (or starts with, with --prefix)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--prefix', 'match the start of the URL instead of any part')
    .option('--links-to', 'find the pages linking to a page whose URL matches')
    .option('--linked-from', 'find the pages a page whose URL matches links to')
    .option('--limit <n>', 'at most this many pages (default: 50)')
    .option('--json', 'print one JSON document')
    .action(async (text: string, options: StoreOptions & { prefix?: boolean; linksTo?: boolean; linkedFrom?: boolean; limit?: string }) => {
      const limit = integerOption('--limit', options.limit, 50, 1);
      if (options.linksTo === true && options.linkedFrom === true) throw new OptionError('--links-to', 'cannot be combined with --linked-from');
      const mode = options.prefix === true ? 'prefix' : 'substring';
      await withStore(options, async (store) => {
        const pages =
          options.linksTo === true
            ? await store.searchByNeighbour(text, 'in', { mode, limit })
            : options.linkedFrom === true
              ? await store.searchByNeighbour(text, 'out', { mode, limit })
              : await store.searchPages(text, { mode, limit });
        if (options.json === true) {
          printJson({ query: text, mode, pages: pages.map((p) => ({ id: p.id, url: p.url, status: p.status, title: p.title })) });
          return;
        }
        if (pages.length === 0) print('no page found');
        else print(table([['id', 'status', 'url'], ...pages.map(pageRow)], [0]));
      });
    });

  program
    .command('top')
    .description('the best pages of a stored run (by default the latest run of the --score method)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--score <method>', 'the method of the run (pagerank, montecarlo, opic, traffic, hotness, ...)', 'pagerank')
    .option('--run <id>', 'a run id instead of the latest run of --score')
    .option('--top <k>', 'how many pages (default: 10)')
    .option('--json', 'print one JSON document')
    .action(async (options: StoreOptions & { score: string; run?: string; top?: string }) => {
      const k = integerOption('--top', options.top, 10, 1);
      await withStore(options, async (store) => {
        // OPIC while (or after) crawling: the estimates straight from the pages' cash and history,
        // current to the last checkpoint, so that another shell sees the live ranking.
        if (options.score === 'opic' && options.run === undefined) {
          const live = await store.liveOpicTop(k);
          if (live !== null) {
            if (options.json === true) {
              const instances = await sharedCrawlInstances(options.db ?? '');
              printJson({ run: null, live: true, top: live.map((t, i) => ({ rank: i + 1, url: t.page.url, score: t.value })), ...(instances.length > 0 ? { instances } : {}) });
              return;
            }
            print(`OPIC estimates of the crawl in ${store.location}, as of its last checkpoint`);
            print();
            print(table([['rank', 'importance', 'page'], ...live.map((t, i) => [String(i + 1), score(t.value), safeLabel(t.page.url)])], [0]));
            await printShares(options.db ?? '', '\nInstances of the shared crawl');
            return;
          }
        }
        const run =
          options.run === undefined
            ? await store.latestRun(options.score)
            : (await store.runs()).find((r) => r.id === integerOption('--run', options.run, 0, 1)) ?? null;
        if (run === null) {
          throw new WgaError(
            `${store.location}: no stored ${options.run === undefined ? `'${options.score}' run` : `run ${options.run}`}; ` +
              `save one with: wga rank --db ${store.location} --method ${options.score} --save`,
            ExitCode.usage,
          );
        }
        const top = await store.topPages(run.id, k);
        if (options.json === true) {
          printJson({ run, top: top.map((t, i) => ({ rank: i + 1, url: t.page.url, score: t.value })) });
          return;
        }
        print(`run ${run.id}: ${run.method} of ${count(run.pages)} pages, ${new Date(run.finishedAt).toISOString()}`);
        print();
        print(table([['rank', 'score', 'page'], ...top.map((t, i) => [String(i + 1), score(t.value), safeLabel(t.page.url)])], [0]));
      });
    });

  program
    .command('reset')
    .description('delete every page, link, run and score of a store (asks first unless --yes)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--yes', 'do not ask')
    .action(async (options: StoreOptions & { yes?: boolean }) => {
      await withStore(options, async (store) => {
        const counts = await store.counts();
        if (options.yes !== true) {
          if (process.stdin.isTTY !== true) {
            throw new OptionError('--yes', `needed to reset ${store.location} without a terminal to confirm on`);
          }
          const rl = createInterface({ input: process.stdin, output: process.stderr });
          const answer = await rl.question(
            `Delete ${count(counts.pages)} pages, ${count(counts.links)} links and ${count(counts.runs)} runs from ${store.location}? Type yes: `,
          );
          rl.close();
          if (answer.trim() !== 'yes') {
            print('nothing deleted');
            return;
          }
        }
        await store.reset();
        print(`deleted ${count(counts.pages)} pages, ${count(counts.links)} links and ${count(counts.runs)} runs from ${store.location}`);
      });
    });
}
