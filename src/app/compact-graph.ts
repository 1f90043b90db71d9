/**
 * The graph commands on a compact graph file (`.wgc`, src/formats/compact-file.ts): each loads only
 * the lists its analysis needs (PageRank the in-lists, levels and SCCs the out-lists with their
 * offsets), never both at once, and reports the bytes of every structure it held; `top` and `page`
 * read in place (a few reads, nothing loaded).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { compactLevels, compactScc } from '../analysis/compact-search.js';
import { compactBowTie } from '../analysis/bowtie-compact.js';
import type { BowTiePartName } from '../analysis/bowtie.js';
import { componentSizeDistribution } from '../analysis/scc.js';
import { degreeSummaryOf } from '../analysis/degrees.js';
import { compactOutDegrees, compactPageRank } from '../analysis/pagerank-compact.js';
import { COMPACT_SCC_PAGE_BYTES } from '../analysis/pagerank-compact-scc.js';
import { TRAFFIC_DEFAULTS } from '../analysis/traffic.js';
import { type CompactTrafficSweep, type HistoryWidth, compactTrafficBytes, compactTrafficRank } from '../analysis/traffic-compact.js';
import { rankPositions, writeRanksTable } from '../formats/ranks-table.js';
import { IdentityLabels } from '../graph/labels.js';
import { tmpdir, totalmem } from 'node:os';
import { type CompactHyperBallPlan, compactHyperBall, counterWords, hyperBallPageBytes, planCompactHyperBall } from '../analysis/hyperball-compact.js';
import { type DistancesJson, hyperBallDistances } from './distances.js';
import { PAGERANK_DEFAULTS } from '../analysis/pagerank.js';
import { FileNotFoundError, InputFormatError, OptionError } from '../errors.js';
import { CompactFile } from '../formats/compact-file.js';
import { type CompactLists, SAMPLE, compactBytes, transposeDegrees } from '../graph/compact.js';
import { topK } from '../analysis/top.js';
import { releaseWorkers } from '../parallel/pool.js';
import { collectGarbage } from '../util/collect-garbage.js';
import { MONTE_CARLO_DEFAULTS, monteCarloThreads } from '../analysis/montecarlo.js';
import { compactMonteCarloPageRank, monteCarloPageBytes } from '../analysis/montecarlo-compact.js';
import type { Labels } from '../graph/labels.js';
import type { AppContext } from './context.js';
import type { StatsJson } from './stats.js';

/** A structure an analysis held, and its size. */
export interface StructureBytes {
  name: string;
  bytes: number;
  bytesPerPage: number;
  bytesPerLink: number;
}

function structure(name: string, bytes: number, nodes: number, links: number): StructureBytes {
  return { name, bytes, bytesPerPage: nodes === 0 ? 0 : bytes / nodes, bytesPerLink: links === 0 ? 0 : bytes / links };
}

function elapsed(since: number): number {
  return (performance.now() - since) / 1000;
}

/** The name of page `id` (its id when the file has no names). */
function nameOf(labels: Labels | null, id: number): string {
  return labels === null ? String(id) : labels.label(id);
}

/** A page named by its label, or by its id when the file has no names (or the name is an id). */
export function pageId(file: CompactFile, labels: Labels | null, name: string, option: string): number {
  if (labels !== null) {
    const id = labels.id(name);
    if (id !== -1) return id;
  }
  if (/^(0|[1-9][0-9]*)$/.test(name) && Number(name) < file.nodeCount) return Number(name);
  throw new OptionError(option, `no page ${JSON.stringify(name)} in ${file.path}${labels === null ? ` (it has no names: give an id 0..${file.nodeCount - 1})` : ''}`);
}

function withFile<T>(path: string, work: (file: CompactFile) => T): T {
  const file = CompactFile.open(path);
  try {
    return work(file);
  } finally {
    file.close();
  }
}

/** `stats --json` of a compact graph: the plain contract, plus the bytes of each structure held. */
export type CompactStatsJson = Omit<StatsJson, 'format' | 'memory' | 'weighted'> & {
  format: 'compact';
  weighted: false;
  memory: StatsJson['memory'] & { structures: StructureBytes[] };
};

/** `stats` of a compact graph: degrees from the out-lists' headers and a count over them, SCCs by Tarjan over them. */
export function compactStats(path: string, context: AppContext = {}): CompactStatsJson {
  return withFile(path, (file) => {
    const n = file.nodeCount;
    const m = file.linkCount;
    let started = performance.now();
    context.onProgress?.({ phase: 'compact', message: `loading the out-lists of ${n.toLocaleString('en-US')} pages` });
    const out = file.readLists('out', { offsets: true });
    const load = elapsed(started);
    started = performance.now();
    context.onProgress?.({ phase: 'compact', message: 'degrees' });
    const outDegree = new Int32Array(n);
    const summary = degreeSummaryOf(transposeDegrees(out, outDegree), outDegree, m);
    context.onProgress?.({ phase: 'compact', message: 'strongly connected components' });
    const scc = compactScc(out);
    const analysis = elapsed(started);
    const lists = compactBytes(out);
    const structures = [
      structure('out-lists (gap-encoded)', lists - out.samples.byteLength - (out.offsets?.byteLength ?? 0), n, m),
      structure('out-list offsets (sampled + per page)', out.samples.byteLength + (out.offsets?.byteLength ?? 0), n, m),
      structure('degrees (in, out; freed before the SCCs)', 8 * n, n, m),
      structure("Tarjan's index, low link, component", 12 * n, n, m),
    ];
    return {
      file: path,
      format: 'compact',
      nodes: n,
      edges: m,
      selfLoopsDropped: 0,
      duplicatesDropped: 0,
      danglingNodes: summary.danglingNodes,
      scc: { count: scc.count, largest: scc.largest },
      unreferencedNodes: summary.unreferencedNodes,
      isolatedNodes: summary.isolatedNodes,
      meanDegree: summary.meanDegree,
      maxInDegree: summary.maxInDegree,
      maxOutDegree: summary.maxOutDegree,
      weighted: false,
      memory: { graphBytes: lists, bytesPerEdge: m === 0 ? 0 : lists / m, structures },
      timings: { load, analysis },
    };
  });
}

/** The rankings a compact graph gets without its plain form. */
export const COMPACT_RANK_METHODS = ['pagerank', 'traffic', 'hotness', 'harmonic', 'closeness', 'lin', 'montecarlo'] as const;
export type CompactRankMethod = (typeof COMPACT_RANK_METHODS)[number];

export interface CompactRankOptions {
  method?: CompactRankMethod;
  damping?: number;
  tolerance?: number;
  maxIterations?: number;
  threads?: number;
  top?: number;
  /** Keep the scores beside the graph (for `top` and `page`). */
  save?: boolean;
  /** PageRank's solver: power iteration or Gauss-Seidel over components ('auto': see compactAutoSolver). */
  solver?: 'auto' | 'power' | 'gauss-seidel';
  /** TrafficRank's share of traffic on real links. */
  alpha?: number;
  sweep?: CompactTrafficSweep;
  /** Anderson's history: float64, float32, or auto (float64 when the plan fits `memoryBytes`). */
  history?: HistoryWidth | 'auto';
  /** The memory the automatic choices plan with (default: the machine's). */
  memoryBytes?: number;
  /** HyperBall: 2^log2m registers per counter (null: the largest that fits the memory, at most 8). */
  log2m?: number | null;
  /** HyperBall's hash seed. */
  seed?: number;
  /** Where HyperBall's next counters go when only one counter array fits in memory (default: the system's temporary directory). */
  tmp?: string;
  /** Monte Carlo: walks started at every page (default 1). */
  walks?: number;
}

export interface CompactRankJson {
  file: string;
  method: CompactRankMethod;
  solver: string;
  nodes: number;
  edges: number;
  /** PageRank's damping; TrafficRank's alpha. */
  damping: number;
  tolerance: number;
  /** Iterations (PageRank's power iteration), sweeps (its Gauss-Seidel, TrafficRank) or HyperBall's iterations. */
  iterations: number;
  /** Passes over the links in all: the iterations, and Gauss-Seidel's passes that checked the residual. */
  passes: number;
  /** PageRank's L1 residual; TrafficRank's largest conservation violation. */
  residual: number;
  converged: boolean;
  /** The pages with out-links and the links into them, when the dangling pages were lumped (iterated over instead of all). */
  core: { pages: number; links: number } | null;
  /** TrafficRank and HOTness: the flow's figures, Anderson's history width and why, the threads. */
  traffic: { alpha: number; entropy: number; realFlow: number; artificialFlow: number; mu: number; nu: number; history: HistoryWidth | null; historyReason: string | null; threads: number } | null;
  /** HyperBall (harmonic, closeness, lin): registers per counter, each estimate's relative standard deviation, whether the next counters went to disk, and why. */
  hyperball: { log2m: number; relativeStandardDeviation: number; external: boolean; plan: string } | null;
  /** PageRank's Gauss-Seidel over components: how many Tarjan's search found, the largest, its seconds (part of the solve). */
  components?: { count: number; largest: number; seconds: number };
  /** Why `auto` did not take the solver it would have (the memory plan), when it did not. */
  solverReason?: string;
  /** Monte Carlo: the walks (the plain `rank --method montecarlo`'s numbers, bit for bit), or null. */
  montecarlo: { walksPerPage: number; walks: number; totalVisits: number; seed: number; threads: number; largestStandardDeviation: number } | null;
  top: Array<{ rank: number; id: number; label: string; score: number }>;
  compact: { bytes: number; bytesPerLink: number; structures: StructureBytes[] };
  saved: string | null;
  timings: { load: number; solve: number };
}

/** The scores file kept beside a compact graph by `rank --save`. */
export function scoresPath(graphPath: string, method = 'pagerank'): string {
  return `${graphPath}.${method}`;
}

const SCORES_MAGIC = 'WGASCR1\n';
const SCORES_HEADER = 1 << 16;
/** How many of the best pages a scores file lists in its header. */
const SCORES_TOP = 1000;

function writeScores(path: string, header: object, scores: Float64Array): void {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  if (12 + json.length > SCORES_HEADER) throw new RangeError('scores header too long');
  const partial = `${path}.partial`;
  let fd: number;
  try {
    fd = openSync(partial, 'w');
  } catch (error) {
    throw new FileNotFoundError(path, `cannot write the scores: ${(error as Error).message}`);
  }
  try {
    const head = Buffer.alloc(12);
    head.write(SCORES_MAGIC, 0, 'latin1');
    head.writeUInt32LE(json.length, 8);
    writeSync(fd, head, 0, 12, 0);
    writeSync(fd, json, 0, json.length, 12);
    const bytes = new Uint8Array(scores.buffer, scores.byteOffset, scores.byteLength);
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, Math.min(1 << 30, bytes.length - done), SCORES_HEADER + done);
  } finally {
    closeSync(fd);
  }
  // Complete or absent: a crash while writing leaves the old scores.
  renameSync(partial, path);
}

interface ScoresHeader {
  method: string;
  nodes: number;
  iterations: number;
  residual: number;
  damping: number;
  top: Array<[number, number]>;
}

/** Reads a scores file's header (and one page's score when asked), in place. */
function readScores(path: string, page?: number, method = 'pagerank'): { header: ScoresHeader; score: number | null } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw new FileNotFoundError(path, `no scores: run \`wga rank GRAPH.wgc${method === 'pagerank' ? '' : ` --method ${method}`} --save\` first`);
  }
  try {
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 8) !== SCORES_MAGIC) throw new InputFormatError(path, undefined, 'not a wga scores file');
    const json = Buffer.alloc(head.readUInt32LE(8));
    readSync(fd, json, 0, json.length, 12);
    const header = JSON.parse(json.toString('utf8')) as ScoresHeader;
    let score: number | null = null;
    if (page !== undefined) {
      const value = Buffer.alloc(8);
      if (readSync(fd, value, 0, 8, SCORES_HEADER + 8 * page) === 8) score = value.readDoubleLE(0);
    }
    return { header, score };
  } finally {
    closeSync(fd);
  }
}

/**
 * The solver `rank G.wgc` uses for PageRank unless told (measured in BENCHMARKS.md): power iteration
 * with the dangling pages lumped when at least half the pages are dangling (Common Crawl's host
 * graph: 81%; Tarjan's search there takes longer than the whole lumped solve), else Gauss-Seidel
 * over the strongly connected components (the generated 10^8-link graph: 24 passes' work against
 * power iteration's 72, half its time).
 */
export function compactAutoSolver(outDegree: Int32Array): 'power' | 'gauss-seidel' {
  let dangling = 0;
  for (let v = 0; v < outDegree.length; v++) if (outDegree[v] === 0) dangling++;
  return 2 * dangling >= outDegree.length ? 'power' : 'gauss-seidel';
}

/** A ranking of a compact graph: its report (without top and saved) and every page's score. */
interface CompactRanking {
  json: Omit<CompactRankJson, 'top' | 'saved'>;
  scores: Float64Array;
  header: Omit<ScoresHeader, 'top'>;
}

/** PageRank of a compact graph: the in-lists only (no offsets), out-degrees counted from them. */
function pageRankOf(file: CompactFile, options: CompactRankOptions, context: AppContext, held: ListsHeld = { in: null }): CompactRanking {
  const n = file.nodeCount;
  const m = file.linkCount;
  let started = performance.now();
  if (held.in === null) context.onProgress?.({ phase: 'compact', message: `loading the in-lists of ${n.toLocaleString('en-US')} pages` });
  const lists = (held.in ??= file.readLists('in'));
  const outDegree = compactOutDegrees(lists);
  const automatic = options.solver === undefined || options.solver === 'auto';
  let solver: 'power' | 'gauss-seidel' = automatic ? compactAutoSolver(outDegree) : (options.solver as 'power' | 'gauss-seidel');
  // Gauss-Seidel over components holds the most: planned against three quarters of the memory.
  const memory = options.memoryBytes ?? totalmem();
  const needed = compactBytes(lists) + COMPACT_SCC_PAGE_BYTES * n;
  let solverReason: string | undefined;
  if (solver === 'gauss-seidel' && needed > 0.75 * memory) {
    const why = `Gauss-Seidel over components on ${n.toLocaleString('en-US')} pages needs ${gigabytes(needed)} (the in-lists, ${COMPACT_SCC_PAGE_BYTES} bytes per page), more than three quarters of ${gigabytes(memory)}`;
    if (!automatic) throw new OptionError('--solver', `${why}: use --solver power`);
    solver = 'power';
    solverReason = `${why}: power iteration instead`;
    context.onProgress?.({ phase: 'compact', message: solverReason });
  }
  // Gauss-Seidel goes over the components, which Tarjan's search finds by jumping from list to list: the per-page offsets.
  if (solver === 'gauss-seidel') lists.offsets = file.readOffsets('in');
  const load = elapsed(started);
  started = performance.now();
  const rank = compactPageRank(lists, outDegree, {
    solver,
    damping: options.damping ?? PAGERANK_DEFAULTS.damping,
    tolerance: options.tolerance ?? PAGERANK_DEFAULTS.tolerance,
    maxIterations: options.maxIterations ?? PAGERANK_DEFAULTS.maxIterations,
    threads: options.threads ?? 1,
    onIteration: (iteration, residual) => context.onProgress?.({ phase: 'compact', message: `PageRank: iteration ${iteration}, residual ${residual.toExponential(2)}` }),
  });
  const solve = elapsed(started);
  const lumped = rank.core.pages < n;
  const listBytes = compactBytes(lists);
  return {
    scores: rank.scores,
    header: { method: 'pagerank', nodes: n, iterations: rank.iterations, residual: rank.residual, damping: rank.damping },
    json: {
      file: file.path,
      method: 'pagerank',
      solver: `${rank.solver} (compact)`,
      nodes: n,
      edges: m,
      damping: rank.damping,
      tolerance: rank.tolerance,
      iterations: rank.iterations,
      passes: rank.passes,
      residual: rank.residual,
      converged: rank.converged,
      core: lumped ? { pages: rank.core.pages, links: rank.core.links } : null,
      traffic: null,
      hyperball: null,
      montecarlo: null,
      compact: {
        bytes: listBytes,
        bytesPerLink: m === 0 ? 0 : listBytes / m,
        structures: rank.components !== null
          ? [
              structure('in-lists (gap-encoded)', listBytes - lists.samples.byteLength - 4 * n, n, m),
              structure('in-list samples and per-page offsets', lists.samples.byteLength + 4 * n, n, m),
              structure('out-degrees', 4 * n, n, m),
              structure("Tarjan's index and low link (during the search)", 8 * n, n, m),
              structure('component and order of every page', 8 * n, n, m),
              structure('vectors (y, y / out-degree)', 16 * n, n, m),
            ]
          : [
          structure('in-lists (gap-encoded)', listBytes - lists.samples.byteLength, n, m),
          structure('in-list samples', lists.samples.byteLength, n, m),
          structure('out-degrees', 4 * n, n, m),
          ...(lumped
            ? [
                structure('core in-lists (pages with out-links)', rank.core.bytes, n, m),
                structure('core numbering', 4 * n, n, m),
                structure('core degrees and links to dangling pages', 8 * rank.core.pages, n, m),
              ]
            : []),
          structure(`vectors (x, y, two contribution buffers${lumped ? ', over the core' : ''})`, 32 * rank.core.pages, n, m),
          ...(lumped ? [structure('scores', 8 * n, n, m)] : []),
        ],
      },
      ...(rank.components === null ? {} : { components: rank.components }),
      ...(solverReason === undefined ? {} : { solverReason }),
      timings: { load, solve },
    },
  };
}

/**
 * Monte Carlo PageRank of a compact graph: the out-lists with their offsets (each step draws a
 * neighbour of the page it is at) and each thread's sums over walks, planned within three quarters
 * of the memory (one thread when two would not fit).
 */
function monteCarloOf(file: CompactFile, options: CompactRankOptions, context: AppContext): CompactRanking {
  const n = file.nodeCount;
  const m = file.linkCount;
  if (!file.has('out')) throw new InputFormatError(file.path, undefined, 'Monte Carlo needs the out-lists: convert the graph again with wga convert');
  const walksPerPage = options.walks ?? MONTE_CARLO_DEFAULTS.walksPerPage;
  const listPlan = (file.header.sections['out.bytes']?.[1] ?? 0) + 8 * (Math.ceil(n / SAMPLE) + 1) + 4 * n;
  const perThread = monteCarloPageBytes(walksPerPage) * n;
  // The scores and their standard deviations (16 bytes per page) come on top at the end.
  const budget = 0.75 * (options.memoryBytes ?? totalmem());
  let threads = monteCarloThreads(n, walksPerPage, Math.max(1, options.threads ?? 1));
  while (threads > 1 && listPlan + threads * perThread + 16 * n > budget) threads--;
  if (listPlan + threads * perThread + 16 * n > budget) {
    throw new OptionError('--method', `montecarlo on ${n.toLocaleString('en-US')} pages needs ${gigabytes(listPlan + perThread + 16 * n)} (the out-lists with offsets, the sums over walks), more than three quarters of ${gigabytes(options.memoryBytes ?? totalmem())}`);
  }
  let started = performance.now();
  context.onProgress?.({ phase: 'compact', message: `loading the out-lists of ${n.toLocaleString('en-US')} pages` });
  const lists = file.readLists('out', { offsets: true });
  const load = elapsed(started);
  started = performance.now();
  context.onProgress?.({ phase: 'compact', message: `Monte Carlo: ${walksPerPage} walk${walksPerPage === 1 ? '' : 's'} from each of ${n.toLocaleString('en-US')} pages` });
  const result = compactMonteCarloPageRank(lists, { walksPerPage, damping: options.damping ?? MONTE_CARLO_DEFAULTS.damping, seed: options.seed ?? MONTE_CARLO_DEFAULTS.seed, threads });
  const solve = elapsed(started);
  let largestStandardDeviation = 0;
  for (let v = 0; v < n; v++) if (result.standardDeviations[v]! > largestStandardDeviation) largestStandardDeviation = result.standardDeviations[v]!;
  const listBytes = compactBytes(lists);
  return {
    scores: result.scores,
    // A scores file's `iterations` are the walks per page; its residual the largest standard deviation.
    header: { method: 'montecarlo', nodes: n, iterations: walksPerPage, residual: largestStandardDeviation, damping: result.damping },
    json: {
      file: file.path,
      method: 'montecarlo',
      solver: 'montecarlo (compact)',
      nodes: n,
      edges: m,
      damping: result.damping,
      tolerance: 0,
      iterations: walksPerPage,
      passes: walksPerPage,
      residual: largestStandardDeviation,
      converged: true,
      core: null,
      traffic: null,
      hyperball: null,
      montecarlo: { walksPerPage, walks: result.walks, totalVisits: result.totalVisits, seed: result.seed, threads, largestStandardDeviation },
      compact: {
        bytes: listBytes,
        bytesPerLink: m === 0 ? 0 : listBytes / m,
        structures: [
          structure('out-lists with offsets', listBytes, n, m),
          structure(`sums over walks (${threads} thread${threads === 1 ? '' : 's'})`, threads * perThread, n, m),
          structure('scores and standard deviations', 16 * n, n, m),
        ],
      },
      timings: { load, solve },
    },
  };
}

/**
 * Anderson's history width: float64 unless the solve's plan (both lists, the scales, the result,
 * the history) would pass three quarters of the memory, then float32 (half the history's bytes; the
 * answer's accuracy is the tolerance's either way, traffic-compact.ts).
 */
function chooseHistory(file: CompactFile, options: CompactRankOptions): { history: HistoryWidth; reason: string } {
  const asked = options.history ?? 'auto';
  if (asked !== 'auto') return { history: asked, reason: 'asked (--history)' };
  const n = file.nodeCount;
  const lists = (file.header.sections['in.bytes']?.[1] ?? 0) + (file.header.sections['out.bytes']?.[1] ?? 0) + 2 * 8 * (Math.ceil(n / SAMPLE) + 1);
  const wide = compactTrafficBytes(n, options.sweep ?? 'anderson', 'float64');
  const planned = lists + wide.scales + wide.history + wide.result;
  const memory = options.memoryBytes ?? totalmem();
  if (planned <= 0.75 * memory) return { history: 'float64', reason: `the solve's ${gigabytes(planned)} fit in three quarters of ${gigabytes(memory)}` };
  return { history: 'float32', reason: `float64 would take ${gigabytes(planned)}, more than three quarters of ${gigabytes(memory)}` };
}

function gigabytes(bytes: number): string {
  return bytes < 1024 ** 3 / 10 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** TrafficRank and HOTness of a compact graph (one solve gives both): the in-lists and the out-lists. */
function trafficOf(file: CompactFile, options: CompactRankOptions, context: AppContext): { traffic: CompactRanking; hotness: CompactRanking } {
  const n = file.nodeCount;
  const m = file.linkCount;
  if (!file.has('in') || !file.has('out')) throw new InputFormatError(file.path, undefined, 'TrafficRank needs both the in-lists and the out-lists: convert the graph again with wga convert');
  const { history, reason } = chooseHistory(file, options);
  let started = performance.now();
  context.onProgress?.({ phase: 'compact', message: `loading the in-lists and out-lists of ${n.toLocaleString('en-US')} pages` });
  const inLists = file.readLists('in');
  const outLists = file.readLists('out');
  const load = elapsed(started);
  started = performance.now();
  const alpha = options.alpha ?? TRAFFIC_DEFAULTS.alpha;
  const tolerance = options.tolerance ?? TRAFFIC_DEFAULTS.tolerance;
  const result = compactTrafficRank(inLists, outLists, {
    alpha,
    tolerance,
    maxSweeps: options.maxIterations ?? TRAFFIC_DEFAULTS.maxSweeps,
    sweep: options.sweep ?? 'anderson',
    history,
    threads: options.threads ?? 1,
    onSweep: (sweep, violation) => context.onProgress?.({ phase: 'compact', message: `TrafficRank: sweep ${sweep}, violation ${violation.toExponential(2)}` }),
  });
  const solve = elapsed(started);
  const inBytes = compactBytes(inLists);
  const outBytes = compactBytes(outLists);
  const json = (method: 'traffic' | 'hotness'): Omit<CompactRankJson, 'top' | 'saved'> => ({
    file: file.path,
    method,
    solver: result.history === null ? 'gauss-seidel (compact)' : 'anderson (compact)',
    nodes: n,
    edges: m,
    damping: alpha,
    tolerance,
    iterations: result.sweeps,
    passes: result.sweeps + 2,
    residual: result.violation,
    converged: result.converged,
    core: null,
    traffic: {
      alpha,
      entropy: result.entropy,
      realFlow: result.realFlow,
      artificialFlow: result.artificialFlow,
      mu: result.mu,
      nu: result.nu,
      history: result.history,
      historyReason: result.history === null ? null : reason,
      threads: result.threads,
    },
    hyperball: null,
    montecarlo: null,
    compact: {
      bytes: inBytes + outBytes,
      bytesPerLink: m === 0 ? 0 : (inBytes + outBytes) / m,
      structures: [
        structure('in-lists (gap-encoded, with samples)', inBytes, n, m),
        structure('out-lists (gap-encoded, with samples)', outBytes, n, m),
        structure('scales (HOTness)', result.bytes.scales, n, m),
        ...(result.history === null ? [] : [structure(`Anderson's history (13 vectors, ${result.history}; the traffic written over it at the end)`, result.bytes.history, n, m)]),
        ...(result.bytes.result === 0 ? [] : [structure('traffic (TrafficRank)', result.bytes.result, n, m)]),
      ],
    },
    timings: { load, solve },
  });
  const header = (method: string) => ({ method, nodes: n, iterations: result.sweeps, residual: result.violation, damping: alpha });
  return {
    traffic: { json: json('traffic'), scores: result.trafficRank, header: header('traffic') },
    hotness: { json: json('hotness'), scores: result.hotness, header: header('hotness') },
  };
}

type GeometricMethod = 'harmonic' | 'closeness' | 'lin';

/**
 * HyperBall over the compact in-lists (harmonic centrality, closeness and Lin's index from one
 * run), registers packed; log2m and whether the next counters go to disk planned for three
 * quarters of the memory (planCompactHyperBall).
 */
function hyperBallOf(file: CompactFile, options: CompactRankOptions, context: AppContext, distanceSums: boolean, held: ListsHeld = { in: null }): Record<GeometricMethod, CompactRanking | null> {
  const n = file.nodeCount;
  const m = file.linkCount;
  const { plan, text: planText } = planHyperBallFor(file, options.log2m ?? null, options.memoryBytes ?? totalmem(), distanceSums);
  let started = performance.now();
  if (held.in === null) context.onProgress?.({ phase: 'compact', message: `loading the in-lists of ${n.toLocaleString('en-US')} pages` });
  const lists = (held.in ??= file.readLists('in'));
  const load = elapsed(started);
  started = performance.now();
  const result = compactHyperBall(lists, {
    log2m: plan.log2m,
    seed: options.seed ?? 1,
    threads: options.threads ?? 1,
    spillDirectory: plan.external ? options.tmp ?? tmpdir() : null,
    distanceSums,
    onIteration: (iteration, changed) => context.onProgress?.({ phase: 'compact', message: `HyperBall: iteration ${iteration}, ${changed.toLocaleString('en-US')} counters changed` }),
  });
  const solve = elapsed(started);
  const listBytes = compactBytes(lists);
  const ranking = (method: GeometricMethod): CompactRanking => {
    const raw = method === 'harmonic' ? result.harmonic : method === 'closeness' ? result.closeness : result.lin;
    // As the plain `rank`: a page no page reaches scores 0 (in place: no vector more at the peak).
    const scores = raw;
    if (method !== 'harmonic') for (let v = 0; v < n; v++) if (Number.isNaN(scores[v]!)) scores[v] = 0;
    return {
      scores,
      header: { method, nodes: n, iterations: result.iterations, residual: result.relativeStandardDeviation, damping: 0 },
      json: {
        file: file.path,
        method,
        solver: `hyperball log2m=${result.log2m} (compact)`,
        nodes: n,
        edges: m,
        damping: 0,
        tolerance: 0,
        iterations: result.iterations,
        passes: result.iterations,
        // The relative standard deviation of each counter: the precision of every estimate (as the plain `rank`).
        residual: result.relativeStandardDeviation,
        converged: true,
        core: null,
        traffic: null,
        hyperball: { log2m: result.log2m, relativeStandardDeviation: result.relativeStandardDeviation, external: result.external, plan: planText },
        montecarlo: null,
        compact: {
          bytes: listBytes,
          bytesPerLink: m === 0 ? 0 : listBytes / m,
          structures: [
            structure('in-lists (gap-encoded, with samples)', listBytes, n, m),
            structure(`counters (${2 ** result.log2m} registers of 5 bits, ${counterWords(result.log2m) * 4} bytes; ${result.external ? 'one array, the next on disk' : 'two arrays'})`, result.counterBytes, n, m),
            structure(`ball size, harmonic ${distanceSums ? 'and distance sums' : 'sum'}, changed bits`, hyperBallPageBytes(distanceSums) * n, n, m),
            ...(result.memoryBytes > result.counterBytes + hyperBallPageBytes(distanceSums) * n ? [structure('closeness and Lin\'s index (after the counters)', 16 * n, n, m)] : []),
          ],
        },
        timings: { load, solve },
      },
    };
  };
  return { harmonic: ranking('harmonic'), closeness: distanceSums ? ranking('closeness') : null, lin: distanceSums ? ranking('lin') : null };
}

/** HyperBall's plan for a compact file: log2m and the mode for three quarters of the memory, or a one-line error. */
function planHyperBallFor(file: CompactFile, log2m: number | null, memoryBytes: number, distanceSums: boolean): { plan: CompactHyperBallPlan; text: string } {
  const n = file.nodeCount;
  if (!file.has('in')) throw new InputFormatError(file.path, undefined, 'HyperBall needs the in-lists: convert the graph again with wga convert');
  const inBytes = (file.header.sections['in.bytes']?.[1] ?? 0) + 8 * (Math.ceil(n / SAMPLE) + 1);
  const plan = planCompactHyperBall(n, inBytes, 0.75 * memoryBytes, log2m, distanceSums);
  if (plan === null) {
    const least = planCompactHyperBall(n, inBytes, Infinity, log2m ?? 4, distanceSums)!;
    const needed = gigabytes(least.totalBytes - (least.external ? 0 : least.counterBytes / 2));
    throw new OptionError(log2m === null ? 'memory' : '--log2m', `HyperBall on ${n.toLocaleString('en-US')} pages needs at least ${needed} at log2m ${least.log2m} with one counter array in memory, more than three quarters of ${gigabytes(memoryBytes)}`);
  }
  return { plan, text: `${plan.external ? 'one counter array in memory, the next on disk' : 'both counter arrays in memory'}: ${gigabytes(plan.totalBytes)} planned within three quarters of ${gigabytes(memoryBytes)}` };
}

/** The distance distribution `distances G.wgc --save` keeps beside a compact graph. */
export function distancesPath(graphPath: string): string {
  return `${graphPath}.distances.json`;
}

export type CompactDistancesJson = DistancesJson & { memory: { plan: string; structures: StructureBytes[] }; timings: { load: number }; saved: string | null };

/** `distances` of a compact graph: HyperBall over the in-lists (the plain command's statistics). */
export function compactDistances(
  path: string,
  options: { log2m?: number | null; seed?: number; runs?: number; threads?: number; memoryBytes?: number; tmp?: string; save?: boolean },
  context: AppContext = {},
): CompactDistancesJson {
  return withFile(path, (file) => {
    const started = performance.now();
    const n = file.nodeCount;
    const m = file.linkCount;
    const { plan, text } = planHyperBallFor(file, options.log2m ?? null, options.memoryBytes ?? totalmem(), false);
    context.onProgress?.({ phase: 'compact', message: `loading the in-lists of ${n.toLocaleString('en-US')} pages` });
    const lists = file.readLists('in');
    const load = elapsed(started);
    const seed = options.seed ?? 1;
    const report = hyperBallDistances(n, m, options.runs ?? 1, started, context, (run, onIteration) =>
      compactHyperBall(lists, { log2m: plan.log2m, seed: seed + run, threads: options.threads ?? 1, spillDirectory: plan.external ? options.tmp ?? tmpdir() : null, distanceSums: false, onIteration }),
    );
    const result: CompactDistancesJson = {
      ...report,
      saved: null,
      memory: {
        plan: text,
        structures: [
          structure('in-lists (gap-encoded, with samples)', compactBytes(lists), n, m),
          structure(`counters (${2 ** plan.log2m} registers of 5 bits; ${plan.external ? 'one array, the next on disk' : 'two arrays'})`, plan.counterBytes, n, m),
          structure('ball size, harmonic sum, changed bits', hyperBallPageBytes(false) * n, n, m),
        ],
      },
      timings: { load },
    };
    if (options.save === true) {
      result.saved = distancesPath(path);
      writeFileAtomically(result.saved, `${JSON.stringify(result)}\n`);
    }
    return result;
  });
}

/** Complete or absent: a crash while writing leaves the old file. */
function writeFileAtomically(path: string, text: string): void {
  const partial = `${path}.partial`;
  try {
    writeFileSync(partial, text);
  } catch (error) {
    throw new FileNotFoundError(path, `cannot write: ${(error as Error).message}`);
  }
  renameSync(partial, path);
}

/** The distance distribution `distances G.wgc --save` kept, or null when there is none. */
export function compactSavedDistances(path: string): CompactDistancesJson | null {
  let text: string;
  try {
    text = readFileSync(distancesPath(path), 'utf8');
  } catch {
    return null;
  }
  let saved: CompactDistancesJson;
  try {
    saved = JSON.parse(text) as CompactDistancesJson;
  } catch {
    throw new InputFormatError(distancesPath(path), undefined, 'not a saved distance distribution (JSON): run `wga distances GRAPH.wgc --save` again');
  }
  const nodes = withFile(path, (file) => file.nodeCount);
  if (saved.nodes !== nodes || !Array.isArray(saved.distribution)) throw new InputFormatError(distancesPath(path), undefined, `a distance distribution of ${saved.nodes} pages for a graph of ${nodes}: run \`wga distances GRAPH.wgc --save\` again`);
  return saved;
}

export interface CompactInfoJson {
  file: string;
  nodes: number;
  links: number;
  /** The file names its pages (else they go by id). */
  names: boolean;
  lists: { in: boolean; out: boolean };
  /** The rankings `rank --save` kept beside the graph, and how many of the best pages each lists. */
  rankings: Array<{ method: string; iterations: number; residual: number; listed: number }>;
  /** `distances --save` kept a distance distribution beside the graph. */
  distances: boolean;
}

/** What a compact graph file holds and what was kept beside it, read in place (nothing loaded). */
export function compactInfo(path: string): CompactInfoJson {
  return withFile(path, (file) => {
    const rankings: CompactInfoJson['rankings'] = [];
    for (const method of COMPACT_RANK_METHODS) {
      try {
        const { header } = readScores(scoresPath(path, method), undefined, method);
        // Scores of another graph (ranked before the file was converted again) are not offered.
        if (header.nodes === file.nodeCount) rankings.push({ method: header.method, iterations: header.iterations, residual: header.residual, listed: header.top.length });
      } catch (error) {
        if (!(error instanceof FileNotFoundError || error instanceof InputFormatError)) throw error;
      }
    }
    return {
      file: path,
      nodes: file.nodeCount,
      links: file.linkCount,
      names: file.labelsInPlace() !== null,
      lists: { in: file.has('in'), out: file.has('out') },
      rankings,
      distances: existsSync(distancesPath(path)),
    };
  });
}

/** The in-lists loaded for one method, kept for the next that reads them (a ranks table's methods load them once). */
interface ListsHeld {
  in: CompactLists | null;
}

/** Methods that read the in-lists alone (TrafficRank reads both directions, Monte Carlo the out-lists). */
const READS_IN_LISTS: ReadonlySet<CompactRankMethod> = new Set(['pagerank', 'harmonic', 'closeness', 'lin']);

/**
 * The rankings of `methods`, each run once (TrafficRank and HOTness share one solve, harmonic,
 * closeness and Lin's index one HyperBall), one after another. Between two of them what the one
 * before held is released before the next allocates (`between`: the pooled threads ended, a full
 * collection), and the in-lists stay loaded while a later method reads them: at Common Crawl's
 * size HyperBall's 15 GB and a second copy of the 5.9 GB in-lists beside PageRank's arrays were
 * what killed the ranks table (BENCHMARKS.md).
 */
async function rankingsOf(file: CompactFile, methods: readonly CompactRankMethod[], options: CompactRankOptions, context: AppContext): Promise<CompactRanking[]> {
  let traffic: ReturnType<typeof trafficOf> | null = null;
  let geometric: ReturnType<typeof hyperBallOf> | null = null;
  const held: ListsHeld = { in: null };
  const rankings: CompactRanking[] = [];
  for (const [i, method] of methods.entries()) {
    if (method === 'pagerank') rankings.push(pageRankOf(file, options, context, held));
    else if (method === 'montecarlo') rankings.push(monteCarloOf(file, options, context));
    else if (method === 'traffic' || method === 'hotness') {
      traffic ??= trafficOf(file, options, context);
      rankings.push(method === 'traffic' ? traffic.traffic : traffic.hotness);
    } else {
      // The distance sums (8 bytes per page) only when closeness or Lin's index is asked.
      geometric ??= hyperBallOf(file, options, context, methods.includes('closeness') || methods.includes('lin'), held);
      rankings.push(geometric[method]!);
    }
    if (i === methods.length - 1) break;
    const later = methods.slice(i + 1);
    if (!later.some((m) => READS_IN_LISTS.has(m))) held.in = null;
    if (!later.includes('traffic') && !later.includes('hotness')) traffic = null;
    await releaseWorkers();
    collectGarbage();
  }
  return rankings;
}

/** Names the best pages, and keeps the scores beside the graph when asked. */
function finishRanking(file: CompactFile, ranking: CompactRanking, options: CompactRankOptions): CompactRankJson {
  const labels = file.labelsInPlace();
  const k = options.top ?? 10;
  const best = topK(ranking.scores, Math.max(k, options.save === true ? SCORES_TOP : 0));
  const top = Array.from(best.subarray(0, k), (id, i) => ({ rank: i + 1, id, label: nameOf(labels, id), score: ranking.scores[id]! }));
  let saved: string | null = null;
  if (options.save === true) {
    saved = scoresPath(file.path, ranking.json.method);
    writeScores(saved, { ...ranking.header, top: Array.from(best, (id) => [id, ranking.scores[id]!]) }, ranking.scores);
  }
  return { ...ranking.json, top, saved };
}

/** A ranking of a compact graph (PageRank by default), without its plain form. */
export function compactRank(path: string, options: CompactRankOptions = {}, context: AppContext = {}): CompactRankJson {
  return withFile(path, (file) => finishRanking(file, rankingOf(file, options.method ?? 'pagerank', options, context), options));
}

/** One ranking of a compact graph. */
function rankingOf(file: CompactFile, method: CompactRankMethod, options: CompactRankOptions, context: AppContext): CompactRanking {
  if (method === 'pagerank') return pageRankOf(file, options, context);
  if (method === 'montecarlo') return monteCarloOf(file, options, context);
  if (method === 'traffic' || method === 'hotness') {
    const both = trafficOf(file, options, context);
    return method === 'traffic' ? both.traffic : both.hotness;
  }
  return hyperBallOf(file, options, context, method !== 'harmonic')[method]!;
}

/** `rank G.wgc --method A,B --out FILE`: each method's report, and Common Crawl's ranks table of them all. */
export interface CompactRankTableJson {
  file: string;
  nodes: number;
  edges: number;
  methods: CompactRankJson[];
  /** The first method's best pages with their position and value by every method (1 = best). */
  top: Array<{ label: string; positions: number[]; values: number[] }>;
  out: string | null;
  timings: { table: number };
}

/**
 * Several rankings of a compact graph and their ranks table (src/formats/ranks-table.ts: position
 * and value per method, then the name, in the first method's order), as Common Crawl publishes
 * for its host and domain graphs.
 */
export async function compactRankTable(path: string, methods: readonly CompactRankMethod[], out: string | null, options: CompactRankOptions = {}, context: AppContext = {}): Promise<CompactRankTableJson> {
  const file = CompactFile.open(path);
  try {
    const rankings = await rankingsOf(file, methods, options, context);
    const reports = rankings.map((ranking) => finishRanking(file, ranking, options));
    // What the last method held (its lists, its vectors) goes before the sort's 8 bytes a page.
    await releaseWorkers();
    collectGarbage();
    const started = performance.now();
    context.onProgress?.({ phase: 'compact', message: `ranks table: sorting ${file.nodeCount.toLocaleString('en-US')} pages by ${methods.join(', ')}` });
    // The order of the first method only (the table's lines); the others' positions.
    const positions = rankings.map((ranking, i) => rankPositions(ranking.scores, { keepOrder: i === 0 }));
    // Every page is named, in rank order: the names in memory (a read of the file per name costs ~10 us, 1 us so).
    const labels: Labels = (out === null ? file.labelsInPlace() : file.labelsInMemory()) ?? new IdentityLabels(file.nodeCount);
    const k = Math.min(options.top ?? 10, file.nodeCount);
    const top = Array.from(positions[0]!.order.subarray(0, k), (v) => ({
      label: labels.label(v),
      positions: positions.map((p) => p.position[v]!),
      values: rankings.map((ranking) => ranking.scores[v]!),
    }));
    if (out !== null) {
      context.onProgress?.({ phase: 'compact', message: `ranks table: writing ${out}` });
      const level = file.header.level === 'host' || file.header.level === 'domain' ? file.header.level : 'page';
      await writeRanksTable(out, labels, rankings.map((ranking, i) => ({ method: methods[i]!, values: ranking.scores })), { nameColumn: file.header.reversed ? `${level}_rev` : level, positions });
    }
    return { file: path, nodes: file.nodeCount, edges: file.linkCount, methods: reports, top, out, timings: { table: elapsed(started) } };
  } finally {
    file.close();
  }
}

export interface CompactLevelsJson {
  file: string;
  roots: string[];
  reached: number;
  unreachable: number;
  maxLevel: number;
  histogram: number[];
  memory: { structures: StructureBytes[] };
  timings: { load: number; solve: number };
}

export function compactLevelsOf(path: string, options: { roots: string[]; maxLevel?: number }, context: AppContext = {}): CompactLevelsJson {
  return withFile(path, (file) => {
    const n = file.nodeCount;
    const m = file.linkCount;
    const labels = file.labelsInPlace();
    const roots = options.roots.map((name) => pageId(file, labels, name, '--root'));
    let started = performance.now();
    context.onProgress?.({ phase: 'compact', message: `loading the out-lists of ${n.toLocaleString('en-US')} pages` });
    const out = file.readLists('out', { offsets: true });
    const load = elapsed(started);
    started = performance.now();
    const result = compactLevels(out, roots, options.maxLevel === undefined || options.maxLevel === Infinity ? {} : { maxLevel: options.maxLevel });
    return {
      file: path,
      roots: roots.map((id) => nameOf(labels, id)),
      reached: result.reached,
      unreachable: result.unreachable,
      maxLevel: result.maxLevel,
      histogram: result.histogram,
      memory: { structures: [structure('out-lists with offsets', compactBytes(out), n, m), structure('levels and queue', 8 * n, n, m)] },
      timings: { load, solve: elapsed(started) },
    };
  });
}

export interface CompactSccJson {
  file: string;
  nodes: number;
  count: number;
  largest: number;
  largestSizes: number[];
  sizeDistribution: Array<[number, number]>;
  /** Pages in each part of the bow-tie around the giant SCC (the plain `scc`'s), or null when the file has no in-lists. */
  bowTie: Record<BowTiePartName, number> | null;
  memory: { structures: StructureBytes[] };
  /** load: reading the lists (each direction, and the out-lists again for the bow-tie's last search); bowTie: its four searches. */
  timings: { load: number; solve: number; bowTie: number };
}

export function compactSccOf(path: string, options: { top?: number } = {}, context: AppContext = {}): CompactSccJson {
  return withFile(path, (file) => {
    const n = file.nodeCount;
    const m = file.linkCount;
    let load = 0;
    const structures: StructureBytes[] = [];
    // One direction's lists in memory at a time: asking for the other drops these first.
    let held: { direction: 'out' | 'in'; lists: CompactLists } | null = null;
    const listsOf = (direction: 'out' | 'in'): CompactLists => {
      if (held?.direction === direction) return held.lists;
      held = null;
      const started = performance.now();
      context.onProgress?.({ phase: 'compact', message: `loading the ${direction}-lists of ${n.toLocaleString('en-US')} pages` });
      const lists = file.readLists(direction, { offsets: true });
      load += elapsed(started);
      if (!structures.some((s) => s.name.startsWith(`${direction}-lists`))) structures.push(structure(`${direction}-lists with offsets`, compactBytes(lists), n, m));
      held = { direction, lists };
      return lists;
    };
    let started = performance.now();
    const result = compactScc(listsOf('out'));
    const solve = elapsed(started) - load;
    // The largest sizes: the components by size, a heap's pass (a host graph has hundreds of millions).
    const largest = Array.from(topK(result.sizes.subarray(0, result.count), options.top ?? 10), (c) => result.sizes[c]!);
    structures.push(structure("Tarjan's index, low link and component", 12 * n, n, m));
    let bowTie: CompactSccJson['bowTie'] = null;
    started = performance.now();
    const loadBefore = load;
    if (file.has('in')) {
      context.onProgress?.({ phase: 'compact', message: 'the bow-tie around the giant component' });
      bowTie = compactBowTie(result, listsOf).sizes;
      structures.push(structure('bow-tie parts, two marks and the queue', 7 * n, n, m));
    }
    held = null;
    return {
      file: path,
      nodes: n,
      count: result.count,
      largest: result.largest,
      largestSizes: largest,
      sizeDistribution: componentSizeDistribution(result),
      bowTie,
      memory: { structures },
      timings: { load, solve, bowTie: elapsed(started) - (load - loadBefore) },
    };
  });
}

export interface CompactTopJson {
  file: string;
  method: string;
  nodes: number;
  top: Array<{ rank: number; id: number; label: string; score: number }>;
  seconds: number;
}

/**
 * The best pages of the scores `rank --save` kept, named in place: `k` of them from position
 * `offset` (the file lists the best SCORES_TOP; `option` names the count in errors).
 */
export function compactTop(path: string, k: number, method: CompactRankMethod = 'pagerank', paging: { offset?: number; option?: string; clamp?: boolean } = {}): CompactTopJson {
  const { offset = 0, option = '--top', clamp = false } = paging;
  const started = performance.now();
  return withFile(path, (file) => {
    const { header } = readScores(scoresPath(path, method), undefined, method);
    if (header.nodes !== file.nodeCount) throw new InputFormatError(scoresPath(path, method), undefined, `scores of ${header.nodes} pages for a graph of ${file.nodeCount}: rank it again`);
    // `clamp`: fewer pages past the end of the list (the server's pages), else an error (the CLI's --top).
    if (offset + k > header.top.length && !(clamp && offset <= header.top.length)) throw new OptionError(clamp ? 'offset' : option, `the saved scores list the best ${header.top.length} pages`);
    const labels = file.labelsInPlace();
    const top = header.top.slice(offset, offset + k).map(([id, score], i) => ({ rank: offset + i + 1, id, label: nameOf(labels, id), score }));
    return { file: path, method: header.method, nodes: file.nodeCount, top, seconds: elapsed(started) };
  });
}

export interface CompactPageJson {
  file: string;
  id: number;
  label: string;
  inDegree: number;
  outDegree: number;
  inLinks: string[];
  outLinks: string[];
  scores: Array<{ method: string; value: number }>;
  seconds: number;
}

/** One page of a compact graph, read in place: its lists, its neighbours' names, its saved scores. */
export function compactPage(path: string, name: string, limit: number, option = 'url'): CompactPageJson {
  const started = performance.now();
  return withFile(path, (file) => {
    const labels = file.labelsInPlace();
    const id = pageId(file, labels, name, option);
    const inList = file.has('in') ? file.listInPlace('in', id) : new Int32Array(0);
    const outList = file.has('out') ? file.listInPlace('out', id) : new Int32Array(0);
    const names = (list: Int32Array): string[] => Array.from(list.subarray(0, limit), (u) => nameOf(labels, u));
    const scores: Array<{ method: string; value: number }> = [];
    // Every ranking kept beside the graph.
    for (const method of COMPACT_RANK_METHODS) {
      try {
        const { header, score } = readScores(scoresPath(path, method), id, method);
        if (score !== null && header.nodes === file.nodeCount) scores.push({ method: header.method, value: score });
      } catch (error) {
        if (!(error instanceof FileNotFoundError)) throw error;
      }
    }
    return { file: path, id, label: nameOf(labels, id), inDegree: inList.length, outDegree: outList.length, inLinks: names(inList), outLinks: names(outList), scores, seconds: elapsed(started) };
  });
}
