/**
 * The site audit (analysis/audit.ts, `wga audit`) on a site with each problem planted on known pages
 * (audit-site.ts): each check lists exactly the planted pages, and no fine page; on SQLite and on
 * PostgreSQL (a shared crawl of two instances). And the text fingerprint: pages differing by one
 * word in 400 are near-duplicates, pages sharing nothing are not (precision and recall 1).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AUDIT_CHECKS, DEFAULT_AUDIT_OPTIONS } from '../../src/analysis/audit.js';
import { fingerprintText, simhashDistance } from '../../src/crawl/text-fingerprint.js';
import { missingToolTest, temporaryDirectory } from '../helpers.js';
import { startTestServer } from '../store/postgres-server.js';
import { type AuditSite, serveAuditSite } from './audit-site.js';
import { runCli } from './crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
const SLOW_MS = 300;

interface AuditJson {
  pages: number;
  checks: Array<{ id: string; count: number; pages: Array<{ url: string; [k: string]: unknown }>; unavailable?: string }>;
}

function crawlArgs(site: AuditSite, db: string): string[] {
  return ['crawl', `${site.origin}/`, '--db', db, '--allow-ip', '127.0.0.1/32', '--delay', '0', '--render', 'never', '-q', '--json'];
}

async function auditOf(db: string, extra: string[] = []): Promise<AuditJson> {
  const run = await runCli(['audit', '--db', db, '--json', '--slow-ms', String(SLOW_MS), ...extra]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as AuditJson;
}

function assertPlanted(report: AuditJson, site: AuditSite): void {
  assert.deepEqual(report.checks.map((c) => c.id), AUDIT_CHECKS);
  for (const check of report.checks) {
    assert.equal(check.unavailable, undefined, check.id);
    const paths = check.pages.map((p) => p.url.slice(site.origin.length)).sort();
    assert.deepEqual(paths, site.planted[check.id], check.id);
    assert.equal(check.count, paths.length);
    for (const fine of site.fine) assert.ok(!paths.includes(fine), `${check.id} lists the fine page ${fine}`);
  }
}

describe('wga audit on a site with planted problems', () => {
  it('lists exactly the planted pages under each check, with their evidence (SQLite)', async () => {
    const site = await serveAuditSite({ slowMs: SLOW_MS });
    try {
      const db = join(dir.path, 'audit.sqlite');
      const crawl = await runCli(crawlArgs(site, db));
      assert.equal(crawl.code, 0, crawl.stderr);
      const report = await auditOf(db);
      assertPlanted(report, site);
      const find = (id: string, path: string): Record<string, unknown> => report.checks.find((c) => c.id === id)!.pages.find((p) => p.url === `${site.origin}${path}`)!;
      // Evidence: who links to a broken page, and how; every hop of a chain; the canonical and its answer.
      assert.deepEqual(find('broken-links', '/missing').linkers, [{ url: `${site.origin}/a`, kind: 'anchor' }]);
      assert.deepEqual(find('broken-links', '/missing2').linkers, [{ url: `${site.origin}/canonbad`, kind: 'canonical' }]);
      const chain = find('redirect-chains', '/r1');
      assert.equal(chain.redirects, 2);
      assert.deepEqual((chain.hops as Array<{ url: string }>).map((h) => h.url.slice(site.origin.length)), ['/r1', '/r2', '/a']);
      assert.equal(find('redirect-chains', '/l1').loop, true);
      assert.equal(find('redirect-chains', '/rb').endsBroken, true);
      assert.equal(find('canonical-broken', '/canonbad').answer, '404');
      assert.equal(find('multiple-h1', '/twoh1').h1Count, 2);
      assert.equal(find('deep', '/d5').depth, 5);
      assert.ok((find('slow', '/slow').responseMs as number) > SLOW_MS);
      // --check picks checks; thresholds move what is found.
      const two = await auditOf(db, ['--check', 'deep,slow', '--max-depth-ok', '4']);
      assert.deepEqual(two.checks.map((c) => [c.id, c.count]), [['deep', 1], ['slow', 1]]);
      // The table names every check; a bad check id is one line, exit 2.
      const table = await runCli(['audit', '--db', db]);
      assert.equal(table.code, 0, table.stderr);
      for (const id of AUDIT_CHECKS) assert.match(table.stdout, new RegExp(`^${id}: `, 'm'));
      // --csv: every page of every check, read back by Python's csv module.
      const csvFile = join(dir.path, 'audit.csv');
      const csv = await runCli(['audit', '--db', db, '--csv', csvFile, '--check', 'broken-links,redirect-chains']);
      assert.equal(csv.code, 0, csv.stderr);
      const python = spawnSync('python3', ['-c', 'import csv,json,sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline="")))))', csvFile], { encoding: 'utf8' });
      assert.equal(python.status, 0, python.stderr);
      const read = JSON.parse(python.stdout) as Array<{ check: string; url: string; evidence: string }>;
      assert.deepEqual(read.map((r) => `${r.check} ${r.url.slice(site.origin.length)}`), [...site.planted['broken-links']!.map((p) => `broken-links ${p}`), ...site.planted['redirect-chains']!.map((p) => `redirect-chains ${p}`)]);
      assert.match(read.find((r) => r.url.endsWith('/missing'))!.evidence, /linked from .*\/a$/);
      const unwritable = await runCli(['audit', '--db', db, '--csv', join(dir.path, 'no-such-dir', 'x.csv')]);
      assert.equal(unwritable.code, 1);
      assert.match(unwritable.stderr, /x\.csv: cannot write the CSV file \(--csv\): ENOENT/);
      // The pages table as CSV (wga export --format csv): one row per page, indexability said.
      const tableFile = join(dir.path, 'pages.csv');
      const exported = await runCli(['export', '--db', db, '--format', 'csv', '--out', tableFile, '-q']);
      assert.equal(exported.code, 0, exported.stderr);
      const tableRead = spawnSync('python3', ['-c', 'import csv,json,sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline="")))))', tableFile], { encoding: 'utf8' });
      const pagesRows = JSON.parse(tableRead.stdout) as Array<Record<string, string>>;
      assert.equal(pagesRows.length, report.pages);
      const row = (path: string): Record<string, string> => pagesRows.find((r) => r.url === `${site.origin}${path}`)!;
      assert.equal(row('/noindex-meta').indexable, 'no: noindex');
      assert.equal(row('/noindex-header').indexable, 'no: noindex');
      assert.equal(row('/canon').indexable, 'no: canonicalised');
      assert.equal(row('/canon').canonical, `${site.origin}/a`);
      assert.equal(row('/twoh1').h1Count, '2');
      assert.equal(row('/missing').indexable, 'no: 404');
      assert.equal(row('/a').indexable, 'yes');
      // 400 words, its h1 (Heading a) and its one link's text (missing).
      assert.equal(row('/a').words, '403');
      const bad = await runCli(['audit', '--db', db, '--check', 'broken-links,typo']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--check: unknown check 'typo'/);
      assert.equal(bad.stderr.trim().split('\n').length, 1);
    } finally {
      await site.close();
    }
  });
});

const postgres = await startTestServer();
if (typeof postgres === 'string') {
  missingToolTest('wga audit of a shared crawl on PostgreSQL', 'postgres', postgres);
} else {
  after(() => postgres.stop());
  describe('wga audit on PostgreSQL', () => {
    it('finds the same pages in a crawl shared by two instances', async () => {
      const site = await serveAuditSite({ slowMs: SLOW_MS });
      try {
        const url = await postgres.createDatabase();
        const crawl = await runCli([...crawlArgs(site, url), '--instances', '2', '--partitions', '4']);
        assert.equal(crawl.code, 0, crawl.stderr);
        assertPlanted(await auditOf(url), site);
      } finally {
        await site.close();
      }
    });
  });
}

describe('the text fingerprint (SimHash)', () => {
  it('puts pages one word in 400 apart within --near-bits (7), and pages sharing nothing far apart: precision and recall 1', () => {
    const words = (seed: number): string[] => Array.from({ length: 400 }, (_, i) => `w${((seed * 2_654_435_761 + i * 40_503) >>> 0).toString(36)}`);
    const pairs: Array<{ a: string; b: string; near: boolean }> = [];
    for (let s = 1; s <= 200; s++) {
      const base = words(s);
      const edited = [...base];
      edited[(s * 37) % 400] = `edit${s}`;
      pairs.push({ a: base.join(' '), b: edited.join(' '), near: true });
      pairs.push({ a: base.join(' '), b: words(s + 10_000).join(' '), near: false });
    }
    let truePositives = 0;
    let falsePositives = 0;
    let falseNegatives = 0;
    for (const { a, b, near } of pairs) {
      const found = simhashDistance(fingerprintText(a).simhash!, fingerprintText(b).simhash!) <= DEFAULT_AUDIT_OPTIONS.nearBits;
      if (found && near) truePositives++;
      else if (found) falsePositives++;
      else if (near) falseNegatives++;
    }
    assert.equal(truePositives, 200);
    assert.equal(falsePositives, 0);
    assert.equal(falseNegatives, 0);
    assert.equal(fingerprintText('Hello, world! 42 times').words, 4);
    assert.equal(fingerprintText('  ').simhash, null);
  });
});
