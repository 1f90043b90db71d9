/** Near-duplicates (analysis/audit.ts nearDuplicates): pages of one SimHash as one entry, a budget of comparisons, groups named in bounded lists. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AuditPage, MAX_OTHERS, nearDuplicates } from '../../src/analysis/audit.js';

function page(url: string, simhash: string, contentHash: string): AuditPage {
  return { url, status: 200, error: null, contentType: 'text/html', role: 0, depth: 1, title: url, contentHash, simhash, h1Count: 1 };
}

describe('near-duplicates', () => {
  it('groups 30,000 pages of one SimHash at once, naming 20 others each; exact duplicates alone are not near', () => {
    const pages = Array.from({ length: 30_000 }, (_, i) => page(`p${String(i).padStart(5, '0')}`, '00000000ffffffff', `h${i}`));
    pages.push(page('twin1', '123456789abcdef0', 'same'), page('twin2', '123456789abcdef0', 'same'));
    // One bit from the first group: joins it; far from everything: alone.
    pages.push(page('close', '00000001ffffffff', 'c'), page('far', 'f0f0f0f00f0f0f0f', 'f'));
    const { found, truncated } = nearDuplicates(pages, pages.map(() => true), 7);
    assert.equal(truncated, false);
    assert.equal(found.length, 30_001);
    const first = found.find((f) => f.url === 'p00000')!;
    assert.equal(first.group, 30_001);
    assert.equal((first.others as string[]).length, MAX_OTHERS);
    assert.equal(first.nearestBits, 0);
    assert.equal(found.find((f) => f.url === 'close')!.nearestBits, 1);
    assert.ok(!found.some((f) => f.url === 'twin1' || f.url === 'far'));
  });

  it('stops at its budget of comparisons and says so', () => {
    const pages = Array.from({ length: 200 }, (_, i) => page(`p${i}`, (0x10000n + BigInt(i)).toString(16).padStart(16, '0'), `h${i}`));
    const whole = nearDuplicates(pages, pages.map(() => true), 7);
    assert.equal(whole.truncated, false);
    assert.equal(whole.found.length, 200);
    const cut = nearDuplicates(pages, pages.map(() => true), 7, 50);
    assert.equal(cut.truncated, true);
    assert.equal(cut.pairs, 50);
    assert.ok(cut.found.length < 200);
  });
});
