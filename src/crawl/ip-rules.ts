/**
 * Which server addresses a crawl may connect to (the Web Graph Analyzer
 * paper's "ranges of IP addresses that can be accessed and ranges that are
 * not allowed", plus its country table). Checked on the address actually
 * connected to, after DNS and after every redirect (see fetcher.ts).
 *
 * Order of the rules: a --deny-ip range always refuses; when --allow-ip
 * ranges are given the address must be in one of them; otherwise only
 * public unicast addresses are allowed: private, loopback, link-local,
 * unique-local, multicast, reserved, carrier-grade NAT and the IPv6 forms
 * that embed IPv4 are refused unless an --allow-ip range names them (a
 * crawler must not be a way into the network it runs in). Then the
 * country rules: with --country the address must be in a table range of one
 * of those countries; --deny-country refuses those countries.
 */
import ipaddr from 'ipaddr.js';
import { OptionError } from '../errors.js';
import type { CountryTable } from './country-table.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

export interface IpRulesOptions {
  allow?: readonly string[];
  deny?: readonly string[];
  countries?: CountryTable | null;
  /** Countries allowed (two-letter codes, any case); empty: any. */
  allowCountries?: readonly string[];
  denyCountries?: readonly string[];
}

export type IpDecision = { allowed: true; country: string | null } | { allowed: false; reason: string };

/** Parses an address, mapping IPv4-mapped IPv6 (::ffff:a.b.c.d) to IPv4; null if it is not one. A zone id (%eth0) is dropped. */
export function parseAddress(text: string): Address | null {
  let bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = bare.indexOf('%');
  if (zone > 0 && bare.includes(':')) bare = bare.slice(0, zone);
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare);
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, by which it is judged: IPv4-compatible (::a.b.c.d,
 * deprecated), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96, and the local-use 64:ff9b:1::/48),
 * 6to4 (2002:AABB:CCDD::/48), Teredo (2001::/32: the server, and the client, stored inverted) and
 * ISATAP (an interface id of 0:5efe or 200:5efe). IPv4-mapped addresses are IPv4 already (parseAddress).
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const zeros = (from: number, to: number): boolean => p.slice(from, to).every((x) => x === 0);
  const found: ipaddr.IPv4[] = [];
  // ::a.b.c.d (but :: and ::1, which are IPv6's own unspecified and loopback).
  if (zeros(0, 6) && !(p[6] === 0 && (p[7] === 0 || p[7] === 1))) found.push(ipv4Of(p[6]!, p[7]!));
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) found.push(ipv4Of(p[6]!, p[7]!));
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) found.push(ipv4Of(p[6]!, p[7]!));
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) found.push(ipv4Of(p[6]!, p[7]!));
  if (p[0] === 0x2002) found.push(ipv4Of(p[1]!, p[2]!));
  if (p[0] === 0x2001 && p[1] === 0) {
    found.push(ipv4Of(p[2]!, p[3]!));
    found.push(ipv4Of(p[6]! ^ 0xffff, p[7]! ^ 0xffff));
  }
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) found.push(ipv4Of(p[6]!, p[7]!));
  return found;
}

/** A CIDR range or a single address (as /32 or /128). */
export function parseRange(text: string, option: string): Range {
  const trimmed = text.trim();
  try {
    if (trimmed.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(trimmed);
      // ::ffff:10.0.0.0/104 is the IPv4 range 10.0.0.0/8: addresses are compared in their IPv4 form.
      if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
      }
      return [address, bits];
    }
    const address = parseAddress(trimmed);
    if (address !== null) return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    // fall through to the typed error
  }
  throw new OptionError(option, `'${text}' is not an IP address or CIDR range (e.g. 127.0.0.1/32, 10.0.0.0/8, ::1/128)`);
}

function inRange(address: Address, range: Range): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}

function describe(range: Range): string {
  return `${range[0].toString()}/${range[1]}`;
}

/** Addresses whose decision IpRules keeps (all of them are forgotten when it is full). */
const DECISIONS_KEPT = 4096;

export class IpRules {
  private readonly allow: Range[];
  private readonly deny: Range[];
  private readonly countries: CountryTable | null;
  private readonly allowCountries: Set<string>;
  private readonly denyCountries: Set<string>;

  constructor(options: IpRulesOptions = {}) {
    this.allow = (options.allow ?? []).map((r) => parseRange(r, '--allow-ip'));
    this.deny = (options.deny ?? []).map((r) => parseRange(r, '--deny-ip'));
    this.countries = options.countries ?? null;
    this.allowCountries = new Set((options.allowCountries ?? []).map((c) => checkCountry(c, '--country')));
    this.denyCountries = new Set((options.denyCountries ?? []).map((c) => checkCountry(c, '--deny-country')));
    if ((this.allowCountries.size > 0 || this.denyCountries.size > 0) && this.countries === null) {
      throw new OptionError(this.allowCountries.size > 0 ? '--country' : '--deny-country', 'needs --ip-country FILE, the table of IP ranges and their countries');
    }
  }

  /**
   * Decisions of the addresses seen last (the rules never change): a crawl asks about the same few
   * addresses at every request, and parsing one each time was 1% of the crawler's thread.
   */
  private decided = new Map<string, IpDecision>();

  /** Whether the crawl may connect to `text` (an IPv4 or IPv6 address), and why not. */
  check(text: string): IpDecision {
    const known = this.decided.get(text);
    if (known !== undefined) return known;
    const decision = this.decide(text);
    if (this.decided.size >= DECISIONS_KEPT) this.decided = new Map();
    this.decided.set(text, decision);
    return decision;
  }

  private decide(text: string): IpDecision {
    const address = parseAddress(text);
    if (address === null) return { allowed: false, reason: `'${text}' is not an IP address` };
    // An IPv6 address that carries an IPv4 one reaches that address: it is judged as that address.
    if (address.kind() === 'ipv6') {
      const carried = embeddedIPv4(address as ipaddr.IPv6);
      if (carried.length > 0) {
        for (const v4 of carried) {
          const decision = this.check(v4.toString());
          if (!decision.allowed) return { allowed: false, reason: `${address.toString()} carries ${v4.toString()}: ${decision.reason}` };
        }
        return this.check(carried[carried.length - 1]!.toString());
      }
    }
    const shown = address.toString();
    const denied = this.deny.find((range) => inRange(address, range));
    if (denied !== undefined) return { allowed: false, reason: `address ${shown} is in --deny-ip ${describe(denied)}` };
    if (this.allow.length > 0) {
      if (!this.allow.some((range) => inRange(address, range))) return { allowed: false, reason: `address ${shown} is not in any --allow-ip range` };
    } else {
      const kind = address.range();
      if (kind !== 'unicast') return { allowed: false, reason: `address ${shown} is ${kind} (allow it with --allow-ip)` };
    }
    const country = this.countries === null ? null : this.countries.lookup(address);
    if (this.allowCountries.size > 0 && (country === null || !this.allowCountries.has(country))) {
      return { allowed: false, reason: `address ${shown} is ${country === null ? 'in no country of the table' : `in ${country}`}, not in --country ${[...this.allowCountries].join(',')}` };
    }
    if (country !== null && this.denyCountries.has(country)) return { allowed: false, reason: `address ${shown} is in ${country}, a --deny-country` };
    return { allowed: true, country };
  }
}

function checkCountry(code: string, option: string): string {
  const upper = code.trim().toUpperCase();
  if (!/^[A-Z0-9]{2,3}$/.test(upper)) throw new OptionError(option, `'${code}' is not a country code (two letters, e.g. FR)`);
  return upper;
}
