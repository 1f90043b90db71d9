/**
 * A ranks table like Common Crawl's web-graph ranks files: one line per node with, for every
 * method, its rank position (1 = best) and its value, then the node's name (and, for hosts and
 * domains, how many pages or hosts they hold). Lines in the order of the first method's positions;
 * the header line starts with '#', as theirs does (`#harmonicc_pos #harmonicc_val #pr_pos #pr_val
 * #host_rev`); we name the columns after wga's methods.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { FileNotFoundError } from '../errors.js';
import type { Labels } from '../graph/labels.js';
import { endianness } from 'node:os';

/** Which 32-bit half of a 64-bit word comes first in memory. */
const LOW = endianness() === 'LE' ? 0 : 1;
const HIGH = 1 - LOW;

export interface RankColumn {
  method: string;
  /** values[v] of every node; NaN for a node the method did not rank (restricted PageRank). */
  values: ArrayLike<number>;
}

/**
 * Rank positions: order[i] = node at position i + 1, highest value first, ties in node-id order,
 * unranked (NaN) nodes last; position[v] = 1-based position, 0 when unranked. -0 ranks as 0.
 *
 * Why not `order.sort(comparator)`: V8 refuses a comparator for typed arrays of more than about
 * 1.3 x 10^8 elements ("Custom comparefn not supported for huge TypedArrays"), which Common
 * Crawl's host graph (3.35 x 10^8) passes, and it copies the array twice on the way. Instead each
 * node gets one 64-bit key, sorted by the runtime's native sort, in place: the value's bits made
 * to order as unsigned integers (descending), their top 64 - b bits, then the node's id in the
 * low b bits (b = the bits of n - 1). Nodes whose keys' value parts are equal but whose values
 * differ in the bits left out (values closer than about 2^-(52 - b) of each other) are sorted
 * again among themselves, by the rest of their bits. Memory: 8 bytes per node during the sort,
 * then 4 for the order and 4 for the positions.
 */
export function rankPositions(values: ArrayLike<number>, options: { keepOrder?: boolean; resortLimit?: number } = {}): { order: Int32Array; position: Uint32Array } {
  const n = values.length;
  if (n > 2 ** 31) throw new RangeError(`rank positions of ${n} nodes: at most 2^31`);
  const idBits = n <= 1 ? 1 : Math.ceil(Math.log2(n));
  // Bits of the low word that hold the value (idBits <= 31 here, so the high word is all value).
  const idMask = idBits >= 32 ? 0xffffffff : 2 ** idBits - 1;
  const valueMask = ~idMask >>> 0;
  const keys = new BigUint64Array(n);
  const words = new Uint32Array(keys.buffer);
  const bits = new Float64Array(1);
  const bitWords = new Uint32Array(bits.buffer);
  for (let v = 0; v < n; v++) {
    descendingKey(values[v]!, bits, bitWords);
    words[2 * v + LOW] = ((bitWords[LOW]! & valueMask) | v) >>> 0;
    words[2 * v + HIGH] = bitWords[HIGH]!;
  }
  keys.sort();
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = words[2 * i + LOW]! & idMask;
  // Runs of equal value parts whose values differ: sorted again by the value's remaining bits.
  const resortLimit = options.resortLimit ?? 1 << 16;
  for (let start = 0; start < n; ) {
    let end = start + 1;
    const high = words[2 * start + HIGH]!;
    const low = (words[2 * start + LOW]! & valueMask) >>> 0;
    while (end < n && words[2 * end + HIGH] === high && ((words[2 * end + LOW]! & valueMask) >>> 0) === low) end++;
    if (end - start > 1) resortRun(order.subarray(start, end), values, resortLimit);
    start = end;
  }
  const position = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const v = order[i]!;
    position[v] = Number.isNaN(values[v]!) ? 0 : i + 1;
  }
  return { order: options.keepOrder === false ? new Int32Array(0) : order, position };
}

/**
 * The 64-bit key of `x` that orders as an unsigned integer from the highest value to the lowest,
 * NaN last (all ones), in `words` ([low, high]) through `bits`.
 */
function descendingKey(x: number, bits: Float64Array, words: Uint32Array): void {
  if (Number.isNaN(x)) {
    words[LOW] = 0xffffffff;
    words[HIGH] = 0xffffffff;
    return;
  }
  bits[0] = x === 0 ? 0 : x;
  const high = words[HIGH]!;
  // Ascending, a negative value has every bit flipped and a positive one its sign bit set;
  // descending flips that again: a negative value's key is its own bits.
  if (high >>> 31 === 1) return;
  words[LOW] = ~words[LOW]! >>> 0;
  words[HIGH] = ~(high | 0x80000000) >>> 0;
}

/** Ids (ascending) of nodes whose keys' value parts are equal: in descending value order, ties by id. */
function resortRun(run: Int32Array, values: ArrayLike<number>, limit: number): void {
  const first = values[run[0]!]!;
  let same = true;
  // (NaN keys are all ones: a run with one NaN is all NaN.)
  for (let i = 1; i < run.length && same; i++) same = values[run[i]!]! === first;
  if (same || Number.isNaN(first)) return;
  if (run.length <= limit) {
    run.sort((a, b) => {
      const x = values[a]!;
      const y = values[b]!;
      return y - x || a - b;
    });
    return;
  }
  // A long run: the same packing again, over the value's low 32 bits and the run's own indices
  // (which are in id order), so no comparator is needed.
  const ids = Int32Array.from(run);
  const keys = new BigUint64Array(run.length);
  const words = new Uint32Array(keys.buffer);
  const bits = new Float64Array(1);
  const bitWords = new Uint32Array(bits.buffer);
  for (let i = 0; i < run.length; i++) {
    descendingKey(values[ids[i]!]!, bits, bitWords);
    words[2 * i + LOW] = i;
    words[2 * i + HIGH] = bitWords[LOW]!;
  }
  keys.sort();
  for (let i = 0; i < run.length; i++) run[i] = ids[words[2 * i + LOW]!]!;
}

/** A name safe for one TSV cell: tabs and line breaks percent-encoded. */
function cell(name: string): string {
  return /[\t\r\n]/.test(name) ? name.replace(/\t/g, '%09').replace(/\r/g, '%0D').replace(/\n/g, '%0A') : name;
}

/** Writes the ranks table of `columns` (at least one) over the nodes named by `labels`. */
export async function writeRanksTable(
  path: string,
  labels: Labels,
  columns: RankColumn[],
  options: { nameColumn: string; members?: { column: string; counts: ArrayLike<number> }; positions?: Array<ReturnType<typeof rankPositions>> },
): Promise<void> {
  const n = columns[0]!.values.length;
  const positions = options.positions ?? columns.map((c) => rankPositions(c.values));
  const order = positions[0]!.order;
  const stream = createWriteStream(path);
  const failed = new Promise<never>((_, reject) => {
    stream.on('error', (error) => reject(new FileNotFoundError(path, `cannot write: ${error.message}`)));
  });
  const write = async (text: string): Promise<void> => {
    if (!stream.write(text)) await Promise.race([once(stream, 'drain'), failed]);
  };
  const header = [...columns.flatMap((c) => [`#${c.method}_pos`, `#${c.method}_val`]), `#${options.nameColumn}`];
  if (options.members !== undefined) header.push(`#${options.members.column}`);
  await write(`${header.join('\t')}\n`);
  const blockSize = 4096;
  for (let start = 0; start < n; start += blockSize) {
    let block = '';
    const end = Math.min(n, start + blockSize);
    for (let i = start; i < end; i++) {
      const v = order[i]!;
      for (let c = 0; c < columns.length; c++) {
        const p = positions[c]!.position[v]!;
        const value = columns[c]!.values[v]!;
        block += p === 0 ? '-\t-\t' : `${p}\t${value}\t`;
      }
      block += cell(labels.label(v));
      if (options.members !== undefined) block += `\t${options.members.counts[v]}`;
      block += '\n';
    }
    await write(block);
  }
  stream.end();
  await Promise.race([once(stream, 'finish'), failed]);
}
