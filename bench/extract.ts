/**
 * Link extraction benchmark: every HTML file of a real manual (the PostgreSQL 15
 * manual, or libstdc++'s with --site libstdcxx), read from memory, through
 * - wga's LinkExtractor (htmlparser2's tokenizer, attributes of ten elements
 *   read, entities decoded in what is kept);
 * - htmlparser2's Parser with its entities decoded, the attributes of every tag
 *   built (what wga used before, and what a user of htmlparser2 would write):
 *   the hrefs of <a> and <area> kept.
 * Both whole documents at once; rounds interleaved, the first one a warm-up;
 * medians. Both must find the same links in every document the extractor's
 * merging leaves whole (pages of 10,000 links or more merge repeats of a target).
 *
 *   npm run bench:extract -- [ROUNDS] [--site pgdoc|libstdcxx]
 */
import { readFileSync } from 'node:fs';
import { Parser } from 'htmlparser2';
import { LinkExtractor } from '../src/crawl/extract.js';

/** Links written from which the extractor merges repeats of a target (extract.ts MERGE_AFTER). */
const MERGED_FROM = 10_000;
import { benchArguments } from './arguments.js';
import { htmlFiles, manualNamed } from './manuals.js';
import { median, progress } from './report.js';


let rounds = 7;
let site = 'pgdoc';
for (const { arg, value } of benchArguments(process.argv.slice(2))) {
  if (arg === '--site') site = value();
  else if (/^\d+$/.test(arg)) rounds = Number(arg);
  else throw new Error(`unknown argument ${arg}`);
}
const manual = manualNamed(site);

const documents = htmlFiles(manual.dir).map((path) => readFileSync(path, 'utf8'));
const characters = documents.reduce((sum, text) => sum + text.length, 0);
progress(`${manual.label}: ${documents.length} documents, ${(characters / 1e6).toFixed(1)} M characters`);

function withExtractor(text: string): number {
  const extractor = new LinkExtractor();
  extractor.write(text);
  return extractor.end().links.filter((link) => link.kind === 'anchor' || link.kind === 'area').length;
}

function withParser(text: string): number {
  let links = 0;
  new Parser({
    onopentag: (name, attributes) => {
      if ((name === 'a' || name === 'area') && attributes.href !== undefined) links++;
    },
  }, { decodeEntities: true }).end(text);
  return links;
}

// Same links first, document by document (the cap merges repeats on the few pages that reach it).
let capped = 0;
for (const text of documents) {
  const written = withParser(text);
  if (written >= MERGED_FROM) capped++;
  else if (withExtractor(text) !== written) throw new Error(`links found differ in a document of ${text.length} characters`);
}

const contenders = { 'wga LinkExtractor': withExtractor, 'htmlparser2 Parser': withParser };
const times = new Map<string, number[]>(Object.keys(contenders).map((name) => [name, []]));
const found = new Map<string, number>();
for (let round = 0; round <= rounds; round++) {
  for (const [name, read] of Object.entries(contenders)) {
    const start = process.hrtime.bigint();
    let links = 0;
    for (const text of documents) links += read(text);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    found.set(name, links);
    if (round > 0) times.get(name)!.push(ms);
  }
}
const [ours, theirs] = [...times.values()].map(median) as [number, number];
console.log(
  `${manual.label} (${manual.dir}): ${documents.length} documents (${capped} with ${MERGED_FROM} links or more, where the extractor merges repeats), ${(characters / 1e6).toFixed(1)} M characters; ${rounds} rounds after a warm-up, medians.\n`,
);
console.log('| reader | ms | M characters/s | links of a and area |');
console.log('|---|---:|---:|---:|');
for (const [name, list] of times) console.log(`| ${name} | ${median(list).toFixed(0)} | ${(characters / median(list) / 1e3).toFixed(0)} | ${found.get(name)} |`);
console.log(`\n- htmlparser2 Parser / wga LinkExtractor: ${(theirs / ours).toFixed(2)} times the time`);
