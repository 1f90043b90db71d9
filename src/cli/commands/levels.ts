import type { Command } from 'commander';
import { levels } from '../../app/structure.js';
import { type GraphInputOptions, addGraphOptions, addSaveOption, withGraph } from '../graph-input.js';
import { count, nodeUnit, levelsTable, percent, print, printJson, safeLabel, seconds } from '../output.js';
import { integerOption } from '../values.js';
import { runCompactLevels, runOnCompactForm } from './compact.js';

export type { LevelsJson } from '../../app/structure.js';

interface LevelsOptions extends GraphInputOptions {
  compact?: boolean;
  tmp?: string;
  root: string[];
  maxLevel?: string;
  out?: string;
}

export function registerLevels(program: Command): void {
  addSaveOption(addGraphOptions(
    program
      .command('levels')
      .description('clicks from the nearest root page to every page (breadth-first search)')
      .argument('[graph]', 'graph file (or --db)')
      .requiredOption('--root <page...>', 'one or more root pages (labels or URLs)')
      .option('--max-level <l>', 'do not go further than l clicks')
      .option('--out <file>', 'write every page\'s level to FILE ("label<TAB>level", -1 if not reached; JSON if .json)')
      .option('--compact', 'search the compact form (automatic for .wgc files and for graphs too big for the plain arrays)')
      .option('--tmp <dir>', 'with --compact: where the conversion goes')
      .option('--json', 'print one JSON document'),
  )).action(async (path: string | undefined, options: LevelsOptions) => {
    if (await runOnCompactForm(path, options, (compactPath, progress) => runCompactLevels(compactPath, options, progress))) return;
    const maxLevel = integerOption('--max-level', options.maxLevel, Infinity, 0);
    await withGraph(path, options, async (loaded) => {
      const report = await levels(loaded, { roots: options.root, maxLevel, out: options.out, save: options.save === true });
      if (options.json === true) {
        printJson(report);
        return;
      }
      const n = loaded.graph.nodeCount;
      print(`roots: ${report.roots.map((r) => safeLabel(r)).join(', ')}`);
      print(
        `reached ${count(report.reached)} of ${count(n)} ${nodeUnit(loaded.level)} (${percent(report.reached, n)}); ` +
          `${count(report.unreachable)} unreachable; load ${seconds(report.timings.load)}, solve ${seconds(report.timings.solve)}`,
      );
      print();
      print(levelsTable(report.histogram, n));
      if (report.run !== null) print(`\nsaved as run ${report.run} (levels) in ${loaded.path}`);
    });
  });
}
