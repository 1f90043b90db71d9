/** Writes the crawl-ordering replay (crawl-ordering.ts) as a CSV file, SVG plots and a markdown summary. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileNotFoundError } from '../errors.js';
import type { OrderingMark, OrderingResult } from './crawl-ordering.js';
import { lineChart, type Series } from './svg-plot.js';

/** Strategy names as the tables and legends give them. */
export const STRATEGY_NAMES: Record<string, string> = {
  bfs: 'BFS',
  dfs: 'DFS',
  random: 'OPIC Random',
  buffer: 'WGA buffer',
  greedy: 'OPIC Greedy',
  pagerank: 'Live PageRank',
};

const name = (strategy: string): string => STRATEGY_NAMES[strategy] ?? strategy;
const percent = (x: number): string => `${Number((100 * x).toPrecision(3))}%`;

export function orderingCsv(result: OrderingResult): string {
  const header =
    'strategy,mark_percent,fetched,known,rank_mass,top10_fetched,top100_fetched,tau_opic,tau_live,tau_opic_fetched,tau_live_fetched,tau_opic_unfetched,tau_live_unfetched,tau_dangling,tau_oracle';
  const tau = (x: number): string => (Number.isNaN(x) ? '' : x.toFixed(4));
  const rows = result.marks.map((m) =>
    [
      m.strategy,
      100 * m.mark,
      m.fetched,
      m.known,
      m.rankMass.toFixed(6),
      m.top10,
      m.top100,
      tau(m.tauOpic),
      tau(m.tauLive),
      tau(m.tauOpicFetched),
      tau(m.tauLiveFetched),
      tau(m.tauOpicUnfetched),
      tau(m.tauLiveUnfetched),
      tau(m.tauDangling),
      tau(m.tauOracle),
    ].join(','),
  );
  return `${header}\n${rows.join('\n')}\n`;
}

function seriesOf(result: OrderingResult, value: (m: OrderingMark) => number, suffix = ''): Series[] {
  const strategies = [...new Set(result.marks.map((m) => m.strategy))];
  return strategies.map((strategy) => ({
    name: `${name(strategy)}${suffix}`,
    points: result.marks.filter((m) => m.strategy === strategy).map((m) => [100 * m.mark, value(m)] as [number, number]),
  }));
}

/** The plots: RankMass, top-100 found, and the two estimates' tau. */
export function orderingCharts(result: OrderingResult, site: string): Array<[string, string]> {
  const x = '% of the first pass fetched';
  const tau: Series[] = [
    ...seriesOf(result, (m) => m.tauLive, ': live PageRank').filter((s) => s.name.startsWith('OPIC Greedy') || s.name.startsWith('Live PageRank') || s.name.startsWith('BFS')),
    ...seriesOf(result, (m) => m.tauOpic, ': OPIC').filter((s) => s.name.startsWith('OPIC Greedy') || s.name.startsWith('BFS')),
  ];
  return [
    ['rankmass.svg', lineChart(seriesOf(result, (m) => 100 * m.rankMass), { title: `RankMass fetched: ${site}`, xLabel: x, yLabel: '% of the final PageRank fetched' })],
    ['top100.svg', lineChart(seriesOf(result, (m) => m.top100), { title: `Final top-100 pages fetched: ${site}`, xLabel: x, yLabel: 'pages of the top 100' })],
    ['tau.svg', lineChart(tau, { title: `Kendall tau of the estimates vs the final PageRank: ${site}`, xLabel: x, yLabel: 'tau-b over the pages known' })],
  ];
}

const tauText = (x: number): string => (Number.isNaN(x) ? '—' : x.toFixed(3));

function table(rows: string[][]): string {
  return `| ${rows[0]!.join(' | ')} |\n|${rows[0]!.map(() => '---').join('|')}|\n${rows
    .slice(1)
    .map((r) => `| ${r.join(' | ')} |`)
    .join('\n')}\n`;
}

/** One markdown table per measure: strategies down, marks across. */
export function orderingTables(result: OrderingResult): string {
  const strategies = [...new Set(result.marks.map((m) => m.strategy))];
  const marks = [...new Set(result.marks.map((m) => m.mark))];
  const at = (strategy: string, mark: number): OrderingMark => result.marks.find((m) => m.strategy === strategy && m.mark === mark)!;
  const block = (title: string, cell: (m: OrderingMark) => string): string =>
    `${title}\n\n${table([['strategy', ...marks.map(percent)], ...strategies.map((s) => [name(s), ...marks.map((mark) => cell(at(s, mark)))])])}`;
  return [
    block('RankMass (share of the final PageRank fetched):', (m) => percent(m.rankMass)),
    block('Final top-10 / top-100 pages fetched:', (m) => `${m.top10} / ${m.top100}`),
    block("Kendall tau vs the final PageRank, OPIC's estimate / the live PageRank (pages known at the mark):", (m) => `${m.tauOpic.toFixed(3)} / ${m.tauLive.toFixed(3)}`),
    block('The same over the pages fetched only:', (m) => `${tauText(m.tauOpicFetched)} / ${tauText(m.tauLiveFetched)}`),
    block('The same over the pages known but not fetched yet:', (m) => `${tauText(m.tauOpicUnfetched)} / ${tauText(m.tauLiveUnfetched)}`),
    block(
      'Kendall tau of two more estimates: the PageRank of the known graph with the waiting pages dangling (the live estimate without its guess) / the seen-links oracle (fetched pages at their final PageRank, waiting ones at what flows to them through the links seen; no crawler has it):',
      (m) => `${tauText(m.tauDangling)} / ${tauText(m.tauOracle)}`,
    ),
  ].join('\n');
}

export async function writeOrderingReport(result: OrderingResult, directory: string, site: string, command: string): Promise<string[]> {
  try {
    await mkdir(directory, { recursive: true });
  } catch (error) {
    throw new FileNotFoundError(directory, `cannot create the directory: ${(error as Error).message}`);
  }
  const files: Array<[string, string]> = [['ordering.csv', orderingCsv(result)], ...orderingCharts(result, site)];
  files.push([
    'summary.md',
    `# Crawl ordering: ${site}\n\nCommand: \`${command}\` (${result.seconds.toFixed(1)} s). ${result.pages.toLocaleString('en-US')} pages, ` +
      `${result.links.toLocaleString('en-US')} links in the first pass; live PageRank updated every ${result.updateEvery} fetches.\n\n${orderingTables(result)}`,
  ]);
  const written: string[] = [];
  for (const [file, text] of files) {
    const path = join(directory, file);
    try {
      await writeFile(path, text);
    } catch (error) {
      throw new FileNotFoundError(path, `cannot write: ${(error as Error).message}`);
    }
    written.push(path);
  }
  return written;
}
