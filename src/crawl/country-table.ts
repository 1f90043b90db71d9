/**
 * The IP-range to country table of the Web Graph Analyzer paper's country
 * filter, read from a user's file. One range per line, fields separated by
 * whitespace or commas, optional double quotes (so the common CSV exports
 * load as they are), `#` comments:
 *   CIDR COUNTRY                 e.g. 192.0.2.0/24 FR
 *   FIRST LAST COUNTRY [...]     e.g. 192.0.2.0 192.0.2.255 FR, or "3221225984","3221226239","FR","France"
 * (FIRST and LAST as addresses or, for IPv4, as 32-bit integers). Lookups are
 * binary searches over the sorted ranges.
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

interface Ranges {
  first: bigint[];
  last: bigint[];
  country: string[];
}

export class CountryTable {
  private readonly v4: Ranges;
  private readonly v6: Ranges;

  private constructor(v4: Ranges, v6: Ranges) {
    this.v4 = v4;
    this.v6 = v6;
  }

  get size(): number {
    return this.v4.first.length + this.v6.first.length;
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
    const rows: Array<{ v6: boolean; first: bigint; last: bigint; country: string }> = [];
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
        rows.push({ v6: width === 128, first, last: first + size - 1n, country: checkCode(fields[1]!, fail) });
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
      rows.push({ v6: a.v6, first: a.value, last: b.value, country: checkCode(fields[2]!, fail) });
    }
    const build = (v6: boolean): Ranges => {
      const chosen = rows.filter((r) => r.v6 === v6).sort((x, y) => (x.first < y.first ? -1 : x.first > y.first ? 1 : 0));
      return { first: chosen.map((r) => r.first), last: chosen.map((r) => r.last), country: chosen.map((r) => r.country) };
    };
    return new CountryTable(build(false), build(true));
  }

  /** The country of an address, or null when no range holds it (the narrowest range wins on overlaps). */
  lookup(address: Address | string): string | null {
    const parsed = typeof address === 'string' ? parseAddress(address) : address;
    if (parsed === null) return null;
    const ranges = parsed.kind() === 'ipv4' ? this.v4 : this.v6;
    const value = toBigInt(parsed);
    // Last range starting at or before the address; walk back over overlapping earlier ranges.
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
    let best: string | null = null;
    let bestWidth = -1n;
    for (let i = at; i >= 0 && i > at - 64; i--) {
      if (ranges.last[i]! >= value) {
        const width = ranges.last[i]! - ranges.first[i]!;
        if (best === null || width < bestWidth) {
          best = ranges.country[i]!;
          bestWidth = width;
        }
      }
    }
    return best;
  }
}

function checkCode(code: string, fail: (problem: string) => never): string {
  const upper = code.toUpperCase();
  if (!/^[A-Z0-9]{2,3}$/.test(upper)) fail(`'${code}' is not a country code`);
  return upper;
}
