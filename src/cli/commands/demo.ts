import type { Command } from 'commander';
import { degreeSummary } from '../../analysis/degrees.js';
import { levels } from '../../analysis/levels.js';
import { pagerank } from '../../analysis/pagerank.js';
import { stronglyConnectedComponents } from '../../analysis/scc.js';
import { topK } from '../../analysis/top.js';
import { powerLawGraph } from '../../experiments/generators.js';
import { count, percent, print, printJson, score, seconds, table } from '../output.js';
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
      const degrees = degreeSummary(graph);
      const scc = stronglyConnectedComponents(graph);
      const rank = pagerank(graph);
      const best = topK(rank.scores, 10);
      const root = best[0]!;
      const fromTop = levels(graph, [root]);
      const analysis = (performance.now() - started) / 1000;
      const result = {
        graph: { generator: 'power-law in-degree', exponent, pages, seed, danglingShare: 0.2 },
        nodes: graph.nodeCount,
        edges: graph.edgeCount,
        selfLoopsDropped: report.selfLoopsDropped,
        duplicatesDropped: report.duplicatesDropped,
        danglingNodes: degrees.danglingNodes,
        scc: { count: scc.count, largest: scc.largest },
        meanDegree: degrees.meanDegree,
        maxInDegree: degrees.maxInDegree,
        maxOutDegree: degrees.maxOutDegree,
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
        timings: { generate, analysis },
      };
      if (options.json === true) {
        printJson(result);
        return;
      }
      const n = result.nodes;
      print(`A synthetic web of ${count(n)} pages: in-degrees drawn from P(k) ~ k^-${exponent}, 20% of pages dangling, seed ${seed}.`);
      print(`(wga stats/rank/scc/levels/degrees print the same for any graph file.)\n`);
      print(
        table([
          ['pages', count(n)],
          ['links', count(result.edges)],
          ['dangling pages', `${count(result.danglingNodes)} (${percent(result.danglingNodes, n)})`],
          ['SCCs', `${count(scc.count)}; the giant one has ${count(scc.largest)} pages (${percent(scc.largest, n)})`],
          ['degree', `mean ${result.meanDegree.toFixed(2)}, max in ${count(result.maxInDegree)}, max out ${count(result.maxOutDegree)}`],
          ['PageRank', `${rank.iterations} iterations to an L1 change of ${rank.residual.toExponential(2)}`],
          ['time', `generate ${seconds(generate)}, analyse ${seconds(analysis)}`],
        ]),
      );
      print('\nTop pages by PageRank (damping 0.85)');
      print(
        table(
          [['rank', 'score', 'in-links', 'page'], ...result.pagerank.top.map((t) => [String(t.rank), score(t.score), count(t.inDegree), t.label])],
          [0, 2],
        ),
      );
      print(`\nClicks from page ${result.levels.root} (the top page) to the others`);
      let cumulative = 0;
      print(
        table(
          [
            ['clicks', 'pages', 'cumulative'],
            ...fromTop.histogram.map((p, level) => {
              cumulative += p;
              return [String(level), count(p), percent(cumulative, n)];
            }),
          ],
          [0, 1, 2],
        ),
      );
      print(`${count(fromTop.unreachable)} pages cannot be reached from it.`);
    });
}
