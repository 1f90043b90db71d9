/**
 * Score files: one line per page, "label<TAB>score", in id order, preceded by
 * '#' comment lines that say what the scores are; or a JSON document
 * {"method": ..., "scores": [{"label": ..., "score": ...}, ...]}. Scores are
 * written with full precision (JavaScript's shortest round-trip form).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { FileNotFoundError, InputFormatError } from '../errors.js';
import type { Labels } from '../graph/labels.js';
import { LineSplitter, streamFile } from './file-stream.js';

export type ScoreFormat = 'tsv' | 'json';

/** 'json' for a .json path, 'tsv' otherwise. */
export function scoreFormatFor(path: string): ScoreFormat {
  return path.toLowerCase().endsWith('.json') ? 'json' : 'tsv';
}

/** Writes every page's score, streaming in blocks (no single string for the whole file). */
export async function writeScores(
  path: string,
  labels: Labels,
  scores: ArrayLike<number>,
  options: { format?: ScoreFormat; comments?: string[]; method?: string; column?: string } = {},
): Promise<void> {
  const format = options.format ?? scoreFormatFor(path);
  const column = options.column ?? 'score';
  const stream = createWriteStream(path);
  const failed = new Promise<never>((_, reject) => {
    stream.on('error', (error) => reject(new FileNotFoundError(path, `cannot write: ${error.message}`)));
  });
  const write = async (text: string): Promise<void> => {
    if (!stream.write(text)) await Promise.race([once(stream, 'drain'), failed]);
  };
  const n = scores.length;
  const blockSize = 4096;
  if (format === 'tsv') {
    let header = '';
    for (const comment of options.comments ?? []) header += `# ${comment.replace(/\n/g, ' ')}\n`;
    await write(`${header}# label\t${column}\n`);
    for (let start = 0; start < n; start += blockSize) {
      let block = '';
      const end = Math.min(n, start + blockSize);
      for (let v = start; v < end; v++) block += `${labels.label(v)}\t${scores[v]}\n`;
      await write(block);
    }
  } else {
    await write(`{"method":${JSON.stringify(options.method ?? null)},"${column}s":[`);
    for (let start = 0; start < n; start += blockSize) {
      let block = '';
      const end = Math.min(n, start + blockSize);
      for (let v = start; v < end; v++) {
        block += `${v === 0 ? '' : ','}\n{"label":${JSON.stringify(labels.label(v))},"${column}":${jsonNumber(scores[v]!)}}`;
      }
      await write(block);
    }
    await write('\n]}\n');
  }
  stream.end();
  await Promise.race([once(stream, 'finish'), failed]);
}

function jsonNumber(x: number): string {
  return Number.isFinite(x) ? String(x) : 'null';
}

/** JSON score files larger than this are refused (JSON is read whole; TSV streams). */
const MAX_JSON_SCORE_BYTES = 512 * 1024 * 1024;

/** Reads a JSON score file as writeScores writes it: {"method": ..., "scores": [{"label": ..., "score": ...}]} (or levels/level). */
async function readJsonScores(path: string): Promise<Map<string, number>> {
  const { readFile, stat } = await import('node:fs/promises');
  const size = (await stat(path)).size;
  if (size > MAX_JSON_SCORE_BYTES) throw new InputFormatError(path, undefined, `a JSON score file of ${size} bytes: write large ones as TSV (rank --out FILE.tsv)`);
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InputFormatError(path, undefined, `not JSON: ${(error as Error).message.slice(0, 120)}`);
  }
  const entries = typeof document === 'object' && document !== null ? Object.entries(document as Record<string, unknown>).find(([key, value]) => key.endsWith('s') && Array.isArray(value)) : undefined;
  if (entries === undefined) throw new InputFormatError(path, undefined, 'expected a JSON object with a "scores" list, as wga rank --out FILE.json writes');
  const [listName, list] = entries as [string, unknown[]];
  const column = listName.slice(0, -1);
  const scores = new Map<string, number>();
  list.forEach((item, index) => {
    const entry = item as Record<string, unknown> | null;
    const label = entry?.label;
    const value = entry?.[column];
    if (typeof label !== 'string' || !(typeof value === 'number' || value === null)) {
      throw new InputFormatError(path, undefined, `${listName}[${index}]: expected {"label": text, "${column}": number}`);
    }
    if (scores.has(label)) throw new InputFormatError(path, undefined, `${listName}[${index}]: label '${label.slice(0, 80)}' appears twice`);
    scores.set(label, value === null ? Number.NaN : value);
  });
  if (scores.size === 0) throw new InputFormatError(path, undefined, 'no scores found: the list is empty');
  return scores;
}

/** Reads a score file written by writeScores: TSV ("label<TAB>score" lines, any such file) or JSON (a .json name, or a file starting with '{'). */
export async function readScores(path: string): Promise<Map<string, number>> {
  if (scoreFormatFor(path) === 'json' || (await startsWithBrace(path))) return readJsonScores(path);
  const scores = new Map<string, number>();
  const splitter = new LineSplitter((buffer, start, end, line) => {
    let e = end;
    if (e > start && buffer[e - 1] === 13) e--;
    if (e === start || buffer[start] === 35) return;
    const text = buffer.toString('utf8', start, e);
    const tab = text.lastIndexOf('\t');
    if (tab < 0) throw new InputFormatError(path, line, `expected 'label<TAB>score', found '${text.slice(0, 80)}'`);
    const label = text.slice(0, tab);
    const score = Number(text.slice(tab + 1));
    if (text.slice(tab + 1).trim() === '' || Number.isNaN(score)) {
      throw new InputFormatError(path, line, `expected a number after the tab, found '${text.slice(tab + 1, tab + 41)}'`);
    }
    if (scores.has(label)) throw new InputFormatError(path, line, `label '${label.slice(0, 80)}' appears twice`);
    scores.set(label, score);
  }, path);
  await streamFile(path, (chunk) => splitter.write(chunk), { where: () => splitter.lineNumber });
  splitter.end();
  if (scores.size === 0) throw new InputFormatError(path, undefined, 'no scores found: the file is empty');
  return scores;
}

/** Whether a file's first character that is not white space is '{' (a JSON score file under another name). */
async function startsWithBrace(path: string): Promise<boolean> {
  const { open } = await import('node:fs/promises');
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    return buffer.toString('utf8', 0, bytesRead).trimStart().startsWith('{');
  } finally {
    await handle.close();
  }
}
