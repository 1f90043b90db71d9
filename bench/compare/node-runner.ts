/**
 * The Node.js side of `npm run bench:compare`: one measurement per process.
 *
 *   node node-runner.js wga|graphology|ngraph FILE ROOT SCORES_OUT [SOLVER]
 *       load FILE, PageRank (scores written to SCORES_OUT, by page id, as
 *       little-endian float64), SCC, BFS from ROOT; one JSON line per stage
 *       (see protocol.ts), then the peak resident set.
 *       SOLVER may carry its own tolerance: gauss-seidel:2e-12 (default 1e-10).
 *   node node-runner.js reference FILE OUT
 *       wga power iteration to an L1 change of 1e-14 (the accurate vector
 *       the tools' errors are measured against), written to OUT.
 *   node node-runner.js prepare FILE
 *       wga's facts about the graph (counts, SCCs, the BFS root), as JSON.
 *   node node-runner.js generate OUT NODES EXPONENT MIN_IN_DEGREE DANGLING SEED
 *       writes wga's power-law graph as a plain TSV edge list.
 *
 * Libraries are imported dynamically so that each run's memory holds only
 * the library it measures.
 */
import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import type { GraphFacts, Stage, StageLine } from './protocol.js';
import { readEdgeText } from './edge-text.js';

const TOLERANCE = 1e-10;
const DAMPING = 0.85;

function peakRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

function emit(line: object): void {
  writeSync(1, JSON.stringify(line) + '\n');
}

/** Runs one stage, times it (wall and CPU), and prints its line with the details fn returns. */
async function stage<T>(
  name: Stage,
  fn: () => T | Promise<T>,
  details: (value: T) => Partial<StageLine>,
): Promise<T> {
  const cpu = cpuSeconds();
  const started = performance.now();
  const value = await fn();
  const seconds = (performance.now() - started) / 1000;
  const line: StageLine = {
    kind: 'stage',
    stage: name,
    seconds,
    cpu: cpuSeconds() - cpu,
    peakRss: peakRssBytes(),
    ...details(value),
  };
  emit(line);
  return value;
}

function skip(name: Stage, reason: string): void {
  emit({ kind: 'skip', stage: name, reason });
}

function done(baselineRss: number): void {
  emit({ kind: 'done', peakRss: peakRssBytes(), baselineRss });
}

function writeScores(path: string, scores: Float64Array): void {
  if (path === '-') return;
  writeFileSync(path, new Uint8Array(scores.buffer, scores.byteOffset, scores.byteLength));
}

// ---------------------------------------------------------------- wga

type WgaModule = typeof import('../../src/index.js');
type WgaPageRankOptions = NonNullable<Parameters<WgaModule['pagerank']>[1]>;

/** Scores indexed by page label (the labels are integers 0..n-1 in both graphs). */
function scoresByLabel(wga: WgaModule, graph: InstanceType<WgaModule['Graph']>, scores: Float64Array): Float64Array {
  const labels = graph.labels;
  if (labels instanceof wga.IdentityLabels) return scores;
  let maxLabel = -1;
  for (let id = 0; id < graph.nodeCount; id++) maxLabel = Math.max(maxLabel, Number(labels.label(id)));
  const result = new Float64Array(maxLabel + 1);
  for (let id = 0; id < graph.nodeCount; id++) result[Number(labels.label(id))] = scores[id]!;
  return result;
}

async function runWga(file: string, root: number, scoresOut: string, solver: string | undefined): Promise<void> {
  const wga: WgaModule = await import('../../src/index.js');
  const baselineRss = peakRssBytes();
  const { graph } = await stage('load', () => wga.loadGraph(file), (loaded) => ({
    nodes: loaded.graph.nodeCount,
    edges: loaded.graph.edgeCount,
  }));
  // The solver option is passed only when asked for, so this compiles and runs
  // whether or not this version of wga has solvers.
  const [solverName, ownTolerance] = solver === undefined ? [undefined, undefined] : solver.split(':');
  const options: Record<string, unknown> = { damping: DAMPING, tolerance: ownTolerance === undefined ? TOLERANCE : Number(ownTolerance) };
  if (solverName !== undefined) options['solver'] = solverName;
  const rank = await stage('pagerank', () => wga.pagerank(graph, options as WgaPageRankOptions), (r) => {
    const equivalent = (r as { equivalentIterations?: unknown }).equivalentIterations;
    return typeof equivalent === 'number' && solverName !== 'power'
      ? { iterations: r.iterations, equivalentIterations: equivalent }
      : { iterations: r.iterations };
  });
  if (!rank.converged) throw new Error(`wga PageRank did not converge (residual ${rank.residual})`);
  writeScores(scoresOut, scoresByLabel(wga, graph, rank.scores));
  // What `wga stats` and the Gauss-Seidel solver run (Tarjan below 10M links, the pivot's searches above).
  await stage('scc', () => wga.componentsOfLargeGraph(graph, wga.defaultThreads()), (c) => ({ count: c.count, largest: c.largest }));
  const rootId = graph.labels.id(String(root));
  if (rootId < 0) throw new Error(`root page ${root} is not in the graph`);
  await stage('bfs', () => wga.levels(graph, [rootId]), (l) => ({ reached: l.reached }));
  done(baselineRss);
}

async function reference(file: string, out: string): Promise<void> {
  const wga: WgaModule = await import('../../src/index.js');
  const { graph } = await wga.loadGraph(file);
  const started = performance.now();
  const rank = wga.pagerank(graph, { damping: DAMPING, tolerance: 1e-14, maxIterations: 10_000, solver: 'power' });
  if (!rank.converged) throw new Error(`the reference power iteration did not converge (residual ${rank.residual})`);
  writeScores(out, scoresByLabel(wga, graph, rank.scores));
  emit({ iterations: rank.iterations, residual: rank.residual, seconds: (performance.now() - started) / 1000 });
}

async function prepare(file: string): Promise<void> {
  const wga: WgaModule = await import('../../src/index.js');
  const { graph, report } = await wga.loadGraph(file);
  const scc = wga.stronglyConnectedComponents(graph);
  let rootId = -1;
  let root = Infinity;
  for (let id = 0; id < graph.nodeCount; id++) {
    if (scc.component[id] !== scc.largestId) continue;
    const label = Number(graph.labels.label(id));
    if (label < root) {
      root = label;
      rootId = id;
    }
  }
  let identityLabels = true;
  for (let id = 0; id < graph.nodeCount && identityLabels; id++) identityLabels = graph.labels.label(id) === String(id);
  const facts: GraphFacts = {
    nodes: graph.nodeCount,
    edges: graph.edgeCount,
    rawEdges: report.rawEdges,
    selfLoopsDropped: report.selfLoopsDropped,
    duplicatesDropped: report.duplicatesDropped,
    danglingNodes: wga.countDangling(graph),
    sccCount: scc.count,
    sccLargest: scc.largest,
    root,
    reachedFromRoot: wga.levels(graph, [rootId]).reached,
    identityLabels,
    defaultSolver: null,
  };
  // Which solver a default call runs (wga with several solvers reports it).
  const used = (wga.pagerank(graph, { tolerance: TOLERANCE }) as { solver?: unknown }).solver;
  if (typeof used === 'string') facts.defaultSolver = used;
  emit(facts);
}

async function generate(out: string, parameters: string[]): Promise<void> {
  const [nodes, exponent, minInDegree, danglingShare, seed] = parameters.map(Number) as [number, number, number, number, number];
  const wga: WgaModule = await import('../../src/index.js');
  const { graph } = wga.powerLawGraph({ nodes, exponent, minInDegree, danglingShare, seed });
  const partial = `${out}.partial`;
  const fd = openSync(partial, 'w');
  const { outOffsets, outTargets } = graph;
  let chunk = '';
  for (let u = 0; u < graph.nodeCount; u++) {
    const prefix = `${u}\t`;
    for (let e = outOffsets[u]!; e < outOffsets[u + 1]!; e++) chunk += prefix + outTargets[e]! + '\n';
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  renameSync(partial, out);
  emit({ nodes: graph.nodeCount, edges: graph.edgeCount });
}

// ---------------------------------------------------------------- graphology

/**
 * graphology's typings are CommonJS ones: seen from an ES module, TypeScript
 * puts their default export one `.default` deeper than Node.js does.
 */
function cjsDefault<T>(value: { default: T }): T {
  const inner = (value as { default?: unknown }).default;
  return (inner ?? value) as T;
}

async function runGraphology(file: string, root: number, scoresOut: string): Promise<void> {
  const Graph = cjsDefault((await import('graphology')).default);
  const pagerank = cjsDefault((await import('graphology-metrics/centrality/pagerank.js')).default);
  const { stronglyConnectedComponents } = await import('graphology-components');
  const { bfsFromNode } = await import('graphology-traversal');
  const baselineRss = peakRssBytes();
  const graph = await stage(
    'load',
    () => {
      const text = readEdgeText(file);
      const g = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
      // Pages in id order, so that every page exists even if it only had self-links.
      for (let v = 0; v < text.nodes; v++) g.addNode(v);
      const { sources, targets } = text;
      for (let e = 0; e < text.count; e++) g.addEdge(sources[e]!, targets[e]!);
      return g;
    },
    (g) => ({ nodes: g.order, edges: g.size }),
  );
  const n = graph.order;
  // graphology stops when the L1 change is below n * tolerance.
  const mapping = await stage(
    'pagerank',
    () => pagerank(graph, { alpha: DAMPING, tolerance: TOLERANCE / n, maxIterations: 1000, getEdgeWeight: null }),
    () => ({ iterations: null }),
  );
  const scores = new Float64Array(n);
  for (const key in mapping) scores[Number(key)] = mapping[key]!;
  writeScores(scoresOut, scores);
  await stage(
    'scc',
    () => stronglyConnectedComponents(graph),
    (components) => ({ count: components.length, largest: components.reduce((m, c) => Math.max(m, c.length), 0) }),
  );
  await stage(
    'bfs',
    () => {
      let reached = 0;
      bfsFromNode(graph, String(root), () => {
        reached++;
      });
      return reached;
    },
    (reached) => ({ reached }),
  );
  done(baselineRss);
}

// ---------------------------------------------------------------- ngraph

async function runNgraph(file: string, root: number, scoresOut: string): Promise<void> {
  const { default: createGraph } = await import('ngraph.graph');
  const { default: pageRank } = await import('ngraph.pagerank');
  const baselineRss = peakRssBytes();
  const graph = await stage(
    'load',
    () => {
      const text = readEdgeText(file);
      const g = createGraph();
      for (let v = 0; v < text.nodes; v++) g.addNode(v);
      const { sources, targets } = text;
      for (let e = 0; e < text.count; e++) g.addLink(sources[e]!, targets[e]!);
      return g;
    },
    (g) => ({ nodes: g.getNodesCount(), edges: g.getLinksCount() }),
  );
  const n = graph.getNodesCount();
  // ngraph.pagerank stops when the L1 change is below epsilon.
  const mapping = await stage('pagerank', () => pageRank(graph, DAMPING, TOLERANCE), () => ({ iterations: null }));
  const scores = new Float64Array(n);
  for (const key in mapping) scores[Number(key)] = mapping[key]!;
  writeScores(scoresOut, scores);
  skip('scc', 'no strongly connected components in ngraph');
  // ngraph has no BFS either; this is the loop a user writes over its API.
  await stage(
    'bfs',
    () => {
      const seen = new Uint8Array(n);
      const queue = new Int32Array(n);
      let head = 0;
      let tail = 0;
      seen[root] = 1;
      queue[tail++] = root;
      while (head < tail) {
        graph.forEachLinkedNode(
          queue[head++]!,
          (other) => {
            const w = other.id as number;
            if (seen[w] === 0) {
              seen[w] = 1;
              queue[tail++] = w;
            }
          },
          true,
        );
      }
      return tail;
    },
    (reached) => ({ reached }),
  );
  done(baselineRss);
}

// ---------------------------------------------------------------- main

const [mode, ...rest] = process.argv.slice(2);
try {
  switch (mode) {
    case 'wga':
      await runWga(rest[0]!, Number(rest[1]), rest[2] ?? '-', rest[3]);
      break;
    case 'graphology':
      await runGraphology(rest[0]!, Number(rest[1]), rest[2] ?? '-');
      break;
    case 'ngraph':
      await runNgraph(rest[0]!, Number(rest[1]), rest[2] ?? '-');
      break;
    case 'reference':
      await reference(rest[0]!, rest[1]!);
      break;
    case 'prepare':
      await prepare(rest[0]!);
      break;
    case 'generate':
      await generate(rest[0]!, rest.slice(1));
      break;
    default:
      throw new Error(`unknown mode ${String(mode)}`);
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
