import type { Command } from 'commander';
import { kendallTau, meanRelativeError, spearman, topOverlap } from '../../analysis/compare.js';
import { InputFormatError } from '../../errors.js';
import { readScores } from '../../formats/scores.js';
import { count, print, printJson, table } from '../output.js';

interface CompareOptions {
  json?: boolean;
}

/** The `compare --json` contract (documented in the README). */
export interface CompareJson {
  reference: string;
  other: string;
  /** Pages in both files (the comparison is over these). */
  pages: number;
  onlyInReference: number;
  onlyInOther: number;
  kendallTau: number;
  spearman: number;
  /** Share of the reference's top k found in the other's top k, for k = 10, 100, 1000. */
  topOverlap: Record<'10' | '100' | '1000', number>;
  /** The OPIC paper's mean of 100 |other - reference| / reference, in percent. */
  meanRelativeError: { all: number; top10Percent: number };
}

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('compare two score files (as written by rank --out): Kendall tau, Spearman, top-k overlap, relative error')
    .argument('<reference>', 'score file taken as the reference (e.g. exact PageRank)')
    .argument('<other>', 'score file compared with it (e.g. Monte Carlo or OPIC)')
    .option('--json', 'print one JSON document')
    .action(async (referencePath: string, otherPath: string, options: CompareOptions) => {
      const reference = await readScores(referencePath);
      const other = await readScores(otherPath);
      const a: number[] = [];
      const b: number[] = [];
      for (const [label, value] of reference) {
        const match = other.get(label);
        if (match !== undefined) {
          a.push(value);
          b.push(match);
        }
      }
      if (a.length < 2) {
        throw new InputFormatError(otherPath, undefined, `shares ${a.length} page label(s) with ${referencePath}; nothing to compare`);
      }
      const x = Float64Array.from(a);
      const y = Float64Array.from(b);
      const report: CompareJson = {
        reference: referencePath,
        other: otherPath,
        pages: x.length,
        onlyInReference: reference.size - x.length,
        onlyInOther: other.size - x.length,
        kendallTau: kendallTau(x, y),
        spearman: spearman(x, y),
        topOverlap: { '10': topOverlap(x, y, 10), '100': topOverlap(x, y, 100), '1000': topOverlap(x, y, 1000) },
        meanRelativeError: meanRelativeError(y, x),
      };
      if (options.json === true) {
        printJson(report);
        return;
      }
      print(
        `${count(report.pages)} pages in both files` +
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
