import type { Command } from 'commander';
import { levels } from '../../analysis/levels.js';
import { pagerank } from '../../analysis/pagerank.js';
import { topK } from '../../analysis/top.js';
import { powerLawGraph } from '../../experiments/generators.js';
import { count, levelsTable, print, printJson, score, table } from '../output.js';
import { printStats, summarise } from './stats.js';
import { integerOption, numberOption } from '../values.js';

interface DemoOptions {
  pages?: string;
  seed?: string;
  exponent?: string;
  json?: boolean;
}

/**
 * The README's first command: a synthetic web (power-law in-degree, a fifth
 * of the pages dangling) and everything `stats`, `rank`, `scc`, `levels`
 * and `degrees` would say about it.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('generate a synthetic web graph (power-law in-degree) and print its analysis')
    .option('--pages <n>', 'number of pages (default: 100000)')
    .option('--seed <s>', 'random seed (default: 1)')
    .option('--exponent <a>', 'in-degree power-law exponent (default: 2.1)')
    .option('--json', 'print one JSON document')
    .action((options: DemoOptions) => {
      const pages = integerOption('--pages', options.pages, 100_000, 2);
      const seed = integerOption('--seed', options.seed, 1, 0);
      const exponent = numberOption('--exponent', options.exponent, 2.1, { min: 1, exclusiveMin: true });
      let started = performance.now();
      const { graph, report } = powerLawGraph({ nodes: pages, exponent, danglingShare: 0.2, seed });
      const generate = (performance.now() - started) / 1000;
      started = performance.now();
      const summary = summarise(graph, report);
      const rank = pagerank(graph);
      const best = topK(rank.scores, 10);
      const root = best[0]!;
      const fromTop = levels(graph, [root]);
      const analysis = (performance.now() - started) / 1000;
      const result = {
        file: `synthetic web: ${pages} pages, P(in-degree k) ~ k^-${exponent}, 20% dangling, seed ${seed}`,
        format: 'generated',
        generator: { model: 'power-law in-degree', exponent, pages, seed, danglingShare: 0.2 },
        ...summary,
        pagerank: {
          iterations: rank.iterations,
          residual: rank.residual,
          converged: rank.converged,
          top: Array.from(best, (id, i) => ({
            rank: i + 1,
            label: graph.labels.label(id),
            score: rank.scores[id]!,
            inDegree: graph.inDegree(id),
          })),
        },
        levels: {
          root: graph.labels.label(root),
          reached: fromTop.reached,
          unreachable: fromTop.unreachable,
          histogram: fromTop.histogram,
        },
        timings: { load: generate, analysis },
      };
      if (options.json === true) {
        printJson(result);
        return;
      }
      print('wga stats, rank and levels of a generated web graph (any graph file works the same way):\n');
      printStats(result);
      print(`\nTop pages by PageRank (damping 0.85, ${rank.iterations} iterations to an L1 change of ${rank.residual.toExponential(2)})`);
      print(
        table(
          [['rank', 'score', 'in-links', 'page'], ...result.pagerank.top.map((t) => [String(t.rank), score(t.score), count(t.inDegree), t.label])],
          [0, 2],
        ),
      );
      print(`\nClicks from page ${result.levels.root} (the top page) to the others`);
      print(levelsTable(fromTop.histogram, graph.nodeCount));
      print(`${count(fromTop.unreachable)} pages cannot be reached from it.`);
    });
}
