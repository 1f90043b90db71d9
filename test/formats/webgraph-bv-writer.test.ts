import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BitWriter, gammaLength, zetaLength } from '../../src/formats/bit-writer.js';
import { bvPropertiesFrom, decodeBvGraph, parseProperties, readWebGraph } from '../../src/formats/webgraph-bv.js';
import { type BvRows, writeWebGraph } from '../../src/formats/webgraph-bv-writer.js';
import { OptionError } from '../../src/errors.js';
import { Random } from '../../src/util/random.js';
import { BitWriter as ReferenceBitWriter } from '../bv-encoder.js';
import { temporaryDirectory, testData } from '../helpers.js';
import { runCli } from '../crawl/crawl-fixtures.js';

/**
 * An independent BVGraph decoder written for these tests from the format's
 * description (Boldi and Vigna, WWW 2004, Section 3; the BVGraph javadoc):
 * bits one at a time, lists as plain arrays. It also returns each list's
 * reference so the tests can check the window and the reference chains.
 */
function independentDecode(
  bytes: Uint8Array,
  props: Map<string, string>,
): { lists: number[][]; references: number[] } {
  const n = Number(props.get('nodes'));
  const window = Number(props.get('windowsize'));
  const minInterval = Number(props.get('minintervallength'));
  const k = Number(props.get('zetak'));
  let at = 0;
  const bit = (): number => {
    const b = (bytes[at >> 3]! >> (7 - (at & 7))) & 1;
    at++;
    return b;
  };
  const bitsOf = (width: number): number => {
    let v = 0;
    for (let i = 0; i < width; i++) v = v * 2 + bit();
    return v;
  };
  const unary = (): number => {
    let zeros = 0;
    while (bit() === 0) zeros++;
    return zeros;
  };
  const gamma = (): number => {
    const msb = unary();
    return 2 ** msb + bitsOf(msb) - 1;
  };
  const zeta = (): number => {
    const h = unary();
    const left = 2 ** (h * k);
    let v = bitsOf((h + 1) * k - 1);
    if (v >= left) v = v * 2 + bit() - left;
    return left + v - 1;
  };
  const nat2int = (v: number): number => (v % 2 === 0 ? v / 2 : -(v + 1) / 2);
  const lists: number[][] = [];
  const references: number[] = [];
  for (let x = 0; x < n; x++) {
    const degree = gamma();
    const list: number[] = [];
    let reference = 0;
    if (degree > 0) {
      if (window > 0) reference = unary();
      if (reference > 0) {
        const source = lists[x - reference]!;
        const blocks: number[] = [];
        const count = gamma();
        for (let i = 0; i < count; i++) blocks.push(gamma() + (i === 0 ? 0 : 1));
        let position = 0;
        blocks.forEach((length, i) => {
          if (i % 2 === 0) list.push(...source.slice(position, position + length));
          position += length;
        });
        if (count % 2 === 0) list.push(...source.slice(position));
      }
      if (list.length < degree && minInterval > 0) {
        const intervals = gamma();
        let previous = 0;
        for (let i = 0; i < intervals; i++) {
          const left = i === 0 ? x + nat2int(gamma()) : previous + gamma() + 1;
          const length = gamma() + minInterval;
          for (let v = left; v < left + length; v++) list.push(v);
          previous = left + length;
        }
      }
      let previous = 0;
      for (let i = 0; list.length < degree; i++) {
        previous = i === 0 ? x + nat2int(zeta()) : previous + zeta() + 1;
        list.push(previous);
      }
    }
    list.sort((a, b) => a - b);
    lists.push(list);
    references.push(reference);
  }
  return { lists, references };
}

function rowsOf(lists: number[][]): BvRows {
  const offsets = new Uint32Array(lists.length + 1);
  lists.forEach((list, x) => (offsets[x + 1] = offsets[x]! + list.length));
  const targets = new Int32Array(offsets[lists.length]!);
  lists.forEach((list, x) => targets.set(list, offsets[x]!));
  return { offsets, targets };
}

function listsOf(rows: BvRows, n: number): number[][] {
  return Array.from({ length: n }, (_, x) => Array.from(rows.targets.subarray(rows.offsets[x]!, rows.offsets[x + 1]!)));
}

/** Lists like a crawl's: copies of recent lists, runs of consecutive ids, scattered links, self-links. */
function webLikeLists(random: Random, n: number): number[][] {
  const lists: number[][] = [];
  for (let x = 0; x < n; x++) {
    const set = new Set<number>();
    if (x > 0 && random.nextInt(2) === 0) {
      for (const v of lists[x - 1 - random.nextInt(Math.min(x, 9))]!) if (random.nextInt(5) > 0) set.add(v);
    }
    if (random.nextInt(3) === 0) {
      const start = Math.max(0, x - 20 + random.nextInt(40));
      for (let v = start; v < Math.min(n, start + 2 + random.nextInt(10)); v++) set.add(v);
    }
    for (let i = random.nextInt(6); i > 0; i--) set.add(random.nextInt(n));
    if (random.nextInt(10) === 0) set.add(x);
    lists.push([...set].sort((a, b) => a - b));
  }
  return lists;
}

const directory = temporaryDirectory();
after(() => directory.cleanup());

describe('WebGraph BVGraph writer', () => {
  it('writes the same codes as the independent test encoder, and prices them exactly', () => {
    const random = new Random(5);
    const ours = new BitWriter(4);
    const theirs = new ReferenceBitWriter();
    let priced = 0;
    for (let i = 0; i < 3000; i++) {
      const x = i < 100 ? i : Math.floor(random.next() * 2 ** (1 + random.nextInt(34)));
      const k = 1 + random.nextInt(6);
      ours.writeGamma(x);
      theirs.writeGamma(x);
      ours.writeZeta(x, k);
      theirs.writeZeta(x, k);
      ours.writeUnary(x % 70);
      theirs.writeUnary(x % 70);
      priced += gammaLength(x) + zetaLength(x, k) + (x % 70) + 1;
    }
    assert.equal(ours.position, theirs.length);
    assert.equal(ours.position, priced);
    assert.deepEqual(ours.finish(), theirs.toBytes());
  });

  it('round-trips random lists under every setting, through both decoders', async () => {
    const random = new Random(11);
    const settings = [
      {},
      { windowSize: 0 },
      { windowSize: 3, maxRefCount: 1, minIntervalLength: 0 },
      { windowSize: 1, minIntervalLength: 2, zetaK: 1 },
      { windowSize: 12, maxRefCount: 20, minIntervalLength: 3, zetaK: 5 },
      { maxRefCount: 0 },
    ];
    for (const [i, options] of settings.entries()) {
      const n = 400;
      const lists = webLikeLists(random, n);
      const base = join(directory.path, `random-${i}`);
      const report = await writeWebGraph(base, n, rowsOf(lists), options);
      const props = parseProperties(readFileSync(`${base}.properties`, 'latin1'));
      const graphBytes = readFileSync(`${base}.graph`);
      const independent = independentDecode(graphBytes, props);
      assert.deepEqual(independent.lists, lists, JSON.stringify(options));
      const rows = decodeBvGraph(
        graphBytes,
        bvPropertiesFrom(props, `${base}.properties`),
        { graph: `${base}.graph`, properties: `${base}.properties`, offsets: `${base}.offsets` },
        readFileSync(`${base}.offsets`),
      );
      assert.deepEqual(listsOf(rows, n), lists);
      assert.equal(report.arcs, lists.reduce((s, l) => s + l.length, 0));
      assert.equal(report.copiedArcs + report.intervalisedArcs + report.residualArcs, report.arcs);
      // References stay in the window and chains no longer than maxRefCount.
      const window = options.windowSize ?? 7;
      const maxRefCount = options.maxRefCount ?? 3;
      const chain: number[] = [];
      independent.references.forEach((r, x) => {
        assert.ok(r <= window && r <= x, `node ${x}: reference ${r}`);
        chain.push(r === 0 ? 0 : chain[x - r]! + 1);
        assert.ok(chain[x]! <= maxRefCount, `node ${x}: chain ${chain[x]} > ${maxRefCount}`);
      });
      if (window > 0 && maxRefCount > 0) assert.ok(report.copiedArcs > 0, 'references were used');
      if (maxRefCount === 0) assert.equal(report.copiedArcs, 0);
    }
  });

  it('writes empty graphs and graphs without links', async () => {
    for (const n of [0, 1, 5]) {
      const base = join(directory.path, `empty-${n}`);
      await writeWebGraph(base, n, rowsOf(Array.from({ length: n }, () => [])));
      const { graph } = await readWebGraph(base);
      assert.equal(graph.nodeCount, n);
      assert.equal(graph.edgeCount, 0);
    }
  });

  it('rejects rows the format cannot hold and bad options', async () => {
    await assert.rejects(writeWebGraph(join(directory.path, 'bad'), 2, rowsOf([[1, 0], []])), /row 0 is not increasing/);
    await assert.rejects(writeWebGraph(join(directory.path, 'bad'), 2, rowsOf([[2], []])), /row 0/);
    await assert.rejects(writeWebGraph(join(directory.path, 'bad'), 1, rowsOf([[]]), { minIntervalLength: 1 }), OptionError);
    await assert.rejects(writeWebGraph(join(directory.path, 'bad'), 1, rowsOf([[]]), { windowSize: -1 }), OptionError);
    await assert.rejects(writeWebGraph(join(directory.path, 'no/such/dir/g'), 1, rowsOf([[0]])), /cannot write/);
  });

  it('round-trips a random graph of 10^6 pages', async () => {
    const n = 1_000_000;
    const random = new Random(2024);
    const offsets = new Uint32Array(n + 1);
    const degrees = new Uint8Array(n);
    for (let x = 0; x < n; x++) {
      degrees[x] = random.nextInt(8);
      offsets[x + 1] = offsets[x]! + degrees[x]!;
    }
    const targets = new Int32Array(offsets[n]!);
    for (let x = 0; x < n; x++) {
      const set = new Set<number>();
      // Half the links near the page (as crawl orders make them), half anywhere.
      while (set.size < degrees[x]!) set.add(random.nextInt(2) === 0 ? Math.min(n - 1, Math.max(0, x - 50 + random.nextInt(100))) : random.nextInt(n));
      targets.set([...set].sort((a, b) => a - b), offsets[x]!);
    }
    const base = join(directory.path, 'million');
    const report = await writeWebGraph(base, n, { offsets, targets });
    assert.equal(report.nodes, n);
    const props = bvPropertiesFrom(parseProperties(readFileSync(`${base}.properties`, 'latin1')), 'p');
    const rows = decodeBvGraph(readFileSync(`${base}.graph`), props, { graph: 'g', properties: 'p', offsets: 'o' }, readFileSync(`${base}.offsets`));
    assert.deepEqual(rows.offsets, offsets);
    assert.deepEqual(rows.targets, targets);
  });

  const cnr = testData('cnr-2000', 'cnr-2000');
  it('round-trips cnr-2000: every successor list identical, bits per link near LAW\'s 2.897', async () => {
    const original = parseProperties(readFileSync(`${cnr}.properties`, 'latin1'));
    const properties = bvPropertiesFrom(original, `${cnr}.properties`);
    const rows = decodeBvGraph(readFileSync(`${cnr}.graph`), properties, { graph: `${cnr}.graph`, properties: `${cnr}.properties` });
    const base = join(directory.path, 'cnr-2000');
    const report = await writeWebGraph(base, properties.nodes, rows);
    const written = parseProperties(readFileSync(`${base}.properties`, 'latin1'));
    const graphBytes = readFileSync(`${base}.graph`);
    const again = decodeBvGraph(
      graphBytes,
      bvPropertiesFrom(written, `${base}.properties`),
      { graph: `${base}.graph`, properties: `${base}.properties`, offsets: `${base}.offsets` },
      readFileSync(`${base}.offsets`),
    );
    assert.deepEqual(again.offsets, rows.offsets);
    assert.deepEqual(again.targets, rows.targets);
    const independent = independentDecode(graphBytes, written);
    assert.equal(independent.lists.length, properties.nodes);
    for (let x = 0; x < properties.nodes; x++) {
      const expected = rows.targets.subarray(rows.offsets[x]!, rows.offsets[x + 1]!);
      assert.deepEqual(independent.lists[x], Array.from(expected), `list ${x}`);
    }
    // The same algorithm as LAW's BVGraph.compress with the same parameters gives the same bits:
    // the .graph file is byte for byte LAW's, the offsets too (LAW pads its offsets file with more zeros).
    const law = Number(original.get('bitsperlink'));
    assert.equal(report.bitsPerLink.toFixed(3), law.toFixed(3));
    assert.equal(Buffer.compare(graphBytes, readFileSync(`${cnr}.graph`)), 0, 'the .graph file equals LAW\'s');
    const lawOffsets = readFileSync(`${cnr}.offsets`);
    const ourOffsets = readFileSync(`${base}.offsets`);
    assert.equal(Buffer.compare(ourOffsets, lawOffsets.subarray(0, ourOffsets.length)), 0, 'the .offsets file equals LAW\'s');
    assert.ok(lawOffsets.subarray(ourOffsets.length).every((byte) => byte === 0));
    for (const key of ['copiedarcs', 'intervalisedarcs', 'residualarcs', 'avgref', 'avgdist', 'bitsforoutdegrees', 'bitsforreferences', 'bitsforblocks', 'bitsforintervals', 'bitsforresiduals']) {
      assert.equal(written.get(key), original.get(key), key);
    }
    process.stdout.write(`# cnr-2000: ${report.bitsPerLink.toFixed(3)} bits/link (LAW ${law}), ${report.bytes.graph} bytes\n`);
  });

  it('wga export --format bv of cnr-2000 gives the same stats and PageRank top pages as the original', { skip: existsSync(`${cnr}.graph`) ? false : 'cnr-2000 not in ../shared/data' }, async () => {
    const base = join(directory.path, 'cnr-cli');
    const exported = await runCli(['export', cnr, '--format', 'bv', '--out', base, '--json', '-q']);
    assert.equal(exported.code, 0, exported.stderr);
    const keys = ['nodes', 'edges', 'danglingNodes', 'scc', 'unreferencedNodes', 'isolatedNodes', 'maxInDegree', 'maxOutDegree'];
    const stats = async (path: string): Promise<Record<string, unknown>> => {
      const result = await runCli(['stats', path, '--json', '-q']);
      assert.equal(result.code, 0, result.stderr);
      const json = JSON.parse(result.stdout) as Record<string, unknown>;
      return Object.fromEntries(keys.map((k) => [k, json[k]]));
    };
    assert.deepEqual(await stats(base), await stats(cnr));
    const top = async (path: string): Promise<unknown> => (JSON.parse((await runCli(['rank', path, '--top', '20', '--json', '-q'])).stdout) as { top: unknown }).top;
    assert.deepEqual(await top(base), await top(cnr));
  });
});
