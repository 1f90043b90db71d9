import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { levels } from '../../src/analysis/levels.js';
import { pagerank } from '../../src/analysis/pagerank.js';
import { restrictedPageRank } from '../../src/analysis/restricted.js';
import { loadGraph } from '../../src/formats/load.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import { inducedSubgraph } from '../../src/graph/subgraph.js';
import { maxAbsDifference, testData } from '../helpers.js';

describe('restricted PageRank (G^l)', () => {
  it('is the PageRank of the pages within l clicks and the links among them', async () => {
    const { graph } = await loadGraph(testData('hollins', 'hollins.edges.txt'), {
      labelsPath: testData('hollins', 'hollins.urls.txt'),
    });
    const root = graph.labels.id('http://www.hollins.edu/');
    for (const maxLevel of [0, 1, 2, 4]) {
      const result = restrictedPageRank(graph, [root], maxLevel, { tolerance: 1e-13 });
      // Independent construction: the same pages and links, by label, through the edge collector.
      const { level } = levels(graph, [root]);
      const inside = (v: number): boolean => level[v]! >= 0 && level[v]! <= maxLevel;
      const collector = new EdgeCollector();
      for (let v = 0; v < graph.nodeCount; v++) {
        if (!inside(v)) continue;
        collector.add(graph.labels.label(v), graph.labels.label(v));
        for (const w of graph.successors(v)) if (inside(w)) collector.add(graph.labels.label(v), graph.labels.label(w));
      }
      const expectedGraph = collector.build().graph;
      assert.equal(result.pages.length, expectedGraph.nodeCount, `l = ${maxLevel}`);
      assert.equal(result.edges, expectedGraph.edgeCount);
      const expected = pagerank(expectedGraph, { tolerance: 1e-13 }).scores;
      const mapped = Array.from(result.pages, (v) => expected[expectedGraph.labels.id(graph.labels.label(v))]!);
      assert.ok(maxAbsDifference(result.rank.scores, mapped) < 1e-12, `l = ${maxLevel}`);
    }
  });

  it('keeps labels and original ids in the induced subgraph', async () => {
    const { graph } = await loadGraph(testData('harvard500', 'harvard500.edges.tsv'), {
      labelsPath: testData('harvard500', 'harvard500.urls.tsv'),
    });
    const keep = new Uint8Array(graph.nodeCount);
    for (let v = 0; v < graph.nodeCount; v += 2) keep[v] = 1;
    const sub = inducedSubgraph(graph, keep);
    assert.equal(sub.graph.nodeCount, 250);
    for (let i = 0; i < sub.graph.nodeCount; i++) {
      const v = sub.originalIds[i]!;
      assert.equal(sub.graph.labels.label(i), graph.labels.label(v));
      assert.equal(sub.graph.labels.id(graph.labels.label(v)), i);
      const expected = Array.from(graph.successors(v)).filter((w) => keep[w] === 1).map((w) => graph.labels.label(w));
      assert.deepEqual(Array.from(sub.graph.successors(i), (w) => sub.graph.labels.label(w)), expected);
    }
    assert.equal(sub.graph.labels.id(graph.labels.label(1)), -1);
  });
});
