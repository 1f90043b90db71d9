/**
 * The IP-range to country table of the Web Graph Analyzer paper's country
 * filter, read from a user's file. One range per line, fields separated by
 * whitespace or commas, optional double quotes (so the common CSV exports
 * load as they are), `#` comments:
 *   CIDR COUNTRY                 e.g. 192.0.2.0/24 FR
 *   FIRST LAST COUNTRY [...]     e.g. 192.0.2.0 192.0.2.255 FR, or "3221225984","3221226239","FR","France"
 * (FIRST and LAST as addresses or, for IPv4, as 32-bit integers; a country
 * "-", which the common exports give unassigned ranges, skips the line).
 * Overlapping ranges are cut, when the table is read, into disjoint segments
 * each with the country of the narrowest range holding it, so that a lookup is
 * one binary search however the ranges nest.
 */
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { FileNotFoundError, InputFormatError } from '../errors.js';
import { parseAddress } from './ip-rules.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function toBigInt(address: Address): bigint {
  let value = 0n;
  for (const byte of address.toByteArray()) value = (value << 8n) | BigInt(byte);
  return value;
}

/** Disjoint segments sorted by their first address. */
interface Ranges {
  first: bigint[];
  last: bigint[];
  country: string[];
}

interface Row {
  v6: boolean;
  first: bigint;
  last: bigint;
  country: string;
  /** Line order, to break ties between equally narrow ranges (the later line wins). */
  order: number;
}

/** Whether row a takes precedence over row b where both hold an address: narrower, then starting later, then later line. */
function narrower(a: Row, b: Row): boolean {
  const wa = a.last - a.first;
  const wb = b.last - b.first;
  if (wa !== wb) return wa < wb;
  if (a.first !== b.first) return a.first > b.first;
  return a.order > b.order;
}

/**
 * Cuts possibly overlapping ranges into disjoint segments, each with the country of the narrowest
 * range holding it. A sweep in address order with a heap of the ranges open at the current
 * address, narrowest on top: the answer only changes where a range starts or where the top one
 * ends (ranges that ended under the top are dropped when they reach it). O(n log n).
 */
function segments(rows: Row[]): Ranges {
  rows.sort((x, y) => (x.first < y.first ? -1 : x.first > y.first ? 1 : x.order - y.order));
  // The usual table has disjoint ranges: they are their own segments.
  let disjoint = true;
  for (let i = 1; i < rows.length && disjoint; i++) disjoint = rows[i]!.first > rows[i - 1]!.last;
  if (disjoint) return { first: rows.map((r) => r.first), last: rows.map((r) => r.last), country: rows.map((r) => r.country) };
  const heap: Row[] = [];
  const push = (row: Row): void => {
    let i = heap.length;
    heap.push(row);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!narrower(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const pop = (): void => {
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && narrower(heap[right]!, heap[left]!) ? right : left;
      if (!narrower(heap[child]!, heap[i]!)) break;
      [heap[i], heap[child]] = [heap[child]!, heap[i]!];
      i = child;
    }
  };
  const result: Ranges = { first: [], last: [], country: [] };
  let next = 0;
  let at = rows[0]!.first;
  // Each turn passes a range's start or the top range's end: at most 2n turns.
  for (;;) {
    while (next < rows.length && rows[next]!.first <= at) push(rows[next++]!);
    while (heap.length > 0 && heap[0]!.last < at) pop();
    if (heap.length === 0) {
      if (next === rows.length) break;
      at = rows[next]!.first;
      continue;
    }
    const top = heap[0]!;
    let end = top.last;
    if (next < rows.length && rows[next]!.first <= end) end = rows[next]!.first - 1n;
    const n = result.first.length;
    // Adjacent segments of one country are one segment.
    if (n > 0 && result.country[n - 1] === top.country && result.last[n - 1]! + 1n === at) result.last[n - 1] = end;
    else {
      result.first.push(at);
      result.last.push(end);
      result.country.push(top.country);
    }
    at = end + 1n;
  }
  return result;
}

export class CountryTable {
  private readonly v4: Ranges;
  private readonly v6: Ranges;
  private readonly rows: number;

  private constructor(v4: Ranges, v6: Ranges, rows: number) {
    this.v4 = v4;
    this.v6 = v6;
    this.rows = rows;
  }

  /** Ranges read from the table. */
  get size(): number {
    return this.rows;
  }

  static fromFile(path: string): CountryTable {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new FileNotFoundError(path, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such country table' : (error as Error).message);
    }
    return CountryTable.parse(text, path);
  }

  static parse(text: string, path = '(country table)'): CountryTable {
    const rows: Row[] = [];
    const lines = text.split(/\r?\n/);
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n]!.trim();
      if (line === '' || line.startsWith('#')) continue;
      const fields = line.split(/[\s,]+/).map((f) => f.replace(/^"|"$/g, ''));
      const fail = (problem: string): never => {
        throw new InputFormatError(path, n + 1, problem);
      };
      if (fields[0]!.includes('/')) {
        if (fields.length < 2) fail('expected "CIDR COUNTRY"');
        let range: [Address, number];
        try {
          range = ipaddr.parseCIDR(fields[0]!);
        } catch {
          return fail(`'${fields[0]}' is not a CIDR range`);
        }
        const width = range[0].kind() === 'ipv4' ? 32 : 128;
        const size = 1n << BigInt(width - range[1]);
        const first = (toBigInt(range[0]) / size) * size;
        if (fields[1] === UNASSIGNED) continue;
        rows.push({ v6: width === 128, first, last: first + size - 1n, country: checkCode(fields[1]!, fail), order: rows.length });
        continue;
      }
      if (fields.length < 3) fail('expected "FIRST LAST COUNTRY" or "CIDR COUNTRY"');
      const bound = (field: string): { v6: boolean; value: bigint } => {
        if (/^\d+$/.test(field)) {
          const value = BigInt(field);
          if (value > 0xffffffffn) fail(`${field} is larger than an IPv4 address`);
          return { v6: false, value };
        }
        const address = parseAddress(field);
        if (address === null) return fail(`'${field}' is not an IP address`);
        return { v6: address.kind() === 'ipv6', value: toBigInt(address) };
      };
      const a = bound(fields[0]!);
      const b = bound(fields[1]!);
      if (a.v6 !== b.v6) fail('the range mixes IPv4 and IPv6');
      if (b.value < a.value) fail('the range ends before it starts');
      if (fields[2] === UNASSIGNED) continue;
      rows.push({ v6: a.v6, first: a.value, last: b.value, country: checkCode(fields[2]!, fail), order: rows.length });
    }
    return new CountryTable(
      segments(rows.filter((r) => !r.v6)),
      segments(rows.filter((r) => r.v6)),
      rows.length,
    );
  }

  /** The country of an address, or null when no range holds it (the narrowest range wins on overlaps). */
  lookup(address: Address | string): string | null {
    const parsed = typeof address === 'string' ? parseAddress(address) : address;
    if (parsed === null) return null;
    const ranges = parsed.kind() === 'ipv4' ? this.v4 : this.v6;
    const value = toBigInt(parsed);
    // The last segment starting at or before the address.
    let low = 0;
    let high = ranges.first.length - 1;
    let at = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (ranges.first[mid]! <= value) {
        at = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    return at >= 0 && ranges.last[at]! >= value ? ranges.country[at]! : null;
  }
}

/** The country the common CSV exports (IP2Location's, for one) give ranges assigned to none. */
const UNASSIGNED = '-';

function checkCode(code: string, fail: (problem: string) => never): string {
  const upper = code.toUpperCase();
  if (!/^[A-Z0-9]{2,3}$/.test(upper)) fail(`'${code}' is not a country code`);
  return upper;
}
