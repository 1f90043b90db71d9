/**
 * One wga store measurement in a fresh process (so that its peak resident set
 * is its own), spawned by bench/store.ts; prints one JSON line.
 *
 *   node dist/bench/store/child.js sqlite-import GRAPH FILE   fresh SQLite file: open, importGraph, close
 *   node dist/bench/store/child.js sqlite-load FILE           open, loadGraph, close
 *   node dist/bench/store/child.js postgres-import GRAPH URL  empty database: open (migrations), importGraph, close
 *   node dist/bench/store/child.js postgres-load URL          open, loadGraph, close
 *
 * Phases are timed without touching src/: light hooks mark when wga's own
 * code reaches a point (better-sqlite3's prepare and exec, which the store
 * calls a handful of times; the first run of the page and link INSERT
 * statements, after which the hook removes itself; pg's Pool.connect; the
 * first read of EdgeBuffer.chunkCount, which is where buildFromEdges starts).
 * None of them is on a per-row path once it has fired.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadGraph } from '../../src/formats/load.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';

export interface ChildResult {
  /** Seconds from open to close, both included. */
  total: number;
  /** Seconds by phase, in order. */
  phases: Record<string, number>;
  nodes: number;
  edges: number;
  /** Peak resident set of the process (bytes). */
  peakRss: number;
  /** Peak resident set before the measured work (after reading cnr-2000 for an import). */
  rssBefore: number;
  /** Wall-clock time (ms since the epoch) when the measured work started and ended, to match the server log. */
  startedAt: number;
  endedAt: number;
}

const marks = new Map<string, number>();
const mark = (name: string): void => {
  if (!marks.has(name)) marks.set(name, performance.now());
};

function hookSqlite(): void {
  const prototype = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const prepare = prototype.prepare!;
  const exec = prototype.exec!;
  prototype.prepare = function (this: unknown, ...args: unknown[]) {
    const sql = String(args[0]);
    if (sql.startsWith('SELECT 1 FROM pages LIMIT 1')) mark('transaction');
    else if (sql.startsWith('SELECT id FROM pages ORDER BY id')) mark('ids');
    else if (sql.startsWith('SELECT count(*) FROM links')) mark('count');
    else if (sql.startsWith('SELECT source FROM links')) mark('source column');
    else if (sql.startsWith('SELECT target FROM links')) mark('target column');
    const statement = prepare.apply(this, args) as Record<string, unknown>;
    const first = (name: string): void => {
      const run = statement.run as (...a: unknown[]) => unknown;
      statement.run = (...a: unknown[]) => {
        mark(name);
        delete statement.run;
        return run.apply(statement, a);
      };
    };
    if (sql.startsWith('INSERT INTO pages (id, url, url_key, host)')) first('pages');
    else if (sql.startsWith('INSERT OR IGNORE INTO links')) first('links');
    return statement;
  };
  prototype.exec = function (this: unknown, ...args: unknown[]) {
    const sql = String(args[0]);
    const index = sql.startsWith('CREATE INDEX links_target') && marks.has('links');
    if (index) mark('links_target index');
    const result = exec.apply(this, args);
    if (index) mark('index built');
    return result;
  };
}

function hookPostgres(): void {
  const prototype = pg.Pool.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const connect = prototype.connect!;
  prototype.connect = function (this: unknown, ...args: unknown[]) {
    if (marks.has('opened')) mark('connect');
    return connect.apply(this, args);
  };
}

function hookBuild(): void {
  const descriptor = Object.getOwnPropertyDescriptor(EdgeBuffer.prototype, 'chunkCount')!;
  Object.defineProperty(EdgeBuffer.prototype, 'chunkCount', {
    ...descriptor,
    get(this: EdgeBuffer) {
      mark('build');
      return descriptor.get!.call(this);
    },
  });
}

/** Durations between consecutive marks, named after the mark that starts each one. */
function phases(order: string[]): Record<string, number> {
  const present = order.filter((name) => marks.has(name));
  const result: Record<string, number> = {};
  for (let i = 0; i + 1 < present.length; i++) result[present[i]!] = (marks.get(present[i + 1]!)! - marks.get(present[i]!)!) / 1000;
  return result;
}

async function main(): Promise<void> {
  const [operation, ...args] = process.argv.slice(2);
  hookSqlite();
  hookPostgres();
  hookBuild();
  let nodes = 0;
  let edges = 0;
  let order: string[];
  let rssBefore: number;
  let startedAt: number;
  switch (operation) {
    case 'sqlite-import':
    case 'postgres-import': {
      const { graph } = await loadGraph(args[0]!);
      rssBefore = process.resourceUsage().maxRSS * 1024;
      marks.clear();
      startedAt = Date.now();
      mark('open');
      const store = operation === 'sqlite-import' ? SqliteStore.open(args[1]!) : await PostgresStore.open(args[1]!);
      mark('opened');
      const report = await store.importGraph(graph);
      mark('close');
      await store.close();
      mark('end');
      nodes = report.pagesAdded;
      edges = report.linksAdded;
      order =
        operation === 'sqlite-import'
          ? ['open', 'opened', 'transaction', 'pages', 'links', 'links_target index', 'index built', 'close', 'end']
          : ['open', 'opened', 'connect', 'close', 'end'];
      break;
    }
    case 'sqlite-load':
    case 'postgres-load': {
      rssBefore = process.resourceUsage().maxRSS * 1024;
      startedAt = Date.now();
      mark('open');
      const store = operation === 'sqlite-load' ? SqliteStore.open(args[0]!, { create: false }) : await PostgresStore.open(args[0]!);
      mark('opened');
      const { graph } = await store.loadGraph();
      mark('close');
      await store.close();
      mark('end');
      nodes = graph.nodeCount;
      edges = graph.edgeCount;
      order =
        operation === 'sqlite-load'
          ? ['open', 'opened', 'ids', 'count', 'source column', 'target column', 'build', 'close', 'end']
          : ['open', 'opened', 'build', 'close', 'end'];
      break;
    }
    default:
      throw new Error(`unknown operation ${operation}`);
  }
  const result: ChildResult = {
    total: (marks.get('end')! - marks.get('open')!) / 1000,
    phases: phases(order),
    nodes,
    edges,
    peakRss: process.resourceUsage().maxRSS * 1024,
    rssBefore,
    startedAt,
    endedAt: Date.now(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
