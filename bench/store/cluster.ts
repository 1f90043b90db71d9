/**
 * A throwaway PostgreSQL cluster for the store benchmark, started as
 * test/store/postgres-server.ts starts the tests' one (initdb in a temporary
 * directory owned by the postgres user, pg_ctl, a socket in that directory,
 * 127.0.0.1 and a free port), but with the server's default durability
 * (fsync, synchronous_commit and full_page_writes on, wal_level replica: what
 * an installed server has, where the tests turn fsync off) and every
 * statement's duration logged (log_min_duration_statement = 0, with the
 * database's name in each line), so that the benchmark can split an import
 * into the statements it ran, for wga and for psql alike.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, postgresBinaries } from '../../test/store/postgres-server.js';

export interface Cluster {
  /** The PostgreSQL bin directory (psql, pg_ctl...). */
  bin: string;
  version: string;
  port: number;
  url(database: string): string;
  /** psql arguments that connect to a database. */
  psqlArgs(database: string): string[];
  /** Runs SQL on the maintenance database (CREATE DATABASE, CHECKPOINT...). */
  admin(sql: string): Promise<pg.QueryResult>;
  /** The server log from byte `offset` on, and the offset of its end. */
  logSince(offset: number): { text: string; end: number };
  stop(): Promise<void>;
}

/** Starts a cluster, or returns why it cannot. */
export async function startCluster(): Promise<Cluster | string> {
  const bin = postgresBinaries();
  if (bin === null) return 'PostgreSQL is not installed (apt-get install postgresql)';
  const dir = mkdtempSync(join(tmpdir(), 'wga-bench-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  const asPostgres = (command: string, args: string[]): string =>
    execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, id('-u'), id('-g'));
  const port = await freePort();
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const settings = [
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    `-p ${port}`,
    '-c log_min_duration_statement=0',
    // %m: time with milliseconds; [%d]: the database, so each measurement's statements can be told apart.
    "-c log_line_prefix='%m [%d] '",
  ];
  asPostgres('pg_ctl', ['-D', data, '-o', settings.join(' '), '-l', log, '-w', 'start']);
  const url = (database: string): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
  return {
    bin,
    version,
    port,
    url,
    psqlArgs: (database) => ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database],
    admin: async (sql) => {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end();
      }
    },
    logSince: (offset) => {
      const bytes = readFileSync(log);
      return { text: bytes.subarray(offset).toString('utf8'), end: bytes.length };
    },
    stop: async () => {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** What the statements of one database took, by phase, from the log's "duration:" lines (seconds). */
export function statementPhases(logText: string, database: string): Map<string, number> {
  const phases = new Map<string, number>();
  const line = /^\S+ \S+ \S+ \[([^\]]*)\] LOG:  duration: ([\d.]+) ms  (?:statement|parse [^:]*|bind [^:]*|execute [^:]*): (.*)$/;
  for (const text of logText.split('\n')) {
    const match = line.exec(text);
    if (match === null || match[1] !== database) continue;
    const phase = classify(match[3]!);
    phases.set(phase, (phases.get(phase) ?? 0) + Number(match[2]) / 1000);
  }
  return phases;
}

function classify(sql: string): string {
  // psql's \copy sends "COPY  pages ( id, ... ) FROM STDIN": spaces vary.
  if (/^COPY\s+pages\b/.test(sql)) return 'COPY pages';
  if (/^COPY\s+links\b/.test(sql)) return 'COPY links';
  if (/^COPY\s*\(\s*SELECT id, url FROM pages/.test(sql)) return 'COPY pages out';
  if (/^COPY\s*\(\s*SELECT source, target FROM links/.test(sql)) return 'COPY links out';
  if (/ADD CONSTRAINT links_pkey/.test(sql)) return 'links primary key';
  if (/^CREATE INDEX links_target/.test(sql)) return 'links_target index';
  if (/ADD CONSTRAINT links_source_fkey/.test(sql)) return 'foreign keys';
  if (/^COMMIT/.test(sql)) return 'commit';
  return 'other statements';
}
