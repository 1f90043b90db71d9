/** Paths and small utilities shared by the tests. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { bvFiles, bvPropertiesFrom, decodeBvGraph, parseProperties } from '../src/formats/webgraph-bv.js';

/** The repository root (tests run from dist/test/...). */
export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/**
 * A file of the test data committed with the repository (data/; data/README.md
 * says where each comes from). `cnr-2000/cnr-2000.edges.tsv.gz` is not committed:
 * it is written from the BV files into the cache on first use (see cnrEdgeList).
 */
export function testData(...parts: string[]): string {
  if (parts.join('/') === 'cnr-2000/cnr-2000.edges.tsv.gz') return cnrEdgeList();
  return join(repoRoot, 'data', ...parts);
}

/** The former name of testData, from when the tests read ../shared/data: kept for code written against it. */
export const sharedData = testData;

/**
 * An optional larger extra from $WGA_SHARED/data or ../shared/data beside the
 * repository, or null when it is not there: no test may depend on it.
 */
export function sharedExtra(...parts: string[]): string | null {
  const shared = process.env.WGA_SHARED ?? resolve(repoRoot, '../shared');
  const path = join(shared, 'data', ...parts);
  return existsSync(path) ? path : null;
}

/** Where tests keep what they generate between runs: $WGA_CACHE_DIR, else $XDG_CACHE_HOME/wga, else ~/.cache/wga. */
export function cacheDirectory(): string {
  const explicit = process.env.WGA_CACHE_DIR;
  if (explicit !== undefined && explicit !== '') return explicit;
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir() || tmpdir(), '.cache'), 'wga');
}

/**
 * SHA-256 of the text of cnr-2000.edges.tsv.gz as distributed with the shared
 * data (42,795,887 bytes once decompressed): the file cnrEdgeList writes must
 * hold exactly this text (test/data/real-graphs.test.ts checks it).
 */
export const CNR_EDGE_LIST_SHA256 = 'db55a42aeba48ffea2a740285d9df875112869cd8fc7d7af65867f9414d72f41';

/**
 * cnr-2000 as a gzipped 0-based edge list (`from<TAB>to` per line, every arc of
 * the BV files in order, self-links included), written by wga's own BV decoder
 * from data/cnr-2000 into the cache directory on first use, under a name
 * carrying the hash of the .graph file. Written to a temporary name and renamed,
 * so test processes running at once never see half a file.
 */
export function cnrEdgeList(): string {
  const basename = join(repoRoot, 'data', 'cnr-2000', 'cnr-2000');
  const graphBytes = readFileSync(`${basename}.graph`);
  const tag = createHash('sha256').update(graphBytes).digest('hex').slice(0, 16);
  const path = join(cacheDirectory(), `cnr-2000.edges.${tag}.tsv.gz`);
  if (existsSync(path)) return path;
  const files = bvFiles(basename);
  const properties = bvPropertiesFrom(parseProperties(readFileSync(files.properties, 'utf8')), files.properties);
  const rows = decodeBvGraph(graphBytes, properties, { graph: files.graph, properties: files.properties });
  const chunks: Buffer[] = [];
  let lines: string[] = [];
  for (let x = 0; x < properties.nodes; x++) {
    for (let e = rows.offsets[x]!; e < rows.offsets[x + 1]!; e++) lines.push(`${x}\t${rows.targets[e]!}\n`);
    if (lines.length > 100_000) {
      chunks.push(Buffer.from(lines.join(''), 'latin1'));
      lines = [];
    }
  }
  chunks.push(Buffer.from(lines.join(''), 'latin1'));
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, gzipSync(Buffer.concat(chunks), { level: 6 }));
  renameSync(temporary, path);
  return path;
}

export const cliPath = join(repoRoot, 'dist/src/cli/main.js');

/** A fresh temporary directory, removed by the returned cleanup. */
export function temporaryDirectory(): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'wga-test-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Tools from outside npm that some tests need, each with the variable CI sets
 * (.ci/run) so that their tests fail instead of skipping when the tool is missing:
 * `oracles` (igraph through /usr/bin/python3, the PostgreSQL manual),
 * `postgres` (a PostgreSQL server), `browser` (Chromium).
 */
export type OutsideTool = 'oracles' | 'postgres' | 'browser' | 'dnsmasq';

const REQUIRE_VARIABLE: Record<OutsideTool, string> = {
  oracles: 'WGA_REQUIRE_ORACLES',
  postgres: 'WGA_REQUIRE_POSTGRES',
  browser: 'WGA_REQUIRE_BROWSER',
  dnsmasq: 'WGA_REQUIRE_DNSMASQ',
};

/** True when CI asked (WGA_REQUIRE_<TOOL>=1) that the tests needing this tool never skip. */
export function toolRequired(tool: OutsideTool): boolean {
  return process.env[REQUIRE_VARIABLE[tool]] === '1';
}

/** True when CI asked that tests depending on outside oracles never skip. */
export const oraclesRequired = toolRequired('oracles');

/** The one line a skip or a failure says: what is missing and how to get it, on one line. */
function missingMessage(tool: OutsideTool, missing: string): string {
  const line = missing.replace(/\s*\n\s*/g, ' ');
  return toolRequired(tool) ? `${line} (required here: ${REQUIRE_VARIABLE[tool]}=1)` : line;
}

/**
 * Inside a test that found its outside tool missing: skips it with `missing`
 * (what is missing and how to install it, one line), or fails it in CI.
 * The test should return right after.
 */
export function skipOrFail(t: { skip: (message?: string) => void }, tool: OutsideTool, missing: string): void {
  if (toolRequired(tool)) assert.fail(missingMessage(tool, missing));
  t.skip(missingMessage(tool, missing));
}

/**
 * In place of the tests of a missing outside tool: one test named `name` that
 * is skipped with `missing` (what is missing and how to install it), or fails in CI.
 */
export function missingToolTest(name: string, tool: OutsideTool, missing: string): void {
  it(name, (t) => skipOrFail(t, tool, missing));
}

export function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

export function l1Distance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum;
}
