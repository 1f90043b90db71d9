/**
 * Where the crawl benchmark's files are, wherever tsc put the build: the
 * repository is the first directory above the compiled file that holds
 * wga's package.json and this benchmark's source (dist/bench/... or another
 * --outDir inside the checkout).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function findRepoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let directory = from;
  for (let depth = 0; depth < 32; depth++) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && existsSync(join(directory, 'bench/crawl.ts'))) {
      try {
        if (['wga', 'web-graph-analyzer'].includes((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name ?? '')) return directory;
      } catch {
        // Not a readable manifest: keep looking up.
      }
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  throw new Error(`no wga package.json above ${from}`);
}

/** The compiled bench/crawl/ directory (its serve, bare and crawlee scripts). */
export const compiledCrawlDir = dirname(fileURLToPath(import.meta.url));
/** The wga command line of the same build as this file. */
export const compiledCli = join(compiledCrawlDir, '../../src/cli/main.js');

/** Crawlee's installation (bench/crawl/crawlee.ts): bench/crawlee/, or WGA_CRAWLEE_DIR. */
export function crawleeDir(): string {
  return process.env.WGA_CRAWLEE_DIR ?? join(findRepoRoot(), 'bench/crawlee');
}

/** Path of page n of the wide site (serve.ts): about as long as a real site's paths. */
export function widePath(n: number): string {
  return n === 0 ? '/' : `/catalogue/item-${n}/details.html`;
}
