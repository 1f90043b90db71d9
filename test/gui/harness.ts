/**
 * What the browser tests (test/gui), the screenshots script and the GUI benchmark share: Debian's
 * Chromium driven by playwright-core (headless, --no-sandbox), `wga serve` started on loopback
 * with a free port, and `wga` commands run as the user would run them.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { cliPath } from '../helpers.js';

/** The Chromium the tests drive: $WGA_CHROMIUM, else Debian's. */
export const chromiumPath = process.env.WGA_CHROMIUM ?? '/usr/bin/chromium';

/** CI sets WGA_REQUIRE_BROWSER=1: a missing Chromium then fails the run instead of skipping. */
export const browserRequired = process.env.WGA_REQUIRE_BROWSER === '1';

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(chromiumPath) ? null : `no Chromium at ${chromiumPath} (apt-get install chromium, or set WGA_CHROMIUM)`;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-extensions'],
    timeout: 120_000,
  });
}

export interface RunningServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  origin: string;
  process: ChildProcess;
  /** Everything the server wrote on stderr (for failure messages). */
  stderr: () => string;
  close(): Promise<void>;
}

/** Starts `wga serve --db STORE --port 0` and waits for its first line, `listening on http://HOST:PORT/`. */
export function startServer(db: string, extra: readonly string[] = []): Promise<RunningServer> {
  return startServe(['--db', db, ...extra]);
}

/** Starts `wga serve --graph G.wgc --port 0` (a compact graph file instead of a store). */
export function startGraphFileServer(graph: string): Promise<RunningServer> {
  return startServe(['--graph', graph]);
}

async function startServe(args: readonly string[]): Promise<RunningServer> {
  const child = spawn(process.execPath, [cliPath, 'serve', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    errors = (errors + chunk).slice(-20_000);
  });
  const lines = createInterface({ input: child.stdout! });
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wga serve did not start within 120 s: ${errors}`)), 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`wga serve exited with ${code}: ${errors}`));
    });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const match = /^listening on (http:\/\/[^/\s]+)\/?$/.exec(line.trim());
      if (match === null) reject(new Error(`unexpected first line of wga serve: ${line}`));
      else resolve(match[1]!);
    });
  });
  lines.on('line', () => undefined);
  return {
    origin,
    process: child,
    stderr: () => errors,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const run = promisify(execFile);

/** Runs `wga ARGS...` and parses its --json output. */
export async function wgaJson<T>(args: readonly string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [cliPath, ...args, '--json'], { maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
  return JSON.parse(stdout) as T;
}

/** Runs `wga ARGS...` for its effect. */
export async function wga(args: readonly string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [cliPath, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
  return stdout;
}

/** Polls `condition` every `everyMs` (100) until it holds, at most `ms` (bounded, never a timed assert). */
export async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string, everyMs = 100): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > end) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
