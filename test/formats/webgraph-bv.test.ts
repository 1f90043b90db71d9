import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileNotFoundError, InputFormatError } from '../../src/errors.js';
import { bvFiles, bvPropertiesFrom, decodeBvGraph, parseProperties, readWebGraph } from '../../src/formats/webgraph-bv.js';
import { buildFromRows } from '../../src/graph/builder.js';
import { IdentityLabels } from '../../src/graph/labels.js';
import { Random } from '../../src/util/random.js';
import { type BvParameters, encodeBvGraph } from '../bv-encoder.js';
import { testData, temporaryDirectory } from '../helpers.js';

/** Random sorted lists with runs (for intervals), repeats of earlier lists (for references) and self-links. */
function randomLists(random: Random, n: number): number[][] {
  const lists: number[][] = [];
  for (let x = 0; x < n; x++) {
    const set = new Set<number>();
    if (x > 0 && random.nextInt(2) === 0) {
      for (const v of lists[x - 1 - random.nextInt(Math.min(x, 3))]!) if (random.nextInt(4) > 0) set.add(v);
    }
    if (random.nextInt(3) === 0) {
      const start = random.nextInt(n);
      for (let v = start; v < Math.min(n, start + 2 + random.nextInt(8)); v++) set.add(v);
    }
    const extra = random.nextInt(6);
    for (let i = 0; i < extra; i++) set.add(random.nextInt(n));
    if (random.nextInt(10) === 0) set.add(x);
    lists.push([...set].sort((a, b) => a - b));
  }
  return lists;
}

describe('WebGraph BVGraph', () => {
  it('decodes graphs encoded with every window size, interval length and zeta parameter', () => {
    const random = new Random(21);
    const variants: BvParameters[] = [
      { windowSize: 7, minIntervalLength: 4, zetaK: 3 },
      { windowSize: 0, minIntervalLength: 4, zetaK: 3 },
      { windowSize: 3, minIntervalLength: 0, zetaK: 3 },
      { windowSize: 1, minIntervalLength: 2, zetaK: 1 },
      { windowSize: 10, minIntervalLength: 3, zetaK: 5 },
    ];
    for (const parameters of variants) {
      const n = 300;
      const lists = randomLists(random, n);
      const encoded = encodeBvGraph(lists, parameters, () => random.nextInt(parameters.windowSize + 1));
      const properties = bvPropertiesFrom(parseProperties(encoded.properties), 'p.properties');
      const rows = decodeBvGraph(encoded.graph, properties, { graph: 'g.graph', properties: 'p.properties', offsets: 'g.offsets' }, encoded.offsets);
      const decoded = Array.from({ length: n }, (_, x) => Array.from(rows.targets.subarray(rows.offsets[x]!, rows.offsets[x + 1]!)));
      assert.deepEqual(decoded, lists, JSON.stringify(parameters));
      const { graph, report } = buildFromRows(n, rows, new IdentityLabels(n));
      const loops = lists.reduce((s, list, x) => s + (list.includes(x) ? 1 : 0), 0);
      assert.equal(report.selfLoopsDropped, loops);
      assert.equal(graph.edgeCount, encoded.arcs - loops);
    }
  });

  it('finds the three files from the basename or any of them', () => {
    for (const path of ['d/cnr', 'd/cnr.graph', 'd/cnr.properties', 'd/cnr.offsets']) {
      assert.deepEqual(bvFiles(path), { basename: 'd/cnr', graph: 'd/cnr.graph', properties: 'd/cnr.properties', offsets: 'd/cnr.offsets' });
    }
  });

  describe('files that do not match', () => {
    const source = bvFiles(testData('cnr-2000', 'cnr-2000'));
    const original = readFileSync(source.properties, 'utf8');

    async function withCopy(edit: (dir: string) => void): Promise<unknown> {
      const dir = temporaryDirectory();
      try {
        for (const ext of ['graph', 'offsets', 'properties']) copyFileSync(`${source.basename}.${ext}`, join(dir.path, `g.${ext}`));
        edit(dir.path);
        await readWebGraph(join(dir.path, 'g'));
        return undefined;
      } catch (error) {
        return error;
      } finally {
        dir.cleanup();
      }
    }

    const cases: Array<[string, (text: string) => string, RegExp]> = [
      ['a node count one short', (t) => t.replace('nodes=325557', 'nodes=325556'), /successor \d+ outside 0\.\.325555|bytes are left after the last|arcs/],
      ['a node count one more', (t) => t.replace('nodes=325557', 'nodes=325558'), /g\.(graph|offsets)/],
      ['a wrong arc count', (t) => t.replace('arcs=3216152', 'arcs=3216151'), /more than the 3216151 arcs/],
      ['another window size', (t) => t.replace('windowsize=7', 'windowsize=2'), /g\.graph: node \d+: |g\.offsets/],
      ['another version', (t) => t.replace('version=0', 'version=1'), /version 1 is not supported/],
      ['unsupported flags', (t) => t.replace('compressionflags=', 'compressionflags=RESIDUALS_NIBBLE'), /RESIDUALS_NIBBLE are not supported/],
      ['a non-numeric count', (t) => t.replace('nodes=325557', 'nodes=lots'), /property 'nodes' must be a non-negative integer, found 'lots'/],
      ['no arc count', (t) => t.replace('arcs=3216152', ''), /missing property 'arcs'/],
    ];
    for (const [name, edit, pattern] of cases) {
      it(`rejects ${name} with a typed error naming the file`, async () => {
        const error = await withCopy((dir) => writeFileSync(join(dir, 'g.properties'), edit(original)));
        assert.ok(error instanceof InputFormatError, `${name}: ${String(error)}`);
        assert.match(error.message, pattern);
        assert.match(error.message, /g\.(graph|offsets|properties)/);
      });
    }

    it('rejects a truncated graph file', async () => {
      const error = await withCopy((dir) => {
        const bytes = readFileSync(join(dir, 'g.graph'));
        writeFileSync(join(dir, 'g.graph'), bytes.subarray(0, bytes.length - 1000));
      });
      assert.ok(error instanceof InputFormatError, String(error));
      assert.match(error.message, /g\.(graph|offsets)/);
    });

    it('rejects an offsets file of another graph', async () => {
      const error = await withCopy((dir) => {
        const bytes = readFileSync(join(dir, 'g.offsets'));
        bytes[100] = bytes[100]! ^ 0xff;
        writeFileSync(join(dir, 'g.offsets'), bytes);
      });
      assert.ok(error instanceof InputFormatError, String(error));
      assert.match(error.message, /g\.offsets: .*the offsets file says/);
    });

    it('names a missing graph file', async () => {
      const error = await withCopy((dir) => writeFileSync(join(dir, 'g.graph'), ''));
      assert.ok(error instanceof InputFormatError);
      const missing = await readWebGraph('/nonexistent/basename').catch((e: unknown) => e);
      assert.ok(missing instanceof FileNotFoundError);
      assert.equal(missing.message, '/nonexistent/basename.properties: no such file');
    });
  });
});
