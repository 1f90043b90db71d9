/**
 * What a measurement child prints: one JSON object per line on stdout, each
 * flushed as soon as its stage ends, so that a child killed by the timeout
 * still leaves the stages it finished. The Python runner (runner.py) prints
 * the same records.
 */

export type Stage = 'load' | 'pagerank' | 'scc' | 'bfs';
export const STAGES: readonly Stage[] = ['load', 'pagerank', 'scc', 'bfs'];

export interface StageLine {
  kind: 'stage';
  stage: Stage;
  /** Wall-clock seconds. */
  seconds: number;
  /** CPU seconds of the whole process (all threads) during the stage. */
  cpu: number;
  /** The process's peak resident set so far, in bytes. */
  peakRss: number;
  /** load: pages and links of the graph built (self-links dropped). */
  nodes?: number;
  edges?: number;
  /** pagerank: iterations (null when the library does not say). */
  iterations?: number | null;
  /** pagerank, wga's Gauss-Seidel: links visited / links, the cost in power iterations. */
  equivalentIterations?: number;
  /** scc: number of components and size of the largest. */
  count?: number;
  largest?: number;
  /** bfs: pages reached from the root, the root included. */
  reached?: number;
}

export interface SkipLine {
  kind: 'skip';
  stage: Stage;
  reason: string;
}

export interface DoneLine {
  kind: 'done';
  /** Peak resident set of the whole run, in bytes. */
  peakRss: number;
  /** Peak resident set before loading (runtime and library imports), in bytes. */
  baselineRss: number;
}

export type RunnerLine = StageLine | SkipLine | DoneLine;

/** What one child run left: its stages, what it skipped, and how it ended. */
export interface RunRecord {
  stages: Partial<Record<Stage, StageLine>>;
  skipped: Partial<Record<Stage, string>>;
  done: DoneLine | null;
  /** 'ok', 'timeout' or 'failed: ...' (the last line of stderr). */
  outcome: string;
  wallSeconds: number;
}

export function parseRunnerOutput(stdout: string): Omit<RunRecord, 'outcome' | 'wallSeconds'> {
  const record: Omit<RunRecord, 'outcome' | 'wallSeconds'> = { stages: {}, skipped: {}, done: null };
  for (const line of stdout.split('\n')) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    let parsed: RunnerLine;
    try {
      parsed = JSON.parse(text) as RunnerLine;
    } catch {
      continue;
    }
    if (parsed.kind === 'stage') record.stages[parsed.stage] = parsed;
    else if (parsed.kind === 'skip') record.skipped[parsed.stage] = parsed.reason;
    else if (parsed.kind === 'done') record.done = parsed;
  }
  return record;
}

/** What the wga "prepare" child says about a graph before the runs. */
export interface GraphFacts {
  nodes: number;
  edges: number;
  rawEdges: number;
  selfLoopsDropped: number;
  duplicatesDropped: number;
  danglingNodes: number;
  sccCount: number;
  sccLargest: number;
  /** The page BFS starts from: the smallest label in the giant SCC. */
  root: number;
  /** Pages the BFS from root reaches (wga's count, the reference). */
  reachedFromRoot: number;
  /** Every label is its id (0..n-1), so all tools number pages alike. */
  identityLabels: boolean;
  /** The solver wga's pagerank picks with default options (null: wga has one solver). */
  defaultSolver: string | null;
}
