import type { Command } from 'commander';
export { type StatsJson, graphStats, summarise } from '../../app/stats.js';
import { type StatsJson, stats } from '../../app/stats.js';
import { sharedCrawlInstances } from '../../app/shared-crawl.js';
import { printShares } from './crawl-shared.js';
import { type GraphInputOptions, addGraphOptions, withGraph } from '../graph-input.js';
import { count, megabytes, nodeUnit, percent, print, printJson, seconds, table } from '../output.js';
import { runCompactStats, runOnCompactForm } from './compact.js';

export function printStats(stats: Omit<StatsJson, 'format'> & { format: string }, unit = 'pages'): void {
  const n = stats.nodes;
  print(
    table([
      ['graph', `${stats.file} (${stats.format})`],
      [unit, count(n)],
      [
        'links',
        `${count(stats.edges)} (dropped ${count(stats.selfLoopsDropped)} self-links, merged ${count(stats.duplicatesDropped)} duplicates)`,
      ],
      [`dangling ${unit}`, `${count(stats.danglingNodes)} (${percent(stats.danglingNodes, n)}) with no out-link`],
      ['unreferenced', `${count(stats.unreferencedNodes)} (${percent(stats.unreferencedNodes, n)}) with no in-link`],
      ['SCCs', `${count(stats.scc.count)}; the giant one has ${count(stats.scc.largest)} ${unit} (${percent(stats.scc.largest, n)})`],
      ['degree', `mean ${stats.meanDegree.toFixed(2)}, max in ${count(stats.maxInDegree)}, max out ${count(stats.maxOutDegree)}`],
      ...(stats.fetched === undefined
        ? []
        : [['crawl', `${count(stats.fetched)} fetched (2xx HTML), ${count(stats.failed ?? 0)} failed, ${count(stats.excluded ?? 0)} excluded, ${count(stats.frontier ?? 0)} never fetched`], ...(stats.overLinkCap ? [['over the link cap', `${count(stats.overLinkCap)} pages linked to more targets than --max-links-per-page (the rest not kept): wga page shows how many`]] : [])]),
      ['memory', `${megabytes(stats.memory.graphBytes)} (${stats.memory.bytesPerEdge.toFixed(1)} bytes per link)`],
      ['time', `load ${seconds(stats.timings.load)}, analysis ${seconds(stats.timings.analysis)}`],
    ]),
  );
}

export function registerStats(program: Command): void {
  addGraphOptions(
    program
      .command('stats')
      .description('size, dangling pages, strongly connected components and degrees of a graph')
      .argument('[graph]', 'graph file: edge list (.txt, .tsv, .csv, .gz) or WebGraph BV (.graph); or --db')
      .option('--compact', 'analyse the compact form (gap-encoded lists; automatic for .wgc files and for graphs too big for the plain arrays)')
      .option('--tmp <dir>', 'with --compact: where the conversion goes (default: the system\'s temporary directory)')
      .option('--json', 'print one JSON document'),
  ).action(async (path: string | undefined, options: GraphInputOptions & { compact?: boolean; tmp?: string }) => {
    if (await runOnCompactForm(path, options, (compactPath, progress) => runCompactStats(compactPath, options, progress))) return;
    await withGraph(path, options, async (source) => {
      const result = await stats(source);
      // A crawl shared by several instances: each one's share of the pages.
      const instances = source.store !== null && options.db !== undefined ? await sharedCrawlInstances(options.db) : [];
      if (options.json === true) printJson(instances.length > 0 ? { ...result, instances } : result);
      else {
        printStats(result, nodeUnit(source.level));
        if (instances.length > 0) await printShares(options.db!, '\nInstances of the shared crawl');
      }
    });
  });
}
