/** wga's binary adjacency file: the same graph as the text edge list it was written with, and typed errors for broken files. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pagerank } from '../../src/analysis/pagerank.js';
import { InputFormatError } from '../../src/errors.js';
import { AdjacencyWriter, readAdjacencyFile } from '../../src/formats/adjacency-binary.js';
import { loadGraph } from '../../src/formats/load.js';
import { buildFromEdges } from '../../src/graph/builder.js';
import { EdgeBuffer } from '../../src/graph/edge-buffer.js';
import { IdentityLabels } from '../../src/graph/labels.js';
import { generateWebGraph } from '../../bench/generate-web-graph.js';
import { l1Distance, temporaryDirectory } from '../helpers.js';

describe('binary adjacency files (.wgadj)', () => {
  it('load as the same graph as the links built in memory', async () => {
    const dir = temporaryDirectory();
    try {
      const binary = join(dir.path, 'web.wgadj');
      const writer = new AdjacencyWriter(binary, 20_000);
      const edges = new EdgeBuffer();
      generateWebGraph(20_000, 7, (u, targets, length) => {
        writer.addRow(targets, length);
        for (let i = 0; i < length; i++) edges.push(u, targets[i]!);
      });
      const { links } = writer.close();
      assert.equal(links, edges.length);
      const a = await loadGraph(binary);
      const b = buildFromEdges(20_000, edges, new IdentityLabels(20_000));
      assert.equal(a.format, 'wgadj');
      assert.equal(a.graph.nodeCount, 20_000);
      assert.equal(a.graph.edgeCount, links);
      assert.deepEqual(a.graph.outOffsets, b.graph.outOffsets);
      assert.deepEqual(a.graph.outTargets, b.graph.outTargets);
      assert.deepEqual(a.graph.inOffsets, b.graph.inOffsets);
      assert.deepEqual(a.graph.inSources, b.graph.inSources);
      assert.ok(l1Distance(pagerank(a.graph).scores, pagerank(b.graph).scores) < 1e-12);
      // The generator is deterministic: the same seed writes the same bytes.
      const again = join(dir.path, 'again.wgadj');
      const second = new AdjacencyWriter(again, 20_000);
      generateWebGraph(20_000, 7, (_, targets, length) => second.addRow(targets, length));
      second.close();
      assert.deepEqual(readFileSync(again), readFileSync(binary));
    } finally {
      dir.cleanup();
    }
  });

  it('clean rows with self-links, repeats and any order, as other readers do', () => {
    const dir = temporaryDirectory();
    try {
      const path = join(dir.path, 'messy.wgadj');
      const writer = new AdjacencyWriter(path, 3);
      writer.addRow([2, 0, 1, 2]);
      writer.addRow([]);
      writer.addRow([1, 2]);
      writer.close();
      const { graph, report } = readAdjacencyFile(path);
      assert.equal(graph.edgeCount, 3);
      assert.deepEqual([...graph.successors(0)], [1, 2]);
      assert.deepEqual([...graph.successors(2)], [1]);
      assert.equal(report.selfLoopsDropped, 2);
      assert.equal(report.duplicatesDropped, 1);
    } finally {
      dir.cleanup();
    }
  });

  it('reject broken files with the file and the problem named', () => {
    const dir = temporaryDirectory();
    try {
      const path = join(dir.path, 'bad.wgadj');
      const writer = new AdjacencyWriter(path, 2);
      writer.addRow([1]);
      writer.addRow([5]);
      writer.close();
      assert.throws(() => readAdjacencyFile(path), (e: unknown) => e instanceof InputFormatError && /node 1: link to 5/.test(e.message));
      const bytes = readFileSync(path);
      writeFileSync(path, bytes.subarray(0, bytes.length - 2));
      assert.throws(() => readAdjacencyFile(path), (e: unknown) => e instanceof InputFormatError && /truncated/.test(e.message));
      writeFileSync(path, 'not a graph at all, just text\n');
      assert.throws(() => readAdjacencyFile(path), (e: unknown) => e instanceof InputFormatError && e.path === path);
    } finally {
      dir.cleanup();
    }
  });
});
