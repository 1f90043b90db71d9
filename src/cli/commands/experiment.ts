import type { Command } from 'commander';
import { runOpicExperiments } from '../../experiments/opic-experiments.js';
import { writeOpicReport } from '../../experiments/opic-report.js';
import { OptionError } from '../../errors.js';
import { print, printJson, table } from '../output.js';
import { Progress } from '../progress.js';
import { integerOption, numberOption } from '../values.js';

interface ExperimentOptions {
  nodes?: string;
  crawls?: string;
  seed?: string;
  rates?: string;
  out?: string;
  json?: boolean;
  quiet?: boolean;
}

export function registerExperiment(program: Command): void {
  program
    .command('experiment')
    .description("reproduce a paper's experiments; 'opic': the OPIC paper's Figures 2-6 on a synthetic graph")
    .argument('<name>', 'experiment: opic')
    .option('--nodes <n>', 'pages of the synthetic graph (default: 100000, the paper\'s N)')
    .option('--crawls <c>', 'crawls of N reads (default: 10)')
    .option('--rates <list>', 'change rates in percent of pages per crawl, comma-separated (default: 0,0.25,0.5,1,2,4)')
    .option('--seed <s>', 'random seed (default: 1)')
    .option('--out <dir>', 'directory for the CSV files, SVG plots and summary.md (default: opic-experiment)')
    .option('--json', 'print the results as one JSON document')
    .option('-q, --quiet', 'no progress messages on stderr')
    .action(async (name: string, options: ExperimentOptions) => {
      if (name !== 'opic') throw new OptionError('experiment', `unknown experiment '${name}'; available: opic`);
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
