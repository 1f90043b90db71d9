/**
 * Fuzzing the loaders and the extractors with random and mutated inputs (10,000 per loader), in
 * bounded time: every input ends in a result or a typed error (a WgaError, which the command line
 * prints as one line), never a crash, a hang or memory without bound. Seeded: a failure replays.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { extractLinks } from '../../src/crawl/extract.js';
import { extractSitemap } from '../../src/crawl/sitemap.js';
import { WgaError } from '../../src/errors.js';
import { loadGraph } from '../../src/formats/load.js';
import { bvPropertiesFrom, decodeBvGraph, parseProperties } from '../../src/formats/webgraph-bv.js';
import { readLabelFile } from '../../src/formats/label-file.js';
import { EdgeCollector } from '../../src/graph/edge-collector.js';
import { Random } from '../../src/util/random.js';
import { encodeBvGraph } from '../bv-encoder.js';
import { temporaryDirectory } from '../helpers.js';

const INPUTS = 10_000;
const dir = temporaryDirectory();
after(() => dir.cleanup());

/** Runs `attempt` on every input: a result or a WgaError; anything else fails the test with the input. */
async function everyInputTyped<T>(inputs: number, make: (i: number) => T, attempt: (input: T) => unknown | Promise<unknown>, show: (input: T) => string): Promise<{ results: number; errors: number }> {
  let results = 0;
  let errors = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < inputs; i++) {
    const input = make(i);
    try {
      await attempt(input);
      results++;
    } catch (error) {
      if (!(error instanceof WgaError)) assert.fail(`input ${i} (${show(input).slice(0, 200)}): untyped ${(error as Error).name}: ${(error as Error).message}`);
      assert.ok(!error.message.includes('\n'), `input ${i}: a one-line message: ${error.message}`);
      errors++;
    }
  }
  // Memory without bound would show as a heap far above the inputs' own size.
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 256 * 1024 * 1024, 'the heap stays bounded');
  return { results, errors };
}

/** A mutation of `base`: bytes flipped, cut, repeated or inserted. */
function mutate(random: Random, base: Uint8Array): Uint8Array {
  const bytes = Array.from(base);
  const edits = 1 + random.nextInt(4);
  for (let e = 0; e < edits; e++) {
    const at = bytes.length === 0 ? 0 : random.nextInt(bytes.length);
    switch (random.nextInt(5)) {
      case 0:
        if (bytes.length > 0) bytes[at] = bytes[at]! ^ (1 << random.nextInt(8));
        break;
      case 1:
        bytes.length = at;
        break;
      case 2:
        bytes.splice(at, 0, random.nextInt(256));
        break;
      case 3:
        bytes.splice(at, 0, ...bytes.slice(at, at + 1 + random.nextInt(16)));
        break;
      default:
        bytes.splice(at, 1 + random.nextInt(8));
    }
  }
  return Uint8Array.from(bytes);
}

function randomText(random: Random, alphabet: string, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[random.nextInt(alphabet.length)];
  return text;
}

describe('fuzzing', { timeout: 600_000 }, () => {
  it(`edge lists: ${INPUTS} random and mutated files load or fail with a typed error`, async () => {
    const random = new Random(41);
    const valid = Buffer.from('# a graph\nsrc\tdst\n0\t1\n1\t2\n2\t0\nhttp://a/\thttp://b/\n3 4\n5,6,1.5\n');
    const path = join(dir.path, 'fuzz.tsv');
    const { results, errors } = await everyInputTyped(
      INPUTS,
      (i) => (i % 2 === 0 ? mutate(random, valid) : Buffer.from(randomText(random, '0123456789 \t,\n#%-.:/abxe\r"', random.nextInt(200)))),
      async (bytes) => {
        writeFileSync(path, bytes);
        await loadGraph(path, { format: 'edges', weighted: (bytes[0] ?? 0) % 2 === 1 });
      },
      (bytes) => JSON.stringify(Buffer.from(bytes).toString('latin1')),
    );
    assert.ok(results > 100 && errors > 100, `both outcomes met: ${results} results, ${errors} errors`);
  });

  it(`WebGraph BV: ${INPUTS} mutations of a graph file, its offsets and its properties decode or fail with a typed error`, async () => {
    const random = new Random(43);
    const lists = Array.from({ length: 60 }, (_, x) => [...new Set(Array.from({ length: random.nextInt(8) }, () => random.nextInt(60)))].sort((a, b) => a - b).filter((v) => v !== x));
    const encoded = encodeBvGraph(lists, { windowSize: 7, minIntervalLength: 2, zetaK: 3 }, (x) => (x % 3 === 0 ? 1 : 0));
    const paths = { graph: 'g.graph', properties: 'g.properties', offsets: 'g.offsets' };
    const properties = bvPropertiesFrom(parseProperties(encoded.properties), paths.properties);
    // The file as written decodes to the lists.
    const rows = decodeBvGraph(encoded.graph, properties, paths, encoded.offsets);
    assert.equal(rows.targets.length, encoded.arcs);
    let undetected = 0;
    const { errors } = await everyInputTyped(
      INPUTS,
      (i) => ({ which: i % 3, bytes: i % 3 === 0 ? mutate(random, encoded.graph) : i % 3 === 1 ? mutate(random, encoded.offsets) : Buffer.from(mutate(random, Buffer.from(encoded.properties))) }),
      ({ which, bytes }) => {
        const props = which === 2 ? bvPropertiesFrom(parseProperties(Buffer.from(bytes).toString('utf8')), paths.properties) : properties;
        const decoded = decodeBvGraph(which === 0 ? bytes : encoded.graph, props, paths, which === 1 ? bytes : encoded.offsets);
        // A decode that passes every check is the graph written (or one the format cannot tell from it).
        const same = decoded.targets.length === rows.targets.length && decoded.targets.every((v, k) => v === rows.targets[k]);
        if (!same) undetected++;
      },
      ({ which }) => ['graph', 'offsets', 'properties'][which]!,
    );
    assert.ok(errors > INPUTS / 2, `most mutations are refused: ${errors}`);
    // A flip that keeps a code's length (a gap of 1 read as 2) is a valid file of another graph: with the offsets
    // checked, such cases are a small minority.
    assert.ok(undetected < INPUTS / 20, `${undetected} mutations decoded to another graph`);
  });

  it(`label files: ${INPUTS} random and mutated files attach or fail with a typed error`, async () => {
    const random = new Random(47);
    const edges = new EdgeCollector();
    for (let v = 0; v < 20; v++) edges.add(String(v), String((v * 7 + 3) % 20));
    const { graph } = edges.build();
    const valid = Buffer.from(`id url\n${Array.from({ length: 20 }, (_, v) => `${v}\thttp://example.org/p/${v}`).join('\n')}\n`);
    const path = join(dir.path, 'labels.txt');
    await everyInputTyped(
      INPUTS,
      (i) => (i % 2 === 0 ? mutate(random, valid) : Buffer.from(randomText(random, '0123456789 \t\nhttp:/#%ab', random.nextInt(300)))),
      async (bytes) => {
        writeFileSync(path, bytes);
        await readLabelFile(path, graph);
      },
      (bytes) => JSON.stringify(Buffer.from(bytes).toString('latin1')),
    );
  });

  it(`HTML and sitemaps: ${INPUTS} random and mutated documents each are read without a crash, within the caps`, () => {
    const random = new Random(53);
    const html = '<html><head><base href="/b/"><meta http-equiv=refresh content="0;url=/r"><link rel=canonical href=/c></head><body><a href="/a" rel="nofollow ugc">a</a><iframe src=/i></iframe></body></html>';
    const xml = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/a</loc><lastmod>2026-01-01</lastmod></url></urlset>';
    for (let i = 0; i < INPUTS; i++) {
      const page = i % 2 === 0 ? Buffer.from(mutate(random, Buffer.from(html))).toString('utf8') : randomText(random, '<>/="\' a=href!-&;#x\n\tbase title meta link area iframe refresh url', random.nextInt(400));
      const extracted = extractLinks(page);
      assert.ok(extracted.links.length <= 10_000);
      const sitemap = Buffer.from(mutate(random, Buffer.from(i % 3 === 0 ? xml : `${xml.slice(0, 40)}${randomText(random, '<>/loc url sitemapindex lastmod:', 200)}`))).toString('utf8');
      const read = extractSitemap(sitemap, 100);
      assert.ok(read.entries.length <= 100);
      for (const entry of read.entries) assert.ok(entry.lastmod === null || Number.isFinite(entry.lastmod));
    }
  });
});
