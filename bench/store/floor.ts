/**
 * The floors of the store benchmark: what each database engine's own bulk
 * tools take for the same work as wga's importGraph and loadGraph.
 *
 * - The input: TSV files of exactly the rows wga writes, with the ids wga
 *   gives (page v -> id v + 1, url = the page's label, url_key and host from
 *   the same keyOfLabel; links in wga's insertion order, source -> target,
 *   kind 0 (anchor), nofollow false).
 * - The schema: the store's own migrations (SQLITE_MIGRATIONS and
 *   POSTGRES_MIGRATIONS from src/store/schema.ts, and the schema_migrations
 *   row), run by the engine's shell in the measured script as wga runs them
 *   in the measured open().
 * - SQLite (`sqlite3` shell): the pragmas wga sets (WAL, synchronous=NORMAL,
 *   foreign_keys=ON, a 64 MB cache), then one transaction like wga's:
 *   `.import` of the pages (through a temporary table, as `.import` has no
 *   column list and the pages table has 15 columns) and of the links, with
 *   links_target dropped and rebuilt at the end as wga does ("same"), or
 *   kept in place throughout ("indexed").
 * - PostgreSQL (`psql`): `\copy` into the same tables, either with wga's own
 *   sequence in one transaction (drop the links' foreign keys, primary key
 *   and links_target, copy, add them back: "same"), or with every key,
 *   index and foreign key in place ("constrained").
 * - Load-back: the same queries wga runs (pages' ids and URLs in id order,
 *   then the links' sources and targets of kinds anchor and redirect), in
 *   one read transaction, written as text to /dev/null by the shell.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Graph } from '../../src/graph/graph.js';
import { keyOfLabel } from '../../src/store/records.js';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from '../../src/store/schema.js';

export interface FloorFiles {
  pages: string;
  /** source, target, kind, nofollow as SQLite stores it (0). */
  sqliteLinks: string;
  /** The same, nofollow as wga sends it to PostgreSQL (f). */
  postgresLinks: string;
  nodes: number;
  edges: number;
}

export type SqliteVariant = 'same' | 'indexed';
export type PostgresVariant = 'same' | 'constrained';

/** Writes lines in 64 KB blocks, waiting when the stream asks to. */
async function writeLines(path: string, count: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(path);
  let block = '';
  for (let i = 0; i < count; i++) {
    block += line(i);
    if (block.length > 1 << 16) {
      if (!out.write(block)) await once(out, 'drain');
      block = '';
    }
  }
  out.end(block);
  await once(out, 'finish');
}

/** Refuses text that the two shells would read differently from what wga stores (tabs, newlines, quotes, backslashes). */
function plain(text: string, what: string): string {
  if (/[\t\n\r\\"\u0000]/.test(text)) throw new Error(`${what} '${text.slice(0, 80)}' needs escaping; this benchmark writes plain TSV only`);
  return text;
}

export async function writeFloorFiles(graph: Graph, dir: string): Promise<FloorFiles> {
  const files = {
    pages: `${dir}/pages.tsv`,
    sqliteLinks: `${dir}/links-sqlite.tsv`,
    postgresLinks: `${dir}/links-postgres.tsv`,
  };
  await writeLines(files.pages, graph.nodeCount, (v) => {
    const url = graph.labels.label(v);
    const { key, host } = keyOfLabel(url);
    return `${v + 1}\t${plain(url, 'URL')}\t${plain(key, 'key')}\t${plain(host, 'host')}\n`;
  });
  // Links in wga's order: by source, then as the graph lists the targets.
  const links = (nofollow: string) => {
    let u = 0;
    return (e: number): string => {
      while (e >= graph.outOffsets[u + 1]!) u++;
      return `${u + 1}\t${graph.outTargets[e]! + 1}\t0\t${nofollow}\n`;
    };
  };
  await writeLines(files.sqliteLinks, graph.edgeCount, links('0'));
  await writeLines(files.postgresLinks, graph.edgeCount, links('f'));
  return { ...files, nodes: graph.nodeCount, edges: graph.edgeCount };
}

/** A line of the sqlite3 script's output marking the time (seconds since the epoch, to the millisecond). */
const mark = (name: string): string => `SELECT 'T', '${name}', (julianday('now') - 2440587.5) * 86400.0;`;

/** The marks a script printed: name -> seconds since the epoch. */
export function parseMarks(output: string): Map<string, number> {
  const marks = new Map<string, number>();
  for (const line of output.split('\n')) {
    const [tag, name, time] = line.split('\t');
    if (tag === 'T' && name !== undefined && time !== undefined) marks.set(name, Number(time));
  }
  return marks;
}

/** The migration as SqliteStore.migrate runs it on a new file. */
function sqliteSchema(): string {
  const statements = SQLITE_MIGRATIONS.flatMap((m) => [...m.statements, `INSERT INTO schema_migrations (version, applied_at) VALUES (${m.version}, 0)`]);
  return [
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL);',
    'BEGIN IMMEDIATE;',
    ...statements.map((s) => `${s};`),
    'COMMIT;',
  ].join('\n');
}

export function sqliteImportScript(files: FloorFiles, variant: SqliteVariant): string {
  const same = variant === 'same';
  return [
    // Printed by the journal_mode pragma: 'wal'.
    '.mode tabs',
    mark('start'),
    'PRAGMA journal_mode = WAL;',
    'PRAGMA synchronous = NORMAL;',
    'PRAGMA foreign_keys = ON;',
    'PRAGMA cache_size = -65536;',
    sqliteSchema(),
    mark('schema'),
    'BEGIN IMMEDIATE;',
    ...(same ? ['DROP INDEX links_target;'] : []),
    'CREATE TEMP TABLE pages_in (id, url, url_key, host);',
    `.import ${files.pages} pages_in`,
    'INSERT INTO pages (id, url, url_key, host) SELECT id, url, url_key, host FROM temp.pages_in;',
    'DROP TABLE temp.pages_in;',
    mark('pages'),
    `.import ${files.sqliteLinks} links`,
    mark('links'),
    ...(same ? ['CREATE INDEX links_target ON links (target, source);', mark('index')] : []),
    'COMMIT;',
    mark('commit'),
    '',
  ].join('\n');
}

export const SQLITE_LOAD_SCRIPT = [
  '.mode tabs',
  '.output /dev/null',
  'BEGIN;',
  'SELECT id, url FROM pages ORDER BY id;',
  'SELECT source, target FROM links WHERE kind IN (0, 1);',
  'COMMIT;',
  '',
].join('\n');

/** The migration as PostgresStore.migrate runs it on a new database. */
function postgresSchema(): string {
  return [
    'BEGIN;',
    'SELECT pg_advisory_xact_lock(7242);',
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL);',
    ...POSTGRES_MIGRATIONS.flatMap((m) => [...m.statements.map((s) => `${s};`), `INSERT INTO schema_migrations (version, applied_at) VALUES (${m.version}, 0);`]),
    'COMMIT;',
  ].join('\n');
}

export function postgresImportScript(files: FloorFiles, variant: PostgresVariant): string {
  const same = variant === 'same';
  return [
    '\\o /dev/null',
    postgresSchema(),
    'BEGIN;',
    'LOCK TABLE pages, links IN SHARE ROW EXCLUSIVE MODE;',
    ...(same
      ? [
          'ALTER TABLE links DROP CONSTRAINT links_source_fkey, DROP CONSTRAINT links_target_fkey;',
          'ALTER TABLE links DROP CONSTRAINT links_pkey;',
          'DROP INDEX links_target;',
        ]
      : []),
    `\\copy pages (id, url, url_key, host) FROM '${files.pages}'`,
    `SELECT setval(pg_get_serial_sequence('pages', 'id'), ${Math.max(1, files.nodes)});`,
    `\\copy links (source, target, kind, nofollow) FROM '${files.postgresLinks}'`,
    ...(same
      ? [
          'ALTER TABLE links ADD CONSTRAINT links_pkey PRIMARY KEY (source, target, kind);',
          'CREATE INDEX links_target ON links (target, source);',
          `ALTER TABLE links ADD CONSTRAINT links_source_fkey FOREIGN KEY (source) REFERENCES pages (id),
                    ADD CONSTRAINT links_target_fkey FOREIGN KEY (target) REFERENCES pages (id);`,
        ]
      : []),
    'COMMIT;',
    '',
  ].join('\n');
}

export const POSTGRES_LOAD_SCRIPT = [
  'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;',
  "\\copy (SELECT id, url FROM pages ORDER BY id) TO '/dev/null'",
  "\\copy (SELECT source, target FROM links WHERE kind IN (0, 1)) TO '/dev/null'",
  'COMMIT;',
  '',
].join('\n');
