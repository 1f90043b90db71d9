/** The `wga` command end to end: JSON contracts, files written, and errors (one line, non-zero exit). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { readScores } from '../../src/formats/scores.js';
import { cliPath, repoRoot, testData, temporaryDirectory } from '../helpers.js';

function wga(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function json<T>(...args: string[]): T {
  const run = wga(...args);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as T;
}

const hollins = testData('hollins', 'hollins.edges.txt');
const hollinsUrls = testData('hollins', 'hollins.urls.txt');
const harvard = testData('harvard500', 'harvard500.edges.tsv');
const harvardUrls = testData('harvard500', 'harvard500.urls.tsv');
const dir = temporaryDirectory();
after(() => dir.cleanup());

describe('wga commands', () => {
  it('runs by itself after a build (the file executable, as `npx wga` runs it once `npm test` has rebuilt dist/)', () => {
    const run = spawnSync(cliPath, ['--version'], { encoding: 'utf8' });
    assert.equal(run.error, undefined, `${run.error?.message}`);
    assert.equal(run.status, 0, run.stderr);
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    assert.equal(run.stdout.trim(), version);
  });

  it('stats --json keeps its contract', () => {
    const stats = json<Record<string, unknown>>('stats', hollins, '--json');
    assert.equal(stats.nodes, 6012);
    assert.equal(stats.edges, 23875);
    assert.equal(stats.selfLoopsDropped, 0);
    assert.equal(stats.duplicatesDropped, 0);
    assert.equal(stats.danglingNodes, 3189);
    assert.deepEqual(stats.scc, { count: 3634, largest: 1426 });
    assert.equal(stats.format, 'edges');
    const timings = stats.timings as { load: number; analysis: number };
    assert.ok(timings.load >= 0 && timings.analysis >= 0);
  });

  it('stats prints a readable summary', () => {
    const run = wga('stats', harvard);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /pages\s+500\n/);
    assert.match(run.stdout, /links\s+2,563 \(dropped 73 self-links, merged 0 duplicates\)/);
  });

  it('rank --json gives the method, iterations, residual, top pages and timings', () => {
    const rank = json<{
      method: string;
      iterations: number;
      residual: number;
      converged: boolean;
      top: Array<{ rank: number; label: string; score: number }>;
      timings: { load: number; solve: number };
    }>('rank', harvard, '--labels', harvardUrls, '--method', 'pagerank', '--top', '3', '--json');
    assert.equal(rank.method, 'pagerank');
    assert.ok(rank.iterations > 10);
    assert.ok(rank.residual <= 1e-10);
    assert.equal(rank.converged, true);
    assert.deepEqual(
      rank.top.map((t) => t.label),
      ['http://www.harvard.edu', 'http://www.hbs.edu', 'http://search.harvard.edu:8765/custom/query.html'],
    );
    assert.ok(Math.abs(rank.top[0]!.score - 0.0843) < 5e-5);
    assert.deepEqual(
      rank.top.map((t) => t.rank),
      [1, 2, 3],
    );
    assert.ok(rank.timings.load >= 0 && rank.timings.solve >= 0);
  });

  it('rank --out writes every page\'s score as TSV, or JSON for .json', async () => {
    const tsv = join(dir.path, 'scores.tsv');
    const run = wga('rank', hollins, '--labels', hollinsUrls, '--out', tsv, '--top', '0', '-q');
    assert.equal(run.status, 0, run.stderr);
    const scores = await readScores(tsv);
    assert.equal(scores.size, 6012);
    const total = [...scores.values()].reduce((s, x) => s + x, 0);
    assert.ok(Math.abs(total - 1) < 1e-12);
    assert.ok(scores.has('http://www.hollins.edu/'));
    const jsonPath = join(dir.path, 'scores.json');
    assert.equal(wga('rank', harvard, '--out', jsonPath, '-q').status, 0);
    const document = JSON.parse(readFileSync(jsonPath, 'utf8')) as { method: string; scores: Array<{ label: string; score: number }> };
    assert.equal(document.method, 'pagerank');
    assert.equal(document.scores.length, 500);
    assert.equal(document.scores[0]!.label, '1');
    assert.ok(Math.abs(document.scores[0]!.score - 0.0843) < 5e-5);
  });

  it('rank --teleport gives personalised PageRank', () => {
    const rank = json<{ top: Array<{ label: string; score: number }> }>('rank', harvard, '--teleport', '10', '--top', '1', '--json');
    assert.equal(rank.top[0]!.label, '10');
    assert.ok(rank.top[0]!.score > 0.15);
  });

  it('scc --json reports the count, the giant component and the root\'s', () => {
    const scc = json<{ count: number; largest: number; root: { label: string; size: number; inLargest: boolean } }>(
      'scc',
      hollins,
      '--labels',
      hollinsUrls,
      '--root',
      'http://www.hollins.edu/',
      '--json',
    );
    assert.equal(scc.count, 3634);
    assert.equal(scc.largest, 1426);
    assert.deepEqual(scc.root, { label: 'http://www.hollins.edu/', size: 1426, inLargest: true });
  });

  it('levels --json gives pages per number of clicks, roots at 0', () => {
    const result = json<{ reached: number; unreachable: number; histogram: number[]; roots: string[] }>(
      'levels',
      hollins,
      '--root',
      '2',
      '--json',
    );
    assert.equal(result.histogram[0], 1);
    assert.equal(result.reached + result.unreachable, 6012);
    assert.equal(result.histogram.reduce((s, x) => s + x, 0), result.reached);
    assert.deepEqual(result.roots, ['2']);
    const two = json<{ histogram: number[] }>('levels', hollins, '--root', '1', '2', '--json');
    assert.equal(two.histogram[0], 2);
  });

  it('degrees --json gives full distributions that add up to the pages', () => {
    const result = json<{ inDistribution: Array<[number, number]>; outDistribution: Array<[number, number]>; danglingNodes: number; topIn: Array<{ label: string; degree: number }> }>(
      'degrees',
      harvard,
      '--labels',
      harvardUrls,
      '--json',
    );
    const total = (d: Array<[number, number]>): number => d.reduce((s, [, c]) => s + c, 0);
    assert.equal(total(result.inDistribution), 500);
    assert.equal(total(result.outDistribution), 500);
    assert.equal(result.outDistribution[0]![0], 0);
    assert.equal(result.outDistribution[0]![1], result.danglingNodes);
    assert.deepEqual(result.topIn[0], { label: 'http://www.harvard.edu', degree: 195 });
  });

  it('demo serves a website, crawls it into SQLite with OPIC and analyses the crawl', () => {
    interface Demo {
      store: string;
      crawl: { known: number; fetched: number; failed: number; excluded: number; redirects: number; totalCash: number; stoppedBy: string };
      requests: { robots: number; private: number; trap: number };
      graph: { pages: number; links: number; dangling: number; scc: { count: number; largest: number } };
      kendallTau: number;
      passes: Array<{ passes: number; fetches: number; kendallTau: number }>;
      top: Array<{ rank: number; url: string; opic: number; pagerank: number; pagerankRank: number }>;
      levels: { root: string; histogram: number[]; unreachable: number };
    }
    const db = join(dir.path, 'demo.sqlite');
    const demo = json<Demo>('demo', '--pages', '400', '--passes', '2', '--db', db, '--json');
    assert.equal(demo.crawl.stoppedBy, 'done');
    assert.ok(Math.abs(demo.crawl.totalCash - 1) < 1e-9, `total cash ${demo.crawl.totalCash}`);
    // The site's hazards: a 404, redirects, a robots.txt rule and a trap fenced after ten pages.
    assert.ok(demo.crawl.failed > 0 && demo.crawl.redirects > 0 && demo.crawl.excluded > 0);
    assert.equal(demo.requests.private, 0, 'robots.txt forbids /private/');
    assert.ok(demo.requests.robots >= 1);
    assert.ok(demo.requests.trap >= 10 && demo.requests.trap <= 20, `${demo.requests.trap} trap requests in 2 passes`);
    assert.equal(demo.graph.pages, demo.crawl.known);
    assert.equal(demo.levels.histogram.reduce((a, b) => a + b, 0) + demo.levels.unreachable, demo.graph.pages);
    assert.equal(demo.levels.histogram[0], 1);
    assert.equal(demo.top.length, 10);
    for (let i = 1; i < demo.top.length; i++) assert.ok(demo.top[i - 1]!.opic >= demo.top[i]!.opic);
    assert.deepEqual(demo.passes.map((p) => p.passes), [1, 2]);
    // More reading brings OPIC closer to the exact PageRank of the crawled graph (OPIC paper, Section 3).
    assert.ok(demo.passes[1]!.kendallTau > demo.passes[0]!.kendallTau, JSON.stringify(demo.passes));
    assert.equal(demo.kendallTau, demo.passes[1]!.kendallTau);
    // The store is kept and every command reads it (a one-pass demo: a refresh pass may turn the first
    // page of a redirect loop into a failure, which the first session's counters do not follow).
    const oneDb = join(dir.path, 'one-pass.sqlite');
    const one = json<Demo>('demo', '--pages', '400', '--passes', '1', '--db', oneDb, '--json');
    const stats = json<{ nodes: number; edges: number; fetched: number; failed: number; frontier: number }>('stats', '--db', oneDb, '--json');
    assert.equal(stats.nodes, one.graph.pages);
    assert.equal(stats.edges, one.graph.links);
    assert.equal(stats.fetched, one.crawl.fetched);
    assert.equal(stats.failed, one.crawl.failed);
    assert.equal(stats.frontier, 0);
    const live = json<{ live: boolean; top: Array<{ url: string }> }>('top', '--db', oneDb, '--score', 'opic', '--top', '3', '--json');
    assert.equal(live.live, true);
    assert.deepEqual(live.top.map((t) => t.url), one.top.slice(0, 3).map((t) => t.url));
    // The same seed gives the same site and the same crawled graph; a used store is refused.
    assert.equal(one.graph.pages, demo.graph.pages);
    assert.deepEqual(one.passes.map((p) => p.kendallTau), [demo.passes[0]!.kendallTau]);
    const refused = wga('demo', '--db', db);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /already has pages/);
  });
});

describe('wga rank methods, compare and the bow-tie', () => {
  it('rank --method montecarlo gives each top page a standard deviation', () => {
    const result = json<{
      method: string;
      iterations: number;
      residual: number;
      montecarlo: { walksPerPage: number; seed: number; walks: number; totalVisits: number };
      top: Array<{ label: string; score: number; stdDev: number; relativeError: number }>;
    }>('rank', harvard, '--labels', harvardUrls, '--method', 'montecarlo', '--walks', '200', '--seed', '7', '--top', '5', '--json');
    assert.equal(result.method, 'montecarlo');
    assert.equal(result.montecarlo.walksPerPage, 200);
    assert.equal(result.montecarlo.seed, 7);
    assert.equal(result.montecarlo.walks, 100_000);
    assert.ok(result.montecarlo.totalVisits > 100_000);
    assert.equal(result.top[0]!.label, 'http://www.harvard.edu');
    assert.ok(Math.abs(result.top[0]!.score - 0.0843) < 4 * result.top[0]!.stdDev);
    for (const t of result.top) assert.ok(Math.abs(t.relativeError - t.stdDev / t.score) < 1e-12);
    assert.equal(result.residual, Math.max(...result.top.map((t) => t.relativeError)));
    const again = json<{ top: Array<{ score: number }> }>('rank', harvard, '--method', 'montecarlo', '--walks', '200', '--seed', '7', '--top', '5', '--json', '--threads', '1');
    assert.deepEqual(again.top.map((t) => t.score), result.top.map((t) => t.score));
  });

  it('rank --solver power and the default give the same top pages', () => {
    const power = json<{ solver: string; top: Array<{ label: string; score: number }> }>('rank', hollins, '--solver', 'power', '--json');
    const fast = json<{ solver: string; equivalentIterations: number; top: Array<{ label: string; score: number }> }>('rank', hollins, '--json');
    assert.equal(power.solver, 'power');
    assert.equal(fast.solver, 'gauss-seidel');
    assert.deepEqual(fast.top.map((t) => t.label), power.top.map((t) => t.label));
    fast.top.forEach((t, i) => assert.ok(Math.abs(t.score - power.top[i]!.score) < 1e-9));
  });

  it('rank --root --max-level gives restricted PageRank', () => {
    const result = json<{ restricted: { roots: string[]; maxLevel: number; nodes: number; edges: number }; top: Array<{ label: string }> }>(
      'rank', hollins, '--labels', hollinsUrls, '--root', 'http://www.hollins.edu/', '--max-level', '1', '--json',
    );
    assert.deepEqual(result.restricted.roots, ['http://www.hollins.edu/']);
    assert.equal(result.restricted.maxLevel, 1);
    assert.equal(result.restricted.nodes, 26);
    assert.equal(result.top[0]!.label, 'http://www.hollins.edu/');
  });

  it('compare --json reports tau, Spearman, top-k overlap and relative error', () => {
    const exact = join(dir.path, 'exact.tsv');
    const mc = join(dir.path, 'mc.tsv');
    assert.equal(wga('rank', hollins, '--out', exact, '-q').status, 0);
    assert.equal(wga('rank', hollins, '--method', 'montecarlo', '--walks', '20', '--out', mc, '-q').status, 0);
    const same = json<{ kendallTau: number; spearman: number; topOverlap: Record<string, number>; meanRelativeError: { all: number } }>(
      'compare', exact, exact, '--json',
    );
    assert.equal(same.kendallTau, 1);
    assert.equal(same.spearman, 1);
    assert.deepEqual(same.topOverlap, { '10': 1, '100': 1, '1000': 1 });
    assert.equal(same.meanRelativeError.all, 0);
    const result = json<{ pages: number; kendallTau: number; spearman: number; topOverlap: Record<string, number>; meanRelativeError: { all: number; top10Percent: number } }>(
      'compare', exact, mc, '--json',
    );
    assert.equal(result.pages, 6012);
    assert.ok(result.kendallTau > 0.5 && result.kendallTau < 1, `${result.kendallTau}`);
    assert.ok(result.spearman > result.kendallTau);
    assert.ok(result.topOverlap['10']! >= 0.7);
    assert.ok(result.meanRelativeError.all > 0 && result.meanRelativeError.top10Percent > 0);
    assert.ok(result.meanRelativeError.top10Percent < 20, `${result.meanRelativeError.top10Percent}`);
  });

  it('rank --method opic gives OPIC estimates with the error factor 1/G', () => {
    const result = json<{
      method: string;
      solver: string;
      residual: number;
      opic: { strategy: string; reads: number; time: number; errorFactor: number };
      top: Array<{ label: string; score: number }>;
    }>('rank', harvard, '--labels', harvardUrls, '--method', 'opic', '--strategy', 'greedy', '--reads', '20000', '--top', '3', '--json');
    assert.equal(result.method, 'opic');
    assert.equal(result.opic.strategy, 'greedy');
    assert.equal(result.opic.reads, 20_000);
    assert.ok(Math.abs(result.opic.errorFactor - 1 / result.opic.time) < 1e-15);
    assert.equal(result.residual, result.opic.errorFactor);
    assert.equal(result.top[0]!.label, 'http://www.harvard.edu');
    assert.ok(Math.abs(result.top[0]!.score - 0.0843) < 0.005);
    const focused = json<{ opic: { focusPages: number; focusShare: number }; top: Array<{ label: string }> }>(
      'rank', harvard, '--labels', harvardUrls, '--method', 'opic', '--reads', '20000', '--focus', 'hbs\\.edu', '--top', '2', '--json',
    );
    assert.ok(focused.opic.focusPages >= 1);
    assert.equal(focused.opic.focusShare, 0.5);
    assert.equal(focused.top[0]!.label, 'http://www.hbs.edu');
  });

  it('experiment opic writes the figures and the checked summary', () => {
    const out = join(dir.path, 'opic');
    const result = json<{ nodes: number; observations: Array<{ figure: string; holds: boolean }>; files: string[] }>(
      'experiment', 'opic', '--nodes', '2000', '--crawls', '3', '--rates', '0,2', '--out', out, '--json', '-q',
    );
    assert.equal(result.nodes, 2000);
    assert.equal(result.observations.length, 10);
    assert.ok(result.files.some((f) => f.endsWith('figure6.svg')));
    assert.match(readFileSync(join(out, 'summary.md'), 'utf8'), /wga experiment opic --nodes 2000/);
  });

  it('rank --method traffic and hotness, aggregate and evaluate', () => {
    const traffic = json<{ method: string; solver: string; converged: boolean; residual: number; traffic: { alpha: number; realFlow: number; artificialFlow: number }; top: Array<{ label: string }> }>(
      'rank', harvard, '--labels', harvardUrls, '--method', 'traffic', '--alpha', '0.8', '--json',
    );
    assert.equal(traffic.method, 'traffic');
    assert.equal(traffic.solver, 'anderson');
    assert.ok(traffic.converged && traffic.residual < 1e-10);
    assert.ok(Math.abs(traffic.traffic.realFlow - 0.8) < 1e-12);
    assert.ok(Math.abs(traffic.traffic.artificialFlow - 0.2) < 1e-12);
    const files = ['pagerank', 'traffic', 'hotness'].map((method) => {
      const path = join(dir.path, `h-${method}.tsv`);
      assert.equal(wga('rank', hollins, '--labels', hollinsUrls, '--method', method, '--out', path, '-q', '--top', '0').status, 0);
      return path;
    });
    const aggregated = json<{ method: string; pages: number; top: Array<{ label: string; position: number; positions: number[] }> }>(
      'aggregate', ...files, '--method', 'best', '--top', '3', '--json',
    );
    assert.equal(aggregated.pages, 6012);
    assert.equal(aggregated.top[0]!.label, 'http://www.hollins.edu/');
    for (const t of aggregated.top) assert.equal(t.position, Math.min(...t.positions));
    const chosen = join(dir.path, 'chosen.txt');
    writeFileSync(chosen, '# expert picks\nhttp://www.hollins.edu/\nhttp://www.hollins.edu/admissions/visit/visit.htm\nhttp://nowhere/\n');
    const evaluation = json<{ rankings: Array<{ file: string; averagePosition: number; found: number; missing: number }> }>(
      'evaluate', ...files, '--pages', chosen, '--json',
    );
    assert.equal(evaluation.rankings.length, 3);
    assert.deepEqual(evaluation.rankings.map((r) => [r.found, r.missing]), [[2, 1], [2, 1], [2, 1]]);
    assert.equal(evaluation.rankings[0]!.averagePosition, 1.5);
  });

  it('scc --json includes the bow-tie, whose parts add up to the pages', () => {
    const scc = json<{ nodes: number; bowTie: Record<string, number> }>('scc', hollins, '--json');
    assert.equal(Object.values(scc.bowTie).reduce((s, x) => s + x, 0), scc.nodes);
    assert.equal(scc.bowTie.core, 1426);
  });
});

describe('wga with a store (SQLite)', () => {
  it('imports, ranks with --save, and answers page, search, top and stats queries', () => {
    const db = join(dir.path, 'hollins.db');
    const imported = json<{ pagesAdded: number; linksAdded: number; pages: number }>('import', hollins, '--labels', hollinsUrls, '--db', db, '--json');
    assert.equal(imported.pagesAdded, 6012);
    assert.equal(imported.linksAdded, 23875);
    const rank = json<{ run: number; top: Array<{ label: string; score: number }> }>('rank', '--db', db, '--save', '--json');
    assert.equal(rank.run, 1);
    assert.equal(rank.top[0]!.label, 'http://www.hollins.edu/');
    const levels = json<{ reached: number }>('levels', '--db', db, '--root', 'http://www.hollins.edu/', '--save', '--json');
    assert.equal(levels.reached, 5551);
    const top = json<{ run: { id: number; method: string }; top: Array<{ rank: number; url: string; score: number }> }>('top', '--db', db, '--score', 'pagerank', '--top', '3', '--json');
    assert.equal(top.run.method, 'pagerank');
    assert.deepEqual(top.top.map((t) => t.url), rank.top.slice(0, 3).map((t) => t.label));
    const page = json<{ url: string; inDegree: number; outDegree: number; inLinks: string[]; outLinks: string[]; scores: Array<{ method: string; value: number }> }>(
      'page', 'http://www.hollins.edu/', '--db', db, '--json',
    );
    assert.equal(page.url, 'http://www.hollins.edu/');
    assert.equal(page.inDegree, 829);
    assert.equal(page.outDegree, 25);
    assert.equal(page.inLinks.length, 829);
    assert.equal(page.outLinks.length, 25);
    assert.deepEqual(page.scores.map((s) => s.method), ['pagerank', 'levels']);
    assert.equal(page.scores[0]!.value, rank.top[0]!.score);
    assert.equal(page.scores[1]!.value, 0);
    const search = json<{ pages: Array<{ url: string }> }>('search', 'admissions/visit', '--db', db, '--json');
    assert.ok(search.pages.some((p) => p.url === 'http://www.hollins.edu/admissions/visit/visit.htm'));
    const linking = json<{ pages: Array<{ url: string }> }>('search', 'http://www.hollins.edu/admissions/visit/visit.htm', '--links-to', '--db', db, '--limit', '1000', '--json');
    assert.ok(linking.pages.length > 10);
    const stats = json<Record<string, unknown>>('stats', '--db', db, '--json');
    assert.equal(stats.nodes, 6012);
    assert.equal(stats.edges, 23875);
    assert.deepEqual(stats.scc, { count: 3634, largest: 1426 });
    assert.equal(stats.format, 'store');
    const reset = wga('reset', '--db', db, '--yes');
    assert.equal(reset.status, 0, reset.stderr);
    assert.match(reset.stdout, /deleted 6,012 pages, 23,875 links and 2 runs/);
  });

  it('refuses bad store usage with one line and a usage status', () => {
    const db = join(dir.path, 'empty.db');
    assert.equal(wga('import', harvard, '--db', db, '-q').status, 0);
    for (const [args, pattern] of [
      [['page', 'http://nowhere/', '--db', db], /no page 'http:\/\/nowhere\/' in the store/],
      [['top', '--db', db, '--score', 'traffic'], /no stored 'traffic' run; save one with: wga rank --db .* --method traffic --save/],
      [['rank', harvard, '--save'], /--save: needs --db/],
      [['rank', harvard, '--db', db], /--db: give either a graph file or --db, not both/],
      [['stats'], /graph: missing: give a graph file or --db STORE/],
      [['reset', '--db', db], /--yes: needed to reset/],
    ] as const) {
      const run = wga(...args);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, pattern);
      assert.equal(run.stderr.trim().split('\n').length, 1);
    }
    const missing = wga('stats', '--db', join(dir.path, 'nope.db'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /nope\.db: no such store/);
  });
});

describe('wga errors: one line on stderr, non-zero exit, nothing on stdout', () => {
  function expectFailure(args: string[], status: number, pattern: RegExp): void {
    const run = wga(...args);
    assert.equal(run.status, status, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, pattern);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.ok(run.stderr.startsWith('wga: '), run.stderr);
  }

  it('a missing file', () => {
    expectFailure(['stats', '/nonexistent/web.tsv'], 1, /^wga: \/nonexistent\/web\.tsv: no such file$/m);
  });

  it('an empty file and a line with one column', () => {
    const empty = join(dir.path, 'empty.tsv');
    writeFileSync(empty, '');
    expectFailure(['stats', empty], 1, /empty\.tsv: no links found/);
    const bad = join(dir.path, 'bad.tsv');
    writeFileSync(bad, '1\t2\n2\t3\n7\n');
    expectFailure(['rank', bad], 1, /bad\.tsv:3: expected two columns/);
  });

  it('text where numbers are required', () => {
    const text = join(dir.path, 'text.tsv');
    writeFileSync(text, '1 2\n2 x\n');
    expectFailure(['stats', text, '--ids', 'numeric'], 1, /text\.tsv:2: expected a non-negative integer node id, found 'x'/);
    expectFailure(['rank', harvard, '--top', 'ten'], 2, /--top: expected an integer of at least 0, got 'ten'/);
    expectFailure(['rank', harvard, '--damping', '1.5'], 2, /--damping: expected a number in \[0, 1\), got '1\.5'/);
  });

  it('a truncated .gz', () => {
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(`${i}\t${(i * 31) % 100_000}`);
    const zipped = gzipSync(lines.join('\n'));
    const cut = join(dir.path, 'cut.tsv.gz');
    writeFileSync(cut, zipped.subarray(0, zipped.length - 5000));
    expectFailure(['stats', cut], 1, /cut\.tsv\.gz:\d+: truncated or corrupt gzip data/);
  });

  it('a BV graph whose properties do not match', () => {
    const base = testData('cnr-2000', 'cnr-2000');
    for (const ext of ['graph', 'offsets']) copyFileSync(`${base}.${ext}`, join(dir.path, `bad.${ext}`));
    writeFileSync(
      join(dir.path, 'bad.properties'),
      readFileSync(`${base}.properties`, 'utf8').replace('arcs=3216152', 'arcs=3216000'),
    );
    expectFailure(['stats', join(dir.path, 'bad.graph')], 1, /bad\.graph: node \d+: more than the 3216000 arcs/);
  });

  it('an unknown page, method, format or option', () => {
    expectFailure(['levels', harvard, '--root', 'http://nowhere/'], 2, /--root: no page labelled 'http:\/\/nowhere\/' in the graph/);
    expectFailure(['rank', harvard, '--method', 'salsa'], 2, /--method: expected one of pagerank, montecarlo, opic, traffic, hotness, harmonic, closeness, lin, hits, coreness, got 'salsa'/);
    expectFailure(['aggregate', harvard], 2, /aggregate: needs at least two score files/);
    expectFailure(['rank', harvard, '--method', 'traffic', '--alpha', '1'], 2, /--alpha: expected a number in \(0, 1\), got '1'/);
    expectFailure(['experiment', 'nope'], 2, /experiment: unknown experiment 'nope'; available: opic/);
    expectFailure(['stats', harvard, '--format', 'gexf'], 2, /--format: expected one of/);
    expectFailure(['stats', harvard, '--frobnicate'], 2, /unknown option '--frobnicate'/);
    expectFailure(['compare', harvard, '/nonexistent/scores.tsv'], 1, /harvard500\.edges\.tsv:3: label '1' appears twice/);
    expectFailure(['rank', harvard, '--max-level', '2'], 2, /--max-level: needs --root/);
    expectFailure(['levels', harvard], 2, /required option '--root <page...>' not specified/);
  });

  it('non-convergence is reported with exit status 3, the result still printed', () => {
    const run = wga('rank', harvard, '--max-iterations', '3', '--solver', 'power', '--json');
    assert.equal(run.status, 3);
    assert.match(run.stderr, /^wga: pagerank did not converge: residual .* after 3 iterations, tolerance 1e-10; raise --max-iterations\n$/);
    const result = JSON.parse(run.stdout) as { converged: boolean; iterations: number };
    assert.equal(result.converged, false);
    assert.equal(result.iterations, 3);
  });
});
