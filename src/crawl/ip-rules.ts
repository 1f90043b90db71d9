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

/** Parses an address, mapping IPv4-mapped IPv6 (::ffff:a.b.c.d) to IPv4; null if it is not one. */
export function parseAddress(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare);
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

  /** Whether the crawl may connect to `text` (an IPv4 or IPv6 address), and why not. */
  check(text: string): IpDecision {
    const address = parseAddress(text);
    if (address === null) return { allowed: false, reason: `'${text}' is not an IP address` };
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
