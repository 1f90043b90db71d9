import type { Command } from 'commander';
import { PAGERANK_DEFAULTS, type PageRankResult, pagerank } from '../../analysis/pagerank.js';
import { topK } from '../../analysis/top.js';
import { ExitCode } from '../../errors.js';
import { writeScores } from '../../formats/scores.js';
import type { Graph } from '../../graph/graph.js';
import { type GraphInputOptions, addGraphOptions, loadFromOptions } from '../graph-input.js';
import { print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { Progress } from '../progress.js';
import { choiceOption, integerOption, numberOption, pageId } from '../values.js';

export const RANK_METHODS = ['pagerank'] as const;

interface RankOptions extends GraphInputOptions {
  method?: string;
  damping?: string;
  tolerance?: string;
  maxIterations?: string;
  teleport?: string[];
  top?: string;
  out?: string;
}

/** The `rank --json` contract (documented in the README). */
export interface RankJson {
  method: string;
  nodes: number;
  edges: number;
  damping: number;
  tolerance: number;
  iterations: number;
  residual: number;
  converged: boolean;
  top: Array<{ rank: number; label: string; score: number }>;
  timings: { load: number; solve: number };
  out: string | null;
}

export function topEntries(graph: Graph, scores: Float64Array, k: number): RankJson['top'] {
  return Array.from(topK(scores, k), (id, i) => ({ rank: i + 1, label: graph.labels.label(id), score: scores[id]! }));
}

export function registerRank(program: Command): void {
  addGraphOptions(
    program
      .command('rank')
      .description('rank every page (PageRank by power iteration) and show the best')
      .argument('<graph>', 'graph file')
      .option('--method <method>', `ranking method: ${RANK_METHODS.join(', ')}`, 'pagerank')
      .option('--damping <c>', `probability of following a link (default: ${PAGERANK_DEFAULTS.damping})`)
      .option('--tolerance <eps>', `stop when the L1 change is at most eps (default: ${PAGERANK_DEFAULTS.tolerance})`)
      .option('--max-iterations <n>', `iteration limit (default: ${PAGERANK_DEFAULTS.maxIterations})`)
      .option('--teleport <page...>', 'personalised PageRank: jump only to these pages (labels or URLs)')
      .option('--top <k>', 'how many of the best pages to show (default: 10)')
      .option('--out <file>', 'write every page\'s score to FILE ("label<TAB>score"; JSON if FILE ends in .json)')
      .option('--json', 'print one JSON document'),
  ).action(async (path: string, options: RankOptions) => {
    const method = choiceOption('--method', options.method, RANK_METHODS, 'pagerank');
    const damping = numberOption('--damping', options.damping, PAGERANK_DEFAULTS.damping, {
      min: 0,
      max: 1,
      exclusiveMax: true,
    });
    const tolerance = numberOption('--tolerance', options.tolerance, PAGERANK_DEFAULTS.tolerance, {
      min: 0,
      exclusiveMin: true,
    });
    const maxIterations = integerOption('--max-iterations', options.maxIterations, PAGERANK_DEFAULTS.maxIterations, 1);
    const k = integerOption('--top', options.top, 10, 0);
    const loaded = await loadFromOptions(path, options);
    const { graph } = loaded;
    let teleport: Float64Array | null = null;
    if (options.teleport !== undefined) {
      teleport = new Float64Array(graph.nodeCount);
      for (const label of options.teleport) teleport[pageId(graph, label, '--teleport')] = 1;
    }
    const progress = new Progress(options.quiet !== true);
    const started = performance.now();
    const result: PageRankResult = pagerank(graph, {
      damping,
      tolerance,
      maxIterations,
      teleport,
      onIteration: (iteration, residual) =>
        progress.update(() => `${method}: iteration ${iteration}, L1 change ${residual.toExponential(2)}`),
    });
    progress.done();
    const solve = (performance.now() - started) / 1000;
    if (options.out !== undefined) {
      await writeScores(options.out, graph.labels, result.scores, {
        method,
        comments: [
          `wga rank ${method} of ${path}: damping ${damping}, tolerance ${tolerance}, ` +
            `${result.iterations} iterations, residual ${result.residual}${result.converged ? '' : ' (NOT CONVERGED)'}`,
        ],
      });
    }
    const report: RankJson = {
      method,
      nodes: graph.nodeCount,
      edges: graph.edgeCount,
      damping,
      tolerance,
      iterations: result.iterations,
      residual: result.residual,
      converged: result.converged,
      top: topEntries(graph, result.scores, k),
      timings: { load: loaded.seconds, solve },
      out: options.out ?? null,
    };
    if (options.json === true) printJson(report);
    else printRank(report);
    if (!result.converged) {
      process.stderr.write(
        `wga: ${method} did not converge: L1 change ${result.residual.toExponential(3)} after ` +
          `${result.iterations} iterations, tolerance ${tolerance}; raise --max-iterations\n`,
      );
      process.exitCode = ExitCode.notConverged;
    }
  });
}

function printRank(report: RankJson): void {
  print(
    `${report.method} of ${report.nodes.toLocaleString('en-US')} pages: ${report.iterations} iterations, ` +
      `L1 change ${report.residual.toExponential(2)}${report.converged ? '' : ' (NOT CONVERGED)'}, ` +
      `load ${seconds(report.timings.load)}, solve ${seconds(report.timings.solve)}`,
  );
  if (report.top.length > 0) {
    print();
    print(table([['rank', 'score', 'page'], ...report.top.map((t) => [String(t.rank), score(t.score), safeLabel(t.label)])], [0]));
  }
  if (report.out !== null) print(`\nscores of all pages written to ${report.out}`);
}
