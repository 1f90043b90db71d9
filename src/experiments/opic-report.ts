/** Writes the OPIC experiments as CSV files, SVG plots and a markdown summary. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileNotFoundError } from '../errors.js';
import type { OpicExperimentResult } from './opic-experiments.js';
import { lineChart, seriesCsv } from './svg-plot.js';

export interface ReportFiles {
  directory: string;
  files: string[];
}

export async function writeOpicReport(result: OpicExperimentResult, directory: string, command: string): Promise<ReportFiles> {
  try {
    await mkdir(directory, { recursive: true });
  } catch (error) {
    throw new FileNotFoundError(directory, `cannot create the directory: ${(error as Error).message}`);
  }
  const files: Array<[string, string]> = [];
  const figure = (name: string, series: OpicExperimentResult['figure2'], title: string, xLabel: string, xName: string, logY: boolean): void => {
    files.push([`${name}.csv`, seriesCsv(series, xName)]);
    files.push([`${name}.svg`, lineChart(series, { title, xLabel, yLabel: 'mean relative error (%)', logY })]);
  };
  figure('figure2', result.figure2, 'Convergence of OPIC on all pages (paper, Figure 2)', 'pages read / N (off-line: iterations)', 'reads_over_N', true);
  figure('figure3', result.figure3, 'Convergence of OPIC on the top 10% (paper, Figure 3)', 'pages read / N (off-line: iterations)', 'reads_over_N', true);
  figure('figure4', result.figure4, "Influence of the window's size (paper, Figure 4)", 'change rate (% of pages per crawl)', 'change_rate_percent', false);
  figure('figure6', result.figure6, "Influence of the window's type (paper, Figure 6)", 'change rate (% of pages per crawl)', 'change_rate_percent', false);
  files.push([
    'figure5.csv',
    `policy,measures_per_page\n${result.figure5.map((r) => `"${r.policy}",${r.measuresPerPage.toFixed(2)}`).join('\n')}\n`,
  ]);
  files.push(['summary.md', summary(result, command)]);
  for (const [name, text] of files) {
    try {
      await writeFile(join(directory, name), text);
    } catch (error) {
      throw new FileNotFoundError(join(directory, name), `cannot write: ${(error as Error).message}`);
    }
  }
  return { directory, files: files.map(([name]) => join(directory, name)) };
}

function table(rows: string[][]): string {
  return `| ${rows[0]!.join(' | ')} |\n|${rows[0]!.map(() => '---').join('|')}|\n${rows
    .slice(1)
    .map((r) => `| ${r.join(' | ')} |`)
    .join('\n')}\n`;
}

function summary(result: OpicExperimentResult, command: string): string {
  const agree = result.observations.filter((o) => o.holds).length;
  const lines: string[] = [];
  lines.push('# OPIC experiments: the paper\'s Figures 2-6 reproduced');
  lines.push('');
  lines.push(`Command: \`${command}\` (${result.seconds.toFixed(0)} s).`);
  lines.push('');
  lines.push(
    `Graph: ${result.nodes.toLocaleString('en-US')} pages, ${result.edges.toLocaleString('en-US')} links, in-degrees drawn from ` +
      `P(I = n) ~ n^-2.1 (the paper's model). Reference: PageRank with damping 0.85, which is the fixpoint of OPIC with the ` +
      `virtual page. Error: mean over pages of 100 |X - Imp| / Imp (the paper's measure), estimates normalised to sum 1. ` +
      `Windows in time are in "months" of one crawl of N pages; a Greedy crawl of the static graph advances G by ` +
      `${result.gPerCrawl.toFixed(3)}.`,
  );
  lines.push('');
  lines.push(`## The paper's statements, checked (${agree} of ${result.observations.length} hold)`);
  lines.push('');
  lines.push(table([['figure', 'statement', 'holds here', 'measured'], ...result.observations.map((o) => [o.figure, o.claim, o.holds ? 'yes' : '**no**', o.detail])]));
  lines.push('## Figures 2 and 3: convergence (error in %)');
  lines.push('');
  const reads = result.figure2[0]!.points.map(([x]) => x);
  for (const [title, series] of [
    ['All pages', result.figure2],
    ['Top 10% of pages', result.figure3],
  ] as const) {
    lines.push(`${title}:`);
    lines.push('');
    lines.push(
      table([
        ['reads / N', ...series.map((s) => s.name)],
        ...reads.map((x) => [String(x), ...series.map((s) => s.points.find(([px]) => px === x)?.[1]?.toFixed(2) ?? '')]),
      ]),
    );
  }
  lines.push('## Figure 4: window size under change (error in %, mean of the last half of the crawls)');
  lines.push('');
  const rateTable = (series: OpicExperimentResult['figure4']): string =>
    table([
      ['change rate', ...series.map((s) => s.name)],
      ...result.changeRates.map((rate) => [
        `${(100 * rate).toFixed(2)}%`,
        ...series.map((s) => s.points.find(([x]) => x === 100 * rate)?.[1]?.toFixed(2) ?? ''),
      ]),
    ]);
  lines.push(rateTable(result.figure4));
  lines.push('## Figure 5: storage per page');
  lines.push('');
  lines.push(table([['window policy', 'measures per page'], ...result.figure5.map((r) => [r.policy, r.measuresPerPage.toFixed(2)])]));
  lines.push('## Figure 6: window policies of similar storage under change (error in %)');
  lines.push('');
  lines.push(rateTable(result.figure6));
  lines.push('Files: figure2-6 as CSV and SVG beside this summary.');
  lines.push('');
  return lines.join('\n');
}
