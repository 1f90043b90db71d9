import type { Command } from 'commander';
import { type AppContext } from '../../app/context.js';
import { type RankJson, type RankOptions, type RankTableJson, RANK_METHODS, parseRankOptions, rank, rankTable } from '../../app/rank.js';
import { MONTE_CARLO_DEFAULTS } from '../../analysis/montecarlo.js';
import { OPIC_STRATEGIES } from '../../analysis/opic.js';
import { TRAFFIC_DEFAULTS, TRAFFIC_SWEEPS } from '../../analysis/traffic.js';
import { PAGERANK_DEFAULTS, PAGERANK_SOLVERS } from '../../analysis/pagerank.js';
import { ExitCode, OptionError } from '../../errors.js';
import { defaultThreads } from '../../parallel/pool.js';
import { type GraphInputOptions, addGraphOptions, addSaveOption, withGraph } from '../graph-input.js';
import { count, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { Progress } from '../progress.js';
import { compactInput, runCompactRank } from './compact.js';

export { type RankJson, type RankMethod, type RankedPage, RANK_METHODS, topEntries } from '../../app/rank.js';

export function registerRank(program: Command): void {
  addSaveOption(addGraphOptions(
    program
      .command('rank')
      .description('rank every page (PageRank, Monte Carlo, restricted PageRank, OPIC, TrafficRank, HOTness) and show the best')
      .argument('[graph]', 'graph file (or --db)')
      .option('--method <method>', `ranking method: ${RANK_METHODS.join(', ')}; several, comma-separated, give a ranks table with --out (default: pagerank)`)
      .option('--solver <solver>', `PageRank solver: ${PAGERANK_SOLVERS.join(', ')} (default: auto, the fastest that applies)`)
      .option('--damping <c>', `probability of following a link (default: ${PAGERANK_DEFAULTS.damping})`)
      .option('--tolerance <eps>', `stop when ||pi G - pi||_1 is at most eps (default: ${PAGERANK_DEFAULTS.tolerance})`)
      .option('--max-iterations <n>', `iteration limit (default: ${PAGERANK_DEFAULTS.maxIterations})`)
      .option('--teleport <page...>', 'personalised PageRank: jump only to these pages (labels or URLs)')
      .option('--root <page...>', 'restricted PageRank: rank only the pages within --max-level clicks of these')
      .option('--max-level <l>', 'restricted PageRank: the largest number of clicks from the roots (default: 3)')
      .option('--walks <m>', `Monte Carlo: walks started at every page (default: ${MONTE_CARLO_DEFAULTS.walksPerPage})`)
      .option('--seed <s>', `Monte Carlo: random seed (default: ${MONTE_CARLO_DEFAULTS.seed})`)
      .option('--strategy <s>', `OPIC: page selection, ${OPIC_STRATEGIES.join(', ')} (default: greedy)`)
      .option('--reads <n>', 'OPIC: pages read in all (default: 10 times the number of pages)')
      .option('--focus <regex>', 'OPIC: pages whose label or URL matches get the focus share of the virtual page\'s cash')
      .option('--focus-share <x>', 'OPIC: share of the virtual page\'s payouts for focus pages (default: 0.5 with --focus)')
      .option('--discovery-share <x>', 'OPIC: share of the virtual page\'s payouts for pages never read (default: 0)')
      .option('--alpha <a>', `TrafficRank/HOTness: share of the traffic on real links (default: ${TRAFFIC_DEFAULTS.alpha})`)
      .option('--sweep <kind>', `TrafficRank/HOTness: ${TRAFFIC_SWEEPS.join(', ')} (default: ${TRAFFIC_DEFAULTS.sweep}; a compact graph: anderson or gauss-seidel)`)
      .option('--history <width>', 'TrafficRank/HOTness on a compact graph: Anderson\'s history in float64, float32 (half the bytes, the same accuracy) or auto (float64 when it fits; default)')
      .option('--hubs', 'HITS: rank by hub scores (default: authorities)')
      .option('--exact', 'harmonic, closeness, lin: exact, one breadth-first search per page (default: HyperBall\'s estimate)')
      .option('--log2m <k>', 'HyperBall: 2^k registers per counter, 4 to 16; error about 1.04 / 2^(k/2) (default: up to 8, as memory allows)')
      .option('--mode <degree>', 'coreness: the degree counted, all (in + out: the graph taken as undirected), in or out (default: all)')
      .option('--compact', 'PageRank by power iteration on the compact graph: in-lists gap-encoded, about 1 to 2 bytes per link instead of 4 (the same vector)')
      .option('--tmp <dir>', 'where a graph too big for the plain arrays is converted to the compact form')
      .option('--threads <t>', `threads (default: ${defaultThreads()}, the cores)`)
      .option('--top <k>', 'how many of the best pages to show (default: 10)')
      .option('--out <file>', 'write every page\'s score to FILE ("label<TAB>score"; JSON if FILE ends in .json); with several methods, their ranks table (position and value per method, then the name)')
      .option('--json', 'print one JSON document'),
  )).action(async (path: string | undefined, options: RankOptions & GraphInputOptions & { tmp?: string }) => {
    // A .wgc file, or a graph too big for the plain arrays: PageRank on the compact form from a file.
    // (--compact on another file keeps the in-memory compact in-lists of the plain graph.)
    const compactProgress = new Progress(options.quiet !== true);
    const compact = await compactInput(path, { ...options, compact: false }, compactProgress);
    if (compact !== null) {
      try {
        const result = await runCompactRank(compact.path, { ...options, ...(options.save === true && compact.path !== path ? { save: false } : {}) }, compactProgress);
        for (const failed of result.failed) {
          process.stderr.write(`wga: ${failed.method} did not converge: ${failed.traffic === null ? 'residual' : 'violation'} ${failed.residual.toExponential(3)} after ${failed.iterations} ${failed.traffic === null ? 'iterations' : 'sweeps'}; raise --max-iterations\n`);
        }
        if (!result.converged) process.exitCode = ExitCode.notConverged;
      } finally {
        compact.cleanUp();
      }
      return;
    }
    compactProgress.done();
    if ((options as { history?: string }).history !== undefined) throw new OptionError('--history', 'is an option of TrafficRank on a compact graph (a .wgc file)');
    const request = parseRankOptions(options);
    if (path !== undefined) request.source = path;
    await withGraph(path, options, async (loaded) => {
      const progress = new Progress(options.quiet !== true);
      const context: AppContext = { onProgress: (event) => progress.update(() => event.message) };
      if (request.methods.length > 1) {
        let table: RankTableJson;
        try {
          table = await rankTable(loaded, request, context);
        } finally {
          progress.done();
        }
        if (options.json === true) printJson(table);
        else printRankTable(table);
        const failed = table.methods.filter((m) => !m.converged);
        for (const m of failed) {
          process.stderr.write(`wga: ${m.method} did not converge: residual ${m.residual.toExponential(3)} after ${m.iterations} iterations; raise --max-iterations\n`);
        }
        if (failed.length > 0) process.exitCode = ExitCode.notConverged;
        return;
      }
      let json: RankJson;
      try {
        json = await rank(loaded, request, context);
      } finally {
        progress.done();
      }
      if (options.json === true) printJson(json);
      else printRank(json, loaded.level ?? 'page');
      if (!json.converged) {
        process.stderr.write(
          `wga: ${request.method} did not converge: residual ${json.residual.toExponential(3)} after ` +
            `${json.iterations} iterations, tolerance ${request.tolerance}; raise --max-iterations\n`,
        );
        process.exitCode = ExitCode.notConverged;
      }
    });
  });
}

/** Several methods: each one's summary line, then the best nodes by the first with every method's position. */
function printRankTable(report: RankTableJson): void {
  for (const m of report.methods) printRank({ ...m, top: [], out: null, run: null }, report.level);
  if (report.top.length > 0) {
    print();
    const header = ['rank', ...report.methods.flatMap((m, i) => (i === 0 ? [m.method] : [`${m.method} rank`, m.method])), report.level];
    const rows = report.top.map((t) => [
      String(t.positions[0]),
      ...t.values.flatMap((value, i) => (i === 0 ? [score(value)] : [t.positions[i] === 0 ? '-' : String(t.positions[i]), score(value)])),
      safeLabel(t.label),
    ]);
    print(table([header, ...rows], [0, ...report.methods.slice(1).map((_, i) => 2 + 2 * i)]));
  }
  if (report.out !== null) print(`\nranks table of all ${count(report.nodes)} ${report.level === 'page' ? 'pages' : `${report.level}s`} written to ${report.out}`);
  const saved = report.methods.filter((m) => m.run !== null);
  if (saved.length > 0) print(`\nsaved as ${saved.map((m) => `run ${m.run} (${m.method})`).join(', ')}`);
}

function printRank(report: RankJson, level = 'page'): void {
  const unit = level === 'page' ? 'pages' : `${level}s`;
  const scope =
    report.restricted === null
      ? `${count(report.nodes)} ${unit}`
      : `the ${count(report.restricted.nodes)} pages within ${report.restricted.maxLevel} clicks of ${report.restricted.roots.map((r) => safeLabel(r)).join(', ')} (of ${count(report.nodes)})`;
  const how =
    report.traffic !== null
      ? `maximum-entropy traffic (alpha ${report.traffic.alpha}), ${report.solver} sweeps: ${report.iterations}, ` +
        `largest conservation violation ${report.residual.toExponential(2)}${report.converged ? '' : ' (NOT CONVERGED)'}, entropy ${report.traffic.entropy.toFixed(4)}`
      : report.opic !== null
      ? `${report.opic.strategy}, ${count(report.opic.reads)} reads, G = ${report.opic.time.toFixed(3)}, error factor 1/G = ${report.opic.errorFactor.toExponential(2)}`
      : report.montecarlo !== null
      ? `${count(report.montecarlo.walks)} walks (${report.montecarlo.walksPerPage} per page, seed ${report.montecarlo.seed}), ` +
        `largest relative error of the top pages ${(100 * report.residual).toFixed(1)}%`
      : (report.method === 'harmonic' || report.method === 'closeness' || report.method === 'lin') && report.solver === 'exact'
      ? 'exact, one breadth-first search per page along in-links'
      : report.method === 'harmonic' || report.method === 'closeness' || report.method === 'lin'
      ? `${report.solver}, ${report.iterations} iterations, each estimate within about ${(100 * report.residual).toFixed(1)}% (one standard deviation)`
      : report.method === 'coreness'
      ? `k-cores by ${report.solver === 'all' ? 'in + out' : `${report.solver}-`} degree`
      : `${report.solver}, ${report.iterations} iterations (${report.equivalentIterations.toFixed(1)} in power-iteration work), ` +
        `residual ${report.residual.toExponential(2)}${report.converged ? '' : ' (NOT CONVERGED)'}`;
  const compact = report.compact === undefined ? '' : `, the compact graph's in-lists ${report.compact.bytesPerLink.toFixed(2)} bytes per link`;
  print(`${report.method} of ${scope}: ${how}${compact}; load ${seconds(report.timings.load)}, solve ${seconds(report.timings.solve)}`);
  if (report.top.length > 0) {
    print();
    const montecarlo = report.montecarlo !== null;
    const header = montecarlo ? ['rank', 'score', '± std', level] : ['rank', 'score', level];
    const rows = report.top.map((t) =>
      montecarlo
        ? [String(t.rank), score(t.score), `${(100 * (t.relativeError ?? Number.NaN)).toFixed(1)}%`, safeLabel(t.label)]
        : [String(t.rank), score(t.score), safeLabel(t.label)],
    );
    print(table([header, ...rows], montecarlo ? [0, 2] : [0]));
  }
  if (report.out !== null) print(`\nscores of all ranked pages written to ${report.out}`);
  if (report.run !== null) print(`\nsaved as run ${report.run} (${report.method})`);
}

