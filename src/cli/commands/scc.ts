import type { Command } from 'commander';
import { BOW_TIE_PARTS } from '../../analysis/bowtie.js';
import { scc } from '../../app/structure.js';
import { type GraphInputOptions, addGraphOptions, addSaveOption, withGraph } from '../graph-input.js';
import { count, nodeUnit, percent, print, printJson, safeLabel, seconds, table } from '../output.js';
import { integerOption } from '../values.js';
import { runCompactScc, runOnCompactForm } from './compact.js';

export type { SccJson } from '../../app/structure.js';

interface SccOptions extends GraphInputOptions {
  compact?: boolean;
  tmp?: string;
  root?: string;
  top?: string;
}

export function registerScc(program: Command): void {
  addSaveOption(addGraphOptions(
    program
      .command('scc')
      .description('strongly connected components: how many, the giant one, the one of a root page, the bow-tie')
      .argument('[graph]', 'graph file (or --db)')
      .option('--root <page>', 'also report the component of this page (label or URL)')
      .option('--top <k>', 'how many of the largest component sizes to list (default: 10)')
      .option('--compact', 'Tarjan over the compact form (automatic for .wgc files and for graphs too big for the plain arrays; no bow-tie)')
      .option('--tmp <dir>', 'with --compact: where the conversion goes')
      .option('--json', 'print one JSON document'),
  )).action(async (path: string | undefined, options: SccOptions) => {
    if (await runOnCompactForm(path, options, (compactPath, progress) => runCompactScc(compactPath, options, progress))) return;
    const k = integerOption('--top', options.top, 10, 0);
    await withGraph(path, options, async (loaded) => {
      const report = await scc(loaded, { root: options.root, top: k, save: options.save === true });
      if (options.json === true) {
        printJson(report);
        return;
      }
      const rows = [
        [nodeUnit(loaded.level), count(report.nodes)],
        ['components', count(report.count)],
        ['giant SCC', `${count(report.largest)} ${nodeUnit(loaded.level)} (${percent(report.largest, report.nodes)})`],
        ['largest sizes', report.largestSizes.map(count).join(', ')],
        ['singletons', count(report.sizeDistribution.find(([size]) => size === 1)?.[1] ?? 0)],
      ];
      if (report.root !== null) {
        rows.push([
          'root',
          `${safeLabel(report.root.label)}: component of ${count(report.root.size)} ${nodeUnit(loaded.level)}` +
            (report.root.inLargest ? ' (the giant SCC)' : ''),
        ]);
      }
      rows.push(['time', `load ${seconds(report.timings.load)}, solve ${seconds(report.timings.solve)}`]);
      print(table(rows));
      print('\nbow-tie around the giant SCC');
      print(
        table(
          BOW_TIE_PARTS.map((name) => [name, count(report.bowTie[name]), percent(report.bowTie[name], report.nodes)]),
          [1, 2],
        ),
      );
      if (report.run !== null) print(`\nsaved as run ${report.run} (scc) in ${loaded.path}`);
    });
  });
}
