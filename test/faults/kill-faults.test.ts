/**
 * Fault injection: `wga import` and `wga export` killed with SIGKILL in their middle. The store
 * stays what it was before the import (one transaction), the export leaves no file that looks
 * whole (it writes FILE.partial and renames it when done) and an earlier export as it was; run
 * again, each gives what an undisturbed run gives.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cliPath, temporaryDirectory } from '../helpers.js';
import { runCli } from '../crawl/crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());

/** A graph of `n` pages with a few million links: big enough to be killed in the middle of. */
function writeBigEdgeList(path: string, n: number, perNode: number): number {
  let state = 12345;
  const random = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const lines: string[] = [];
  let links = 0;
  for (let u = 0; u < n; u++) {
    const targets = new Set<number>();
    for (let k = 0; k < perNode; k++) targets.add(Math.floor(random() * n));
    targets.delete(u);
    for (const v of targets) lines.push(`http://h${u % 97}.example/p${u}\thttp://h${v % 97}.example/p${v}`);
    links += targets.size;
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return links;
}

/** Runs `wga ...args` and kills it with SIGKILL once `ready()` holds (checked every 5 ms, at most 60 s). */
function killWhen(args: string[], ready: () => boolean): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const started = Date.now();
    const timer = setInterval(() => {
      if (ready() || Date.now() - started > 60_000) {
        clearInterval(timer);
        child.kill('SIGKILL');
      }
    }, 5);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(timer);
      resolve({ code, signal, stderr });
    });
  });
}

/**
 * Pages of the big graph (8 links each, about 480,000 links): large enough that the import's
 * journal passes 1 MB and the GraphML export 8 MB (the kill points) well before either ends.
 */
const PAGES = 60_000;

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('killed in the middle (SIGKILL)', () => {
  const edges = join(dir.path, 'big.tsv');
  const small = join(dir.path, 'small.tsv');
  let links = 0;

  it('import: the store keeps what it held before; importing again gives the store a clean import gives', { timeout: 300_000 }, async (t) => {
    links = writeBigEdgeList(edges, PAGES, 8);
    writeFileSync(small, 'http://a.example/\thttp://b.example/\nhttp://b.example/\thttp://a.example/\n');
    const db = join(dir.path, 'killed.db');
    assert.equal((await runCli(['import', small, '--db', db])).code, 0);
    // Killed once the import's transaction has written a first megabyte into the store's journal.
    const wal = `${db}-wal`;
    const killed = await killWhen(['import', edges, '--db', db], () => existsSync(wal) && statSync(wal).size > 1 << 20);
    assert.equal(killed.signal, 'SIGKILL', `the import ended by itself before it could be killed: ${killed.stderr}`);
    const stats = await runCli(['stats', '--db', db, '--json']);
    assert.equal(stats.code, 0, stats.stderr);
    const counts = JSON.parse(stats.stdout) as { nodes: number; edges: number };
    // One transaction: the store holds what it held before, or (killed between the commit and the
    // exit, on a slow machine) all of it; never a part.
    const untouched = counts.nodes === 2 && counts.edges === 2;
    const whole = counts.nodes === PAGES + 2 && counts.edges === links + 2;
    assert.ok(untouched || whole, `the store holds ${counts.nodes} pages and ${counts.edges} links: a part of the import`);
    t.diagnostic(untouched ? 'killed before the commit: the store is as before' : 'killed after the commit: the store holds the whole import');
    // Import again; the store equals one into which both files were imported undisturbed.
    const again = await runCli(['import', edges, '--db', db, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const clean = join(dir.path, 'clean.db');
    assert.equal((await runCli(['import', small, '--db', clean])).code, 0);
    assert.equal((await runCli(['import', edges, '--db', clean])).code, 0);
    const exports = [];
    for (const store of [db, clean]) {
      const out = join(dir.path, `${store === db ? 'killed' : 'clean'}.edges`);
      const result = await runCli(['export', '--db', store, '--format', 'tsv', '--out', out]);
      assert.equal(result.code, 0, result.stderr);
      exports.push(sha256(out));
    }
    assert.equal(exports[0], exports[1], 'the same graph, byte for byte');
    const final = JSON.parse((await runCli(['stats', '--db', db, '--json'])).stdout) as { edges: number };
    assert.equal(final.edges, links + 2);
  });

  it('export: no file that looks whole, an earlier export untouched; exporting again gives the undisturbed export', { timeout: 300_000 }, async () => {
    const db = join(dir.path, 'exported.db');
    if (!existsSync(edges)) writeBigEdgeList(edges, PAGES, 8);
    assert.equal((await runCli(['import', edges, '--db', db])).code, 0);
    const out = join(dir.path, 'graph.graphml');
    // An earlier, finished export of the same store.
    assert.equal((await runCli(['export', '--db', db, '--format', 'graphml', '--out', out])).code, 0);
    const earlier = sha256(out);
    const partial = `${out}.partial`;
    const killed = await killWhen(['export', '--db', db, '--format', 'graphml', '--out', out], () => existsSync(partial) && statSync(partial).size > 8 << 20);
    assert.equal(killed.signal, 'SIGKILL', `the export ended by itself before it could be killed: ${killed.stderr}`);
    assert.equal(sha256(out), earlier, 'the earlier export is as it was');
    // What is left is named as unfinished; the next export replaces it.
    assert.ok(existsSync(partial));
    const again = await runCli(['export', '--db', db, '--format', 'graphml', '--out', out]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(sha256(out), earlier, 'exporting again gives the undisturbed export');
    assert.deepEqual(readdirSync(dir.path).filter((f) => f.endsWith('.partial')), []);
  });
});
