/** The test helpers' rules: data paths that need nothing beside the clone, and skip-or-fail for outside tools. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cacheDirectory, repoRoot, sharedExtra, testData } from './helpers.js';

const fixture = join(repoRoot, 'dist/test/fixtures/missing-tool.fixture.js');

function runFixture(env: Record<string, string | undefined>): { status: number | null; output: string } {
  // NODE_TEST_CONTEXT would make the child runner report to this one instead of printing.
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  delete childEnv.NODE_TEST_CONTEXT;
  if (env.WGA_REQUIRE_BROWSER === undefined) delete childEnv.WGA_REQUIRE_BROWSER;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', fixture], { encoding: 'utf8', env: childEnv });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe('a test whose outside tool is missing', () => {
  it('is skipped outside CI, with one line saying what is missing and how to install it', () => {
    const { status, output } = runFixture({});
    assert.equal(status, 0, output);
    assert.match(output, /^ok 1 - drives the GUI # SKIP Chromium is not installed \(apt-get install chromium\)$/m);
    assert.match(output, /^# skipped 1$/m);
  });

  it('fails when CI requires the tool (WGA_REQUIRE_BROWSER=1)', () => {
    const { status, output } = runFixture({ WGA_REQUIRE_BROWSER: '1' });
    assert.equal(status, 1, output);
    assert.match(output, /^not ok 1 - drives the GUI$/m);
    assert.match(output, /Chromium is not installed \(apt-get install chromium\) \(required here: WGA_REQUIRE_BROWSER=1\)/);
  });
});

describe('test data paths', () => {
  it('finds the committed data in the repository', () => {
    assert.equal(testData('hollins', 'hollins.edges.txt'), join(repoRoot, 'data', 'hollins', 'hollins.edges.txt'));
    assert.ok(existsSync(testData('oracles', 'published-small-graphs.json')));
  });

  it('takes optional extras from WGA_SHARED only when they are there', () => {
    const saved = process.env.WGA_SHARED;
    try {
      process.env.WGA_SHARED = join(repoRoot, 'no-such-folder');
      assert.equal(sharedExtra('cnr-2000', 'cnr-2000.graph'), null);
      process.env.WGA_SHARED = repoRoot;
      assert.equal(sharedExtra('README.md'), join(repoRoot, 'data', 'README.md'));
    } finally {
      if (saved === undefined) delete process.env.WGA_SHARED;
      else process.env.WGA_SHARED = saved;
    }
  });

  it('caches generated files under WGA_CACHE_DIR when set', () => {
    const saved = process.env.WGA_CACHE_DIR;
    try {
      process.env.WGA_CACHE_DIR = '/some/cache';
      assert.equal(cacheDirectory(), '/some/cache');
    } finally {
      if (saved === undefined) delete process.env.WGA_CACHE_DIR;
      else process.env.WGA_CACHE_DIR = saved;
    }
  });
});
