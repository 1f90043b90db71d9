import type { Command } from 'commander';
import type { DegreeDistribution } from '../../analysis/degrees.js';
import { type DegreesJson, degrees } from '../../app/structure.js';
import { type GraphInputOptions, addGraphOptions, withGraph } from '../graph-input.js';
import { count, nodeUnit, percent, print, printJson, safeLabel, table } from '../output.js';
import { integerOption } from '../values.js';

export type { DegreesJson } from '../../app/structure.js';

interface DegreesOptions extends GraphInputOptions {
  top?: string;
}

/** Sums a distribution over the bins [1], [2,3], [4,7], ...: readable at any scale. */
function logBins(distribution: DegreeDistribution): Array<[string, number]> {
  const bins: Array<[string, number]> = [];
  const zero = distribution.find(([d]) => d === 0)?.[1] ?? 0;
  bins.push(['0', zero]);
  const max = distribution.length === 0 ? 0 : distribution[distribution.length - 1]![0];
  for (let low = 1; low <= max; low *= 2) {
    const high = 2 * low - 1;
    let pages = 0;
    for (const [d, c] of distribution) if (d >= low && d <= high) pages += c;
    bins.push([low === high ? String(low) : `${low}-${high}`, pages]);
  }
  return bins;
}

export function registerDegrees(program: Command): void {
  addGraphOptions(
    program
      .command('degrees')
      .description('in- and out-degree distributions, dangling pages, most linked and most linking pages')
      .argument('[graph]', 'graph file (or --db)')
      .option('--top <k>', 'how many of the most linked / linking pages to list (default: 10)')
      .option('--json', 'print one JSON document (with the full distributions)'),
  ).action(async (path: string | undefined, options: DegreesOptions) => {
    const k = integerOption('--top', options.top, 10, 0);
    await withGraph(path, options, async (source) => show(degrees(source, { top: k }), k, options, nodeUnit(source.level)));
  });
}

function show(report: DegreesJson, k: number, options: DegreesOptions, unit = 'pages'): void {
  if (options.json === true) {
    printJson(report);
    return;
  }
  const n = report.nodes;
  print(
    `${count(n)} ${unit}, ${count(report.edges)} links, mean degree ${report.meanDegree.toFixed(2)}; ` +
      `${count(report.danglingNodes)} dangling (${percent(report.danglingNodes, n)}), ` +
      `${count(report.unreferencedNodes)} with no in-link (${percent(report.unreferencedNodes, n)})`,
  );
  print();
  const inBins = logBins(report.inDistribution);
  const outBins = logBins(report.outDistribution);
  const rows = [['degree', `${unit} (in)`, `${unit} (out)`]];
  for (let i = 0; i < Math.max(inBins.length, outBins.length); i++) {
    rows.push([inBins[i]?.[0] ?? outBins[i]![0], count(inBins[i]?.[1] ?? 0), count(outBins[i]?.[1] ?? 0)]);
  }
  print(table(rows, [0, 1, 2]));
  if (k > 0) {
    print('\nmost linked pages (in-degree)');
    print(table(report.topIn.map((t) => [count(t.degree), safeLabel(t.label)]), [0]));
    print('\nmost linking pages (out-degree)');
    print(table(report.topOut.map((t) => [count(t.degree), safeLabel(t.label)]), [0]));
  }
}
