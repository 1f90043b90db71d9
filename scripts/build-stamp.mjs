// The build's stamp: a digest of everything `npm run build` reads (the TypeScript sources, the GUI,
// the build scripts and configuration, the lock file that pins the compilers), kept in
// dist/.build-stamp when a build ends.
//
//   node scripts/build-stamp.mjs --write     after a build: records the digest
//   node scripts/build-stamp.mjs --prepare   npm's `prepare` and npm test's first step: builds only
//                                            when dist/ is not the build of these sources (a build
//                                            starts from an empty dist/, so no compiled file of a
//                                            deleted source survives it)
//
// Why `prepare` checks first: `npm ci` runs it (a full build), and npm 11's `npx wga` in a clone
// installs the clone into npx's cache, which runs it again. A second full build there took 16 s, and a
// first `npx wga` interrupted during it left npx's cache broken for every later call (npm writes
// the cache's package.json only once the install ends). With the stamp, that install takes well
// under a second and builds nothing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stampPath = join(root, 'dist', '.build-stamp');
/** What the build reads: folders walked (every file), and single files. */
const INPUT_DIRS = ['src', 'test', 'bench', 'scripts', 'web'];
const INPUT_FILES = ['tsconfig.json', 'package.json', 'package-lock.json'];
/** Folders inside those that the build does not read. */
const SKIPPED = new Set(['node_modules', '.cache']);

function walk(dir, files) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, files);
    else if (entry.isFile()) files.push(path);
  }
}

/** The digest of the build's inputs: their paths and contents, in a fixed order. */
export function sourceDigest() {
  const files = [];
  for (const dir of INPUT_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir), files);
  for (const file of INPUT_FILES) if (existsSync(join(root, file))) files.push(join(root, file));
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(root, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Whether dist/ holds the build of the sources as they are now. */
function upToDate() {
  if (!existsSync(stampPath) || !existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) return false;
  return readFileSync(stampPath, 'utf8').trim() === sourceDigest();
}

const mode = process.argv[2];
if (mode === '--write') {
  if (!statSync(join(root, 'dist')).isDirectory()) throw new Error('build-stamp: no dist/ to stamp');
  writeFileSync(stampPath, `${sourceDigest()}\n`);
} else if (mode === '--prepare') {
  if (upToDate()) {
    console.log('dist/ is the build of these sources: not built again (scripts/build-stamp.mjs)');
  } else {
    const npm = process.env.npm_execpath;
    // npm's own entry point when npm runs us (prepare), else the npm on PATH.
    const result = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit', cwd: root }) : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', cwd: root, shell: process.platform === 'win32' });
    process.exitCode = result.status ?? 1;
  }
} else {
  console.error('usage: node scripts/build-stamp.mjs --write | --prepare');
  process.exitCode = 2;
}
