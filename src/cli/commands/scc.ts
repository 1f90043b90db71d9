import type { Command } from 'commander';
import { BOW_TIE_PARTS, type BowTiePartName, bowTie } from '../../analysis/bowtie.js';
import { componentSizeDistribution, stronglyConnectedComponents } from '../../analysis/scc.js';
import { type GraphInputOptions, addGraphOptions, addSaveOption, saveRunIfAsked, withGraph } from '../graph-input.js';
import { count, percent, print, printJson, safeLabel, seconds, table } from '../output.js';
import { integerOption, pageId } from '../values.js';

interface SccOptions extends GraphInputOptions {
  root?: string;
  top?: string;
}

/** The `scc --json` contract (documented in the README). */
export interface SccJson {
  nodes: number;
  count: number;
  largest: number;
  /** The page given by --root and the size of its component, or null. */
  root: { label: string; size: number; inLargest: boolean } | null;
  /** Sizes of the largest components, decreasing. */
  largestSizes: number[];
  /** [size, number of components of that size], increasing size. */
  sizeDistribution: Array<[number, number]>;
  /** Pages in each part of the bow-tie around the giant SCC. */
  bowTie: Record<BowTiePartName, number>;
  timings: { load: number; solve: number };
}

export function registerScc(program: Command): void {
  addSaveOption(addGraphOptions(
    program
      .command('scc')
      .description('strongly connected components: how many, the giant one, the one of a root page, the bow-tie')
      .argument('[graph]', 'graph file (or --db)')
      .option('--root <page>', 'also report the component of this page (label or URL)')
      .option('--top <k>', 'how many of the largest component sizes to list (default: 10)')
      .option('--json', 'print one JSON document'),
  )).action(async (path: string | undefined, options: SccOptions) => {
    const k = integerOption('--top', options.top, 10, 0);
    await withGraph(path, options, async (loaded) => {
    const { graph } = loaded;
    const root = options.root === undefined ? -1 : pageId(graph, options.root, '--root');
    const started = performance.now();
    const scc = stronglyConnectedComponents(graph);
    const parts = bowTie(graph, scc);
    const solve = (performance.now() - started) / 1000;
    await saveRunIfAsked(
      loaded,
      options,
      { method: 'scc', parameters: { count: scc.count, largest: scc.largest, giant: scc.largestId }, startedAt: Date.now() - solve * 1000, finishedAt: Date.now(), iterations: null, residual: null, converged: null },
      scc.component,
    );
    const largestSizes = Array.from(scc.sizes)
      .sort((a, b) => b - a)
      .slice(0, k);
    const report: SccJson = {
      nodes: graph.nodeCount,
      count: scc.count,
      largest: scc.largest,
      root:
        root < 0
          ? null
          : {
              label: graph.labels.label(root),
              size: scc.sizes[scc.component[root]!]!,
              inLargest: scc.component[root] === scc.largestId,
            },
      largestSizes,
      sizeDistribution: componentSizeDistribution(scc),
      bowTie: parts.sizes,
      timings: { load: loaded.seconds, solve },
    };
    if (options.json === true) {
      printJson(report);
      return;
    }
    const rows = [
      ['pages', count(report.nodes)],
      ['components', count(report.count)],
      ['giant SCC', `${count(report.largest)} pages (${percent(report.largest, report.nodes)})`],
      ['largest sizes', largestSizes.map(count).join(', ')],
      ['singletons', count(report.sizeDistribution.find(([size]) => size === 1)?.[1] ?? 0)],
    ];
    if (report.root !== null) {
      rows.push([
        'root',
        `${safeLabel(report.root.label)}: component of ${count(report.root.size)} pages` +
          (report.root.inLargest ? ' (the giant SCC)' : ''),
      ]);
    }
    rows.push(['time', `load ${seconds(report.timings.load)}, solve ${seconds(solve)}`]);
    print(table(rows));
    print('\nbow-tie around the giant SCC');
    print(
      table(
        BOW_TIE_PARTS.map((name) => [name, count(parts.sizes[name]), percent(parts.sizes[name], report.nodes)]),
        [1, 2],
      ),
    );
    });
  });
}
