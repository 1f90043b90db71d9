/** The committed test data is the data data/README.md describes: every file matches data/SHA256SUMS. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { testData } from '../helpers.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('data/', () => {
  const root = testData();
  const listed = new Map(
    readFileSync(join(root, 'SHA256SUMS'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
        assert.ok(match, `data/SHA256SUMS: malformed line ${JSON.stringify(line)}`);
        return [match[2]!, match[1]!] as const;
      }),
  );

  it('holds every file of SHA256SUMS with its checksum', () => {
    assert.ok(listed.size >= 8);
    for (const [name, sum] of listed) {
      const actual = createHash('sha256').update(readFileSync(join(root, name))).digest('hex');
      assert.equal(actual, sum, `data/${name}`);
    }
  });

  it('lists every data file in SHA256SUMS (README.md aside)', () => {
    const present = filesUnder(root)
      .map((path) => relative(root, path))
      .filter((name) => name !== 'SHA256SUMS' && name !== 'README.md');
    assert.deepEqual(present.sort(), [...listed.keys()].sort());
  });
});
