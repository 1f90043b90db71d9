import type { Command } from 'commander';
import { type CompareJson, compareRuns, compareScores } from '../../app/pages.js';
import { withStore } from '../../app/graph-source.js';
import { readScores } from '../../formats/scores.js';
import { count, print, printJson, table } from '../output.js';
import { integerOption } from '../values.js';

export type { CompareJson } from '../../app/pages.js';

interface CompareOptions {
  json?: boolean;
  db?: string;
}

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('compare two score files (as written by rank --out), or two runs of a --db store: Kendall tau, Spearman, top-k overlap, relative error')
    .argument('<reference>', 'score file taken as the reference (e.g. exact PageRank); with --db, a run id')
    .argument('<other>', 'score file compared with it (e.g. Monte Carlo or OPIC); with --db, a run id')
    .option('--db <store>', 'compare two runs stored in this store (SQLite file or postgres:// URL)')
    .option('--json', 'print one JSON document')
    .action(async (referencePath: string, otherPath: string, options: CompareOptions) => {
      let report: CompareJson;
      if (options.db !== undefined) {
        const reference = integerOption('<reference>', referencePath, 0, 1);
        const other = integerOption('<other>', otherPath, 0, 1);
        report = await withStore(options.db, (store) => compareRuns(store, reference, other));
      } else {
        report = compareScores(await readScores(referencePath), await readScores(otherPath), { reference: referencePath, other: otherPath });
      }
      if (options.json === true) {
        printJson(report);
        return;
      }
      print(
        `${count(report.pages)} pages in both ${options.db === undefined ? 'files' : 'runs'}` +
          (report.onlyInReference + report.onlyInOther > 0
            ? ` (${count(report.onlyInReference)} only in the reference, ${count(report.onlyInOther)} only in the other)`
            : ''),
      );
      print(
        table([
          ['Kendall tau-b', report.kendallTau.toFixed(4)],
          ['Spearman rho', report.spearman.toFixed(4)],
          ['top-10 overlap', `${(100 * report.topOverlap['10']).toFixed(0)}%`],
          ['top-100 overlap', `${(100 * report.topOverlap['100']).toFixed(0)}%`],
          ['top-1000 overlap', `${(100 * report.topOverlap['1000']).toFixed(0)}%`],
          ['mean relative error', `${report.meanRelativeError.all.toFixed(2)}% (all), ${report.meanRelativeError.top10Percent.toFixed(2)}% (top 10%)`],
        ]),
      );
    });
}
