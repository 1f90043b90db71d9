/**
 * Side-by-side benchmark: wga against the graph libraries users would pick
 * instead (igraph, graph-tool and NetworkX from Debian's python3 packages;
 * graphology and ngraph from npm), in one run, on the same graphs:
 *
 *   - LAW's cnr-2000 (325,557 pages, 3,128,710 links after dropping 87,442
 *     self-links), decompressed once per run into bench/.cache/;
 *   - a power-law graph of 1,000,000 pages and about 10M links made by wga's
 *     generator, written once per run as a TSV edge list into bench/.cache/.
 *
 * Every tool loads the same plain text file. Each measurement is a fresh
 * child process (load, PageRank to an L1 change of 1e-10, SCC, BFS from a
 * page of the giant SCC, peak resident set), with a timeout; tools are
 * interleaved across repetitions and medians are reported, with ratios to
 * wga. Each tool's PageRank vector is checked against wga's power iteration.
 *
 *   npm run bench:compare                  (3 runs of everything; 30-40 minutes on 2 cores)
 *   npm run bench:compare -- 3 --big-runs 1   (1 run on the 1M-page graph; 15-20 minutes)
 *   npm run bench:compare -- 5             (5 runs)
 *   npm run bench:compare -- 1 --graphs cnr-2000 --tools wga,igraph
 *
 * Options: RUNS (3); --big-runs N (runs on the 1M-page and 10M-page graphs; RUNS);
 * --graphs cnr-2000,powerlaw[,web-1e7] (web-1e7: bench/generate-web-graph.ts's 10M pages and
 * about 97M links, which wga reads from its binary .wgadj file and the others from TSV; igraph
 * needs about 14 GB and several minutes per run on it, so it is not in the default set); --tools wga,igraph,graph-tool,networkx,graphology,ngraph;
 * --timeout SECONDS (600, per child); --out FILE (the markdown report; bench/.cache/compare-report.md);
 * --wga-solvers power,gauss-seidel:2e-12 (wga's rows: a solver each, optionally with its own
 * tolerance; default every solver at 1e-10; ratios are to the first row of the solver a default
 * call runs, so list the one to compare with first); --no-reference (skip the accurate vector, wga power
 * iteration to 1e-14, that each tool's L1 error is measured against; it is computed untimed).
 * web-1e6 is the 1M-page version of web-1e7 (about 10M links), for smoke runs.
 * Environment: WGA_SHARED (the shared/ folder; ../shared beside the repository),
 * WGA_BENCH_NO_INSTALL=1 (never apt-get a missing Python library: skip it),
 * WGA_BENCH_CACHE (bench/.cache).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as wga from '../src/index.js';
import { type GraphFacts, type RunRecord, type Stage, type StageLine, STAGES, parseRunnerOutput } from './compare/protocol.js';
import { benchArguments } from './arguments.js';
import { median } from './report.js';

const here = fileURLToPath(import.meta.url);
const repoRoot = resolve(dirname(here), '../..');
const nodeRunner = resolve(dirname(here), 'compare/node-runner.js');
const pythonRunner = resolve(repoRoot, 'bench/compare/runner.py');
const shared = process.env.WGA_SHARED ?? resolve(repoRoot, '../shared');
const cacheDir = process.env.WGA_BENCH_CACHE ?? resolve(repoRoot, 'bench/.cache');
const PYTHON = '/usr/bin/python3';

// ---------------------------------------------------------------- options

interface Options {
  runs: number;
  /** wga rows: solver names, each optionally with its own tolerance (`gauss-seidel:2e-12`); null = every solver at 1e-10. */
  wgaSolvers: string[] | null;
  /** Compute an accurate reference vector (wga power iteration to 1e-14) and report each tool's L1 error against it. */
  reference: boolean;
  bigRuns: number;
  graphs: string[];
  tools: string[];
  timeoutSeconds: number;
  out: string;
}

const ALL_GRAPHS = ['cnr-2000', 'powerlaw', 'web-1e6', 'web-1e7'];
/** Run unless --graphs says otherwise; web-1e7 (10^8 links, igraph needs about 14 GB) only on request. */
const DEFAULT_GRAPHS = ['cnr-2000', 'powerlaw'];
const ALL_FAMILIES = ['wga', 'igraph', 'graph-tool', 'networkx', 'graphology', 'ngraph'] as const;
type Family = (typeof ALL_FAMILIES)[number];

function parseOptions(argv: string[]): Options {
  const options: Options = {
    runs: 3,
    wgaSolvers: null,
    reference: true,
    bigRuns: NaN,
    graphs: [...DEFAULT_GRAPHS],
    tools: [...ALL_FAMILIES],
    timeoutSeconds: 600,
    out: resolve(cacheDir, 'compare-report.md'),
  };
  for (const { arg, value } of benchArguments(argv)) {
    const positive = (text: string, name: string): number => {
      const n = Number(text);
      if (!(Number.isInteger(n) && n >= 1)) throw new Error(`${name} must be a positive integer, got ${text}`);
      return n;
    };
    if (arg === '--big-runs') options.bigRuns = positive(value(), arg);
    else if (arg === '--graphs') options.graphs = value().split(',');
    else if (arg === '--tools') options.tools = value().split(',');
    else if (arg === '--timeout') options.timeoutSeconds = positive(value(), arg);
    else if (arg === '--out') options.out = resolve(value());
    else if (arg === '--wga-solvers') options.wgaSolvers = value().split(',');
    else if (arg === '--no-reference') options.reference = false;
    else if (/^\d+$/.test(arg)) options.runs = positive(arg, 'RUNS');
    else throw new Error(`unknown argument ${arg} (see the comment at the top of bench/compare.ts)`);
  }
  if (Number.isNaN(options.bigRuns)) options.bigRuns = options.runs;
  for (const g of options.graphs) if (!ALL_GRAPHS.includes(g)) throw new Error(`unknown graph ${g}: ${ALL_GRAPHS.join(', ')}`);
  for (const t of options.tools) {
    if (!(ALL_FAMILIES as readonly string[]).includes(t)) throw new Error(`unknown tool ${t}: ${ALL_FAMILIES.join(', ')}`);
  }
  for (const spec of options.wgaSolvers ?? []) {
    const [, tolerance] = spec.split(':');
    if (tolerance !== undefined && !(Number(tolerance) > 0 && Number(tolerance) < 1)) {
      throw new Error(`--wga-solvers ${spec}: the tolerance after ':' must be a number in (0, 1)`);
    }
  }
  return options;
}

// ---------------------------------------------------------------- tools

interface Tool {
  /** Row name in the tables. */
  name: string;
  family: Family;
  /** wga only: the solver passed (undefined: wga has no solver option). */
  solver?: string;
  command(file: string, root: number, scoresOut: string): { command: string; args: string[] };
}

const heapMegabytes = Math.floor((os.totalmem() / 2 ** 20) * 0.75);

function nodeTool(name: string, family: Family, solver?: string): Tool {
  const tool: Tool = {
    name,
    family,
    command: (file, root, scoresOut) => {
      const args = [`--max-old-space-size=${heapMegabytes}`, nodeRunner, family, file, String(root), scoresOut];
      if (solver !== undefined) args.push(solver);
      if (family !== 'graphology') return { command: process.execPath, args };
      // graphology's SCC is a recursive DFS: it overflows Node's default stack on the
      // 1M-page graph, so its runs get an unlimited native stack and a 2 GB V8 stack.
      return {
        command: '/bin/sh',
        args: [
          '-c',
          'if ulimit -s unlimited 2>/dev/null; then exec "$0" --stack-size=2000000 "$@"; else exec "$0" "$@"; fi',
          process.execPath,
          ...args,
        ],
      };
    },
  };
  if (solver !== undefined) tool.solver = solver;
  return tool;
}

function pythonTool(family: Family): Tool {
  return {
    name: family,
    family,
    command: (file, root, scoresOut) => ({ command: PYTHON, args: [pythonRunner, family, file, String(root), scoresOut] }),
  };
}

interface Detected {
  tools: Tool[];
  skipped: { family: Family; reason: string }[];
  versions: Record<string, string>;
  notes: string[];
}

function npmVersion(name: string): string | null {
  try {
    const json = JSON.parse(readFileSync(resolve(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
    return json.version ?? null;
  } catch {
    return null;
  }
}

function pythonVersions(): Record<string, string | boolean | null> | null {
  if (!existsSync(PYTHON)) return null;
  const run = spawnSync(PYTHON, [pythonRunner, 'versions'], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) return null;
  try {
    return JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as Record<string, string | boolean | null>;
  } catch {
    return null;
  }
}

const DEBIAN_PACKAGES: Record<string, string[]> = {
  igraph: ['python3-igraph'],
  'graph-tool': ['python3-graph-tool'],
  networkx: ['python3-networkx', 'python3-scipy'],
};

/** The Python modules a family needs to run here. */
function pythonModulesOf(family: Family): string[] {
  return family === 'networkx' ? ['numpy', 'networkx', 'scipy'] : ['numpy', family];
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .pop() ?? ''
  ).trim();
}

function detectTools(requested: string[], wgaSolvers: string[] | null): Detected {
  const tools: Tool[] = [];
  const skipped: Detected['skipped'] = [];
  const notes: string[] = [];
  const wanted = (f: Family): boolean => requested.includes(f);
  const ownVersion = (JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const commit = spawnSync('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  const dirty = spawnSync('git', ['-C', repoRoot, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' });
  const versions: Record<string, string> = {
    wga: `${ownVersion} (commit ${commit.stdout.trim() || 'unknown'}${dirty.stdout.trim() ? ', src/ with uncommitted changes' : ''})`,
  };

  // wga: one row per PageRank solver when the library has several.
  if (wanted('wga')) {
    const exported = (wga as unknown as Record<string, unknown>)['PAGERANK_SOLVERS'];
    const solvers = Array.isArray(exported) ? exported.filter((s): s is string => typeof s === 'string' && s !== 'auto') : [];
    if (solvers.length === 0) tools.push(nodeTool('wga', 'wga'));
    else for (const solver of wgaSolvers ?? solvers) tools.push(nodeTool(`wga ${solver.replace(':', ' to ')}`, 'wga', solver));
  }

  // Python libraries from Debian, installed when missing (unless WGA_BENCH_NO_INSTALL=1).
  const pythonFamilies = (['igraph', 'graph-tool', 'networkx'] as const).filter(wanted);
  let found = pythonFamilies.length > 0 ? pythonVersions() : {};
  const missing = (): Family[] => pythonFamilies.filter((f) => found === null || pythonModulesOf(f).some((m) => !found![m]));
  if (missing().length > 0 && process.env.WGA_BENCH_NO_INSTALL !== '1') {
    const packages = missing().flatMap((f) => DEBIAN_PACKAGES[f]!);
    progress(`installing ${packages.join(' ')} with apt-get (set WGA_BENCH_NO_INSTALL=1 to skip missing tools instead)`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update'], { encoding: 'utf8', env, timeout: 600_000 });
    const install = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], {
      encoding: 'utf8',
      env,
      timeout: 1_800_000,
    });
    if (update.status !== 0 || install.status !== 0) {
      const why = lastLine(install.stderr || update.stderr || String(install.error ?? update.error ?? 'failed'));
      notes.push(`apt-get install ${packages.join(' ')} failed: ${why}`);
    } else {
      notes.push(`installed ${packages.join(' ')} with apt-get during this run`);
    }
    found = pythonVersions();
  }
  for (const family of pythonFamilies) {
    const absent = found === null ? ['python3'] : pythonModulesOf(family).filter((m) => !found![m]);
    if (absent.length > 0) {
      const packages = DEBIAN_PACKAGES[family]!.join(' ');
      const how =
        process.env.WGA_BENCH_NO_INSTALL === '1'
          ? `WGA_BENCH_NO_INSTALL=1, so no apt-get install ${packages}`
          : `apt-get install ${packages} did not provide it`;
      skipped.push({ family, reason: `${absent.join(', ')} not importable by ${PYTHON} (${how})` });
      continue;
    }
    tools.push(pythonTool(family));
    versions[family] = `${String(found![family])} (Debian python3-${family === 'graph-tool' ? 'graph-tool' : family})`;
  }
  if (found && pythonFamilies.length > 0) {
    versions['python'] = `${String(found['python'])} (${PYTHON}), numpy ${String(found['numpy'])}, scipy ${String(found['scipy'])}`;
  }

  // npm libraries (devDependencies).
  const npmNeeds: Record<'graphology' | 'ngraph', string[]> = {
    graphology: ['graphology', 'graphology-metrics', 'graphology-components', 'graphology-traversal'],
    ngraph: ['ngraph.graph', 'ngraph.pagerank'],
  };
  for (const family of ['graphology', 'ngraph'] as const) {
    if (!wanted(family)) continue;
    const packages = npmNeeds[family];
    const absent = packages.filter((p) => npmVersion(p) === null);
    if (absent.length > 0) {
      skipped.push({ family, reason: `npm packages ${absent.join(', ')} not installed (npm ci installs the devDependencies)` });
      continue;
    }
    tools.push(nodeTool(family, family));
    versions[family] = packages.map((p) => `${p} ${npmVersion(p)!}`).join(', ');
  }
  return { tools, skipped, versions, notes };
}

// ---------------------------------------------------------------- graphs

interface GraphSpec {
  key: string;
  title: string;
  file: string;
  /** The file wga reads when not `file` (the compact binary form of the same graph). */
  wgaFile?: string;
  /** Facts every tool must agree with (cnr-2000's published figures). */
  expected?: { nodes: number; edges: number; rawEdges: number; selfLoops: number; sccCount: number; sccLargest: number };
}

/** bench/generate-web-graph.ts: 10M pages, about 97M links (half local, half to Zipf targets, 10% dangling). */
const WEB_GRAPH = { pages: 10_000_000, seed: 1 };
const webGenerator = resolve(dirname(here), 'generate-web-graph.js');

const POWER_LAW = { nodes: 1_000_000, exponent: 2.16, minInDegree: 2, danglingShare: 0.2, seed: 1 };

async function prepareGraph(key: string): Promise<GraphSpec> {
  mkdirSync(cacheDir, { recursive: true });
  if (key === 'cnr-2000') {
    const source = resolve(shared, 'data/cnr-2000/cnr-2000.edges.tsv.gz');
    if (!existsSync(source)) throw new Error(`${source} not found (set WGA_SHARED to the shared/ folder)`);
    const file = resolve(cacheDir, 'cnr-2000.edges.tsv');
    progress(`decompressing ${source} into ${file}`);
    await pipeline(createReadStream(source), createGunzip(), createWriteStream(`${file}.partial`));
    renameSync(`${file}.partial`, file);
    return {
      key,
      title: 'cnr-2000',
      file,
      expected: { nodes: 325_557, edges: 3_128_710, rawEdges: 3_216_152, selfLoops: 87_442, sccCount: 100_977, sccLargest: 112_023 },
    };
  }
  if (key === 'web-1e7' || key === 'web-1e6') {
    const w = { ...WEB_GRAPH, pages: key === 'web-1e7' ? WEB_GRAPH.pages : 1_000_000 };
    // A pair already generated under the graph's short name (bench/.cache/web-1e7.wgadj and .tsv) is used as is.
    const short = resolve(cacheDir, key);
    const base = existsSync(`${short}.wgadj`) && existsSync(`${short}.tsv`) ? short : resolve(cacheDir, `web-${w.pages}-${w.seed}`);
    if (!existsSync(`${base}.wgadj`) || !existsSync(`${base}.tsv`)) {
      progress(`generating the web-like graph into ${base}.wgadj and .tsv (a few minutes)`);
      const run = spawnSync(process.execPath, [webGenerator, `${base}.wgadj`, String(w.pages), String(w.seed), '--tsv', `${base}.tsv`], {
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`generating the web-like graph failed: ${run.stderr}`);
    }
    return { key, title: key === 'web-1e7' ? 'web-like 10M' : 'web-like 1M', file: `${base}.tsv`, wgaFile: `${base}.wgadj` };
  }
  const p = POWER_LAW;
  const file = resolve(cacheDir, `powerlaw-${p.nodes}-${p.exponent}-${p.minInDegree}-${p.danglingShare}-${p.seed}.tsv`);
  progress(`generating the power-law graph into ${file}`);
  const run = spawnSync(
    process.execPath,
    [nodeRunner, 'generate', file, ...[p.nodes, p.exponent, p.minInDegree, p.danglingShare, p.seed].map(String)],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`generating the power-law graph failed: ${run.stderr}`);
  return { key, title: 'power-law 1M', file };
}

function graphFacts(spec: GraphSpec): GraphFacts {
  const run = spawnSync(process.execPath, [`--max-old-space-size=${heapMegabytes}`, nodeRunner, 'prepare', spec.wgaFile ?? spec.file], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`wga could not load ${spec.file}: ${run.stderr}`);
  const facts = JSON.parse(run.stdout) as GraphFacts;
  if (!facts.identityLabels) throw new Error(`${spec.file}: page ids are not 0..n-1; the tools would number pages differently`);
  const e = spec.expected;
  if (e) {
    const got = [facts.nodes, facts.edges, facts.rawEdges, facts.selfLoopsDropped, facts.sccCount, facts.sccLargest];
    const want = [e.nodes, e.edges, e.rawEdges, e.selfLoops, e.sccCount, e.sccLargest];
    if (got.some((g, i) => g !== want[i])) {
      throw new Error(`${spec.title}: wga read ${got.join('/')} (pages/links/lines/self-links/SCCs/giant), expected ${want.join('/')}`);
    }
  }
  return facts;
}

/**
 * wga's power iteration to an L1 change of 1e-14, in a child process, untimed: the vector
 * every tool's error is measured against (power iteration's error is at most about
 * c / (1 - c) times its last change, so about 6e-14). Returns the file's path.
 */
function accurateReference(spec: GraphSpec): string {
  const out = resolve(cacheDir, `reference-${spec.key}.f64`);
  progress(`${spec.title}: the accurate reference vector (wga power iteration to 1e-14) into ${out}`);
  const run = spawnSync(process.execPath, [`--max-old-space-size=${heapMegabytes}`, nodeRunner, 'reference', spec.wgaFile ?? spec.file, out], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`the reference PageRank of ${spec.file} failed: ${run.stderr}`);
  progress(`${spec.title}: reference ${run.stdout.trim()}`);
  return out;
}

// ---------------------------------------------------------------- runs

function progress(message: string): void {
  process.stderr.write(`[compare ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function scoresPath(graph: string, tool: Tool): string {
  return resolve(cacheDir, `scores-${graph}-${tool.name.replace(/[^A-Za-z0-9.-]+/g, '_')}.f64`);
}

function runOnce(tool: Tool, spec: GraphSpec, facts: GraphFacts, timeoutSeconds: number): RunRecord {
  const file = tool.family === 'wga' && spec.wgaFile !== undefined ? spec.wgaFile : spec.file;
  const { command, args } = tool.command(file, facts.root, scoresPath(spec.key, tool));
  const started = performance.now();
  const run: SpawnSyncReturns<string> = spawnSync(command, args, {
    encoding: 'utf8',
    timeout: timeoutSeconds * 1000,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 2 ** 20,
    env: { ...process.env, OMP_NUM_THREADS: String(os.cpus().length) },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const parsed = parseRunnerOutput(run.stdout ?? '');
  const timedOut = (run.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  let outcome = 'ok';
  if (timedOut) outcome = 'timeout';
  else if (run.status !== 0 || parsed.done === null) {
    // The error's own line (Node prints it before the stack, Python after the traceback).
    const lines = (run.stderr ?? '').split('\n').map((l) => l.trim());
    const errorLine = lines.find((l) => /^[A-Za-z.]*(Error|Exception)\b/.test(l)) ?? lastLine(run.stderr ?? '');
    const why = errorLine || (run.signal ? `killed by ${run.signal}` : `exit status ${String(run.status)}`);
    outcome = `failed: ${why.slice(0, 200)}`;
  }
  return { ...parsed, outcome, wallSeconds };
}

function describeRun(tool: Tool, record: RunRecord): string {
  const parts = STAGES.map((s) => {
    const line = record.stages[s];
    return line ? `${s} ${line.seconds.toFixed(2)} s` : `${s} -`;
  });
  const peak = record.done ? `, peak ${(record.done.peakRss / 1e6).toFixed(0)} MB` : '';
  return `${tool.name}: ${parts.join(', ')}${peak} (${record.wallSeconds.toFixed(1)} s, ${record.outcome})`;
}

// ---------------------------------------------------------------- statistics

interface Summary {
  tool: Tool;
  runs: RunRecord[];
  /** Median seconds per stage (undefined: never measured). */
  seconds: Partial<Record<Stage, number>>;
  cpuRatio: Partial<Record<Stage, number>>;
  endToEnd?: number;
  peakRss?: number;
  baselineRss?: number;
  iterations?: number | null;
  /** Why a stage has no figure. */
  missing: Partial<Record<Stage, string>>;
  lastStage: Partial<Record<Stage, StageLine>>;
}

function summarise(tool: Tool, runs: RunRecord[], timeoutSeconds: number): Summary {
  const summary: Summary = { tool, runs, seconds: {}, cpuRatio: {}, missing: {}, lastStage: {} };
  for (const stage of STAGES) {
    const lines = runs.map((r) => r.stages[stage]).filter((l): l is StageLine => l !== undefined);
    if (lines.length > 0) {
      summary.seconds[stage] = median(lines.map((l) => l.seconds));
      summary.cpuRatio[stage] = median(lines.map((l) => l.cpu / Math.max(l.seconds, 1e-9)));
      summary.lastStage[stage] = lines[lines.length - 1]!;
      continue;
    }
    const skippedReason = runs.map((r) => r.skipped[stage]).find((s) => s !== undefined);
    const ended = runs.find((r) => r.outcome !== 'ok');
    if (skippedReason) summary.missing[stage] = skippedReason;
    else if (ended?.outcome === 'timeout') summary.missing[stage] = `timeout (> ${timeoutSeconds} s)`;
    else if (ended) summary.missing[stage] = ended.outcome;
    else summary.missing[stage] = 'not measured';
  }
  const sums = runs
    .map((r) => (r.stages.load && r.stages.pagerank && r.stages.scc ? r.stages.load.seconds + r.stages.pagerank.seconds + r.stages.scc.seconds : NaN))
    .filter((v) => !Number.isNaN(v));
  if (sums.length > 0) summary.endToEnd = median(sums);
  const done = runs.map((r) => r.done).filter((d) => d !== null);
  if (done.length > 0) {
    summary.peakRss = median(done.map((d) => d!.peakRss));
    summary.baselineRss = median(done.map((d) => d!.baselineRss));
  }
  const pr = summary.lastStage.pagerank;
  if (pr) summary.iterations = pr.iterations ?? null;
  return summary;
}

// ---------------------------------------------------------------- correctness

function readScores(path: string): Float64Array | null {
  if (!existsSync(path)) return null;
  const bytes = readFileSync(path);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float64Array(copy.buffer, 0, copy.byteLength / 8);
}

/** The k highest-scoring page ids, best first; ties by smaller id. */
function top(scores: Float64Array, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (best.length === k && s <= scores[best[k - 1]!]!) continue;
    let at = best.length;
    while (at > 0 && scores[best[at - 1]!]! < s) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}

interface Check {
  sum?: number;
  l1?: number;
  /** L1 distance to the accurate reference (wga power iteration to 1e-14). */
  error?: number;
  top10?: string;
  scc?: string;
  bfs?: string;
  warnings: string[];
  failures: string[];
}

function check(
  summary: Summary,
  spec: GraphSpec,
  facts: GraphFacts,
  reference: Float64Array | null,
  isReference: boolean,
  accurate: Float64Array | null,
): Check {
  const result: Check = { warnings: [], failures: [] };
  const name = `${spec.title}: ${summary.tool.name}`;
  const load = summary.lastStage.load;
  if (load && (load.nodes !== facts.nodes || load.edges !== facts.edges)) {
    result.failures.push(`${name} built ${load.nodes} pages and ${load.edges} links; wga has ${facts.nodes} and ${facts.edges}`);
  }
  const scc = summary.lastStage.scc;
  if (scc) {
    result.scc = `${scc.count!.toLocaleString('en-US')} / ${scc.largest!.toLocaleString('en-US')}`;
    if (scc.count !== facts.sccCount || scc.largest !== facts.sccLargest) {
      result.scc += ' MISMATCH';
      result.failures.push(`${name} found ${scc.count} SCCs, the largest of ${scc.largest}; expected ${facts.sccCount} and ${facts.sccLargest}`);
    }
  }
  const bfs = summary.lastStage.bfs;
  if (bfs) {
    result.bfs = bfs.reached!.toLocaleString('en-US');
    if (bfs.reached !== facts.reachedFromRoot) {
      result.bfs += ' MISMATCH';
      result.failures.push(`${name}: BFS from page ${facts.root} reached ${bfs.reached} pages; wga reaches ${facts.reachedFromRoot}`);
    }
  }
  const scores = readScores(scoresPath(spec.key, summary.tool));
  if (scores && reference) {
    if (scores.length !== reference.length) {
      result.failures.push(`${name}: ${scores.length} PageRank scores for ${reference.length} pages`);
      return result;
    }
    let sum = 0;
    let l1 = 0;
    for (let i = 0; i < scores.length; i++) {
      sum += scores[i]!;
      l1 += Math.abs(scores[i]! - reference[i]!);
    }
    result.sum = sum;
    result.l1 = l1;
    if (accurate && accurate.length === scores.length) {
      let error = 0;
      for (let i = 0; i < scores.length; i++) error += Math.abs(scores[i]! - accurate[i]!);
      result.error = error;
    }
    const mine = top(scores, 10);
    const theirs = top(reference, 10);
    // Ties aside: a different page at rank i is fine if the reference scores both within the tolerance.
    const differing = mine.filter((page, i) => page !== theirs[i] && Math.abs(reference[page]! - reference[theirs[i]!]!) > 1e-10);
    result.top10 = isReference ? 'reference' : differing.length === 0 ? (mine.every((p, i) => p === theirs[i]) ? 'same' : 'same (ties)') : `DIFFERS at ${differing.length}`;
    if (differing.length > 0) {
      result.warnings.push(`${name}: PageRank top 10 [${mine.join(', ')}] differs from wga power iteration's [${theirs.join(', ')}]`);
    }
    if (!isReference && l1 > 1e-6) {
      result.warnings.push(`${name}: PageRank vector is ${l1.toExponential(2)} (L1) away from wga power iteration's`);
    }
    if (Math.abs(sum - 1) > 1e-6) result.warnings.push(`${name}: PageRank scores sum to ${sum}`);
  }
  return result;
}

// ---------------------------------------------------------------- tables

const fmtSeconds = (s: number): string => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s >= 1 ? s.toFixed(2) : s.toFixed(3));
const fmtRatio = (r: number): string => (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2));
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;

function shortReason(reason: string): string {
  if (reason.startsWith('timeout')) return reason;
  if (reason.startsWith('no ')) return 'n/a';
  return 'failed';
}

function timesTable(summaries: Summary[]): string[] {
  const rows = [
    '| tool | runs | load | PageRank | SCC | BFS | load + PageRank + SCC | peak RSS |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const s of summaries) {
    const cell = (stage: Stage): string => {
      const v = s.seconds[stage];
      if (v === undefined) return shortReason(s.missing[stage] ?? '');
      const it = stage === 'pagerank' && typeof s.iterations === 'number' ? ` (${s.iterations} it.)` : '';
      return `${fmtSeconds(v)} s${it}`;
    };
    const ok = s.runs.filter((r) => r.outcome === 'ok').length;
    rows.push(
      `| ${s.tool.name} | ${ok}/${s.runs.length} | ${cell('load')} | ${cell('pagerank')} | ${cell('scc')} | ${cell('bfs')} | ` +
        `${s.endToEnd === undefined ? 'n/a' : `${fmtSeconds(s.endToEnd)} s`} | ${s.peakRss === undefined ? 'n/a' : mb(s.peakRss)} |`,
    );
  }
  return rows;
}

function ratioTable(summaries: Summary[], base: Summary): string[] {
  const rows = [
    `| tool | load | PageRank | SCC | BFS | load + PageRank + SCC | peak RSS |`,
    '|---|---|---|---|---|---|---|',
  ];
  const ratio = (mine: number | undefined, theirs: number | undefined): string =>
    mine === undefined || theirs === undefined || theirs <= 0 ? 'n/a' : `${fmtRatio(mine / theirs)}`;
  for (const s of summaries) {
    const cells = STAGES.map((stage) => ratio(s.seconds[stage], base.seconds[stage]));
    rows.push(`| ${s.tool.name} | ${cells.join(' | ')} | ${ratio(s.endToEnd, base.endToEnd)} | ${ratio(s.peakRss, base.peakRss)} |`);
  }
  return rows;
}

function checkTable(summaries: Summary[], checks: Map<Summary, Check>, referenceName: string): string[] {
  const rows = [
    `| tool | PageRank iterations | sum of scores | L1 distance to ${referenceName} | L1 error (to wga power iteration at 1e-14) | top 10 | SCCs / largest | BFS reached |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const s of summaries) {
    const c = checks.get(s)!;
    const equivalent = s.lastStage.pagerank?.equivalentIterations;
    const it =
      (s.iterations === undefined ? 'n/a' : s.iterations === null ? 'not reported' : String(s.iterations)) +
      (equivalent === undefined ? '' : ` (work of ${equivalent.toFixed(1)} power iterations)`);
    rows.push(
      `| ${s.tool.name} | ${it} | ${c.sum === undefined ? 'n/a' : c.sum.toFixed(12)} | ${c.l1 === undefined ? 'n/a' : c.l1.toExponential(2)} | ` +
        `${c.error === undefined ? 'n/a' : c.error.toExponential(2)} | ` +
        `${c.top10 ?? 'n/a'} | ${c.scc ?? 'n/a'} | ${c.bfs ?? 'n/a'} |`,
    );
  }
  return rows;
}

// ---------------------------------------------------------------- main

const STOPPING_RULES = [
  'All PageRanks: damping 0.85, uniform teleport, start from the uniform vector, target an L1 change of 1e-10 between iterates.',
  '- wga: stops when ||x_k - x_{k-1}||_1 <= 1e-10; dangling pages spread their mass uniformly. Every solver stops on that rule.',
  '- graph-tool `pagerank(g, damping=0.85, epsilon=1e-10)`: epsilon bounds the sum of |r_new - r_old| (the L1 change), so 1e-10 as is; dangling mass goes to the personalisation vector (uniform). OpenMP threads = the machine\'s cores.',
  '- NetworkX `pagerank(G, alpha=0.85, tol=1e-10/n, max_iter=1000)`: stops when the L1 change < n * tol, hence tol = 1e-10/n; dangling mass uniform (dangling=None uses the personalisation, uniform).',
  '- graphology-metrics `pagerank(g, {alpha: 0.85, tolerance: 1e-10/n, maxIterations: 1000, getEdgeWeight: null})`: stops when the L1 change < n * tolerance, hence 1e-10/n; dangling mass uniform.',
  '- ngraph.pagerank `pageRank(g, 0.85, 1e-10)`: stops when the L1 change < epsilon; all mass lost to teleport and dangling pages is put back uniformly (1 - sum)/n, which is the same as uniform dangling.',
  '- igraph `pagerank(directed=True, damping=0.85, implementation="prpack")`: PRPACK solves the linear system (I - 0.85 P) x = v by Gauss-Seidel over the strongly connected components (method "sccgs" for graphs of 128+ pages) and normalises, which spreads dangling mass uniformly; its tolerance is fixed inside igraph at 1e-10 on the residual of each component (scaled by its share of the pages and divided by 1 - 0.85), and cannot be changed from Python. It does not report iterations.',
];

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  mkdirSync(cacheDir, { recursive: true });
  const detected = detectTools(options.tools, options.wgaSolvers);
  if (detected.tools.length === 0) throw new Error('no tool to run');
  const out: string[] = [];
  const say = (line = ''): void => {
    out.push(line);
    console.log(line);
  };
  const warnings: string[] = [];
  const failures: string[] = [];

  const cpu = os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  say(`wga side-by-side benchmark, ${new Date().toISOString().slice(0, 10)}: \`npm run bench:compare${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\``);
  say();
  say(`Machine: ${os.cpus().length} cores (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Linux ${os.release()}; Node ${process.version}.`);
  say('Versions:');
  for (const [name, version] of Object.entries(detected.versions)) say(`- ${name}: ${version}`);
  for (const note of detected.notes) say(`- note: ${note}`);
  if (detected.skipped.length > 0) {
    say('Skipped tools:');
    for (const s of detected.skipped) say(`- ${s.family}: ${s.reason}`);
  } else {
    say('Skipped tools: none.');
  }
  say();

  for (const key of options.graphs) {
    const spec = await prepareGraph(key);
    const facts = graphFacts(spec);
    const accurate = options.reference ? accurateReference(spec) : null;
    const runs = key === 'cnr-2000' ? options.runs : options.bigRuns;
    const tools = detected.tools;
    // The reference vector is wga's power iteration (or the only wga row); ratios are to the default solver's row.
    const wgaRows = tools.filter((t) => t.family === 'wga');
    const solverOf = (t: Tool): string | undefined => t.solver?.split(':')[0];
    const reference = wgaRows.find((t) => solverOf(t) === 'power') ?? wgaRows[0];
    const base = wgaRows.find((t) => t.solver !== undefined && solverOf(t) === facts.defaultSolver) ?? wgaRows[0];
    for (const tool of tools) rmSync(scoresPath(key, tool), { force: true });

    progress(`${spec.title}: ${facts.nodes} pages, ${facts.edges} links; BFS root ${facts.root}; ${runs} runs of ${tools.length} tools`);
    const records = new Map<Tool, RunRecord[]>(tools.map((t) => [t, []]));
    const stopped = new Set<Tool>();
    for (let rep = 0; rep < runs; rep++) {
      // Interleaved: every tool once per repetition, starting from a different tool each time.
      const order = tools.map((_, i) => tools[(i + rep) % tools.length]!);
      for (const tool of order) {
        if (stopped.has(tool)) continue;
        const record = runOnce(tool, spec, facts, options.timeoutSeconds);
        records.get(tool)!.push(record);
        progress(`${spec.title} run ${rep + 1}/${runs} ${describeRun(tool, record)}`);
        // A tool that timed out or failed is not run again on this graph (it would again).
        if (record.outcome !== 'ok') stopped.add(tool);
      }
    }

    const summaries = tools.map((t) => summarise(t, records.get(t)!, options.timeoutSeconds));
    const baseSummary = summaries.find((s) => s.tool === base);
    const referenceScores = reference ? readScores(scoresPath(key, reference)) : null;
    const accurateScores = accurate ? readScores(accurate) : null;
    const checks = new Map<Summary, Check>();
    for (const s of summaries) {
      const c = check(s, spec, facts, referenceScores, s.tool === reference, accurateScores);
      checks.set(s, c);
      warnings.push(...c.warnings);
      failures.push(...c.failures);
    }

    const title =
      key.startsWith('web-')
        ? `web-like graph: ${facts.nodes.toLocaleString('en-US')} pages, ${facts.edges.toLocaleString('en-US')} links (bench/generate-web-graph.ts, seed ${WEB_GRAPH.seed}; wga reads the .wgadj file, the others the same links as TSV)`
        : key === 'cnr-2000'
        ? `cnr-2000: ${facts.nodes.toLocaleString('en-US')} pages, ${facts.edges.toLocaleString('en-US')} links (${facts.rawEdges.toLocaleString('en-US')} lines, ${facts.selfLoopsDropped.toLocaleString('en-US')} self-links dropped)`
        : `power-law graph: ${facts.nodes.toLocaleString('en-US')} pages, ${facts.edges.toLocaleString('en-US')} links ` +
          `(wga's powerLawGraph, exponent ${POWER_LAW.exponent}, min in-degree ${POWER_LAW.minInDegree}, ${POWER_LAW.danglingShare * 100}% dangling, seed ${POWER_LAW.seed})`;
    say(`### ${title}`);
    say();
    say(
      `${facts.danglingNodes.toLocaleString('en-US')} dangling pages; ${facts.sccCount.toLocaleString('en-US')} SCCs, the giant one of ` +
        `${facts.sccLargest.toLocaleString('en-US')} pages; BFS from page ${facts.root} (the giant SCC's first) reaches ${facts.reachedFromRoot.toLocaleString('en-US')}. ` +
        `Medians of ${runs} runs, each a fresh process; seconds are wall-clock.`,
    );
    say();
    for (const row of timesTable(summaries)) say(row);
    say();
    if (baseSummary) {
      say(`Ratios to ${base!.name} (tool / wga: above 1, wga is faster or smaller):`);
      say();
      for (const row of ratioTable(summaries, baseSummary)) say(row);
      say();
    }
    say('Results checked against wga:');
    say();
    for (const row of checkTable(summaries, checks, reference ? reference.name : 'wga')) say(row);
    say();
    const threaded: string[] = [];
    for (const s of summaries) {
      for (const stage of STAGES) {
        const r = s.cpuRatio[stage];
        if (r !== undefined && r >= 1.3 && (s.seconds[stage] ?? 0) >= 0.05) threaded.push(`${s.tool.name} ${stage} ${r.toFixed(1)}`);
      }
    }
    if (threaded.length > 0) say(`CPU time / wall time above 1.3 (more than one core busy): ${threaded.join('; ')}.`);
    const reasons = summaries.flatMap((s) =>
      STAGES.filter((stage) => s.missing[stage] !== undefined).map((stage) => `${s.tool.name} ${stage}: ${s.missing[stage]!}`),
    );
    if (reasons.length > 0) say(`Not measured: ${reasons.join('; ')}.`);
    const baselines = summaries
      .filter((s) => s.baselineRss !== undefined)
      .map((s) => `${s.tool.name} ${mb(s.baselineRss!)}`);
    say(`Peak RSS includes the runtime; before loading it was: ${baselines.join(', ')}.`);
    say();
  }

  say('Stopping rules:');
  for (const line of STOPPING_RULES) say(line);
  say();
  say('Loading: every tool reads the same plain TSV file and drops self-links, and that counts as load time. ' +
    'igraph: its C reader `Graph.Read_Edgelist` then `simplify(multiple=False, loops=True)`. graph-tool and NetworkX: numpy parses the text ' +
    '(`np.fromstring(..., sep=" ")`), self-links are masked out, then `Graph.add_edge_list` / `DiGraph.add_edges_from`. ' +
    'graphology and ngraph have no file reader: a byte parser into Int32Arrays (bench/compare/edge-text.ts), then `addNode`/`addEdge` (`addLink`). ' +
    `Node children run with --max-old-space-size=${heapMegabytes}; graphology's with an unlimited stack and --stack-size=2000000 (its recursive SCC overflows the default stack on the big graph). ` +
    'BFS: igraph `Graph.bfs`, graph-tool `shortest_distance`, NetworkX `single_source_shortest_path_length`, graphology-traversal `bfsFromNode`, ngraph a queue over `forEachLinkedNode` (it has no BFS); ngraph has no SCC.');
  say();
  for (const w of warnings) say(`WARNING: ${w}`);
  for (const f of failures) say(`ASSERTION FAILED: ${f}`);
  say(`Total time ${((performance.now() - started) / 60000).toFixed(1)} minutes.`);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, out.join('\n') + '\n');
  progress(`report written to ${options.out}`);
  if (failures.length > 0) process.exitCode = 1;
}

await main();
