/** Paths and small utilities shared by the tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from dist/test/...). */
export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** ../shared/data beside the repository, or $WGA_SHARED/data. */
export function sharedData(...parts: string[]): string {
  const shared = process.env.WGA_SHARED ?? resolve(repoRoot, '../shared');
  return join(shared, 'data', ...parts);
}

export const cliPath = join(repoRoot, 'dist/src/cli/main.js');

/** A fresh temporary directory, removed by the returned cleanup. */
export function temporaryDirectory(): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'wga-test-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** True when CI asked that tests depending on outside tools never skip. */
export const oraclesRequired = process.env.WGA_REQUIRE_ORACLES === '1';

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
