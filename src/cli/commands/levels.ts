import type { Command } from 'commander';
import { levels } from '../../analysis/levels.js';
import { writeScores } from '../../formats/scores.js';
import { type GraphInputOptions, addGraphOptions, addSaveOption, saveRunIfAsked, withGraph } from '../graph-input.js';
import { count, levelsTable, percent, print, printJson, safeLabel, seconds } from '../output.js';
import { integerOption, pageId } from '../values.js';

interface LevelsOptions extends GraphInputOptions {
  root: string[];
  maxLevel?: string;
  out?: string;
}

/** The `levels --json` contract (documented in the README). */
export interface LevelsJson {
  roots: string[];
  reached: number;
  unreachable: number;
  /** histogram[k] = pages at k clicks from the nearest root; roots are at 0. */
  histogram: number[];
  maxLevel: number;
  timings: { load: number; solve: number };
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
      .option('--json', 'print one JSON document'),
  )).action(async (path: string | undefined, options: LevelsOptions) => {
    const maxLevel = integerOption('--max-level', options.maxLevel, Infinity, 0);
    await withGraph(path, options, async (loaded) => {
    const { graph } = loaded;
    const roots = options.root.map((label) => pageId(graph, label, '--root'));
    const started = performance.now();
    const result = levels(graph, roots, { maxLevel });
    const solve = (performance.now() - started) / 1000;
    await saveRunIfAsked(
      loaded,
      options,
      {
        method: 'levels',
        parameters: { roots: roots.map((r) => graph.labels.label(r)), maxLevel: Number.isFinite(maxLevel) ? maxLevel : null },
        startedAt: Date.now() - solve * 1000,
        finishedAt: Date.now(),
        iterations: result.maxLevel,
        residual: null,
        converged: null,
      },
      Float64Array.from(result.level, (l) => (l < 0 ? Number.NaN : l)),
    );
    if (options.out !== undefined) {
      await writeScores(options.out, graph.labels, result.level, {
        column: 'level',
        comments: ['clicks from the nearest root; -1 = not reached'],
      });
    }
    const report: LevelsJson = {
      roots: roots.map((r) => graph.labels.label(r)),
      reached: result.reached,
      unreachable: result.unreachable,
      histogram: result.histogram,
      maxLevel: result.maxLevel,
      timings: { load: loaded.seconds, solve },
    };
    if (options.json === true) {
      printJson(report);
      return;
    }
    const n = graph.nodeCount;
    print(`roots: ${report.roots.map((r) => safeLabel(r)).join(', ')}`);
    print(
      `reached ${count(report.reached)} of ${count(n)} pages (${percent(report.reached, n)}); ` +
        `${count(report.unreachable)} unreachable; load ${seconds(loaded.seconds)}, solve ${seconds(solve)}`,
    );
    print();
    print(levelsTable(report.histogram, n));
    });
  });
}
