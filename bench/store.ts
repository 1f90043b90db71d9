/**
 * Store benchmark: how long wga takes to import cnr-2000 (325,557 pages,
 * 3,128,710 links) into an empty store and to load it back as a graph, on
 * SQLite and on PostgreSQL, beside the floor of each engine's own bulk tools
 * measured in the same run on the same rows, schema and settings: the
 * sqlite3 shell's `.import` and SELECT to /dev/null, psql's `\copy` in and
 * out (see bench/store/floor.ts for what exactly each floor does).
 *
 * Every wga measurement is a fresh child process (bench/store/child.ts): it
 * reads cnr-2000, then times open + importGraph + close into a new SQLite
 * file or a new database; or open + loadGraph + close. Floors are timed by
 * the wall clock around the shell (sqlite3 or psql), which reads TSV files
 * written once per run. Repetitions are interleaved (each repetition runs
 * every measurement, in an order rotated from one repetition to the next),
 * with `sync` and a PostgreSQL CHECKPOINT before each one; the tables give
 * medians. PostgreSQL runs in a throwaway cluster with the server's default
 * durability (fsync on) that logs every statement's duration, from which
 * imports are split into their statements.
 *
 *   npm run bench:store                        (3 repetitions: 9 minutes on 2 quiet cores, up to 3 times
 *                                               that when other work shares them; psql's \copy with every
 *                                               constraint in place takes 80-220 s of each repetition)
 *   npm run bench:store -- 1 --backends sqlite (a quick look)
 *
 * Options: RUNS (3); --backends sqlite,postgres; --out FILE (the markdown
 * report, also printed; bench/.cache/store-report.md).
 * Environment: WGA_SHARED (the shared/ folder; ../shared beside the
 * repository), WGA_BENCH_NO_INSTALL=1 (never apt-get a missing sqlite3: skip
 * its floor).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadGraph } from '../src/formats/load.js';
import type { ChildResult } from './store/child.js';
import { type Cluster, startCluster, statementPhases } from './store/cluster.js';
import {
  type FloorFiles,
  POSTGRES_LOAD_SCRIPT,
  type PostgresVariant,
  SQLITE_LOAD_SCRIPT,
  type SqliteVariant,
  parseMarks,
  postgresImportScript,
  sqliteImportScript,
  writeFloorFiles,
} from './store/floor.js';
import { benchArguments } from './arguments.js';
import { median, progress } from './report.js';

const here = fileURLToPath(import.meta.url);
const repoRoot = resolve(dirname(here), '../..');
const childScript = resolve(dirname(here), 'store/child.js');
const shared = process.env.WGA_SHARED ?? resolve(repoRoot, '../shared');
const cnr = resolve(shared, 'data/cnr-2000/cnr-2000.edges.tsv.gz');
const TIME = '/usr/bin/time';

// ---------------------------------------------------------------- options

type Backend = 'sqlite' | 'postgres';

interface Options {
  runs: number;
  backends: Backend[];
  out: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { runs: 3, backends: ['sqlite', 'postgres'], out: resolve(repoRoot, 'bench/.cache/store-report.md') };
  for (const { arg, value } of benchArguments(argv)) {
    if (arg === '--backends') {
      const names = value().split(',');
      for (const name of names) if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown backend ${name}`);
      options.backends = names as Backend[];
    } else if (arg === '--out') options.out = resolve(value());
    else if (/^\d+$/.test(arg) && Number(arg) >= 1) options.runs = Number(arg);
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

// ---------------------------------------------------------------- samples

interface Sample {
  seconds: number;
  phases: Record<string, number>;
  /** Store size on disk (bytes): the SQLite file, or pg_database_size. */
  size?: number;
  peakRss?: number;
  rssBefore?: number;
}

const samples = new Map<string, Sample[]>();
const add = (key: string, sample: Sample): void => {
  const list = samples.get(key) ?? [];
  list.push(sample);
  samples.set(key, list);
  const phases = Object.entries(sample.phases)
    .map(([name, s]) => `${name} ${s.toFixed(2)}`)
    .join(', ');
  progress(`  ${key}: ${sample.seconds.toFixed(2)} s${phases === '' ? '' : ` (${phases})`}`);
};

const med = (key: string, pick: (s: Sample) => number | undefined = (s) => s.seconds): number | undefined => {
  const values = (samples.get(key) ?? []).map(pick).filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : median(values);
};

// ---------------------------------------------------------------- processes

function run(command: string, args: string[], input?: string): { stdout: string; seconds: number; peakRss?: number } {
  const timeFile = join(work, 'time.out');
  const timed = existsSync(TIME);
  const started = performance.now();
  const result = timed
    ? spawnSync(TIME, ['-f', '%M', '-o', timeFile, command, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(command, args, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr}`);
  const peakRss = timed ? Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) * 1024 : undefined;
  return { stdout: result.stdout, seconds, peakRss };
}

function child(args: string[]): ChildResult {
  const result = spawnSync(process.execPath, [childScript, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (result.status !== 0) throw new Error(`child ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as ChildResult;
}

function sync(): void {
  execFileSync('sync');
}

function check(what: string, nodes: number, edges: number): void {
  if (nodes !== files.nodes || edges !== files.edges) {
    throw new Error(`${what}: ${nodes} pages and ${edges} links, expected ${files.nodes} and ${files.edges}`);
  }
}

// ---------------------------------------------------------------- SQLite

const sqliteFile = (name: string): string => join(work, `${name}.db`);

function removeSqlite(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

function sqliteSize(path: string): number {
  return ['', '-wal'].reduce((sum, suffix) => sum + (existsSync(path + suffix) ? statSync(path + suffix).size : 0), 0);
}

function sqliteCounts(path: string): [number, number] {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string): number => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    return [count('pages'), count('links')];
  } finally {
    db.close();
  }
}

const SQLITE_IMPORT_PHASES: Record<string, string> = {
  open: 'open (pragmas, migrations)',
  opened: 'keys (keyOfLabel) and prepare, before the transaction',
  transaction: 'distinct-key check, DROP INDEX links_target',
  pages: 'INSERT pages',
  links: 'INSERT links',
  'links_target index': 'CREATE INDEX links_target',
  'index built': 'COMMIT',
  close: 'close (WAL checkpoint)',
};

function sqliteWgaImport(rep: number): void {
  const path = sqliteFile(`wga-${rep}`);
  removeSqlite(path);
  sync();
  const result = child(['sqlite-import', cnr, path]);
  check('wga SQLite import', result.nodes, result.edges);
  const phases: Record<string, number> = {};
  for (const [mark, seconds] of Object.entries(result.phases)) phases[SQLITE_IMPORT_PHASES[mark] ?? mark] = seconds;
  add('sqlite import wga', { seconds: result.total, phases, size: sqliteSize(path), peakRss: result.peakRss, rssBefore: result.rssBefore });
}

function sqliteFloorImport(rep: number, variant: SqliteVariant): void {
  const path = sqliteFile(`floor-${variant}-${rep}`);
  removeSqlite(path);
  sync();
  const started = Date.now() / 1000;
  const { stdout, seconds, peakRss } = run(sqlite3!, ['-bail', path], sqliteImportScript(files, variant));
  const ended = started + seconds;
  const marks = parseMarks(stdout);
  const [nodes, edges] = sqliteCounts(path);
  check(`sqlite3 .import (${variant})`, nodes, edges);
  const between = (from: string, to: string): number | undefined =>
    marks.has(from) && marks.has(to) ? marks.get(to)! - marks.get(from)! : undefined;
  const phases: Record<string, number> = {};
  const set = (name: string, value: number | undefined): void => {
    if (value !== undefined) phases[name] = value;
  };
  set('start and schema', marks.has('schema') ? marks.get('schema')! - started : undefined);
  set('.import pages (via a temporary table)', between('schema', 'pages'));
  set('.import links', between('pages', 'links'));
  set('CREATE INDEX links_target', between('links', 'index'));
  set('COMMIT', between(variant === 'same' ? 'index' : 'links', 'commit'));
  set('exit (WAL checkpoint)', marks.has('commit') ? ended - marks.get('commit')! : undefined);
  add(`sqlite import floor-${variant}`, { seconds, phases, size: sqliteSize(path), peakRss });
  removeSqlite(path);
}

const SQLITE_LOAD_PHASES: Record<string, string> = {
  open: 'open',
  opened: 'loadGraph called, read transaction begun',
  ids: 'ids and URLs (SELECT id; SELECT url) and id map',
  count: 'SELECT count(*) FROM links',
  'source column': 'SELECT source FROM links ORDER BY source, target, kind',
  'target column': 'SELECT target ... (same order), EdgeBuffer',
  build: 'buildFromEdges (CSR and transpose)',
  close: 'close',
};

function sqliteWgaLoad(rep: number): void {
  const result = child(['sqlite-load', sqliteFile(`wga-${rep}`)]);
  check('wga SQLite load-back', result.nodes, result.edges);
  const phases: Record<string, number> = {};
  for (const [mark, seconds] of Object.entries(result.phases)) phases[SQLITE_LOAD_PHASES[mark] ?? mark] = seconds;
  add('sqlite load wga', { seconds: result.total, phases, peakRss: result.peakRss });
}

function sqliteFloorLoad(rep: number): void {
  sync();
  const { seconds, peakRss } = run(sqlite3!, ['-bail', sqliteFile(`wga-${rep}`)], SQLITE_LOAD_SCRIPT);
  add('sqlite load floor', { seconds, phases: {}, peakRss });
}

// ---------------------------------------------------------------- PostgreSQL

const database = (rep: number, who: string): string => `bench_${who.replace(/-/g, '_')}_${rep}`;

async function prepareDatabase(name: string): Promise<number> {
  await cluster!.admin(`DROP DATABASE IF EXISTS ${name}`);
  await cluster!.admin(`CREATE DATABASE ${name}`);
  await cluster!.admin('CHECKPOINT');
  sync();
  return cluster!.logSince(0).end;
}

async function postgresFacts(name: string): Promise<{ size: number; nodes: number; edges: number }> {
  const size = Number((await cluster!.admin(`SELECT pg_database_size('${name}') AS size`)).rows[0].size);
  const output = execFileSync(join(cluster!.bin, 'psql'), [...cluster!.psqlArgs(name), '-At', '-c', 'SELECT (SELECT count(*) FROM pages), (SELECT count(*) FROM links)'], {
    encoding: 'utf8',
  });
  const [nodes, edges] = output.trim().split('|').map(Number) as [number, number];
  return { size, nodes, edges };
}

function serverPhases(offset: number, name: string): Record<string, number> {
  return Object.fromEntries(statementPhases(cluster!.logSince(offset).text, name));
}

async function postgresWgaImport(rep: number): Promise<void> {
  const name = database(rep, 'wga');
  const offset = await prepareDatabase(name);
  const result = child(['postgres-import', cnr, cluster!.url(name)]);
  check('wga PostgreSQL import', result.nodes, result.edges);
  const server = serverPhases(offset, name);
  const serverTotal = Object.values(server).reduce((a, b) => a + b, 0);
  // The migrations' statements are among the server's "other statements", so open() has no row of its own.
  const phases: Record<string, number> = {
    'keys (keyOfLabel), before the transaction': result.phases.opened ?? 0,
    ...Object.fromEntries(Object.entries(server).map(([phase, seconds]) => [`server: ${phase}`, seconds])),
    'client outside statements': result.total - serverTotal - (result.phases.opened ?? 0),
  };
  const facts = await postgresFacts(name);
  check('wga PostgreSQL import (counted)', facts.nodes, facts.edges);
  add('postgres import wga', { seconds: result.total, phases, size: facts.size, peakRss: result.peakRss, rssBefore: result.rssBefore });
}

async function postgresFloorImport(rep: number, variant: PostgresVariant): Promise<void> {
  const name = database(rep, `floor-${variant}`);
  const offset = await prepareDatabase(name);
  const { seconds, peakRss } = run(join(cluster!.bin, 'psql'), cluster!.psqlArgs(name), postgresImportScript(files, variant));
  const server = serverPhases(offset, name);
  const serverTotal = Object.values(server).reduce((a, b) => a + b, 0);
  const phases: Record<string, number> = {
    ...Object.fromEntries(Object.entries(server).map(([phase, s]) => [`server: ${phase}`, s])),
    'client outside statements': seconds - serverTotal,
  };
  const facts = await postgresFacts(name);
  check(`psql \\copy (${variant})`, facts.nodes, facts.edges);
  add(`postgres import floor-${variant}`, { seconds, phases, size: facts.size, peakRss });
  await cluster!.admin(`DROP DATABASE ${name}`);
}

async function postgresWgaLoad(rep: number): Promise<void> {
  const name = database(rep, 'wga');
  await cluster!.admin('CHECKPOINT');
  sync();
  const offset = cluster!.logSince(0).end;
  const result = child(['postgres-load', cluster!.url(name)]);
  check('wga PostgreSQL load-back', result.nodes, result.edges);
  const server = serverPhases(offset, name);
  const serverTotal = Object.values(server).reduce((a, b) => a + b, 0);
  const build = result.phases.build ?? 0;
  const phases: Record<string, number> = {
    ...Object.fromEntries(Object.entries(server).map(([phase, s]) => [`server: ${phase}`, s])),
    'buildFromEdges (CSR and transpose)': build,
    'client outside statements, besides the build': result.total - serverTotal - build,
  };
  add('postgres load wga', { seconds: result.total, phases, peakRss: result.peakRss });
}

async function postgresFloorLoad(rep: number): Promise<void> {
  const name = database(rep, 'wga');
  await cluster!.admin('CHECKPOINT');
  sync();
  const offset = cluster!.logSince(0).end;
  const { seconds, peakRss } = run(join(cluster!.bin, 'psql'), cluster!.psqlArgs(name), POSTGRES_LOAD_SCRIPT);
  const server = serverPhases(offset, name);
  add('postgres load floor', { seconds, phases: Object.fromEntries(Object.entries(server).map(([phase, s]) => [`server: ${phase}`, s])), peakRss });
}

// ---------------------------------------------------------------- setup

function findSqlite3(): string | string[] {
  const which = (): string | null => {
    const result = spawnSync('sh', ['-c', 'command -v sqlite3'], { encoding: 'utf8' });
    return result.status === 0 ? result.stdout.trim() : null;
  };
  const found = which();
  if (found !== null) return found;
  if (process.env.WGA_BENCH_NO_INSTALL === '1') return ['the sqlite3 shell is not installed (WGA_BENCH_NO_INSTALL=1: not installing it)'];
  progress('installing the sqlite3 shell: apt-get update && apt-get install -y sqlite3');
  const install = spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3'], { stdio: 'inherit' });
  const again = install.status === 0 ? which() : null;
  return again ?? ['the sqlite3 shell could not be installed with apt-get'];
}

/** Runs the tasks in an order rotated by `rep`. */
async function rotated(rep: number, tasks: Array<() => void | Promise<void>>): Promise<void> {
  for (let i = 0; i < tasks.length; i++) await tasks[(i + rep) % tasks.length]!();
}

// ---------------------------------------------------------------- report

const seconds = (value: number | undefined): string => (value === undefined ? '—' : `${value.toFixed(2)} s`);
const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? '—' : `**${(a / b).toFixed(2)}**`);
const mb = (value: number | undefined): string => (value === undefined ? '—' : `${(value / 1e6).toFixed(0)} MB`);

function phaseTable(title: string, columns: Array<[string, string]>): string[] {
  const names: string[] = [];
  for (const [, key] of columns) for (const sample of samples.get(key) ?? []) for (const name of Object.keys(sample.phases)) if (!names.includes(name)) names.push(name);
  if (names.length === 0) return [];
  const lines = [`${title}`, '', `| phase | ${columns.map(([label]) => label).join(' | ')} |`, `|---|${columns.map(() => '---:|').join('')}`];
  for (const name of names) {
    lines.push(`| ${name} | ${columns.map(([, key]) => seconds(med(key, (s) => s.phases[name]))).join(' | ')} |`);
  }
  lines.push(`| **total** | ${columns.map(([, key]) => `**${seconds(med(key))}**`).join(' | ')} |`, '');
  return lines;
}

function report(options: Options, versions: string[], skipped: string[]): string {
  const lines: string[] = [];
  lines.push(
    `cnr-2000: ${files.nodes.toLocaleString('en-US')} pages, ${files.edges.toLocaleString('en-US')} links; medians of ${options.runs} interleaved repetitions`,
    `${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB; ${versions.join('; ')}`,
    '',
  );
  for (const reason of skipped) lines.push(`SKIPPED: ${reason}`, '');
  lines.push('| backend | step | wga | floor | wga / floor | other floor | wga / other floor |', '|---|---|---:|---|---:|---|---:|');
  const row = (backend: string, step: string, wga: string, floor: string, floorLabel: string, other?: string, otherLabel?: string): void => {
    if (!samples.has(wga)) return;
    const a = med(wga);
    const b = med(floor);
    const c = other === undefined ? undefined : med(other);
    lines.push(
      `| ${backend} | ${step} | ${seconds(a)} | ${seconds(b)} ${floorLabel} | ${ratio(a, b)} | ${other === undefined ? '' : `${seconds(c)} ${otherLabel}`} | ${other === undefined ? '' : ratio(a, c)} |`,
    );
  };
  row('SQLite', 'import', 'sqlite import wga', 'sqlite import floor-same', '`.import`, links_target dropped and rebuilt as wga does', 'sqlite import floor-indexed', '`.import`, every index in place');
  row('SQLite', 'load-back', 'sqlite load wga', 'sqlite load floor', '`sqlite3` SELECT to /dev/null');
  row('PostgreSQL', 'import', 'postgres import wga', 'postgres import floor-same', '`\\copy`, wga\'s drop/copy/rebuild sequence', 'postgres import floor-constrained', '`\\copy`, every key, index and foreign key in place');
  row('PostgreSQL', 'load-back', 'postgres load wga', 'postgres load floor', '`\\copy (SELECT ...) TO /dev/null`');
  lines.push('');
  lines.push('| size and memory | wga | floor |', '|---|---:|---:|');
  if (samples.has('sqlite import wga')) {
    lines.push(`| SQLite file after import | ${mb(med('sqlite import wga', (s) => s.size))} | ${mb(med('sqlite import floor-same', (s) => s.size))} |`);
    lines.push(
      `| SQLite import, peak RSS (wga: the child, ${mb(med('sqlite import wga', (s) => s.rssBefore))} of it from reading cnr-2000 first; floor: sqlite3) | ${mb(med('sqlite import wga', (s) => s.peakRss))} | ${mb(med('sqlite import floor-same', (s) => s.peakRss))} |`,
    );
    lines.push(`| SQLite load-back, peak RSS | ${mb(med('sqlite load wga', (s) => s.peakRss))} | ${mb(med('sqlite load floor', (s) => s.peakRss))} |`);
  }
  if (samples.has('postgres import wga')) {
    lines.push(
      `| PostgreSQL database after import (pg_database_size; floor: same sequence / constrained) | ${mb(med('postgres import wga', (s) => s.size))} | ${mb(med('postgres import floor-same', (s) => s.size))} / ${mb(med('postgres import floor-constrained', (s) => s.size))} |`,
    );
    lines.push(
      `| PostgreSQL import, peak RSS of the client (wga: ${mb(med('postgres import wga', (s) => s.rssBefore))} of it from reading cnr-2000 first; floor: psql) | ${mb(med('postgres import wga', (s) => s.peakRss))} | ${mb(med('postgres import floor-same', (s) => s.peakRss))} |`,
    );
    lines.push(`| PostgreSQL load-back, peak RSS of the client | ${mb(med('postgres load wga', (s) => s.peakRss))} | ${mb(med('postgres load floor', (s) => s.peakRss))} |`);
  }
  lines.push('');
  lines.push(...phaseTable('SQLite import, by phase (medians; a phase\'s median is not a share of the total\'s)', [['wga', 'sqlite import wga']]));
  lines.push(
    ...phaseTable('SQLite import floors, by phase', [
      ['same sequence', 'sqlite import floor-same'],
      ['indexes in place', 'sqlite import floor-indexed'],
    ]),
  );
  lines.push(...phaseTable('SQLite load-back, by phase', [['wga', 'sqlite load wga']]));
  lines.push(
    ...phaseTable('PostgreSQL import, by phase ("server:" = statement durations from the server log; a COPY FROM STDIN lasts as long as its client sends rows)', [
      ['wga', 'postgres import wga'],
      ['psql, same sequence', 'postgres import floor-same'],
      ['psql, constraints in place', 'postgres import floor-constrained'],
    ]),
  );
  lines.push(
    ...phaseTable('PostgreSQL load-back, by phase (a COPY TO STDOUT lasts as long as its client takes the rows)', [
      ['wga', 'postgres load wga'],
      ['psql', 'postgres load floor'],
    ]),
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

const options = parseOptions(process.argv.slice(2));
const work = mkdtempSync(join(tmpdir(), 'wga-bench-store-'));
let files: FloorFiles;
let sqlite3: string | null = null;
let cluster: Cluster | null = null;
const skipped: string[] = [];
const versions: string[] = [];

try {
  progress(`reading ${cnr}`);
  {
    const { graph } = await loadGraph(cnr);
    files = await writeFloorFiles(graph, work);
  }
  if (options.backends.includes('sqlite')) {
    const found = findSqlite3();
    if (typeof found === 'string') {
      sqlite3 = found;
      versions.push(`sqlite3 shell ${execFileSync(sqlite3, ['--version'], { encoding: 'utf8' }).split(' ')[0]}`);
    } else skipped.push(`SQLite floor: ${found[0]}`);
    const db = new Database(':memory:');
    versions.push(`better-sqlite3's SQLite ${db.prepare('SELECT sqlite_version()').pluck().get() as string}`);
    db.close();
  }
  if (options.backends.includes('postgres')) {
    const started = await startCluster();
    if (typeof started === 'string') skipped.push(`PostgreSQL: ${started}`);
    else {
      cluster = started;
      versions.push(`${cluster.version} (fsync on, server defaults otherwise)`);
    }
  }
  for (let rep = 0; rep < options.runs; rep++) {
    progress(`repetition ${rep + 1} of ${options.runs}`);
    if (options.backends.includes('sqlite')) {
      await rotated(rep, [
        () => sqliteWgaImport(rep),
        ...(sqlite3 === null ? [] : (['same', 'indexed'] as const).map((variant) => () => sqliteFloorImport(rep, variant))),
      ]);
      await rotated(rep, [() => sqliteWgaLoad(rep), ...(sqlite3 === null ? [] : [() => sqliteFloorLoad(rep)])]);
      removeSqlite(sqliteFile(`wga-${rep}`));
    }
    if (cluster !== null) {
      await rotated(rep, [
        () => postgresWgaImport(rep),
        ...(['same', 'constrained'] as const).map((variant) => () => postgresFloorImport(rep, variant)),
      ]);
      await rotated(rep, [() => postgresWgaLoad(rep), () => postgresFloorLoad(rep)]);
      await cluster.admin(`DROP DATABASE ${database(rep, 'wga')}`);
    }
  }
  const text = report(options, versions, skipped);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${text}\n`);
  console.log(text);
  progress(`\n(written to ${options.out})`);
} finally {
  if (cluster !== null) await cluster.stop();
  rmSync(work, { recursive: true, force: true });
}
