import type { Command } from 'commander';
import { type DistancesJson, type DistancesOptions, distances } from '../../app/distances.js';
import { compactDistances } from '../../app/compact-graph.js';
import { OptionError } from '../../errors.js';
import { defaultThreads } from '../../parallel/pool.js';
import { integerOption } from '../values.js';
import { memoryBytes, runOnCompactForm } from './compact.js';
import { type GraphInputOptions, addGraphOptions, withGraph } from '../graph-input.js';
import { count, print, printJson, seconds, table } from '../output.js';

export type { DistancesJson } from '../../app/distances.js';

export function registerDistances(program: Command): void {
  addGraphOptions(
    program
      .command('distances')
      .description('how far apart pages are: neighbourhood function, distance distribution, average distance, effective diameter (HyperBall, or --exact)')
      .argument('[graph]', 'graph file (or --db)')
      .option('--exact', 'one breadth-first search per page instead of HyperBall (small graphs)')
      .option('--log2m <k>', 'HyperBall: 2^k registers per counter, 4 to 16 (default: up to 8, as memory allows)')
      .option('--seed <s>', 'HyperBall: seed of the hash functions (default: 1)')
      .option('--runs <k>', 'HyperBall: independent runs (seeds seed, seed + 1, ...); 2 or more give jackknife standard errors, as HyperANF (default: 1)')
      .option('--threads <n>', 'HyperBall: threads (default: the cores, at most 8)')
      .option('--tmp <dir>', 'a compact graph: where HyperBall\'s next counters go when only one counter array fits in memory (default: the system\'s temporary directory)')
      .option('--save', 'a compact graph: keep the result beside it (G.wgc.distances.json), for `wga serve --graph G.wgc`')
      .option('--json', 'print one JSON document'),
  ).action(async (path: string | undefined, options: GraphInputOptions & DistancesOptions & { json?: boolean; tmp?: string; save?: boolean }) => {
    // A .wgc file (or a graph too big for the plain arrays): HyperBall on the compact in-lists.
    if (
      await runOnCompactForm(path, options, (compactPath, progress) => {
        if (options.exact === true) throw new OptionError('--exact', 'is not available on a compact graph (one breadth-first search per page): leave it out for HyperBall\'s estimate');
        const report = compactDistances(
          compactPath,
          {
            log2m: options.log2m === undefined ? null : integerOption('--log2m', options.log2m, 6, 4, 16),
            seed: integerOption('--seed', options.seed, 1, 0),
            runs: integerOption('--runs', options.runs, 1, 1, 1000),
            threads: integerOption('--threads', options.threads, defaultThreads(), 1),
            memoryBytes: memoryBytes(),
            ...(options.tmp === undefined ? {} : { tmp: options.tmp }),
            save: options.save === true,
          },
          { onProgress: (event) => progress.update(() => event.message) },
        );
        progress.done();
        if (options.json === true) printJson(report);
        else {
          printDistances(report, 'pages');
          print(`\n${report.memory.plan}`);
          if (report.saved !== null) print(`saved: ${report.saved}`);
        }
      })
    ) {
      return;
    }
    if (options.save === true) throw new OptionError('--save', 'keeps a compact graph\'s distance distribution beside it (G.wgc.distances.json): give a .wgc file, or convert the graph with wga convert');
    await withGraph(path, options, async (source) => {
      const report = distances(source, options);
      if (options.json === true) {
        printJson(report);
        return;
      }
      printDistances(report, source.level === undefined || source.level === 'page' ? 'pages' : `${source.level}s`);
    });
  });
}

/** The distances report as text: the summary, then N(t) and the distribution. */
function printDistances(report: DistancesJson, what: string): void {
  const how = report.method === 'exact' ? 'exact' : `HyperBall, log2m ${report.log2m}, each count within about ${(100 * report.relativeStandardDeviation).toFixed(1)}%`;
  print(`${count(report.nodes)} ${what}, ${count(report.edges)} links: ${how}; ${report.iterations} iterations, ${seconds(report.seconds)}`);
  const jack = report.jackknife;
  if (jack === null) {
    print(`average distance ${report.averageDistance.toFixed(3)}, effective diameter (90%) ${report.effectiveDiameter.toFixed(2)}, ${count(Math.round(report.connectedPairs))} connected pairs`);
  } else {
    const pm = (e: { estimate: number; standardError: number }, digits: number): string => `${e.estimate.toFixed(digits)} ± ${e.standardError.toFixed(digits)}`;
    print(`${report.runs} runs, jackknife estimates ± standard error: average distance ${pm(jack.averageDistance, 3)}, effective diameter (90%) ${pm(jack.effectiveDiameter, 2)}, connected pairs ${pm(jack.connectedPairs, 0)}`);
  }
  print();
  const rows = [['distance', 'pairs within (N(t))', ...(jack === null ? [] : ['± std. error']), 'share at t']];
  report.neighbourhood.forEach((pairs, t) =>
    rows.push([
      String(t),
      count(Math.round(pairs)),
      ...(jack === null ? [] : [count(Math.round(jack.neighbourhoodError[t]!))]),
      t === 0 ? '-' : `${(100 * report.distribution[t - 1]!).toFixed(2)}%`,
    ]),
  );
  print(table(rows, jack === null ? [0, 1, 2] : [0, 1, 2, 3]));
}
