/**
 * A generator of graphs shaped like Common Crawl's host graph, written straight to the compact file
 * (src/formats/compact-file.ts) without a text stage: for the scale benchmark and for users who want
 * to test their machine before downloading the real one.
 *
 * The shape (Common Crawl's host graph of 2024: 335M hosts, 2.7G links, 81% dangling, giant SCC
 * 15%): hosts numbered in the byte order of their reversed names, as Common Crawl numbers them
 * (`com.example`, `com.example.h00001`, ..., `com.example.www`), grouped in pay-level domains of
 * power-law sizes under a handful of top-level domains; a share of the hosts (19% by default) link
 * out, the others are dangling; in-degrees follow a power law (exponent about 2.1); each in-link
 * comes from a linking host near the target in id order (same or nearby domains: the locality that
 * makes gaps small) or, otherwise, from a linking host drawn with a power-law preference (hubs), so
 * out-degrees are heavy-tailed too. Lists are drawn in page order from a generator seeded per block,
 * so a graph depends on its parameters and seed only.
 */
import { CompactFileWriter, type CompactFileHeader } from '../formats/compact-file.js';
import { SAMPLE, transposeCompact } from '../graph/compact.js';
import { FrontCodedLabelsBuilder } from '../graph/front-coded-labels.js';

export interface HostGraphOptions {
  pages: number;
  /** Links wanted (the result comes within a fraction of a percent). */
  links: number;
  seed?: number;
  /** Share of hosts without out-links (default 0.81). */
  danglingShare?: number;
  /** Share of in-links drawn near the target (default 0.6). */
  localShare?: number;
  /** Links per pass of the transposition that builds the out-lists (memory: 4 bytes each). */
  budgetLinks?: number;
  segmentBytes?: number;
  onProgress?: (message: string) => void;
}

export interface HostGraphReport {
  header: CompactFileHeader;
  seconds: { inLists: number; outLists: number; labels: number };
  bytes: { inLists: number; outLists: number; labels: number };
}

/** mulberry32: a small fast 32-bit generator, one per block of pages. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const TOP_LEVEL = [
  ['at', 1], ['au', 2], ['br', 2], ['ca', 2], ['ch', 1], ['com', 45], ['cz', 1], ['de', 7], ['es', 2], ['fr', 3], ['info', 2], ['io', 1],
  ['it', 3], ['jp', 3], ['net', 5], ['nl', 2], ['org', 5], ['pl', 2], ['ru', 5], ['se', 1], ['uk', 4], ['us', 1],
] as const;

/** Base-26 letters of k, `width` wide: names sort as their numbers do. */
function letters(k: number, width: number): string {
  let s = '';
  let x = k;
  for (let i = 0; i < width; i++) {
    s = String.fromCharCode(97 + (x % 26)) + s;
    x = Math.floor(x / 26);
  }
  return s;
}

/** The hosts' names in id (= byte) order: pay-level domains of power-law sizes under the top-level domains. */
export function* hostNames(pages: number, seed: number): Generator<string> {
  const total = TOP_LEVEL.reduce((sum, [, weight]) => sum + weight, 0);
  const random = generator(mix(seed, 0x51ed));
  let emitted = 0;
  let cumulative = 0;
  for (const [tld, weight] of TOP_LEVEL) {
    cumulative += weight;
    const end = tld === 'us' ? pages : Math.round((pages * cumulative) / total);
    let domain = 0;
    while (emitted < end) {
      // Domain sizes: P(size >= s) ~ s^-1.2, at most 10^4 hosts.
      const size = Math.min(end - emitted, 10_000, Math.max(1, Math.floor(random() ** (-1 / 1.2))));
      const name = `${tld}.${letters(domain++, 7)}`;
      yield name;
      for (let h = 1; h < size - 1; h++) yield `${name}.h${String(h).padStart(5, '0')}`;
      if (size > 1) yield `${name}.www`;
      emitted += size;
    }
  }
}

/** Writes the generated graph to `path` (in-lists, out-lists and names). */
export function generateHostGraph(path: string, options: HostGraphOptions): HostGraphReport {
  const n = options.pages;
  const seed = options.seed ?? 1;
  const danglingShare = options.danglingShare ?? 0.81;
  const localShare = options.localShare ?? 0.6;
  const progress = options.onProgress ?? ((): void => {});
  if (!(Number.isInteger(n) && n >= 2)) throw new RangeError(`pages must be an integer >= 2, got ${n}`);
  if (!(options.links >= 0)) throw new RangeError(`links must be >= 0, got ${options.links}`);

  // The linking hosts, in id order.
  let linkerCount = 0;
  const isLinker = (v: number): boolean => mix(seed, v) / 4294967296 >= danglingShare;
  for (let v = 0; v < n; v++) if (isLinker(v)) linkerCount++;
  if (linkerCount < 2) throw new RangeError('fewer than two linking hosts: raise pages or lower the dangling share');
  const linkers = new Int32Array(linkerCount);
  for (let v = 0, i = 0; v < n; v++) if (isLinker(v)) linkers[i++] = v;

  // In-degrees: Pareto draws (exponent 2.1 for the density), scaled so that they add up to the links wanted.
  const degree = new Int32Array(n);
  const cap = Math.min(linkerCount - 1, 5_000_000);
  let drawn = 0;
  for (let block = 0; block * SAMPLE < n; block++) {
    const random = generator(mix(seed ^ 0x1d, block));
    const end = Math.min(n, (block + 1) * SAMPLE);
    for (let v = block * SAMPLE; v < end; v++) {
      const d = Math.min(cap, Math.floor(random() ** (-1 / 1.1)) - 1);
      degree[v] = d;
      drawn += d;
    }
  }
  // Scaled with stochastic rounding, at least 1 (a host of Common Crawl's graph is there because
  // something links to it); the scale is corrected once for the links the minimum adds.
  const drawnDegree = degree.slice();
  const scaled = (scale: number): number => {
    let total = 0;
    for (let block = 0; block * SAMPLE < n; block++) {
      const random = generator(mix(seed ^ 0x2e, block));
      const end = Math.min(n, (block + 1) * SAMPLE);
      for (let v = block * SAMPLE; v < end; v++) {
        const x = drawnDegree[v]! * scale;
        // A fifth of the linking hosts are linked from nowhere (crawled, not referenced).
        const least = isLinker(v) && random() < 0.2 ? 0 : 1;
        const d = Math.min(cap, Math.max(least, Math.floor(x) + (random() < x - Math.floor(x) ? 1 : 0)));
        degree[v] = d;
        total += d;
      }
    }
    return total;
  };
  // The minimum adds links the scale did not count: corrected twice on the part above it.
  let scale = drawn === 0 ? 0 : options.links / drawn;
  for (let round = 0; round < 3; round++) {
    const total = scaled(scale);
    if (round === 2 || total <= n) break;
    scale *= Math.max(0, options.links - 0.8 * n) / Math.max(1, total - 0.8 * n);
  }

  const writer = new CompactFileWriter(path);
  try {
    let started = performance.now();
    const inWriter = writer.beginLists('in', n, { keep: true, offsets: true, ...(options.segmentBytes === undefined ? {} : { segmentBytes: options.segmentBytes }) });
    const list = new Int32Array(cap + 1);
    let near = 0;
    const window = 48;
    // A multiplier below 2^21 and prime to the linker count: rank * spread stays exact in a double.
    let spread = 1_000_003;
    while (linkerCount % spread === 0) spread += 2;
    for (let block = 0; block * SAMPLE < n; block++) {
      const random = generator(mix(seed ^ 0x3f, block));
      const end = Math.min(n, (block + 1) * SAMPLE);
      for (let v = block * SAMPLE; v < end; v++) {
        while (near < linkerCount && linkers[near]! < v) near++;
        const d = degree[v]!;
        let length = 0;
        for (let attempt = 0; length < d && attempt < 8; attempt++) {
          while (length < d) {
            let source: number;
            if (random() < localShare) {
              // A linking host near v: the same or a neighbouring domain.
              const i = near + Math.floor((random() * 2 - 1) * (window + d));
              source = linkers[Math.min(linkerCount - 1, Math.max(0, i))]!;
            } else {
              // A hub-biased draw, its rank scattered over the ids by a multiplicative permutation.
              const u = random();
              const rank = Math.floor(linkerCount * u * u * u);
              source = linkers[(rank * spread + 12345) % linkerCount]!;
            }
            list[length++] = source;
          }
          // Sorted, distinct, no self-link; another round draws what was lost.
          if (length <= 24) {
            for (let i = 1; i < length; i++) {
              const x = list[i]!;
              let j = i - 1;
              while (j >= 0 && list[j]! > x) {
                list[j + 1] = list[j]!;
                j--;
              }
              list[j + 1] = x;
            }
          } else list.subarray(0, length).sort();
          let kept = 0;
          for (let i = 0; i < length; i++) {
            const x = list[i]!;
            if (x !== v && (kept === 0 || x !== list[kept - 1])) list[kept++] = x;
          }
          length = kept;
        }
        inWriter.add(list, length);
      }
      if (block % 65536 === 0) progress(`in-lists: ${Math.min(n, end).toLocaleString('en-US')} of ${n.toLocaleString('en-US')} hosts`);
    }
    const inLists = inWriter.finish();
    writer.endLists('in', inLists);
    const inSeconds = (performance.now() - started) / 1000;
    const inBytes = inLists.samples[inLists.samples.length - 1]!;
    progress(`in-lists: ${inLists.linkCount.toLocaleString('en-US')} links, ${(inBytes / inLists.linkCount).toFixed(2)} bytes per link`);

    started = performance.now();
    const outWriter = writer.beginLists('out', n, { offsets: true, ...(options.segmentBytes === undefined ? {} : { segmentBytes: options.segmentBytes }) });
    // The out-lists: the transpose, in passes of a bounded buffer, streamed to the file.
    const outLists = transposeCompact(inLists, {
      ...(options.budgetLinks === undefined ? {} : { budgetLinks: options.budgetLinks }),
      writer: outWriter,
      onPass: (pass, lo, hi) => progress(`out-lists: pass ${pass + 1}, hosts ${lo.toLocaleString('en-US')}..${hi.toLocaleString('en-US')}`),
    });
    writer.endLists('out', outLists);
    inLists.segments.length = 0;
    const outSeconds = (performance.now() - started) / 1000;

    started = performance.now();
    const names = new FrontCodedLabelsBuilder();
    for (const name of hostNames(n, seed)) names.add(name);
    const labels = names.finish();
    writer.writeLabels(labels);
    const labelSeconds = (performance.now() - started) / 1000;
    const header = writer.close({ level: 'host', reversed: true, source: `generated host graph: ${n} hosts, ${options.links} links wanted, seed ${seed}, dangling ${danglingShare}, local ${localShare}` });
    return {
      header,
      seconds: { inLists: inSeconds, outLists: outSeconds, labels: labelSeconds },
      bytes: { inLists: inBytes, outLists: outLists.samples[outLists.samples.length - 1]!, labels: labels.memoryBytes() },
    };
  } catch (error) {
    writer.abort();
    throw error;
  }
}
