/**
 * The compact graph on the command line: `wga convert` (any graph file to `.wgc`), `wga generate`
 * (a Common Crawl-shaped host graph straight to `.wgc`), and the compact runs of `stats`, `rank`,
 * `levels`, `scc`, `top` and `page` when their graph is a `.wgc` file (or `--compact` asks, or
 * the plain arrays would not fit in memory).
 */
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  COMPACT_RANK_METHODS,
  type CompactRankJson,
  type CompactRankMethod,
  type CompactRankOptions,
  compactRankTable,
  compactLevelsOf,
  compactPage,
  compactRank,
  compactSccOf,
  compactStats,
  compactTop,
} from '../../app/compact-graph.js';
import { loadOptions } from '../../app/graph-source.js';
import { OptionError } from '../../errors.js';
import { type HostGraphReport, generateHostGraph } from '../../experiments/host-graph.js';
import { type ConvertReport, convertToCompact } from '../../formats/compact-convert.js';
import { isCompactPath } from '../../formats/compact-file.js';
import { detectFormat } from '../../formats/load.js';
import { ADJACENCY_HEADER_BYTES } from '../../formats/adjacency-binary.js';
import { type GraphInputOptions, addGraphFileOptions } from '../graph-input.js';
import { count, levelsTable, megabytes, percent, print, printJson, safeLabel, score, seconds, table } from '../output.js';
import { Progress } from '../progress.js';
import { defaultThreads } from '../../parallel/pool.js';
import { choiceOption, integerOption, numberOption } from '../values.js';
import { TRAFFIC_DEFAULTS } from '../../analysis/traffic.js';
import { BOW_TIE_PARTS } from '../../analysis/bowtie.js';
import { printStats } from './stats.js';

/**
 * `wga generate --preset`: the sizes of the graphs the papers and the field rank. Tomlin's crawl of
 * 2001 kept only the pages crawled (links to pages not crawled dropped), so few are dangling.
 */
export const GENERATE_PRESETS = {
  commoncrawl: { pages: 335_000_000, links: 2_700_000_000, dangling: 0.81, what: "Common Crawl's host graph of 2024: 3.35 x 10^8 hosts, 2.7 x 10^9 links, 81% dangling" },
  tomlin: { pages: 173_000_000, links: 2_000_000_000, dangling: 0.1, what: "Tomlin's TrafficRank crawl (2003): 1.73 x 10^8 pages, 2 x 10^9 links, the pages crawled only (10% dangling)" },
} as const;

/** Peak bytes per link of the plain graph's loading (measured at 10^9 links: 13.3 to 13.6). */
const PLAIN_BYTES_PER_LINK = 13.6;

/** The memory the automatic choice plans with: the machine's, or WGA_MEMORY_BYTES (to plan for a smaller machine). */
export function memoryBytes(): number {
  const given = Number(process.env['WGA_MEMORY_BYTES']);
  return Number.isFinite(given) && given > 0 ? given : totalmem();
}

/** Links a graph file holds, estimated from its size or header (text: about 12 bytes a line). */
async function estimatedLinks(path: string, format: string): Promise<number> {
  try {
    if (format === 'wgadj') {
      const fd = openSync(path, 'r');
      try {
        const header = Buffer.alloc(ADJACENCY_HEADER_BYTES);
        readSync(fd, header, 0, ADJACENCY_HEADER_BYTES, 0);
        return Number(header.readBigUInt64LE(16));
      } finally {
        closeSync(fd);
      }
    }
    if (format === 'edges') return statSync(path).size / (/\.gz$/.test(path) ? 4 : 12);
  } catch {
    // The loader will name what is wrong with the file.
  }
  return 0;
}

/**
 * The compact file a command should read, or null for the plain graph: the file itself when it is
 * `.wgc`; a conversion into a temporary directory when `--compact` asks or when the plain arrays
 * would not fit in three quarters of the memory. `cleanUp` removes the conversion.
 */
export async function compactInput(
  path: string | undefined,
  options: GraphInputOptions & { compact?: boolean; tmp?: string },
  progress: Progress,
): Promise<{ path: string; cleanUp: () => void } | null> {
  if (path === undefined || options.db !== undefined) {
    if (options.compact === true && path === undefined) throw new OptionError('--compact', 'reads a graph file (a store\'s graph is analysed in its plain form)');
    return null;
  }
  if (options.format === 'compact' || isCompactPath(path)) return { path, cleanUp: () => {} };
  if ((options.level ?? 'page') !== 'page' || options.hosts === true) return null;
  const format = options.format === undefined || options.format === 'auto' ? await detectFormat(path) : options.format;
  let reason: string | null = options.compact === true ? 'asked' : null;
  if (reason === null) {
    const links = await estimatedLinks(path, format);
    if (links * PLAIN_BYTES_PER_LINK > 0.75 * memoryBytes()) {
      reason = `about ${count(Math.round(links))} links would take ${megabytes(links * PLAIN_BYTES_PER_LINK)} in the plain form, more than this machine's memory allows`;
    }
  }
  if (reason === null) return null;
  if (reason !== 'asked') process.stderr.write(`wga: ${safeLabel(path)}: ${reason}; converting to the compact form first (wga convert keeps it)\n`);
  const dir = mkdtempSync(join(options.tmp ?? tmpdir(), 'wga-compact-'));
  const converted = join(dir, 'graph.wgc');
  try {
    await convertToCompact(path, converted, {
      ...loadOptions(options),
      ...(options.tmp === undefined ? {} : { tmp: options.tmp }),
      onProgress: (message) => progress.update(() => message),
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { path: converted, cleanUp: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs `run` on the compact form when the command's graph calls for it (compactInput) and returns
 * true; false when the command should read the plain graph.
 */
export async function runOnCompactForm(
  path: string | undefined,
  options: GraphInputOptions & { compact?: boolean; tmp?: string },
  run: (compactPath: string, progress: Progress) => void,
): Promise<boolean> {
  const progress = new Progress(options.quiet !== true);
  const compact = await compactInput(path, options, progress);
  if (compact === null) {
    progress.done();
    return false;
  }
  try {
    run(compact.path, progress);
  } finally {
    progress.done();
    compact.cleanUp();
  }
  return true;
}

function structuresTable(structures: Array<{ name: string; bytes: number; bytesPerPage: number; bytesPerLink: number }>): string {
  return table(
    [['structure', 'bytes', 'per page', 'per link'], ...structures.map((s) => [s.name, megabytes(s.bytes), s.bytesPerPage.toFixed(2), s.bytesPerLink.toFixed(3)])],
    [1, 2, 3],
  );
}

/** `stats` of a compact graph. */
export function runCompactStats(path: string, options: { json?: boolean }, progress: Progress): void {
  const result = compactStats(path, { onProgress: (event) => progress.update(() => event.message) });
  progress.done();
  if (options.json === true) {
    printJson(result);
    return;
  }
  printStats(result);
  print('\ncompact structures');
  print(structuresTable(result.memory.structures));
}

/** The options `rank` reads on a compact graph. */
export interface CompactRankCliOptions {
  json?: boolean;
  top?: string;
  damping?: string;
  tolerance?: string;
  maxIterations?: string;
  threads?: string;
  save?: boolean;
  method?: string;
  solver?: string;
  alpha?: string;
  sweep?: string;
  history?: string;
  out?: string;
  log2m?: string;
  seed?: string;
  tmp?: string;
  exact?: boolean;
  walks?: string;
}

/**
 * `rank` of a compact graph: PageRank, TrafficRank, HOTness; several methods, or --out, give Common
 * Crawl's ranks table. Returns whether every ranking converged.
 */
export async function runCompactRank(path: string, options: CompactRankCliOptions, progress: Progress): Promise<{ converged: boolean; failed: CompactRankJson[] }> {
  const methods = (options.method ?? 'pagerank').split(',').map((m) => m.trim());
  for (const method of methods) {
    if (!(COMPACT_RANK_METHODS as readonly string[]).includes(method)) {
      throw new OptionError('--method', `a compact graph is ranked by ${COMPACT_RANK_METHODS.join(', ')}; '${method}' needs the plain form (wga rank FILE without .wgc)`);
    }
  }
  if (new Set(methods).size !== methods.length) throw new OptionError('--method', `names a method twice: '${options.method}'`);
  const solver = choiceOption('--solver', options.solver, ['auto', 'power', 'gauss-seidel'] as const, 'auto');
  const traffic = methods.some((m) => m === 'traffic' || m === 'hotness');
  const geometric = methods.some((m) => m === 'harmonic' || m === 'closeness' || m === 'lin');
  if (!traffic) {
    for (const [option, given] of [['--alpha', options.alpha], ['--sweep', options.sweep], ['--history', options.history]] as const) {
      if (given !== undefined) throw new OptionError(option, 'is an option of --method traffic and hotness');
    }
  }
  const montecarlo = methods.includes('montecarlo');
  if (!geometric && options.log2m !== undefined) throw new OptionError('--log2m', 'is an option of HyperBall: --method harmonic, closeness or lin');
  if (!geometric && !montecarlo && options.seed !== undefined) throw new OptionError('--seed', 'is an option of HyperBall (--method harmonic, closeness or lin) and of --method montecarlo');
  if (!montecarlo && options.walks !== undefined) throw new OptionError('--walks', 'is an option of --method montecarlo');
  if (options.exact === true) throw new OptionError('--exact', 'is not available on a compact graph (one breadth-first search per page): HyperBall estimates harmonic, closeness and lin');
  const rankOptions: CompactRankOptions = {
    top: integerOption('--top', options.top, 10, 0),
    damping: numberOption('--damping', options.damping, 0.85, { min: 0, max: 1, exclusiveMax: true }),
    tolerance: numberOption('--tolerance', options.tolerance, 1e-10, { min: 0, exclusiveMin: true }),
    maxIterations: integerOption('--max-iterations', options.maxIterations, traffic ? TRAFFIC_DEFAULTS.maxSweeps : 1000, 1),
    threads: integerOption('--threads', options.threads, defaultThreads(), 1),
    save: options.save === true,
    alpha: numberOption('--alpha', options.alpha, TRAFFIC_DEFAULTS.alpha, { min: 0, max: 1, exclusiveMin: true, exclusiveMax: true }),
    sweep: choiceOption('--sweep', options.sweep, ['anderson', 'gauss-seidel'] as const, 'anderson'),
    history: choiceOption('--history', options.history, ['auto', 'float64', 'float32'] as const, 'auto'),
    memoryBytes: memoryBytes(),
    solver,
    log2m: options.log2m === undefined ? null : integerOption('--log2m', options.log2m, 6, 4, 16),
    seed: integerOption('--seed', options.seed, 1, 0),
    walks: integerOption('--walks', options.walks, 1, 1),
    ...(options.tmp === undefined ? {} : { tmp: options.tmp }),
  };
  const context = { onProgress: (event: { message: string }) => progress.update(() => event.message) };
  if (methods.length > 1 || options.out !== undefined) {
    const result = await compactRankTable(path, methods as CompactRankMethod[], options.out ?? null, rankOptions, context);
    progress.done();
    if (options.json === true) printJson(result);
    else {
      for (const report of result.methods) printCompactRanking(report);
      print();
      const header = ['rank', ...result.methods.flatMap((m, i) => (i === 0 ? [m.method] : [`${m.method} rank`, m.method])), 'page'];
      const rows = result.top.map((t) => [String(t.positions[0]), ...t.values.flatMap((v, i) => (i === 0 ? [score(v)] : [String(t.positions[i]), score(v)])), safeLabel(t.label)]);
      print(table([header, ...rows], [0, ...result.methods.slice(1).map((_, i) => 2 + 2 * i)]));
      if (result.out !== null) print(`\nranks table of all ${count(result.nodes)} pages written to ${result.out} in ${seconds(result.timings.table)}`);
      const saved = result.methods.filter((m) => m.saved !== null);
      if (saved.length > 0) print(`\nscores kept in ${saved.map((m) => m.saved).join(', ')}`);
    }
    const failed = result.methods.filter((m) => !m.converged);
    return { converged: failed.length === 0, failed };
  }
  const result = compactRank(path, { ...rankOptions, method: methods[0] as CompactRankMethod }, context);
  progress.done();
  if (options.json === true) printJson(result);
  else {
    printCompactRanking(result);
    print();
    print(table([['rank', result.method, 'page'], ...result.top.map((t) => [String(t.rank), score(t.score), safeLabel(t.label)])], [0]));
    print('\ncompact structures');
    print(structuresTable(result.compact.structures));
    if (result.saved !== null) print(`\nscores kept in ${result.saved} (wga top --graph ${path}${result.method === 'pagerank' ? '' : ` --score ${result.method}`}, wga page NAME --graph ${path})`);
  }
  return { converged: result.converged, failed: result.converged ? [] : [result] };
}

/** One ranking's summary line. */
function printCompactRanking(result: CompactRankJson): void {
  const graph = `${count(result.nodes)} pages, ${count(result.edges)} links`;
  const time = `load ${seconds(result.timings.load)}, solve ${seconds(result.timings.solve)}`;
  if (result.traffic === null && result.hyperball === null && result.montecarlo === null) {
    const core = result.core === null ? '' : ` (dangling pages lumped: iterated over the ${count(result.core.pages)} pages with out-links and their ${count(result.core.links)} in-links)`;
    const how =
      result.solver !== 'gauss-seidel (compact)'
        ? `power iteration on the compact graph${core}, ${result.iterations} iterations`
        : result.components !== undefined
          ? `Gauss-Seidel over ${result.components.count.toLocaleString('en-US')} components on the compact graph (Tarjan's search ${result.components.seconds.toFixed(1)} s), ${result.passes.toFixed(1)} passes' work, the slowest component ${result.iterations} sweeps`
          : `Gauss-Seidel on the compact graph, ${result.iterations} sweeps and ${result.passes - result.iterations} residual checks`;
    print(`pagerank of ${graph}: ${how}, residual ${result.residual.toExponential(2)}${result.converged ? '' : ' (NOT CONVERGED)'}; ${time}`);
    if (result.solverReason !== undefined) print(`(${result.solverReason})`);
    return;
  }
  if (result.montecarlo !== null) {
    const mc = result.montecarlo;
    print(`montecarlo of ${graph}: Monte Carlo on the compact graph, ${count(mc.walksPerPage)} walk${mc.walksPerPage === 1 ? '' : 's'} from every page (${count(mc.walks)} walks, ${count(mc.totalVisits)} visits, seed ${mc.seed}, ${mc.threads} thread${mc.threads === 1 ? '' : 's'}), the largest standard deviation ${mc.largestStandardDeviation.toExponential(2)}; ${time}`);
    return;
  }
  if (result.hyperball !== null) {
    const h = result.hyperball;
    print(`${result.method} of ${graph}: HyperBall on the compact graph, ${2 ** h.log2m} registers per counter (relative standard deviation ${(100 * h.relativeStandardDeviation).toFixed(1)}%), ${result.iterations} iterations, ${h.plan}; ${time}`);
    return;
  }
  const t = result.traffic!;
  const history = t.history === null ? '' : `, Anderson's history in ${t.history} (${t.historyReason})`;
  print(`${result.method} of ${graph}: ${result.solver.replace(' (compact)', '')} balancing on the compact graph, ${t.threads} thread${t.threads === 1 ? '' : 's'}${history}, ${result.iterations} sweeps, conservation violation ${result.residual.toExponential(2)}${result.converged ? '' : ' (NOT CONVERGED)'}; alpha ${t.alpha}, entropy ${t.entropy.toFixed(4)}; ${time}`);
}

export function runCompactLevels(path: string, options: { json?: boolean; root: string[]; maxLevel?: string; out?: string; save?: boolean }, progress: Progress): void {
  if (options.out !== undefined) throw new OptionError('--out', 'is not available on a compact graph (its pages number in the hundreds of millions): the histogram is printed');
  if (options.save === true) throw new OptionError('--save', 'keeps a run in a store; a compact graph has none');
  const maxLevel = integerOption('--max-level', options.maxLevel, Infinity, 0);
  const result = compactLevelsOf(path, { roots: options.root, maxLevel }, { onProgress: (event) => progress.update(() => event.message) });
  progress.done();
  if (options.json === true) {
    printJson(result);
    return;
  }
  const n = result.reached + result.unreachable;
  print(`roots: ${result.roots.map((r) => safeLabel(r)).join(', ')}`);
  print(`reached ${count(result.reached)} of ${count(n)} pages (${percent(result.reached, n)}); ${count(result.unreachable)} unreachable; load ${seconds(result.timings.load)}, solve ${seconds(result.timings.solve)}`);
  print();
  print(levelsTable(result.histogram, n));
}

export function runCompactScc(path: string, options: { json?: boolean; top?: string; root?: string; save?: boolean }, progress: Progress): void {
  if (options.root !== undefined) throw new OptionError('--root', 'is not available on a compact graph: wga levels --root gives what a page reaches');
  if (options.save === true) throw new OptionError('--save', 'keeps a run in a store; a compact graph has none');
  const result = compactSccOf(path, { top: integerOption('--top', options.top, 10, 0) }, { onProgress: (event) => progress.update(() => event.message) });
  progress.done();
  if (options.json === true) {
    printJson(result);
    return;
  }
  print(
    table([
      ['pages', count(result.nodes)],
      ['components', count(result.count)],
      ['giant SCC', `${count(result.largest)} pages (${percent(result.largest, result.nodes)})`],
      ['largest sizes', result.largestSizes.map(count).join(', ')],
      ['singletons', count(result.sizeDistribution.find(([size]) => size === 1)?.[1] ?? 0)],
      ['time', `load ${seconds(result.timings.load)}, solve ${seconds(result.timings.solve)}, bow-tie ${seconds(result.timings.bowTie)}`],
    ]),
  );
  const bowTie = result.bowTie;
  if (bowTie === null) print('\nno bow-tie: the file has no in-lists (convert the graph again with wga convert)');
  else {
    print('\nbow-tie around the giant SCC');
    print(table(BOW_TIE_PARTS.map((name) => [name, count(bowTie[name]), percent(bowTie[name], result.nodes)]), [1, 2]));
  }
  print('\ncompact structures');
  print(structuresTable(result.memory.structures));
}

export function runCompactTop(path: string, options: { json?: boolean; top?: string; score?: string }): void {
  const method = choiceOption('--score', options.score, COMPACT_RANK_METHODS, 'pagerank');
  const result = compactTop(path, integerOption('--top', options.top, 10, 1), method);
  if (options.json === true) {
    printJson(result);
    return;
  }
  print(`${result.method} of ${count(result.nodes)} pages of ${safeLabel(path)} (the scores wga rank --save kept)`);
  print();
  print(table([['rank', 'score', 'page'], ...result.top.map((t) => [String(t.rank), score(t.score), safeLabel(t.label)])], [0]));
}

export function runCompactPage(path: string, name: string, options: { json?: boolean; limit?: string }): void {
  const limit = integerOption('--limit', options.limit, 20, 0);
  // --json lists --limit links too: a hub of a host graph has millions.
  const result = compactPage(path, name, limit);
  if (options.json === true) {
    printJson(result);
    return;
  }
  print(table([
    ['page', `${safeLabel(result.label)} (id ${result.id})`],
    ['links', `${count(result.inDegree)} in, ${count(result.outDegree)} out`],
    ...result.scores.map((s) => [s.method, score(s.value)]),
  ]));
  for (const [title, list, total] of [
    ['links in (pages linking here)', result.inLinks, result.inDegree],
    ['links out', result.outLinks, result.outDegree],
  ] as const) {
    print(`\n${title}`);
    for (const line of list) print(`  ${safeLabel(line)}`);
    if (total > list.length) print(`  ... ${count(total - list.length)} more`);
  }
}

function printConvert(report: ConvertReport): void {
  print(`${safeLabel(report.output)}: ${count(report.nodes)} pages, ${count(report.links)} links from ${safeLabel(report.input)} (${report.format}, ${report.route}${report.runs > 1 ? `, ${report.runs} sorted runs` : ''}) in ${seconds(report.seconds)}`);
  if (report.selfLoopsDropped + report.duplicatesDropped > 0) print(`dropped ${count(report.selfLoopsDropped)} self-links, merged ${count(report.duplicatesDropped)} duplicates`);
  const per = (bytes: number): string => `${megabytes(bytes)} (${report.links === 0 ? '0' : (bytes / report.links).toFixed(2)} bytes per link)`;
  print(`out-lists ${per(report.bytes.outLists)}, in-lists ${per(report.bytes.inLists)}, names ${megabytes(report.bytes.labels)}; file ${megabytes(report.bytes.file)}`);
}

export function registerCompact(program: Command): void {
  addGraphFileOptions(
    program
      .command('convert')
      .description('write a graph file in the compact form (.wgc): gap-encoded lists both ways and front-coded names, read back in seconds')
      .argument('<input>', 'graph file: edge list, WebGraph BV, .wgadj, Common Crawl files')
      .argument('<output>', 'the compact graph file to write (.wgc)')
      .option('--tmp <dir>', 'directory for the external sort of an edge list (default: the system\'s temporary directory)')
      .option('--run-links <n>', 'links per sorted run of the external sort (memory: 16 bytes each; default: 67108864)')
      .option('--json', 'print one JSON document'),
  ).action(async (input: string, output: string, options: GraphInputOptions & { tmp?: string; runLinks?: string; json?: boolean }) => {
    if (!isCompactPath(output)) throw new OptionError('<output>', `the compact graph file must end in .wgc, got ${JSON.stringify(output)}`);
    if (options.tmp !== undefined && !existsSync(options.tmp)) throw new OptionError('--tmp', `no such directory: ${options.tmp}`);
    const progress = new Progress(options.quiet !== true);
    let report: ConvertReport;
    try {
      report = await convertToCompact(input, output, {
        ...loadOptions(options),
        ...(options.tmp === undefined ? {} : { tmp: options.tmp }),
        ...(options.runLinks === undefined ? {} : { runLinks: integerOption('--run-links', options.runLinks, 1 << 26, 1024) }),
        onProgress: (message) => progress.update(() => message),
      });
    } finally {
      progress.done();
    }
    if (options.json === true) printJson(report);
    else printConvert(report);
  });

  program
    .command('generate')
    .description("write a graph shaped like Common Crawl's host graph (81% dangling, power-law degrees, host names) straight to a compact file")
    .argument('<output>', 'the compact graph file to write (.wgc)')
    .option('--preset <size>', `a published graph's size: ${Object.entries(GENERATE_PRESETS).map(([name, p]) => `${name} (${p.what})`).join('; ')}`)
    .option('--pages <n>', 'hosts (e.g. 335000000 for the size of Common Crawl\'s 2024 host graph)')
    .option('--links <m>', 'links wanted (e.g. 2700000000)')
    .option('--seed <s>', 'random seed (default: 1)')
    .option('--dangling <share>', 'share of hosts without out-links (default: 0.81, or the preset\'s)')
    .option('--local <share>', 'share of links drawn near their target in id order (default: 0.6)')
    .option('-q, --quiet', 'no progress messages on stderr')
    .option('--json', 'print one JSON document')
    .action((output: string, options: { preset?: string; pages?: string; links?: string; seed?: string; dangling?: string; local?: string; quiet?: boolean; json?: boolean }) => {
      if (!isCompactPath(output)) throw new OptionError('<output>', `the compact graph file must end in .wgc, got ${JSON.stringify(output)}`);
      const preset = options.preset === undefined ? null : GENERATE_PRESETS[choiceOption('--preset', options.preset, Object.keys(GENERATE_PRESETS) as Array<keyof typeof GENERATE_PRESETS>, 'commoncrawl')];
      if (preset === null && (options.pages === undefined || options.links === undefined)) throw new OptionError(options.pages === undefined ? '--pages' : '--links', 'is needed (or --preset)');
      const pages = numberOption('--pages', options.pages, preset?.pages ?? 0);
      if (!(Number.isInteger(pages) && pages >= 2 && pages < 2 ** 30)) throw new OptionError('--pages', `must be an integer from 2 to 2^30 - 1, got ${options.pages}`);
      const links = numberOption('--links', options.links, preset?.links ?? 0);
      if (!(Number.isInteger(links) && links >= 0)) throw new OptionError('--links', `must be a non-negative integer, got ${options.links}`);
      const share = (name: string, text: string | undefined, fallback: number): number => {
        const value = numberOption(name, text, fallback);
        if (!(value >= 0 && value < 1)) throw new OptionError(name, `must be a share from 0 to below 1, got ${text}`);
        return value;
      };
      const progress = new Progress(options.quiet !== true);
      let report: HostGraphReport;
      try {
        report = generateHostGraph(output, {
          pages,
          links,
          seed: integerOption('--seed', options.seed, 1, 0),
          danglingShare: share('--dangling', options.dangling, preset?.dangling ?? 0.81),
          localShare: share('--local', options.local, 0.6),
          onProgress: (message) => progress.update(() => message),
        });
      } catch (error) {
        rmSync(output, { force: true });
        throw error;
      } finally {
        progress.done();
      }
      if (options.json === true) printJson(report);
      else {
        const { header } = report;
        print(`${safeLabel(output)}: ${count(header.nodes)} hosts, ${count(header.links)} links in ${seconds(report.seconds.inLists + report.seconds.outLists + report.seconds.labels)}`);
        print(`in-lists ${(report.bytes.inLists / Math.max(1, header.links)).toFixed(2)} bytes per link, out-lists ${(report.bytes.outLists / Math.max(1, header.links)).toFixed(2)}, names ${(report.bytes.labels / header.nodes).toFixed(2)} bytes per host`);
      }
    });
}
