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

export interface RankColumn {
  method: string;
  /** values[v] of every node; NaN for a node the method did not rank (restricted PageRank). */
  values: ArrayLike<number>;
}

/**
 * Rank positions: order[i] = node at position i + 1, highest value first, ties in node-id order,
 * unranked (NaN) nodes last; position[v] = 1-based position, 0 when unranked.
 */
export function rankPositions(values: ArrayLike<number>): { order: Int32Array; position: Float64Array } {
  const n = values.length;
  const order = new Int32Array(n);
  for (let v = 0; v < n; v++) order[v] = v;
  order.sort((a, b) => {
    const x = values[a]!;
    const y = values[b]!;
    const xNaN = Number.isNaN(x);
    const yNaN = Number.isNaN(y);
    if (xNaN || yNaN) return xNaN === yNaN ? a - b : xNaN ? 1 : -1;
    return y - x || a - b;
  });
  const position = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = order[i]!;
    position[v] = Number.isNaN(values[v]!) ? 0 : i + 1;
  }
  return { order, position };
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
