/**
 * TrafficRank speed on LAW's cnr-2000 (issue 5): the solve time of
 * TrafficRank (Tomlin's maximum-entropy traffic, src/analysis/traffic.ts)
 * next to PageRank's, as `wga rank` computes each by default, in the same
 * process and the same run, and how close each fast result ranks the pages
 * to a 1e-12 solution (Kendall's tau-b).
 *
 * One process loads cnr-2000 once (the BV graph), solves the 1e-12
 * reference once (default sweep; its sweeps and time are reported), warms
 * PageRank up once (untimed: JIT and the worker threads it starts), then
 * runs interleaved repetitions, each in an order rotated from the last:
 *   - PageRank as `wga rank` runs it by default: solver auto, damping 0.85,
 *     tolerance 1e-10, 1000 iterations at most, the machine's cores as threads
 *     (the reference of every ratio), and the same on one thread (TrafficRank
 *     runs on one: the comparison per core);
 *   - TrafficRank with each sweep (anderson, gauss-seidel, jacobi) at the
 *     default tolerance 1e-10;
 *   - TrafficRank with the default sweep at looser tolerances (1e-8, 1e-6).
 * Gauss-Seidel and Jacobi take minutes each (about 1,000 and 2,000 sweeps),
 * so by default they run in the first repetition only (--slow-every-time to
 * repeat them). Tables give the median wall time (and the range), the
 * process CPU time, the ratio to PageRank's median, the sweeps, the final
 * conservation violation, and tau-b of TrafficRank and of HOTness (a_j,
 * derived from the same solve) against the reference's. Solves are
 * deterministic: every repetition of a configuration must take the same
 * sweeps (checked), and tau is computed on the first one.
 *
 *   npm run bench:traffic                 (3 repetitions)
 *   npm run bench:traffic -- 5            (5)
 *   node dist/bench/traffic.js 3 --tolerances 1e-9,1e-8,1e-7,1e-6,1e-5 --slow-every-time
 *
 * Options: RUNS (3); --tolerances LIST (the default sweep's looser
 * tolerances: 1e-8,1e-6); --slow-every-time; --no-slow (leave Gauss-Seidel
 * and Jacobi out: a quick look); --out FILE (the markdown
 * report, also printed; bench/.cache/traffic-report.md).
 * Environment: WGA_SHARED (the shared/ folder; ../shared beside the repository).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kendallTau } from '../src/analysis/compare.js';
import { PAGERANK_DEFAULTS, pagerank } from '../src/analysis/pagerank.js';
import { TRAFFIC_DEFAULTS, type TrafficResult, type TrafficSweep, trafficRank } from '../src/analysis/traffic.js';
import { loadGraph } from '../src/formats/load.js';
import type { Graph } from '../src/graph/graph.js';
import { defaultThreads } from '../src/parallel/pool.js';
import { benchArguments } from './arguments.js';
import { median, progress } from './report.js';

const here = fileURLToPath(import.meta.url);
// dist/bench/traffic.js -> the repository two levels up (where package.json is).
const repoRoot = resolve(dirname(here), '../..');
const shared = process.env.WGA_SHARED ?? resolve(repoRoot, '../shared');
const cnr = resolve(shared, 'data/cnr-2000/cnr-2000.graph');
const REFERENCE_TOLERANCE = 1e-12;
/** The issue's target: at most this many times PageRank's time, with tau above TAU_TARGET. */
const RATIO_TARGET = 2.5;
const TAU_TARGET = 0.9999;

interface Options {
  runs: number;
  tolerances: number[];
  slowEveryTime: boolean;
  /** Leave Gauss-Seidel and Jacobi out (a quick look). */
  noSlow: boolean;
  out: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { runs: 3, tolerances: [1e-8, 1e-6], slowEveryTime: false, noSlow: false, out: resolve(repoRoot, 'bench/.cache/traffic-report.md') };
  for (const { arg, value } of benchArguments(argv)) {
    if (arg === '--tolerances') {
      options.tolerances = value().split(',').map(Number);
      if (options.tolerances.some((t) => !(t > 0))) throw new Error('--tolerances: positive numbers, comma-separated');
    } else if (arg === '--slow-every-time') options.slowEveryTime = true;
    else if (arg === '--no-slow') options.noSlow = true;
    else if (arg === '--out') options.out = resolve(value());
    else if (/^\d+$/.test(arg) && Number(arg) >= 1) options.runs = Number(arg);
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

interface Configuration {
  key: string;
  method: 'pagerank' | 'traffic';
  /** PageRank: threads (default: the machine's cores, as `wga rank`). */
  threads?: number;
  sweep?: TrafficSweep;
  tolerance: number;
  /** Run in the first repetition only, unless --slow-every-time. */
  slow: boolean;
}

interface Sample {
  wall: number;
  cpu: number;
  iterations: number;
}

interface Outcome {
  /** PageRank: its solver and equivalent power iterations; TrafficRank: the violation and taus. */
  solver: string;
  equivalentIterations?: number;
  violation?: number;
  converged: boolean;
  tauTraffic?: number;
  tauHotness?: number;
}

/** Wall and CPU seconds (CPU of the whole process: PageRank's worker threads count). */
function timed<T>(work: () => T): { result: T; wall: number; cpu: number } {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = work();
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { result, wall, cpu: (cpu.user + cpu.system) / 1e6 };
}

/** PageRank with `wga rank`'s defaults (src/cli/commands/rank.ts: solver auto, no teleport, the machine's cores). */
function runPageRank(graph: Graph, threads = defaultThreads()) {
  return pagerank(graph, {
    solver: 'auto',
    damping: PAGERANK_DEFAULTS.damping,
    tolerance: PAGERANK_DEFAULTS.tolerance,
    maxIterations: PAGERANK_DEFAULTS.maxIterations,
    threads,
    teleport: null,
  });
}

/** TrafficRank as `wga rank --method traffic` runs it, with this sweep and tolerance. */
function runTraffic(graph: Graph, sweep: TrafficSweep, tolerance: number): TrafficResult {
  return trafficRank(graph, { alpha: TRAFFIC_DEFAULTS.alpha, tolerance, maxSweeps: TRAFFIC_DEFAULTS.maxSweeps, sweep });
}

/** Pages whose value some other page shares exactly (ties make tau-b sensitive to the last digits). */
function tiedPages(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  let tied = 0;
  for (let i = 0; i < sorted.length; i++) {
    if ((i > 0 && sorted[i] === sorted[i - 1]) || (i + 1 < sorted.length && sorted[i] === sorted[i + 1])) tied++;
  }
  return tied;
}

const fixed = (value: number, digits: number): string => value.toFixed(digits);
const exponent = (value: number | undefined): string => (value === undefined ? '—' : value.toExponential(1));

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const command = `node ${relative(process.cwd(), here) || here} ${process.argv.slice(2).join(' ')}`.trim();
  const lines: string[] = [];
  const say = (line = ''): void => {
    lines.push(line);
  };
  say(`\`${command}\``);
  say();
  const loadAtStart = loadavg();
  progress(`reading ${cnr}`);
  const { graph } = await loadGraph(cnr);

  progress(`reference: TrafficRank to ${REFERENCE_TOLERANCE} (${TRAFFIC_DEFAULTS.sweep})`);
  const reference = timed(() => runTraffic(graph, TRAFFIC_DEFAULTS.sweep, REFERENCE_TOLERANCE));
  if (!reference.result.converged) throw new Error(`the reference did not converge: violation ${reference.result.violation}`);
  const referenceTraffic = reference.result.trafficRank;
  const referenceHotness = reference.result.hotness;
  progress(`  ${reference.result.sweeps} sweeps, ${fixed(reference.wall, 2)} s`);
  progress('warming PageRank up (untimed)');
  runPageRank(graph);

  const configurations: Configuration[] = [
    { key: 'pagerank', method: 'pagerank', tolerance: PAGERANK_DEFAULTS.tolerance, slow: false },
    // TrafficRank runs on one thread: PageRank on one thread too, for the comparison per core.
    ...(defaultThreads() > 1 ? [{ key: 'pagerank 1 thread', method: 'pagerank' as const, threads: 1, tolerance: PAGERANK_DEFAULTS.tolerance, slow: false }] : []),
    ...(['anderson', 'gauss-seidel', 'jacobi'] as const).map((sweep) => ({
      key: `traffic ${sweep} ${TRAFFIC_DEFAULTS.tolerance}`,
      method: 'traffic' as const,
      sweep,
      tolerance: TRAFFIC_DEFAULTS.tolerance,
      slow: sweep !== 'anderson',
    })),
    ...options.tolerances.map((tolerance) => ({
      key: `traffic ${TRAFFIC_DEFAULTS.sweep} ${tolerance}`,
      method: 'traffic' as const,
      sweep: TRAFFIC_DEFAULTS.sweep,
      tolerance,
      slow: false,
    })),
  ];
  const samples = new Map<string, Sample[]>(configurations.map((c) => [c.key, []]));
  const outcomes = new Map<string, Outcome>();

  for (let rep = 0; rep < options.runs; rep++) {
    progress(`repetition ${rep + 1} of ${options.runs}`);
    const order = configurations.filter((c) => !c.slow || (!options.noSlow && (rep === 0 || options.slowEveryTime)));
    for (let i = 0; i < order.length; i++) {
      const configuration = order[(i + rep) % order.length]!;
      let sample: Sample;
      if (configuration.method === 'pagerank') {
        const run = timed(() => runPageRank(graph, configuration.threads));
        sample = { wall: run.wall, cpu: run.cpu, iterations: run.result.iterations };
        if (!outcomes.has(configuration.key)) {
          outcomes.set(configuration.key, { solver: run.result.solver, equivalentIterations: run.result.equivalentIterations, converged: run.result.converged });
        }
      } else {
        const run = timed(() => runTraffic(graph, configuration.sweep!, configuration.tolerance));
        sample = { wall: run.wall, cpu: run.cpu, iterations: run.result.sweeps };
        if (!outcomes.has(configuration.key)) {
          outcomes.set(configuration.key, {
            solver: configuration.sweep!,
            violation: run.result.violation,
            converged: run.result.converged,
            tauTraffic: kendallTau(run.result.trafficRank, referenceTraffic),
            tauHotness: kendallTau(run.result.hotness, referenceHotness),
          });
        }
      }
      const previous = samples.get(configuration.key)!;
      if (previous.length > 0 && previous[0]!.iterations !== sample.iterations) {
        throw new Error(`${configuration.key}: ${sample.iterations} iterations, ${previous[0]!.iterations} before; the solvers should be deterministic`);
      }
      previous.push(sample);
      progress(`  ${configuration.key}: ${sample.iterations} iterations, ${fixed(sample.wall, 2)} s (CPU ${fixed(sample.cpu, 2)} s)`);
    }
  }
  const loadAtEnd = loadavg();

  const pagerankSamples = samples.get('pagerank')!;
  const pagerankMedian = median(pagerankSamples.map((s) => s.wall));
  const pagerankOutcome = outcomes.get('pagerank')!;
  say(
    `cnr-2000: ${graph.nodeCount.toLocaleString('en-US')} pages, ${graph.edgeCount.toLocaleString('en-US')} links; ` +
      `medians of ${options.runs} interleaved repetitions in one process (Gauss-Seidel and Jacobi: ` +
      `${options.noSlow ? 'left out' : options.slowEveryTime ? 'every repetition' : 'the first repetition only'})`,
  );
  say(
    `${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB; ` +
      `load average ${loadAtStart.map((x) => x.toFixed(1)).join(' ')} at the start, ${loadAtEnd.map((x) => x.toFixed(1)).join(' ')} at the end ` +
      '(a shared machine: wall times include waiting for a core; CPU is the process\'s own, all threads)',
  );
  say();
  say(
    `Reference: TrafficRank (${TRAFFIC_DEFAULTS.sweep}) to a conservation violation of ${REFERENCE_TOLERANCE}: ${reference.result.sweeps} sweeps, ` +
      `${fixed(reference.wall, 2)} s (CPU ${fixed(reference.cpu, 2)} s), violation ${exponent(reference.result.violation)}. ` +
      `${tiedPages(referenceTraffic).toLocaleString('en-US')} pages share their TrafficRank exactly with another page ` +
      `(${tiedPages(referenceHotness).toLocaleString('en-US')} their HOTness): tau-b counts pairs tied in one ranking and not the other against it.`,
  );
  say();
  say('| method | sweep / solver | tolerance | iterations | wall, median (range) | CPU, median | × PageRank (wall) | × PageRank (CPU) | violation | tau TrafficRank | tau HOTness | within 2.5× and tau > 0.9999 |');
  say('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const pagerankCpu = median(pagerankSamples.map((s) => s.cpu));
  for (const configuration of configurations) {
    const list = samples.get(configuration.key)!;
    if (list.length === 0) continue;
    const walls = list.map((s) => s.wall);
    const wall = median(walls);
    const cpu = median(list.map((s) => s.cpu));
    const outcome = outcomes.get(configuration.key)!;
    const range = list.length > 1 ? ` (${fixed(Math.min(...walls), 2)}–${fixed(Math.max(...walls), 2)})` : ' (1 run)';
    if (configuration.method === 'pagerank') {
      const threads = configuration.threads ?? defaultThreads();
      const label = configuration.threads === undefined ? 'PageRank (`wga rank` default)' : 'PageRank, one thread';
      say(
        `| ${label} | ${outcome.solver}, ${threads} thread${threads === 1 ? '' : 's'} | ${configuration.tolerance} (L1) | ` +
          `${list[0]!.iterations} (${fixed(outcome.equivalentIterations!, 1)} power-iteration equivalents) | ${fixed(wall, 2)} s${range} | ${fixed(cpu, 2)} s | ` +
          `${fixed(wall / pagerankMedian, 2)} | ${fixed(cpu / pagerankCpu, 2)} | — | — | — | |`,
      );
      continue;
    }
    const ratio = wall / pagerankMedian;
    const meets = ratio <= RATIO_TARGET && outcome.tauTraffic! > TAU_TARGET && outcome.tauHotness! > TAU_TARGET;
    say(
      `| TrafficRank | ${configuration.sweep} | ${configuration.tolerance} | ${list[0]!.iterations} | ${fixed(wall, 2)} s${range} | ${fixed(cpu, 2)} s | ` +
        `**${fixed(ratio, 2)}** | ${fixed(cpu / pagerankCpu, 2)} | ${exponent(outcome.violation)}${outcome.converged ? '' : ' (NOT CONVERGED)'} | ` +
        `${fixed(outcome.tauTraffic!, 6)} | ${fixed(outcome.tauHotness!, 6)} | ${meets ? 'yes' : 'no'} |`,
    );
  }
  say();
  say(
    `Per sweep (wall median / sweeps): ${configurations
      .filter((c) => c.method === 'traffic' && samples.get(c.key)!.length > 0)
      .map((c) => {
        const list = samples.get(c.key)!;
        return `${c.sweep} ${c.tolerance}: ${fixed((1000 * median(list.map((s) => s.wall))) / list[0]!.iterations, 1)} ms`;
      })
      .join('; ')}. PageRank: ${fixed((1000 * pagerankMedian) / pagerankOutcome.equivalentIterations!, 1)} ms per power-iteration equivalent.`,
  );
  const oneThread = samples.get('pagerank 1 thread');
  if (oneThread !== undefined && oneThread.length > 0) {
    const single = median(oneThread.map((s) => s.wall));
    say();
    say(
      `TrafficRank runs on one thread; against PageRank on one thread (${fixed(single, 2)} s) the wall-time ratios are: ${configurations
        .filter((c) => c.method === 'traffic' && samples.get(c.key)!.length > 0)
        .map((c) => `${c.sweep} ${c.tolerance}: ${fixed(median(samples.get(c.key)!.map((s) => s.wall)) / single, 2)}`)
        .join('; ')}.`,
    );
  }
  const text = lines.join('\n');
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${text}\n`);
  console.log(text);
  progress(`\n(written to ${options.out})`);
}

await main();
