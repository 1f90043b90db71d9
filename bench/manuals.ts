import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The real manuals the crawl benchmarks read, from Debian's documentation packages. */
export const MANUALS = {
  pgdoc: { dir: process.env.WGA_PGDOC_DIR ?? '/usr/share/doc/postgresql-doc-15/html', start: 'index.html', label: 'PostgreSQL 15 manual' },
  // Debian's libstdc++-12-doc puts the manual under gcc-12-base's directory.
  libstdcxx: {
    dir: ['/usr/share/doc/gcc-12-base/libstdc++', '/usr/share/doc/libstdc++-12-doc/html'].find((d) => existsSync(join(d, 'index.html'))) ?? '/usr/share/doc/gcc-12-base/libstdc++',
    start: 'index.html',
    label: 'libstdc++ manual',
  },
} as const;

export type ManualName = keyof typeof MANUALS;

/** The manual a --site value names, or an error naming the choices. */
export function manualNamed(name: string): (typeof MANUALS)[ManualName] {
  if (!Object.hasOwn(MANUALS, name)) throw new Error(`--site: ${Object.keys(MANUALS).join(' or ')}, not ${name}`);
  return MANUALS[name as ManualName];
}

/** The paths of a manual's HTML files, in its subdirectories too. */
export function htmlFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...htmlFiles(path));
    else if (/\.html?$/.test(name)) files.push(path);
  }
  return files;
}
