import type { Command } from 'commander';
import { AGGREGATION_METHODS, aggregateRanks, averageRankPosition } from '../../analysis/aggregate.js';
import { InputFormatError, OptionError } from '../../errors.js';
import { LineSplitter, streamFile } from '../../formats/file-stream.js';
import { readScores, writeScores } from '../../formats/scores.js';
import { TextLabels } from '../../graph/labels.js';
import { print, printJson, safeLabel, table } from '../output.js';
import { choiceOption, integerOption } from '../values.js';

/** The pages all the score files have, and each file's scores over them, in one order. */
async function commonPages(paths: string[]): Promise<{ labels: string[]; scores: Float64Array[]; dropped: number[] }> {
  const files = await Promise.all(paths.map((path) => readScores(path)));
  const labels = [...files[0]!.keys()].filter((label) => files.every((f) => f.has(label)));
  if (labels.length === 0) throw new InputFormatError(paths[1] ?? paths[0]!, undefined, 'shares no page label with the other score files');
  return {
    labels,
    scores: files.map((file) => Float64Array.from(labels, (label) => file.get(label)!)),
    dropped: files.map((file) => file.size - labels.length),
  };
}

interface AggregateOptions {
  method?: string;
  top?: string;
  out?: string;
  json?: boolean;
}

/** The `aggregate --json` contract (documented in the README). */
export interface AggregateJson {
  method: string;
  rankings: string[];
  pages: number;
  /** Best pages: aggregated rank position (1 = best) and each ranking's position. */
  top: Array<{ rank: number; label: string; position: number; positions: number[] }>;
  out: string | null;
}

interface EvaluateOptions {
  pages: string;
  json?: boolean;
}

/** The `evaluate --json` contract (documented in the README). */
export interface EvaluateJson {
  pagesFile: string;
  rankings: Array<{ file: string; averagePosition: number; found: number; missing: number; pages: number }>;
}

async function readPageList(path: string): Promise<string[]> {
  const pages: string[] = [];
  const splitter = new LineSplitter((buffer, start, end) => {
    const text = buffer.toString('utf8', start, end).trim();
    if (text !== '' && !text.startsWith('#')) pages.push(text);
  }, path);
  await streamFile(path, (chunk) => splitter.write(chunk), { where: () => splitter.lineNumber });
  splitter.end();
  if (pages.length === 0) throw new InputFormatError(path, undefined, 'no pages listed');
  return pages;
}

export function registerAggregate(program: Command): void {
  program
    .command('aggregate')
    .description('combine rankings (score files) into one: the best or the mean rank position of each page')
    .argument('<scores...>', 'score files written by rank --out (at least two)')
    .option('--method <m>', `${AGGREGATION_METHODS.join(' or ')} rank position (default: best, the TrafficRank paper's example)`)
    .option('--top <k>', 'how many of the best pages to show (default: 10)')
    .option('--out <file>', 'write every page\'s aggregated score (1 / aggregated position) to FILE')
    .option('--json', 'print one JSON document')
    .action(async (paths: string[], options: AggregateOptions) => {
      const method = choiceOption('--method', options.method, AGGREGATION_METHODS, 'best');
      const k = integerOption('--top', options.top, 10, 0);
      if (paths.length < 2) throw new OptionError('aggregate', 'needs at least two score files');
      const { labels, scores } = await commonPages(paths);
      const aggregated = aggregateRanks(scores, method);
      // Order by aggregated position, ties by the mean of the positions, then by label order.
      const mean = aggregateRanks(scores, 'mean');
      const order = Array.from(labels.keys()).sort((a, b) => aggregated[a]! - aggregated[b]! || mean[a]! - mean[b]! || a - b);
      const positionsByRanking = scores.map((s) => aggregateRanks([s], 'best'));
      const report: AggregateJson = {
        method,
        rankings: paths,
        pages: labels.length,
        top: order.slice(0, k).map((page, i) => ({
          rank: i + 1,
          label: labels[page]!,
          position: aggregated[page]!,
          positions: positionsByRanking.map((p) => p[page]!),
        })),
        out: options.out ?? null,
      };
      if (options.out !== undefined) {
        await writeScores(options.out, new TextLabels(labels), Float64Array.from(aggregated, (p) => 1 / p), {
          method: `aggregate-${method}`,
          comments: [`wga aggregate --method ${method} of ${paths.join(' ')}: score = 1 / aggregated rank position`],
        });
      }
      if (options.json === true) {
        printJson(report);
        return;
      }
      print(`${method} rank position over ${paths.length} rankings of ${labels.length.toLocaleString('en-US')} pages`);
      print();
      print(
        table(
          [['rank', 'position', ...paths.map((_, i) => `#${i + 1}`), 'page'], ...report.top.map((t) => [String(t.rank), String(t.position), ...t.positions.map(String), safeLabel(t.label)])],
          [0, 1, ...paths.map((_, i) => i + 2)],
        ),
      );
    });

  program
    .command('evaluate')
    .description('the average rank position of chosen pages in each ranking (lower is better), as the TrafficRank paper evaluates')
    .argument('<scores...>', 'score files written by rank --out')
    .requiredOption('--pages <file>', 'the chosen pages, one label or URL per line')
    .option('--json', 'print one JSON document')
    .action(async (paths: string[], options: EvaluateOptions) => {
      const chosen = await readPageList(options.pages);
      const report: EvaluateJson = { pagesFile: options.pages, rankings: [] };
      for (const path of paths) {
        const file = await readScores(path);
        const labels = [...file.keys()];
        const index = new Map(labels.map((label, i) => [label, i]));
        const found = chosen.map((page) => index.get(page)).filter((i): i is number => i !== undefined);
        if (found.length === 0) throw new InputFormatError(options.pages, undefined, `none of the pages is ranked in ${path}`);
        const scores = Float64Array.from(labels, (label) => file.get(label)!);
        report.rankings.push({
          file: path,
          averagePosition: averageRankPosition(scores, found),
          found: found.length,
          missing: chosen.length - found.length,
          pages: labels.length,
        });
      }
      if (options.json === true) {
        printJson(report);
        return;
      }
      print(`average rank position of the ${chosen.length} pages of ${options.pages} (lower is better)`);
      print();
      print(table([['ranking', 'average position', 'found', 'of pages'], ...report.rankings.map((r) => [r.file, r.averagePosition.toFixed(1), `${r.found}/${r.found + r.missing}`, r.pages.toLocaleString('en-US')])], [1, 2, 3]));
    });
}
