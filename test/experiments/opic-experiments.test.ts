import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ChangeProcess, DynamicGraph } from '../../src/experiments/dynamic-graph.js';
import { powerLawGraph } from '../../src/experiments/generators.js';
import { runOpicExperiments } from '../../src/experiments/opic-experiments.js';
import { writeOpicReport } from '../../src/experiments/opic-report.js';
import { escapeXml, lineChart, seriesCsv } from '../../src/experiments/svg-plot.js';
import { Random } from '../../src/util/random.js';
import { temporaryDirectory } from '../helpers.js';

describe('the changing graph of the OPIC experiments', () => {
  it('halves and doubles in-degrees, keeping in- and out-lists consistent', () => {
    const { graph } = powerLawGraph({ nodes: 2000, seed: 5 });
    const dynamic = new DynamicGraph(graph);
    const random = new Random(1);
    const hub = Array.from({ length: 2000 }, (_, v) => v).sort((a, b) => graph.inDegree(b) - graph.inDegree(a))[0]!;
    const before = dynamic.inDegree(hub);
    const removed = dynamic.halveInDegree(hub, random);
    assert.equal(removed, Math.floor(before / 2));
    assert.equal(dynamic.inDegree(hub), before - removed);
    const added = dynamic.doubleInDegree(hub, random);
    assert.equal(dynamic.inDegree(hub), before - removed + added);
    const snapshot = dynamic.snapshot();
    assert.equal(snapshot.edgeCount, dynamic.edgeCount);
    assert.equal(snapshot.inDegree(hub), dynamic.inDegree(hub));
    for (let v = 0; v < 2000; v++) assert.deepEqual([...dynamic.successors(v)].sort((a, b) => a - b), Array.from(snapshot.successors(v)));
  });

  it('spreads rate * N changes over a crawl of N reads', () => {
    const { graph } = powerLawGraph({ nodes: 1000, seed: 6 });
    const dynamic = new DynamicGraph(graph);
    let changes = 0;
    const counting = { change: (random: Random) => (changes++, dynamic.change(random)) } as unknown as DynamicGraph;
    const process = new ChangeProcess(counting, 0.02, 3);
    for (let r = 0; r < 1000; r++) process.afterRead();
    assert.equal(changes, 20);
  });
});

describe('OPIC experiments', () => {
  it('produce the four figures, the storage table and checked statements, and write them as CSV, SVG and markdown', async () => {
    const result = runOpicExperiments({ nodes: 3000, crawls: 4, changeRates: [0, 0.02] });
    assert.deepEqual(
      result.figure2.map((s) => s.name),
      ['Greedy', 'Cycle', 'Random', 'Off-line', 'Power iteration'],
    );
    for (const series of [...result.figure2, ...result.figure3]) {
      const errors = series.points.map(([, y]) => y);
      assert.ok(errors.every((e) => e > 0 && Number.isFinite(e)), series.name);
      assert.ok(errors[errors.length - 1]! < errors[0]!, `${series.name} converges`);
    }
    assert.equal(result.figure4.length, 4);
    assert.ok(result.figure4.every((s) => s.points.length === 2));
    assert.equal(result.figure5.find((r) => r.policy.startsWith('Interpolation'))!.measuresPerPage, 1);
    assert.equal(result.observations.length, 10);
    assert.ok(result.observations.every((o) => o.detail.length > 0));
    const dir = temporaryDirectory();
    try {
      const report = await writeOpicReport(result, join(dir.path, 'out'), 'wga experiment opic --nodes 3000');
      assert.equal(report.files.length, 10);
      const svg = readFileSync(join(dir.path, 'out', 'figure2.svg'), 'utf8');
      assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      assert.equal((svg.match(/<polyline /g) ?? []).length, 5);
      assert.match(svg, /Greedy/);
      const csv = readFileSync(join(dir.path, 'out', 'figure4.csv'), 'utf8').trim().split('\n');
      assert.equal(csv[0], 'change_rate_percent,Variable Window M=4,Variable Window M=8,Variable Window M=16,Interpolation 4 months');
      assert.equal(csv.length, 3);
      const summary = readFileSync(join(dir.path, 'out', 'summary.md'), 'utf8');
      assert.match(summary, /## The paper's statements, checked \(\d+ of 10 hold\)/);
    } finally {
      dir.cleanup();
    }
  });
});

describe('SVG charts', () => {
  it('escape labels and lay out one line per series', () => {
    const svg = lineChart(
      [
        { name: 'a <b> & "c"', points: [[1, 10], [2, 5], [3, 1]] },
        { name: 'd', points: [[1, 2], [2, 3]] },
      ],
      { title: 'T & t', xLabel: 'x', yLabel: 'y', logY: true },
    );
    assert.ok(svg.includes('a &lt;b&gt; &amp; &quot;c&quot;'));
    assert.ok(!svg.includes('<b>'));
    assert.equal((svg.match(/<polyline /g) ?? []).length, 2);
    assert.equal(escapeXml("'"), '&#39;');
    assert.equal(seriesCsv([{ name: 'x,y', points: [[1, 2]] }], 'n'), 'n,"x,y"\n1,2\n');
  });
});
