import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CountryTable } from '../../src/crawl/country-table.js';
import { IpRules, parseAddress, parseRange } from '../../src/crawl/ip-rules.js';
import { ExitCode, FileNotFoundError, InputFormatError, OptionError } from '../../src/errors.js';
import { temporaryDirectory } from '../helpers.js';

function allowed(rules: IpRules, address: string): boolean {
  return rules.check(address).allowed;
}

function reason(rules: IpRules, address: string): string {
  const decision = rules.check(address);
  assert.equal(decision.allowed, false, `${address} should be refused`);
  return decision.allowed ? '' : decision.reason;
}

/** Asserts that `run` throws an OptionError naming `option` (and a usage exit status). */
function throwsOption(run: () => unknown, option: string, mentions?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof OptionError, `expected an OptionError, got ${String(error)}`);
    assert.equal(error.option, option);
    assert.equal(error.exitCode, ExitCode.usage);
    assert.ok(error.message.startsWith(`${option}: `), error.message);
    if (mentions !== undefined) assert.ok(error.message.includes(mentions), error.message);
    return true;
  });
}

/** Asserts that `run` throws an InputFormatError at `path:line`. */
function throwsFormat(run: () => unknown, path: string, line: number, mentions?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof InputFormatError, `expected an InputFormatError, got ${String(error)}`);
    assert.equal(error.path, path);
    assert.equal(error.line, line);
    assert.equal(error.exitCode, ExitCode.input);
    assert.ok(error.message.startsWith(`${path}:${line}: `), error.message);
    if (mentions !== undefined) assert.ok(error.message.includes(mentions), error.message);
    return true;
  });
}

describe('IpRules defaults: only public unicast addresses', () => {
  const rules = new IpRules();

  it('allow public IPv4 and IPv6 unicast addresses, with no country when there is no table', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4007:80b::200e', '[2606:4700::1]']) {
      assert.deepEqual(rules.check(address), { allowed: true, country: null }, address);
    }
    // The edges of the private blocks are public.
    for (const address of ['9.255.255.255', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0', '126.255.255.255', '128.0.0.0']) {
      assert.equal(allowed(rules, address), true, address);
    }
  });

  it('refuse private, loopback, link-local, unique-local, unspecified, multicast and broadcast addresses', () => {
    const refused: Array<[string, string]> = [
      ['10.0.0.0', 'private'],
      ['10.255.255.255', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.1', 'private'],
      ['192.168.255.255', 'private'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['::1', 'loopback'],
      ['169.254.169.254', 'linkLocal'], // the cloud metadata service
      ['fe80::1', 'linkLocal'],
      ['febf:ffff::1', 'linkLocal'],
      ['fc00::1', 'uniqueLocal'],
      ['fdff:ffff::1', 'uniqueLocal'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['192.0.2.1', 'reserved'],
      ['240.0.0.1', 'reserved'],
      ['2001:db8::1', 'reserved'],
    ];
    for (const [address, kind] of refused) {
      const why = reason(rules, address);
      assert.ok(why.includes(kind), `${address}: ${why}`);
      assert.ok(why.includes('--allow-ip'), `${address}: the reason says how to allow it: ${why}`);
    }
  });

  it('refuse the IPv6 forms that embed an IPv4 address (NAT64, 6to4, Teredo, SIIT)', () => {
    for (const address of ['64:ff9b::7f00:1', '2002:7f00:1::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '::ffff:0:7f00:1']) {
      assert.equal(allowed(rules, address), false, address);
    }
  });

  it('judge every IPv6 form that carries an IPv4 address by that address (a table of the forms)', () => {
    // Each form of 127.0.0.1 (loopback) and of 8.8.8.8 (public): refused and allowed by default as those are,
    // and the loopback forms allowed once --allow-ip names 127.0.0.1.
    const forms: Array<[string, string, string]> = [
      ['IPv4-mapped', '::ffff:127.0.0.1', '::ffff:8.8.8.8'],
      ['IPv4-compatible', '::127.0.0.1', '::8.8.8.8'],
      ['IPv4-compatible, hex', '::7f00:1', '::808:808'],
      ['SIIT', '::ffff:0:7f00:1', '::ffff:0:808:808'],
      ['NAT64', '64:ff9b::7f00:1', '64:ff9b::808:808'],
      ['NAT64, dotted', '64:ff9b::127.0.0.1', '64:ff9b::8.8.8.8'],
      ['NAT64 local use', '64:ff9b:1::7f00:1', '64:ff9b:1::808:808'],
      ['6to4', '2002:7f00:1::1', '2002:808:808::1'],
      ['Teredo (server and client)', '2001:0:7f00:1:0:0:80ff:fffe', '2001:0:808:808:0:0:f7f7:f7f7'],
      ['ISATAP', 'fe80::5efe:127.0.0.1', '2001:db8::5efe:8.8.8.8'],
      ['zone id', '[::ffff:127.0.0.1%eth0]', '::ffff:8.8.8.8%1'],
      ['brackets', '[::127.0.0.1]', '[::8.8.8.8]'],
    ];
    const loopbackAllowed = new IpRules({ allow: ['127.0.0.1/32'] });
    for (const [form, loopback, publicAddress] of forms) {
      assert.equal(allowed(rules, loopback), false, `${form}: ${loopback} is refused`);
      assert.ok(reason(rules, loopback).includes('127.0.0.1'), `${form}: the reason names 127.0.0.1: ${reason(rules, loopback)}`);
      assert.equal(allowed(loopbackAllowed, loopback), true, `${form}: ${loopback} with --allow-ip 127.0.0.1/32`);
      if (form !== 'ISATAP') assert.equal(allowed(rules, publicAddress), true, `${form}: ${publicAddress} is public`);
    }
    // IPv6's own loopback and unspecified are not IPv4-compatible addresses.
    assert.equal(allowed(loopbackAllowed, '::1'), false);
    assert.equal(allowed(rules, '::'), false);
  });

  it('treat IPv4-mapped IPv6 addresses as their IPv4 address', () => {
    assert.equal(allowed(rules, '::ffff:127.0.0.1'), false);
    assert.ok(reason(rules, '::ffff:127.0.0.1').includes('127.0.0.1 is loopback'));
    assert.equal(allowed(rules, '::ffff:7f00:1'), false);
    assert.equal(allowed(rules, '::ffff:10.1.2.3'), false);
    assert.equal(allowed(rules, '::ffff:192.168.1.1'), false);
    assert.equal(allowed(rules, '[::ffff:169.254.169.254]'), false);
    assert.deepEqual(rules.check('::ffff:8.8.8.8'), { allowed: true, country: null });
  });

  it('refuse whatever is not an IP address, without throwing', () => {
    for (const text of ['', 'localhost', 'example.com', '1.2.3.4.5', '256.1.1.1', '::g', '1.2.3.4/8', '[1.2.3.4', 'fe80::1::2']) {
      const decision = rules.check(text);
      assert.equal(decision.allowed, false, text);
      if (!decision.allowed) assert.ok(decision.reason.includes('not an IP address'), `${text}: ${decision.reason}`);
    }
  });

  it('refuse numeric spellings of loopback (the address is what counts, not its spelling)', () => {
    for (const text of ['2130706433', '0x7f.0.0.1', '0177.0.0.1', '127.1']) assert.equal(allowed(rules, text), false, text);
  });
});

describe('IpRules --allow-ip and --deny-ip', () => {
  it('allow loopback when --allow-ip names it, and then only the allowed ranges', () => {
    const rules = new IpRules({ allow: ['127.0.0.1/32'] });
    assert.deepEqual(rules.check('127.0.0.1'), { allowed: true, country: null });
    assert.deepEqual(rules.check('::ffff:127.0.0.1'), { allowed: true, country: null });
    assert.ok(reason(rules, '127.0.0.2').includes('not in any --allow-ip range'));
    assert.ok(reason(rules, '8.8.8.8').includes('not in any --allow-ip range'));
    assert.equal(allowed(rules, '::1'), false, 'an IPv4 range never holds an IPv6 address');
  });

  it('take single addresses, CIDR ranges of both families and IPv4-mapped ranges', () => {
    const rules = new IpRules({ allow: ['10.0.0.0/8', ' 192.168.1.7 ', '::1', 'fd00::/8', '::ffff:172.16.0.0/108'] });
    for (const address of ['10.0.0.1', '10.200.3.4', '192.168.1.7', '::1', 'fd12:3456::1', '172.16.0.1', '172.31.255.255', '::ffff:10.9.9.9']) {
      assert.equal(allowed(rules, address), true, address);
    }
    for (const address of ['192.168.1.8', '11.0.0.1', '::2', 'fc00::1', '172.32.0.1', '8.8.8.8']) {
      assert.equal(allowed(rules, address), false, address);
    }
  });

  it('let --deny-ip beat --allow-ip and the defaults', () => {
    const rules = new IpRules({ allow: ['10.0.0.0/8', '8.8.0.0/16'], deny: ['10.1.0.0/16', '8.8.8.8'] });
    assert.equal(allowed(rules, '10.2.0.1'), true);
    const why = reason(rules, '10.1.2.3');
    assert.ok(why.includes('--deny-ip 10.1.0.0/16'), why);
    assert.ok(reason(rules, '::ffff:10.1.2.3').includes('--deny-ip'), 'mapped addresses are denied as their IPv4 form');
    assert.ok(reason(rules, '8.8.8.8').includes('--deny-ip 8.8.8.8/32'));
    assert.equal(allowed(rules, '8.8.4.4'), true);

    const publicOnly = new IpRules({ deny: ['1.1.1.0/24', '2606:4700::/32', '::ffff:9.9.9.0/120'] });
    assert.equal(allowed(publicOnly, '1.1.1.1'), false);
    assert.equal(allowed(publicOnly, '1.1.2.1'), true);
    assert.equal(allowed(publicOnly, '2606:4700::1111'), false);
    assert.equal(allowed(publicOnly, '2606:4701::1'), true);
    assert.equal(allowed(publicOnly, '9.9.9.9'), false);
    assert.equal(allowed(publicOnly, '127.0.0.1'), false, 'denying some ranges does not lift the defaults');
  });

  it('name the option when a range does not parse', () => {
    for (const bad of ['10.0.0.0/33', 'not-an-ip', '', '1.2.3.4/-1', '::1/129', '10.0.0.0/8/9', 'example.com/24']) {
      throwsOption(() => new IpRules({ allow: [bad] }), '--allow-ip', `'${bad}'`);
      throwsOption(() => new IpRules({ deny: [bad] }), '--deny-ip', `'${bad}'`);
      throwsOption(() => parseRange(bad, '--custom'), '--custom');
    }
  });

  it('parseRange and parseAddress give IPv4 forms for mapped addresses', () => {
    const [address, bits] = parseRange('::ffff:10.0.0.0/104', '--allow-ip');
    assert.equal(address.kind(), 'ipv4');
    assert.equal(address.toString(), '10.0.0.0');
    assert.equal(bits, 8);
    assert.deepEqual(
      parseRange('2001:db8::1', '--x').map((x) => x.toString()),
      ['2001:db8::1', '128'],
    );
    assert.equal(parseAddress('[::1]')?.toString(), '::1');
    assert.equal(parseAddress('::ffff:1.2.3.4')?.kind(), 'ipv4');
    assert.equal(parseAddress('nope'), null);
    assert.equal(parseAddress('[1.2.3.4]')?.toString(), '1.2.3.4');
  });
});

describe('IpRules --country and --deny-country', () => {
  const table = CountryTable.parse(['1.0.0.0/24 AU', '2.0.0.0 2.0.0.255 FR', '2a01:e00:: 2a01:eff:ffff:ffff:ffff:ffff:ffff:ffff FR', '3.0.0.0/8 us'].join('\n'));

  it('allow only the listed countries, refusing addresses the table does not know', () => {
    const rules = new IpRules({ countries: table, allowCountries: ['fr', ' AU '] });
    assert.deepEqual(rules.check('2.0.0.7'), { allowed: true, country: 'FR' });
    assert.deepEqual(rules.check('1.0.0.1'), { allowed: true, country: 'AU' });
    assert.deepEqual(rules.check('2a01:e00::1'), { allowed: true, country: 'FR' });
    assert.deepEqual(rules.check('::ffff:2.0.0.7'), { allowed: true, country: 'FR' });
    const us = reason(rules, '3.3.3.3');
    assert.ok(us.includes('in US') && us.includes('--country FR,AU'), us);
    assert.ok(reason(rules, '8.8.8.8').includes('in no country of the table'));
    // Country rules come after the address rules: a French private address stays refused.
    assert.ok(reason(new IpRules({ countries: table, allowCountries: ['FR'], allow: ['127.0.0.0/8'] }), '2.0.0.7').includes('--allow-ip'));
  });

  it('refuse denied countries and report the country of allowed addresses', () => {
    const rules = new IpRules({ countries: table, denyCountries: ['US'] });
    assert.ok(reason(rules, '3.1.2.3').includes('US, a --deny-country'));
    assert.deepEqual(rules.check('2.0.0.1'), { allowed: true, country: 'FR' });
    assert.deepEqual(rules.check('8.8.8.8'), { allowed: true, country: null }, 'outside the table: not denied');
    const both = new IpRules({ countries: table, allowCountries: ['US', 'FR'], denyCountries: ['FR'] });
    assert.equal(allowed(both, '2.0.0.1'), false);
    assert.equal(allowed(both, '3.0.0.1'), true);
  });

  it('need a table for country rules and check the codes, naming the option', () => {
    throwsOption(() => new IpRules({ allowCountries: ['FR'] }), '--country', '--ip-country');
    throwsOption(() => new IpRules({ denyCountries: ['FR'] }), '--deny-country', '--ip-country');
    throwsOption(() => new IpRules({ countries: table, allowCountries: ['France'] }), '--country', "'France'");
    throwsOption(() => new IpRules({ countries: table, denyCountries: ['F'] }), '--deny-country', "'F'");
    throwsOption(() => new IpRules({ countries: table, denyCountries: ['F-R'] }), '--deny-country');
    // A table without country rules is only used to report countries.
    assert.deepEqual(new IpRules({ countries: table }).check('1.0.0.9'), { allowed: true, country: 'AU' });
  });
});

describe('CountryTable', () => {
  it('reads "CIDR CC" and "FIRST LAST CC" lines, comments, blank lines, CRLF and commas', () => {
    const table = CountryTable.parse(
      [
        '# a comment',
        '',
        '   ',
        '192.0.2.0/24 FR',
        '198.51.100.0\t198.51.100.127\tde',
        '198.51.100.128,198.51.100.255,IT',
        '2001:db8::/32 NL',
        '2001:db9:: 2001:db9::ffff BE\r',
        '203.0.113.5/24 JP',
      ].join('\r\n'),
    );
    assert.equal(table.size, 6);
    const cases: Array<[string, string | null]> = [
      ['192.0.2.0', 'FR'],
      ['192.0.2.255', 'FR'],
      ['192.0.1.255', null],
      ['192.0.3.0', null],
      ['198.51.100.0', 'DE'],
      ['198.51.100.127', 'DE'],
      ['198.51.100.128', 'IT'],
      ['198.51.100.255', 'IT'],
      ['2001:db8::', 'NL'],
      ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'NL'],
      ['2001:db9::1234', 'BE'],
      ['2001:db9::1:0', null],
      // A CIDR with host bits set is the whole block.
      ['203.0.113.0', 'JP'],
      ['203.0.113.255', 'JP'],
      ['10.0.0.1', null],
      ['::ffff:192.0.2.9', 'FR'],
      ['not an address', null],
    ];
    for (const [address, country] of cases) assert.equal(table.lookup(address), country, address);
    const parsed = parseAddress('198.51.100.200');
    assert.ok(parsed !== null);
    assert.equal(table.lookup(parsed), 'IT');
  });

  it('reads the quoted CSV of the common exports, with IPv4 ranges as integers', () => {
    const table = CountryTable.parse(
      [
        '"16777216","16777471","AU","Australia"',
        '"3221225984","3221226239","FR","France"',
        '"3405803776","3405804031","KR","Korea, Republic of"',
        '0,0,ZZ',
        '4294967295 4294967295 XX',
      ].join('\n'),
    );
    assert.equal(table.lookup('1.0.0.0'), 'AU');
    assert.equal(table.lookup('1.0.0.255'), 'AU');
    assert.equal(table.lookup('1.0.1.0'), null);
    assert.equal(table.lookup('192.0.2.17'), 'FR');
    assert.equal(table.lookup('203.0.113.5'), 'KR');
    assert.equal(table.lookup('203.0.114.0'), null);
    assert.equal(table.lookup('0.0.0.0'), 'ZZ');
    assert.equal(table.lookup('0.0.0.1'), null);
    assert.equal(table.lookup('255.255.255.255'), 'XX');
  });

  it('let the narrowest of overlapping ranges win, wherever the ranges start', () => {
    const table = CountryTable.parse(['10.0.0.0/8 AA', '10.1.0.0/16 BB', '10.1.2.0/24 CC', '10.1.2.128 10.1.3.10 DD', '10.1.2.200/32 EE'].join('\n'));
    assert.equal(table.lookup('10.0.0.1'), 'AA');
    assert.equal(table.lookup('10.1.0.1'), 'BB');
    assert.equal(table.lookup('10.1.2.1'), 'CC');
    assert.equal(table.lookup('10.1.2.130'), 'DD', 'the 139-address range is narrower than the /24 (256)');
    assert.equal(table.lookup('10.1.2.200'), 'EE');
    assert.equal(table.lookup('10.1.3.5'), 'DD');
    assert.equal(table.lookup('10.1.4.0'), 'BB');
    assert.equal(table.lookup('10.200.0.0'), 'AA');
    assert.equal(table.lookup('11.0.0.0'), null);
    // The order of the lines does not matter.
    const reversed = CountryTable.parse(['10.1.2.0/24 CC', '10.0.0.0/8 AA', '10.1.0.0/16 BB'].join('\n'));
    assert.equal(reversed.lookup('10.1.2.3'), 'CC');
    assert.equal(reversed.lookup('10.1.9.9'), 'BB');
    assert.equal(reversed.lookup('10.9.9.9'), 'AA');
  });

  it('find a wide range behind many narrow ones that start after it', () => {
    // A country-wide block, then 200 single-address exceptions inside it: an address of the block
    // past the exceptions is still in the block, however many ranges start between it and the block.
    const lines = ['10.0.0.0/8 AA'];
    for (let k = 1; k <= 200; k++) lines.push(`10.0.0.${k}/32 BB`);
    const table = CountryTable.parse(lines.join('\n'));
    assert.equal(table.size, 201);
    assert.equal(table.lookup('10.0.0.0'), 'AA');
    assert.equal(table.lookup('10.0.0.77'), 'BB');
    assert.equal(table.lookup('10.0.0.200'), 'BB');
    assert.equal(table.lookup('10.0.0.201'), 'AA');
    assert.equal(table.lookup('10.0.0.255'), 'AA');
    assert.equal(table.lookup('10.255.0.0'), 'AA');
    // The same with a default range for all IPv6 addresses.
    const v6 = ['::/0 ZZ'];
    for (let k = 1; k <= 100; k++) v6.push(`2001:db8::${k.toString(16)} 2001:db8::${k.toString(16)} YY`);
    const table6 = CountryTable.parse(v6.join('\n'));
    assert.equal(table6.lookup('2001:db8::50'), 'YY');
    assert.equal(table6.lookup('2001:db8::ffff'), 'ZZ');
    assert.equal(table6.lookup('2001:db8:1::1'), 'ZZ');
  });

  it('agrees with a brute-force narrowest-range search on random tables', () => {
    // A small linear congruential generator is enough to shuffle ranges here.
    let state = 12345;
    const next = (bound: number): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % bound;
    };
    for (let round = 0; round < 20; round++) {
      const rows: Array<{ first: number; last: number; country: string }> = [];
      for (let r = 0; r < 80; r++) {
        const first = next(2000);
        const last = first + (next(4) === 0 ? next(1500) : next(30));
        rows.push({ first, last, country: `C${r}` });
      }
      const table = CountryTable.parse(rows.map((r) => `${r.first} ${r.last} ${r.country}`).join('\n'));
      for (let value = 0; value < 3600; value += 7) {
        const holding = rows.filter((r) => r.first <= value && value <= r.last);
        const narrowest = Math.min(...holding.map((r) => r.last - r.first));
        const candidates = new Set(holding.filter((r) => r.last - r.first === narrowest).map((r) => r.country));
        const found = table.lookup(`0.0.${value >> 8}.${value & 255}`);
        if (holding.length === 0) assert.equal(found, null, `round ${round}, value ${value}`);
        else assert.ok(found !== null && candidates.has(found), `round ${round}, value ${value}: ${found}, expected one of ${[...candidates].join(',')}`);
      }
    }
  });

  it('skip the rows of unassigned ranges that the common CSV exports mark "-"', () => {
    const table = CountryTable.parse(['"0","16777215","-","-"', '"16777216","16777471","AU","Australia"'].join('\n'));
    assert.equal(table.lookup('0.1.2.3'), null);
    assert.equal(table.lookup('1.0.0.1'), 'AU');
  });

  it('name the file and line of a malformed line', () => {
    const cases: Array<[string, number, string?]> = [
      ['1.2.3.0/24', 1, 'CIDR COUNTRY'],
      ['# ok\n\n1.2.3.0/33 FR', 3, 'not a CIDR range'],
      ['1.2.3.0/24 FR\n1.2.3.4 FR', 2, 'FIRST LAST COUNTRY'],
      ['1.2.3.4 1.2.3.9 France', 1, "'France'"],
      ['1.2.3.0/24 F', 1, 'country code'],
      ['1.2.3.9 1.2.3.4 FR', 1, 'ends before it starts'],
      ['1.2.3.4 ::1 FR', 1, 'mixes IPv4 and IPv6'],
      ['4294967296 4294967297 FR', 1, 'larger than an IPv4 address'],
      ['1.2.3.4 banana FR', 1, "'banana'"],
      ['a.b.c.d/8 FR', 1, 'not a CIDR range'],
      ['\n\n\n1.0.0.0 1.0.0.1 F!', 4],
    ];
    for (const [text, line, mentions] of cases) throwsFormat(() => CountryTable.parse(text, 'geo.csv'), 'geo.csv', line, mentions);
    throwsFormat(() => CountryTable.parse('bad line here but long'), '(country table)', 1);
  });

  it('read a file, and name a missing one', () => {
    const directory = temporaryDirectory();
    try {
      const path = join(directory.path, 'countries.txt');
      writeFileSync(path, '# test table\n192.0.2.0/24 FR\n2001:db8::/32 DE\n');
      const table = CountryTable.fromFile(path);
      assert.equal(table.size, 2);
      assert.equal(table.lookup('192.0.2.1'), 'FR');
      assert.equal(table.lookup('2001:db8::1'), 'DE');
      const bad = join(directory.path, 'bad.txt');
      writeFileSync(bad, '192.0.2.0/24 FR\n\nnonsense\n');
      throwsFormat(() => CountryTable.fromFile(bad), bad, 3);
      const missing = join(directory.path, 'missing.txt');
      assert.throws(
        () => CountryTable.fromFile(missing),
        (error: unknown) => error instanceof FileNotFoundError && error.path === missing && error.exitCode === ExitCode.input,
      );
    } finally {
      directory.cleanup();
    }
  });

  it('is empty for an empty or comment-only file', () => {
    for (const text of ['', '\n\n', '# nothing\n  # indented comment\n']) {
      const table = CountryTable.parse(text);
      assert.equal(table.size, 0);
      assert.equal(table.lookup('1.2.3.4'), null);
      assert.equal(table.lookup('::1'), null);
    }
  });
});
