/**
 * Parquet: two files laid out as the vertex and edge tables of a property
 * graph, as Spark GraphFrames expects them (vertices with an `id` column,
 * edges with `src` and `dst`) and DuckDB reads them (read_parquet):
 *   pages.parquet  id, url|host|label, the page attributes, the score columns
 *   links.parquet  src, dst, and type / nofollow / rel / weight where known
 * Written by hyparquet-writer (pure JavaScript, loaded only when a Parquet
 * export runs), one row group per batch, each flushed to the file before the
 * next is encoded.
 */
import type { AppContext } from '../app/context.js';
import { InputFormatError } from '../errors.js';
import type { AttributeType, ExportGraph } from './model.js';
import { relText } from './model.js';
import { FileSink } from './sink.js';

type ParquetModule = typeof import('hyparquet-writer');
type BasicType = import('hyparquet-writer').BasicType;
type ColumnSource = import('hyparquet-writer').ColumnSource;

const PARQUET_TYPES: Record<AttributeType, BasicType> = { string: 'STRING', integer: 'INT32', double: 'DOUBLE', boolean: 'BOOLEAN' };
const PAGE_BATCH = 100_000;
const LINK_BATCH = 1_000_000;

export interface ParquetFiles {
  pages: string;
  links: string;
}

/** A hyparquet Writer whose buffered bytes go to a FileSink after each row group. */
function sinkWriter(parquet: ParquetModule, sink: FileSink): import('hyparquet-writer').Writer {
  const writer = new parquet.ByteWriter(1 << 20) as unknown as import('hyparquet-writer').Writer & { index: number };
  const drain = async (): Promise<void> => {
    const bytes = new Uint8Array(writer.buffer, 0, writer.index).slice();
    writer.index = 0;
    await sink.writeBytes(bytes);
  };
  writer.flush = drain;
  writer.finish = drain;
  return writer;
}

async function writeTable(
  parquet: ParquetModule,
  path: string,
  rows: number,
  batch: number,
  columns: (start: number, end: number) => ColumnSource[],
  context: AppContext,
  what: string,
): Promise<number> {
  const sink = new FileSink(path);
  try {
    const writer = sinkWriter(parquet, sink);
    const schema = parquet.schemaFromColumnData({ columnData: columns(0, Math.min(rows, 1)) });
    const file = new parquet.ParquetWriter({ writer, schema, createdBy: 'wga' });
    for (let start = 0; start < rows || (start === 0 && rows === 0); start += batch) {
      const end = Math.min(rows, start + batch);
      if (end > start) await file.write({ columnData: columns(start, end), rowGroupSize: end - start });
      context.signal?.throwIfAborted();
      context.onProgress?.({ phase: 'export', message: `parquet: ${end} of ${rows} ${what}`, done: end, total: rows });
      if (rows === 0) break;
    }
    await file.finish();
    return await sink.close();
  } catch (error) {
    sink.destroy();
    throw error;
  }
}

export async function writeParquet(graph: ExportGraph, files: ParquetFiles, context: AppContext = {}): Promise<{ pages: number; links: number }> {
  const parquet = await import('hyparquet-writer');
  const pageColumns = (start: number, end: number): ColumnSource[] => {
    const ids = new Int32Array(end - start);
    const labels: string[] = [];
    for (let v = start; v < end; v++) {
      ids[v - start] = v;
      labels.push(graph.label(v));
    }
    const columns: ColumnSource[] = [
      { name: 'id', data: ids, type: 'INT32', nullable: false },
      { name: graph.labelName, data: labels, type: 'STRING', nullable: false },
    ];
    for (const attribute of graph.attributes) {
      if (attribute.name === graph.labelName || attribute.name === 'id') continue;
      const values: unknown[] = [];
      for (let v = start; v < end; v++) {
        const value = attribute.value(v);
        const missing = value === null || (typeof value === 'number' && Number.isNaN(value));
        if (!missing && attribute.type === 'integer' && (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > 0x7fffffff)) {
          throw new InputFormatError(attribute.name, undefined, `page ${v}: ${String(value)} is not a 32-bit integer`);
        }
        values.push(missing ? null : value);
      }
      columns.push({ name: attribute.name, data: values, type: PARQUET_TYPES[attribute.type], nullable: true });
    }
    return columns;
  };
  // Sources of the link rows: page v of each link, found by walking the offsets.
  const { offsets, targets, kinds, kindNames, rel, weights } = graph;
  let sourceCursor = 0;
  const linkColumns = (start: number, end: number): ColumnSource[] => {
    const src = new Int32Array(end - start);
    if (start === 0) sourceCursor = 0;
    for (let e = start; e < end; e++) {
      while (offsets[sourceCursor + 1]! <= e) sourceCursor++;
      src[e - start] = sourceCursor;
    }
    const columns: ColumnSource[] = [
      { name: 'src', data: src, type: 'INT32', nullable: false },
      { name: 'dst', data: targets.slice(start, end), type: 'INT32', nullable: false },
    ];
    if (kinds !== null) {
      const names: string[] = [];
      for (let e = start; e < end; e++) names.push(kindNames[kinds[e]!]!);
      columns.push({ name: 'type', data: names, type: 'STRING', nullable: false });
    }
    if (rel !== null) {
      const flags: boolean[] = [];
      const tokens: string[] = [];
      for (let e = start; e < end; e++) {
        flags.push((rel[e]! & 1) === 1);
        tokens.push(relText(rel[e]!));
      }
      columns.push({ name: 'nofollow', data: flags, type: 'BOOLEAN', nullable: false });
      columns.push({ name: 'rel', data: tokens, type: 'STRING', nullable: false });
    }
    if (weights !== null) columns.push({ name: 'weight', data: weights.slice(start, end), type: 'DOUBLE', nullable: false });
    return columns;
  };
  const pages = await writeTable(parquet, files.pages, graph.nodeCount, PAGE_BATCH, pageColumns, context, 'pages');
  const links = await writeTable(parquet, files.links, graph.edgeCount, LINK_BATCH, linkColumns, context, 'links');
  return { pages, links };
}
