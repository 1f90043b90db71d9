import type { Command } from 'commander';
import { runOpicExperiments } from '../../experiments/opic-experiments.js';
import { writeOpicReport } from '../../experiments/opic-report.js';
import { orderingExperiment } from '../../app/ordering-experiment.js';
import { CRAWL_STRATEGIES } from '../../crawl/frontier.js';
import { ORDERING_STRATEGIES, UNFETCHED_CONVENTIONS } from '../../experiments/crawl-ordering.js';
import { orderingTables } from '../../experiments/ordering-report.js';
import { OptionError } from '../../errors.js';
import { print, printJson, table } from '../output.js';
import { Progress } from '../progress.js';
import { choiceOption, integerOption, numberOption } from '../values.js';

interface ExperimentOptions {
  nodes?: string;
  crawls?: string;
  seed?: string;
  rates?: string;
  out?: string;
  json?: boolean;
  quiet?: boolean;
  db?: string;
  seedUrl?: string;
  pages?: string;
  updateEvery?: string;
  strategies?: string;
  unfetched?: string;
  title?: string;
}

export function registerExperiment(program: Command): void {
  program
    .command('experiment')
    .description("reproduce a paper's experiments; 'opic': the OPIC paper's Figures 2-6 on a synthetic graph")
    .argument('<name>', "experiment: opic, or ordering (crawl orders replayed: RankMass and the estimates' Kendall tau, docs/live-importance.md)")
    .option('--nodes <n>', 'pages of the synthetic graph (default: 100000, the paper\'s N)')
    .option('--crawls <c>', 'crawls of N reads (default: 10)')
    .option('--rates <list>', 'change rates in percent of pages per crawl, comma-separated (default: 0,0.25,0.5,1,2,4)')
    .option('--seed <s>', 'random seed (default: 1)')
    .option('--out <dir>', 'directory for the CSV files, SVG plots and summary.md (default: opic-experiment)')
    .option('--db <store>', 'ordering: replay over the graph of the crawl in this store')
    .option('--seed-url <url>', 'ordering with --db: the page to start from (default: the crawl\'s seeds)')
    .option('--pages <n>', 'ordering without --db: pages of the generated site (default: 100000)')
    .option('--update-every <k>', 'ordering: fetches between two live PageRank updates (default: pages / 500)')
    .option('--strategies <list>', `ordering: comma-separated, of ${CRAWL_STRATEGIES.join(', ')} (default: ${ORDERING_STRATEGIES.join(',')})`)
    .option('--unfetched <how>', "ordering: the live PageRank's unfetched pages: links-seen (the crawler's: their links guessed from the links seen), dangling, or seeds (their mass goes to the seeds)")
    .option('--title <text>', "ordering: the site's name in the plots and summary")
    .option('--json', 'print the results as one JSON document')
    .option('-q, --quiet', 'no progress messages on stderr')
    .action(async (name: string, options: ExperimentOptions) => {
      if (name === 'ordering') {
        await ordering(options);
        return;
      }
      if (name !== 'opic') throw new OptionError('experiment', `unknown experiment '${name}'; available: opic, ordering`);
      const nodes = integerOption('--nodes', options.nodes, 100_000, 100);
      const crawls = integerOption('--crawls', options.crawls, 10, 2);
      const seed = integerOption('--seed', options.seed, 1, 0);
      const changeRates =
        options.rates === undefined
          ? undefined
          : options.rates.split(',').map((text) => numberOption('--rates', text.trim(), 0, { min: 0, max: 100 }) / 100);
      const out = options.out ?? 'opic-experiment';
      const progress = new Progress(options.quiet !== true);
      let step = '';
      const started = performance.now();
      const result = runOpicExperiments({
        nodes,
        crawls,
        seed,
        ...(changeRates === undefined ? {} : { changeRates }),
        onProgress: (message) => {
          step = message;
          if (options.quiet !== true) process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${message}\n`);
        },
      });
      progress.done();
      const command = ['wga experiment opic', ...process.argv.slice(4)].join(' ');
      const report = await writeOpicReport(result, out, command);
      if (options.json === true) {
        printJson({ ...result, files: report.files });
        return;
      }
      print(`OPIC experiments on ${result.nodes.toLocaleString('en-US')} pages, ${result.seconds.toFixed(0)} s (last step: ${step})`);
      print();
      print(table([['fig.', 'the paper says', 'here'], ...result.observations.map((o) => [o.figure, o.claim, `${o.holds ? 'yes' : 'NO'}: ${o.detail}`])]));
      print(`\nplots, CSV and summary.md written to ${out}/`);
    });
}

async function ordering(options: ExperimentOptions): Promise<void> {
  const started = performance.now();
  const result = await orderingExperiment(
    {
      ...(options.db === undefined ? {} : { db: options.db }),
      ...(options.seedUrl === undefined ? {} : { seedUrl: options.seedUrl }),
      pages: integerOption('--pages', options.pages, 100_000, 2),
      siteSeed: integerOption('--seed', options.seed, 1, 0),
      ...(options.updateEvery === undefined ? {} : { updateEvery: integerOption('--update-every', options.updateEvery, 1, 1) }),
      ...(options.strategies === undefined
        ? {}
        : { strategies: options.strategies.split(',').map((text) => choiceOption('--strategies', text.trim(), CRAWL_STRATEGIES, 'greedy')) }),
      unfetched: choiceOption('--unfetched', options.unfetched, UNFETCHED_CONVENTIONS, 'links-seen'),
      out: options.out ?? 'ordering-experiment',
      ...(options.title === undefined ? {} : { title: options.title }),
      command: ['wga experiment ordering', ...process.argv.slice(4).map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`))].join(' '),
    },
    {
      onProgress: (event) => {
        if (options.quiet !== true) process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${event.message}\n`);
      },
    },
  );
  if (options.json === true) {
    printJson(result);
    return;
  }
  print(`Crawl orders replayed on ${result.site}: ${result.pages.toLocaleString('en-US')} pages, ${result.seconds.toFixed(0)} s`);
  print();
  print(orderingTables(result));
  print(`plots, CSV and summary.md written to ${options.out ?? 'ordering-experiment'}/`);
}
