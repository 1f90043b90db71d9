/**
 * Commands on a store: import a graph file, look up a page, search pages by
 * URL or by their neighbours' URLs, list the top pages of a stored run, and
 * reset (the queries of the Web Graph Analyzer paper's GUI, Section 4.5).
 */
import { runCompactPage, runCompactTop } from './compact.js';
import { createInterface } from 'node:readline/promises';
import { sharedCrawlInstances } from '../../app/shared-crawl.js';
import { printShares } from './crawl-shared.js';
import type { Command } from 'commander';
import { importGraph, resetStore } from '../../app/data.js';
import type { ImportWarcOptions } from '../../app/import-warc.js';
import { collect } from '../../app/crawl.js';
import { refuseWhileCrawling } from '../../app/crawl-guard.js';
import { withStore as withAppStore } from '../../app/graph-source.js';
import { deleteRun, listRuns, pageDetail, pagesByStatus, runScoresTsv, search, topPages, topSites } from '../../app/pages.js';
import { OptionError } from '../../errors.js';
import { GRAPH_LEVELS } from '../../graph/hosts.js';
import type { PageRecord, Store } from '../../store/store.js';
import { type GraphInputOptions, addGraphFileOptions, progressContext } from '../graph-input.js';
import { liveTop } from '../../app/live-rank.js';
import { count, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { choiceOption, integerOption } from '../values.js';

interface StoreOptions {
  db?: string;
  json?: boolean;
}

function requireDb(options: StoreOptions): string {
  if (options.db === undefined) throw new OptionError('--db', 'missing: the store (a SQLite file or a postgres:// URL)');
  return options.db;
}

async function withStore<T>(options: StoreOptions, work: (store: Store) => Promise<T>, create = false): Promise<T> {
  return withAppStore(requireDb(options), work, { create });
}

export type { PageJson } from '../../app/pages.js';

function pageRow(page: Pick<PageRecord, 'id' | 'status' | 'url'>): string[] {
  return [String(page.id), page.status === null ? '-' : String(page.status), safeLabel(page.url)];
}

export function registerStoreCommands(program: Command): void {
  addGraphFileOptions(
    program
      .command('import')
      .description('load a graph file (edge list or WebGraph BV) into a store: all of it, or nothing if it fails')
      .argument('<graph>', 'graph file')
      .option('--db <store>', 'the store to load into: a SQLite file (created if missing) or a postgres:// URL')
      .option('--force', 'import even though a crawl whose process is gone left its lock in the store')
      .option('--json', 'print one JSON document'),
  ).action(async (path: string, options: GraphInputOptions & { force?: boolean }) => {
    const db = requireDb(options);
    // The file is read before the store is opened, so that a bad file creates no store.
    const { context, progress } = progressContext(options);
    const result = await withStore({ db }, (store) => importGraph(store, path, options, context), true).finally(() => progress.done());
    if (result.merged.count > 0 && options.quiet !== true) {
      const [a, b] = result.merged.examples[0]!;
      process.stderr.write(`wga: ${count(result.merged.count)} labels are the same URL as another once normalised, and were merged with it (e.g. ${safeLabel(b, 100)} with ${safeLabel(a, 100)})\n`);
    }
    if (options.json === true) printJson(result);
    else {
      print(
        `imported ${path} into ${result.store}: ${count(result.pagesAdded)} pages and ${count(result.linksAdded)} links added ` +
          `(store: ${count(result.pages)} pages, ${count(result.links)} links); read ${seconds(result.load)}, write ${seconds(result.seconds)}`,
      );
    }
  });

  program
    .command('import-warc')
    .description('pages and links from WARC files (a crawl archived with --warc, or by Heritrix), parsed as the crawler parses pages')
    .argument('<files...>', 'WARC files (.warc or .warc.gz)')
    .option('--db <store>', 'the store to load into: a SQLite file (created if missing) or a postgres:// URL')
    .option('--hosts <scope>', "links kept to: 'archived' (the hosts the files have answers of) or 'any' (default: archived)")
    .option('--filter <regex>', 'a URL must match one of these to be kept (repeatable)', collect)
    .option('--fence <regex>', 'a URL matching any of these is left out (repeatable)', collect)
    .option('--extensions <list>', "file extensions kept, comma-separated, or 'any' (default: those the crawler fetches)")
    .option('--force', 'import even though a crawl whose process is gone left its lock in the store')
    .option('--json', 'print one JSON document')
    .option('-q, --quiet', 'no progress messages on stderr')
    .action(async (files: string[], options: StoreOptions & ImportWarcOptions & { quiet?: boolean }) => {
      const db = requireDb(options);
      const { context, progress } = progressContext(options);
      // Loaded only here: the WARC reader (warcio and its dependencies) costs every other command's start-up otherwise.
      const { importWarc } = await import('../../app/import-warc.js');
      const result = await withStore({ db }, (store) => importWarc(store, files, options, context), true).finally(() => progress.done());
      if (options.json === true) printJson(result);
      else {
        print(
          `imported ${count(files.length)} WARC file${files.length === 1 ? '' : 's'} into ${result.store}: ${count(result.responses)} responses, ` +
            `${count(result.pagesAdded)} pages and ${count(result.linksAdded)} links added (store: ${count(result.pages)} pages, ${count(result.links)} links) in ${seconds(result.seconds)}`,
        );
      }
    });

  program
    .command('page')
    .description("a page of the store: its links in and out (URLs), degrees and every stored score")
    .argument('<url>', 'the page URL (or any label it was imported with)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--graph <file.wgc>', 'a page of a compact graph file instead, read in place (its name or id)')
    .option('--limit <n>', 'how many links to show each way (default: 20; --json lists all)')
    .option('--json', 'print one JSON document')
    .action(async (url: string, options: StoreOptions & { limit?: string; graph?: string }) => {
      if (options.graph !== undefined) {
        if (options.db !== undefined) throw new OptionError('--graph', 'cannot be combined with --db');
        runCompactPage(options.graph, url, options);
        return;
      }
      const limit = integerOption('--limit', options.limit, 20, 0);
      await withStore(options, async (store) => {
        const report = await pageDetail(store, url);
        const { inDegree, outDegree, scores } = report;
        if (options.json === true) {
          printJson(report);
          return;
        }
        print(table([
          ['page', safeLabel(report.url)],
          ['title', report.title === null ? '-' : safeLabel(report.title)],
          ['fetched', report.fetchedAt === null ? 'never' : `${report.fetchedAt} (status ${report.status}, ${report.contentType ?? '?'})`],
          ...(report.role === 'sitemap' ? [['role', 'sitemap']] : []),
          ...(report.rendered === null ? [] : [['rendered', `in Chromium: ${report.rendered}${report.rendered === 'failed' ? " (its HTML's links stand)" : "; links marked 'script' are only in the rendered page"}`]]),
          ...(report.linksDropped > 0 ? [['link cap', `${count(report.linksDropped)} links to targets past --max-links-per-page not kept`]] : []),
          ...(report.size === null ? [] : [['size', `${count(report.size)} bytes${report.wireSize !== null && report.wireSize !== report.size ? `, ${count(report.wireSize)} on the wire` : ''}`]]),
          ...(report.visits.length > 1
            ? [['visits', `${count(report.visits.length)}${report.visits.length === 20 ? '+' : ''}, ${report.visits.filter((v) => v.changed === true).length} changed${report.changeRate === null ? '' : `; about ${report.changeRate.toPrecision(3)} changes a day`}`]]
            : []),
          ['links', `${count(inDegree)} in, ${count(outDegree)} out`],
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
    .command('pages')
    .description('pages by their answer (e.g. the broken ones: --status 4xx,5xx,failed), with the pages linking to them (--linkers)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--status <list>', 'answer classes (2xx, 3xx, 4xx, 5xx, failed, excluded, frontier) or HTTP statuses (404), comma-separated (default: 4xx,5xx,failed)')
    .option('--linkers', 'list the pages linking to each (the first 20, and their number)')
    .option('--limit <n>', 'at most this many pages (default: 100)')
    .option('--json', 'print one JSON document')
    .action(async (options: StoreOptions & { status?: string; linkers?: boolean; limit?: string }) => {
      const limit = integerOption('--limit', options.limit, 100, 1);
      await withStore(options, async (store) => {
        const result = await pagesByStatus(store, { status: options.status ?? '4xx,5xx,failed', linkers: options.linkers === true, limit });
        if (options.json === true) {
          printJson(result);
          return;
        }
        print(`${count(result.total)} page${result.total === 1 ? '' : 's'} of ${store.location} answered ${result.status.join(', ')}${result.total > result.pages.length ? ` (the first ${count(result.pages.length)})` : ''}`);
        for (const page of result.pages) {
          print(`${page.status ?? '-'}  ${safeLabel(page.url)}${page.error === null || page.error === `HTTP ${page.status}` ? '' : `  (${safeLabel(page.error, 120)})`}`);
          if (page.linkers !== undefined) {
            for (const url of page.linkers.urls) print(`    linked from ${safeLabel(url)}`);
            if (page.linkers.total > page.linkers.urls.length) print(`    ... and ${count(page.linkers.total - page.linkers.urls.length)} more`);
            if (page.linkers.total === 0) print('    linked from no page (a seed, or found in a sitemap)');
          }
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
        const by = options.linksTo === true ? 'linksTo' : options.linkedFrom === true ? 'linkedFrom' : 'url';
        const result = await search(store, text, { mode, by, limit });
        if (options.json === true) {
          printJson(result);
          return;
        }
        const { pages } = result;
        if (pages.length === 0) print('no page found');
        else print(table([['id', 'status', 'url'], ...pages.map((p) => pageRow(p))], [0]));
      });
    });

  program
    .command('top')
    .description('the best pages of a stored run (by default the latest run of the --score method)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--score <method>', 'the method of the run (pagerank, montecarlo, opic, traffic, hotness, ...; live: the live PageRank of a crawl)', 'pagerank')
    .option('--run <id>', 'a run id instead of the latest run of --score')
    .option('--top <k>', 'how many pages (default: 10)')
    .option('--level <level>', "page, host or domain: the best hosts or pay-level domains, by their pages' scores added (PageRank, OPIC, TrafficRank: the site's share) or their best page's (default: page)")
    .option('--reversed-names', "with --level host or domain: name them in Common Crawl's reversed notation (com.example.www)")
    .option('--graph <file.wgc>', 'the best pages of a compact graph file instead, by the scores wga rank --save kept beside it')
    .option('--json', 'print one JSON document')
    .action(async (options: StoreOptions & { score: string; run?: string; top?: string; level?: string; reversedNames?: boolean; graph?: string }) => {
      if (options.graph !== undefined) {
        if (options.db !== undefined) throw new OptionError('--graph', 'cannot be combined with --db');
        runCompactTop(options.graph, options);
        return;
      }
      const k = integerOption('--top', options.top, 10, 1);
      const level = choiceOption('--level', options.level, GRAPH_LEVELS, 'page');
      if (options.reversedNames === true && level === 'page') throw new OptionError('--reversed-names', 'names hosts and domains: it needs --level host or domain');
      await withStore(options, async (store) => {
        if (level !== 'page') {
          if (options.score === 'live' && options.run === undefined) throw new OptionError('--level', "ranks sites by a stored run; the live ranking is of pages (save a run with wga rank --save)");
          const run = options.run === undefined ? undefined : integerOption('--run', options.run, 0, 1);
          const sites = await topSites(store, { method: options.score, run, k, level, reversedNames: options.reversedNames === true });
          if (options.json === true) {
            printJson(sites);
            return;
          }
          const how = sites.aggregate === 'sum' ? "its pages' scores added" : "its best page's score";
          print(`run ${sites.run.id}: ${sites.run.method} of ${count(sites.run.pages)} pages; ${count(sites.sites)} ${level}s, each scored by ${how}`);
          print();
          print(table([['rank', 'score', 'pages', level, 'best page'], ...sites.top.map((t) => [String(t.rank), score(t.score), count(t.pages), safeLabel(t.name), safeLabel(t.bestPage)])], [0, 2]));
          return;
        }
        // OPIC while (or after) crawling: the estimates straight from the pages' cash and history,
        // current to the last checkpoint, so that another shell sees the live ranking.
        if (options.score === 'live' && options.run === undefined) {
          const live = await liveTop(store, { limit: k });
          if (options.json === true) {
            printJson(live);
            return;
          }
          const when = new Date(live.updatedAt).toISOString();
          print(
            live.source === 'run'
              ? `live PageRank of the crawl in ${store.location}: run ${live.run}, ${count(live.pages)} pages, solved at the end of the crawl (${when})`
              : `live PageRank of the crawl in ${store.location}: ${count(live.pages)} pages known after ${count(live.fetches ?? 0)} fetches, as of ${when}`,
          );
          print();
          print(table([['rank', 'pagerank', 'page'], ...live.top.map((t) => [String(t.rank), score(t.score), safeLabel(t.url)])], [0]));
          return;
        }
        const run = options.run === undefined ? undefined : integerOption('--run', options.run, 0, 1);
        const result = await topPages(store, { method: options.score, run, k });
        // The live OPIC ranking of a crawl shared by several instances: each one's share of the pages.
        const instances = result.run === null ? await sharedCrawlInstances(options.db ?? '') : [];
        if (options.json === true) {
          printJson(instances.length > 0 ? { ...result, instances } : result);
          return;
        }
        if (result.run === null) print(`OPIC estimates of the crawl in ${store.location}, as of its last checkpoint`);
        else print(`run ${result.run.id}: ${result.run.method} of ${count(result.run.pages)} pages, ${new Date(result.run.finishedAt).toISOString()}`);
        print();
        const head = result.run === null ? 'importance' : 'score';
        print(table([['rank', head, 'page'], ...result.top.map((t) => [String(t.rank), score(t.score), safeLabel(t.url)])], [0]));
        if (instances.length > 0) await printShares(options.db!, '\nInstances of the shared crawl');
      });
    });

  program
    .command('runs')
    .description('the analysis runs kept in a store: list them, export one\'s scores, delete one')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--export <id>', 'print the scores of run ID ("label<TAB>score" lines, best first, as rank --out writes them)')
    .option('--delete <id>', 'delete run ID and its scores')
    .option('--force', 'with --delete: even though a crawl whose process is gone left its lock in the store')
    .option('--json', 'print one JSON document')
    .action(async (options: StoreOptions & { export?: string; delete?: string; force?: boolean }) => {
      if (options.export !== undefined && options.delete !== undefined) throw new OptionError('--export', 'cannot be combined with --delete');
      await withStore(options, async (store) => {
        if (options.export !== undefined) {
          process.stdout.write(await runScoresTsv(store, integerOption('--export', options.export, 0, 1)));
          return;
        }
        if (options.delete !== undefined) {
          const result = await deleteRun(store, integerOption('--delete', options.delete, 0, 1), { force: options.force === true });
          if (options.json === true) printJson(result);
          else print(`deleted run ${result.deleted.id} (${result.deleted.method} of ${count(result.deleted.pages)} pages) from ${store.location}`);
          return;
        }
        const result = await listRuns(store);
        if (options.json === true) {
          printJson(result);
          return;
        }
        if (result.runs.length === 0) print(`no stored runs in ${store.location}`);
        else {
          print(
            table(
              [
                ['run', 'method', 'pages', 'iterations', 'residual', 'finished'],
                ...result.runs.map((r) => [
                  String(r.id),
                  safeLabel(r.method),
                  count(r.pages),
                  r.iterations === null ? '-' : count(r.iterations),
                  r.residual === null ? '-' : r.residual.toExponential(2),
                  new Date(r.finishedAt).toISOString(),
                ]),
              ],
              [0, 2, 3],
            ),
          );
        }
        if (result.live.some((l) => l.available)) print('\nlive: the OPIC estimates of the crawl in the store (wga top --score opic)');
      });
    });

  program
    .command('reset')
    .description('delete every page, link, run and score of a store (asks first unless --yes)')
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--yes', 'do not ask')
    .option('--force', 'reset even though a crawl whose process is gone left its lock in the store (never while one runs)')
    .action(async (options: StoreOptions & { yes?: boolean; force?: boolean }) => {
      await withStore(options, async (store) => {
        // Refused before asking: a crawl writing the store is not to be emptied under it.
        await refuseWhileCrawling(store, 'resetting it', { force: options.force === true });
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
        const { deleted } = await resetStore(store, { force: options.force === true });
        print(`deleted ${count(deleted.pages)} pages, ${count(deleted.links)} links and ${count(deleted.runs)} runs from ${store.location}`);
      });
    });
}
