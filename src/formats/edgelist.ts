/**
 * Edge lists: one link per line, "from to" separated by white space, a tab or
 * a comma (SNAP, TSV, CSV). Lines starting with '#' or '%' are comments, an
 * optional header line is recognised, .gz files are read transparently, and
 * the file is streamed: no string ever holds the whole file.
 *
 * Labels are kept as they appear; the nodes are the labels that appear in a
 * link (see EdgeCollector for how ids are given).
 */
import { InputFormatError, OptionError } from '../errors.js';
import type { BuildOptions, BuiltGraph } from '../graph/builder.js';
import { EdgeCollector } from '../graph/edge-collector.js';
import { type StreamProgress, streamFile } from './file-stream.js';

export type Separator = 'auto' | 'tab' | 'comma' | 'space';

export interface EdgeListOptions extends BuildOptions {
  /** Column separator; 'auto' picks tab, then comma, then white space from the first data line. */
  separator?: Separator;
  /**
   * 'auto' (default): the first data line is a header when it is not numeric
   * and the second one is. true: the first data line is always a header.
   */
  header?: 'auto' | boolean;
  /** 'numeric' makes a non-integer node id an error instead of a text label. */
  ids?: 'auto' | 'numeric';
  /** The third column is a positive link weight (parallel links add up). */
  weighted?: boolean;
  onProgress?: (progress: StreamProgress & { edges: number }) => void;
}

const SPACE = 32;
const TAB = 9;
const CR = 13;
const COMMA = 44;
const HASH = 35;
const PERCENT = 37;
const MAX_LINE_BYTES = 1 << 20;

/** Pushes bytes in, gets a graph out; `readEdgeList` feeds it from a file. */
export class EdgeListParser {
  private readonly collector: EdgeCollector;
  private carry: Buffer | null = null;
  private line = 0;
  private separator: Separator;
  private readonly header: 'auto' | boolean;
  private readonly numericOnly: boolean;
  private readonly weighted: boolean;
  private dataLines = 0;
  /** The first data line, held until the second tells whether it was a header. */
  private pending: { fields: string[]; weight: number; line: number } | null = null;
  // Field bounds of the current line: starts[i], ends[i] for i < fieldCount (first 3 kept).
  private readonly starts = new Int32Array(3);
  private readonly ends = new Int32Array(3);
  private fieldCount = 0;

  constructor(
    readonly path: string,
    private readonly options: EdgeListOptions = {},
  ) {
    this.separator = options.separator ?? 'auto';
    this.header = options.header ?? 'auto';
    this.numericOnly = options.ids === 'numeric';
    this.weighted = options.weighted === true;
    this.collector = new EdgeCollector(this.weighted);
  }

  /** Number of lines consumed so far (the line an error in the stream is at). */
  get lineNumber(): number {
    return this.line;
  }

  get edgeCount(): number {
    return this.collector.edgeCount;
  }

  write(chunk: Buffer): void {
    let start = 0;
    if (this.carry !== null) {
      // Only the line cut by the chunk boundary is copied, not the whole chunk.
      const newline = chunk.indexOf(10);
      if (newline < 0) {
        this.keepPartialLine(Buffer.concat([this.carry, chunk]));
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, newline + 1)]);
      this.carry = null;
      this.parseLines(line, line.length);
      start = newline + 1;
    }
    const complete = chunk.lastIndexOf(10) + 1; // >= start
    if (complete > start) this.parseLines(chunk.subarray(start, complete), complete - start);
    const rest = Math.max(complete, start);
    if (rest < chunk.length) this.keepPartialLine(Buffer.from(chunk.subarray(rest)));
  }

  private keepPartialLine(partial: Buffer): void {
    if (partial.length > MAX_LINE_BYTES) {
      throw new InputFormatError(this.path, this.line + 1, `line longer than ${MAX_LINE_BYTES} bytes; is this a text file?`);
    }
    this.carry = partial;
  }

  /** Finishes the input and builds the graph. */
  end(): BuiltGraph {
    if (this.carry !== null) {
      const last = this.carry;
      this.carry = null;
      this.parseLine(last, 0, last.length, ++this.line);
    }
    if (this.pending !== null) this.addPending();
    if (this.collector.edgeCount === 0) {
      throw new InputFormatError(this.path, undefined, 'no links found: the file is empty or holds only comments');
    }
    return this.collector.build(this.options);
  }

  /**
   * Parses the lines of buffer[0, end), which ends with '\n'. The common line
   * "digits SEP digits\n" is parsed inline on the bytes; anything else (comments,
   * text labels, weights, stray blanks, the first lines) goes to parseLine.
   */
  private parseLines(buffer: Buffer, end: number): void {
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, end);
    const collector = this.collector;
    let i = 0;
    while (i < end) {
      let lineStart = i;
      if (this.fastPathReady()) {
        const sep = this.separator === 'tab' ? TAB : this.separator === 'comma' ? COMMA : SPACE;
        for (;;) {
          lineStart = i;
          // First id: canonical digits.
          let c = bytes[i]!;
          if (c < 48 || c > 57) break;
          let source = c - 48;
          i++;
          c = bytes[i]!;
          if (source === 0 && c >= 48 && c <= 57) break;
          while (c >= 48 && c <= 57) {
            source = source * 10 + (c - 48);
            c = bytes[++i]!;
          }
          // Separator: the file's one, or a run of blanks in 'space' mode.
          if (sep === SPACE) {
            if (c !== SPACE && c !== TAB) break;
            while (c === SPACE || c === TAB) c = bytes[++i]!;
          } else {
            if (c !== sep) break;
            c = bytes[++i]!;
          }
          // Second id.
          if (c < 48 || c > 57) break;
          let target = c - 48;
          c = bytes[++i]!;
          if (target === 0 && c >= 48 && c <= 57) break;
          while (c >= 48 && c <= 57) {
            target = target * 10 + (c - 48);
            c = bytes[++i]!;
          }
          if (c === CR) c = bytes[++i]!;
          if (c !== 10 || source > 0x7fffffff || target > 0x7fffffff) break;
          i++;
          this.line++;
          this.dataLines++;
          collector.addNumeric(source, target);
          if (i >= end) return;
        }
      }
      // Slow path for the line that starts at lineStart.
      let newline = lineStart;
      while (bytes[newline] !== 10) newline++;
      this.parseLine(buffer, lineStart, newline, ++this.line);
      i = newline + 1;
    }
  }

  /** The inline path applies once the header question is settled and ids are plain integers. */
  private fastPathReady(): boolean {
    return (
      this.dataLines >= 1 &&
      this.pending === null &&
      this.separator !== 'auto' &&
      !this.weighted &&
      this.collector.numeric
    );
  }

  private parseLine(buffer: Buffer, start: number, end: number, line: number): void {
    let i = start;
    while (i < end && (buffer[i] === SPACE || buffer[i] === TAB || buffer[i] === CR)) i++;
    if (i === end || buffer[i] === HASH || buffer[i] === PERCENT) return;
    if (this.separator === 'auto') this.separator = detectSeparator(buffer, i, end);
    this.split(buffer, i, end);
    if (this.fieldCount < 2) {
      throw new InputFormatError(
        this.path,
        line,
        `expected two columns (from, to), found ${this.fieldCount}: '${preview(buffer, start, end)}'`,
      );
    }
    const s = parseCanonicalIntBytes(buffer, this.starts[0]!, this.ends[0]!);
    const t = parseCanonicalIntBytes(buffer, this.starts[1]!, this.ends[1]!);
    this.dataLines++;
    if (this.dataLines === 1 && this.header === true) return;
    const headerCandidate = this.dataLines === 1 && this.header === 'auto' && (s < 0 || t < 0);
    let weight = 1;
    if (this.weighted) weight = this.parseWeight(buffer, line, headerCandidate);
    if (headerCandidate) {
      this.pending = { fields: [this.field(buffer, 0), this.field(buffer, 1)], weight, line };
      return;
    }
    if (this.pending !== null) {
      // A non-numeric first line followed by a numeric one was a header.
      if (s < 0 || t < 0) this.addPending();
      this.pending = null;
    }
    if (s >= 0 && t >= 0 && this.collector.numeric) {
      this.collector.addNumeric(s, t, weight);
      return;
    }
    if (this.numericOnly) {
      const bad = s < 0 ? this.field(buffer, 0) : this.field(buffer, 1);
      throw new InputFormatError(
        this.path,
        line,
        `expected a non-negative integer node id, found '${truncate(bad)}' (--ids numeric)`,
      );
    }
    this.collector.addText(this.field(buffer, 0), this.field(buffer, 1), weight);
  }

  private addPending(): void {
    const pending = this.pending!;
    this.pending = null;
    if (Number.isNaN(pending.weight)) {
      throw new InputFormatError(this.path, pending.line, 'expected a positive number as link weight in the third column');
    }
    if (this.numericOnly) {
      throw new InputFormatError(
        this.path,
        pending.line,
        `expected a non-negative integer node id, found '${truncate(pending.fields[0]!)}' (--ids numeric)`,
      );
    }
    this.collector.addText(pending.fields[0]!, pending.fields[1]!, pending.weight);
  }

  /** The third column as a positive weight; NaN instead of an error for a possible header line. */
  private parseWeight(buffer: Buffer, line: number, lenient: boolean): number {
    const text = this.fieldCount < 3 ? '' : this.field(buffer, 2);
    const weight = Number(text);
    if (text === '' || !Number.isFinite(weight) || weight <= 0) {
      if (lenient) return Number.NaN;
      if (this.fieldCount < 3) {
        throw new InputFormatError(this.path, line, 'expected a third column with the link weight (--weighted)');
      }
      throw new InputFormatError(this.path, line, `expected a positive number as link weight, found '${truncate(text)}'`);
    }
    return weight;
  }

  private field(buffer: Buffer, index: number): string {
    return buffer.toString('utf8', this.starts[index]!, this.ends[index]!);
  }

  /** Splits [start, end) into fields; keeps the bounds of the first three. */
  private split(buffer: Buffer, start: number, end: number): void {
    let count = 0;
    let i = start;
    if (this.separator === 'space') {
      while (i < end) {
        while (i < end && isBlank(buffer[i]!)) i++;
        if (i === end) break;
        const fieldStart = i;
        while (i < end && !isBlank(buffer[i]!)) i++;
        if (count < 3) {
          this.starts[count] = fieldStart;
          this.ends[count] = i;
        }
        count++;
      }
    } else {
      const sep = this.separator === 'tab' ? TAB : COMMA;
      while (end > start && isBlank(buffer[end - 1]!)) end--;
      for (;;) {
        let fieldEnd = i;
        while (fieldEnd < end && buffer[fieldEnd] !== sep) fieldEnd++;
        let a = i;
        let b = fieldEnd;
        while (a < b && isBlank(buffer[a]!)) a++;
        while (b > a && isBlank(buffer[b - 1]!)) b--;
        if (count < 3) {
          this.starts[count] = a;
          this.ends[count] = b;
        }
        count++;
        if (fieldEnd >= end) break;
        i = fieldEnd + 1;
      }
      // "a," has an empty second field: that is one column, not two.
      while (count > 0 && count <= 3 && this.starts[count - 1] === this.ends[count - 1]) count--;
    }
    this.fieldCount = count;
  }
}

function isBlank(byte: number): boolean {
  return byte === SPACE || byte === TAB || byte === CR;
}

/**
 * The separator of a file, from its first data line: a tab if there is one;
 * else white space when it splits the line into fields that do not begin or
 * end with a comma (URLs may contain commas); else a comma if there is one.
 */
function detectSeparator(buffer: Buffer, start: number, end: number): Separator {
  let comma = false;
  for (let i = start; i < end; i++) {
    if (buffer[i] === TAB) return 'tab';
    if (buffer[i] === COMMA) comma = true;
  }
  if (!comma) return 'space';
  let fields = 0;
  let i = start;
  while (i < end) {
    while (i < end && isBlank(buffer[i]!)) i++;
    if (i === end) break;
    const fieldStart = i;
    while (i < end && !isBlank(buffer[i]!)) i++;
    if (buffer[fieldStart] === COMMA || buffer[i - 1] === COMMA) return 'comma';
    fields++;
  }
  return fields >= 2 ? 'space' : 'comma';
}

/** The value of a canonical non-negative integer below 2^31 in bytes [start, end), or -1. */
export function parseCanonicalIntBytes(buffer: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length === 0 || length > 10) return -1;
  if (length > 1 && buffer[start] === 48) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = buffer[i]! - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value <= 0x7fffffff ? value : -1;
}

function preview(buffer: Buffer, start: number, end: number): string {
  return truncate(buffer.toString('utf8', start, Math.min(end, start + 200)).replace(/\r$/, ''));
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Reads an edge-list file (plain or gzip) into a graph. */
export async function readEdgeList(path: string, options: EdgeListOptions = {}): Promise<BuiltGraph> {
  validateEdgeListOptions(options);
  const parser = new EdgeListParser(path, options);
  const onProgress = options.onProgress;
  await streamFile(path, (chunk) => parser.write(chunk), {
    where: () => parser.lineNumber,
    ...(onProgress === undefined
      ? {}
      : { onProgress: (p: StreamProgress) => onProgress({ ...p, edges: parser.edgeCount }) }),
  });
  return parser.end();
}

/** Parses edge-list text held in memory (tests, small inputs). */
export function parseEdgeList(text: string, name = '<text>', options: EdgeListOptions = {}): BuiltGraph {
  validateEdgeListOptions(options);
  const parser = new EdgeListParser(name, options);
  parser.write(Buffer.from(text, 'utf8'));
  return parser.end();
}

function validateEdgeListOptions(options: EdgeListOptions): void {
  const separators: Separator[] = ['auto', 'tab', 'comma', 'space'];
  if (options.separator !== undefined && !separators.includes(options.separator)) {
    throw new OptionError('--separator', `expected one of ${separators.join(', ')}, got '${options.separator}'`);
  }
  if (options.ids !== undefined && options.ids !== 'auto' && options.ids !== 'numeric') {
    throw new OptionError('--ids', `expected auto or numeric, got '${String(options.ids)}'`);
  }
}
