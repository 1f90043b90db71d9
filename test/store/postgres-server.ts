/**
 * A throwaway PostgreSQL cluster for the tests: initdb in a temporary
 * directory owned by the postgres user (the server refuses to run as root),
 * listening on 127.0.0.1 and a socket in that directory, stopped and deleted
 * at the end. Each test store gets a database of its own.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestServer {
  url(database: string): string;
  createDatabase(): Promise<string>;
  stop(): void;
  /** Stops the server (its data kept): `fast` ends the sessions cleanly, `immediate` as a crash would. */
  halt(mode?: 'fast' | 'immediate'): void;
  /** Starts it again on the same port after halt(). */
  restart(): void;
  /** Freezes every process of the server (SIGSTOP): it accepts connections and answers nothing. */
  pause(): void;
  /** Thaws it (SIGCONT). */
  resume(): void;
}

/** The newest installed PostgreSQL's bin directory (Debian layout), or null. */
export function postgresBinaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'initdb'))) return join(root, version, 'bin');
  return null;
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts a cluster, or returns why it cannot, on one line (not installed, or
 * failing to start). As root the server runs as the postgres user (it refuses
 * to run as root); otherwise as the current user.
 */
export async function startTestServer(): Promise<TestServer | string> {
  const bin = postgresBinaries();
  if (bin === null) return 'PostgreSQL is not installed (apt-get install postgresql)';
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'wga-pg-'));
  const data = join(dir, 'data');
  const asPostgres = (command: string, args: string[]): string =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      : execFileSync(join(bin, command), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  let port: number;
  let start = (): unknown => undefined;
  try {
    if (asRoot) {
      chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()));
    }
    port = await freePort();
    asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    start = () => asPostgres('pg_ctl', ['-D', data, '-o', `-k ${dir} -c listen_addresses=127.0.0.1 -p ${port} -c fsync=off`, '-l', join(dir, 'log'), '-w', 'start']);
    start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: string }).stderr;
    const why = (stderr !== undefined && stderr.trim() !== '' ? stderr : (error as Error).message).trim().split('\n').slice(-1)[0];
    return `PostgreSQL (${bin}) is installed but a throwaway cluster would not start: ${why}`;
  }
  let next = 0;
  const url = (database: string): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
  // The postmaster (first line of postmaster.pid) and every backend it started.
  const signalServer = (signal: NodeJS.Signals): void => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // Its children from /proc (field 4 of /proc/PID/stat is the parent), so that no procps is needed.
    const children = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    for (const pid of [postmaster, ...children]) process.kill(pid, signal);
  };
  return {
    url,
    createDatabase: async () => {
      const name = `wga_test_${process.pid}_${next++}`;
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return url(name);
    },
    halt: (mode = 'fast') => {
      asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    },
    restart: () => {
      start();
    },
    pause: () => signalServer('SIGSTOP'),
    resume: () => signalServer('SIGCONT'),
    stop: () => {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
