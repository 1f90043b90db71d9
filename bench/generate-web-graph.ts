/**
 * A deterministic web-like graph of any size, written as wga's binary
 * adjacency file (src/formats/adjacency-binary.ts), for the PageRank and
 * memory benchmarks at 10^8 and 10^9 links:
 *
 *   node dist/bench/generate-web-graph.js OUT.wgadj PAGES [SEED] [--tsv OUT.tsv]
 *
 * PAGES = 10,000,000 gives about 99M links; 100,000,000 about 990M.
 * Page u is dangling with probability 0.1; otherwise it has 1..21 out-links
 * (uniform, mean 11), alternately
 * - local: u +- 1..64 (the sign and distance uniform, wrapping around), the
 *   links of a site's navigation, which keep a crawl-ordered graph local;
 * - to a power-law target: rank r = floor(PAGES^U) - 1 for U uniform in
 *   [0, 1), so P(r) ~ 1/(r+1) (Zipf, exponent 1, the in-degree tail of web
 *   graphs), mapped to page (7919 r + 12345) mod PAGES so that the popular
 *   pages are spread over the ids.
 * Repeated targets and self-links are dropped and every row is sorted, so
 * the file loads without a cleaning pass. xoshiro128** (src/util/random.ts)
 * seeded with SEED (1) makes the file the same on every machine.
 * --tsv also writes the same links as a text edge list (for igraph and
 * graph-tool, which cannot read the binary file).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { AdjacencyWriter } from '../src/formats/adjacency-binary.js';
import { Random } from '../src/util/random.js';

export const LOCAL_SPAN = 64;
export const MAX_OUT_DEGREE = 21;
export const DANGLING_SHARE = 0.1;
const SCRAMBLE = 7919;
const SHIFT = 12345;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Calls `row(u, targets, length)` for every page in order, with the targets sorted and distinct. */
export function generateWebGraph(pages: number, seed: number, row: (u: number, targets: Int32Array, length: number) => void): void {
  if (gcd(SCRAMBLE, pages) !== 1) throw new Error(`PAGES must not be a multiple of ${SCRAMBLE}`);
  const random = new Random(seed);
  const logPages = Math.log(pages);
  const targets = new Int32Array(MAX_OUT_DEGREE);
  const danglingThreshold = DANGLING_SHARE * 4294967296;
  for (let u = 0; u < pages; u++) {
    if (random.nextUint32() < danglingThreshold) {
      row(u, targets, 0);
      continue;
    }
    const degree = 1 + random.nextInt(MAX_OUT_DEGREE);
    let length = 0;
    for (let i = 0; i < degree; i++) {
      let t: number;
      if (i % 2 === 0) {
        const bits = random.nextUint32();
        const distance = 1 + (bits & (LOCAL_SPAN - 1));
        t = bits & LOCAL_SPAN ? u + distance : u - distance;
        t = ((t % pages) + pages) % pages;
      } else {
        const rank = Math.min(pages - 1, Math.floor(Math.exp(random.next() * logPages)) - 1);
        t = (rank * SCRAMBLE + SHIFT) % pages;
      }
      if (t === u) continue;
      // Insertion into the sorted prefix, skipping repeats.
      let j = length;
      while (j > 0 && targets[j - 1]! > t) j--;
      if (j > 0 && targets[j - 1] === t) continue;
      targets.copyWithin(j + 1, j, length);
      targets[j] = t;
      length++;
    }
    row(u, targets, length);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const tsvAt = args.indexOf('--tsv');
  const tsvPath = tsvAt >= 0 ? args.splice(tsvAt, 2)[1] : undefined;
  const [out, pagesText, seedText] = args;
  if (out === undefined || pagesText === undefined) throw new Error('usage: generate-web-graph.js OUT.wgadj PAGES [SEED] [--tsv OUT.tsv]');
  const pages = Number(pagesText);
  const seed = seedText === undefined ? 1 : Number(seedText);
  if (!(Number.isInteger(pages) && pages > 1 && pages < 2 ** 31)) throw new Error(`PAGES must be an integer in 2..2^31-1, got ${pagesText}`);
  const started = performance.now();
  const writer = new AdjacencyWriter(out, pages);
  const tsv = tsvPath === undefined ? null : openSync(tsvPath, 'w');
  let text = '';
  generateWebGraph(pages, seed, (u, targets, length) => {
    writer.addRow(targets, length);
    if (tsv === null) return;
    for (let i = 0; i < length; i++) text += `${u}\t${targets[i]!}\n`;
    if (text.length > 1 << 20) {
      writeSync(tsv, text);
      text = '';
    }
  });
  if (tsv !== null) {
    writeSync(tsv, text);
    closeSync(tsv);
  }
  const { links } = writer.close();
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`${out}: ${pages} pages, ${links} links, ${seconds.toFixed(1)} s\n`);
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
