/**
 * Front-coded labels (src/graph/front-coded-labels.ts): every name back by id and every id back by
 * name, sorted or not, against the plain array of strings they replace; and their size.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrontCodedLabels } from '../../src/graph/front-coded-labels.js';
import { TextLabels } from '../../src/graph/labels.js';
import { Random } from '../../src/util/random.js';

/** Host names in Common Crawl's reversed notation, many sharing prefixes. */
function reversedHosts(random: Random, n: number): string[] {
  const tlds = ['com', 'org', 'de', 'uk.co', 'jp.ac', 'xn--p1ai'];
  const names = new Set<string>();
  while (names.size < n) {
    const site = `site${random.nextInt(Math.max(1, n >> 3))}`;
    const sub = ['www', 'blog', 'shop', 'en', `h${random.nextInt(50)}`][random.nextInt(5)]!;
    names.add(`${tlds[random.nextInt(tlds.length)]}.${site}.${sub}`);
  }
  return [...names];
}

function check(names: string[]): FrontCodedLabels {
  const labels = FrontCodedLabels.of(names);
  assert.equal(labels.size, names.length);
  names.forEach((name, id) => assert.equal(labels.label(id), name, `label ${id}`));
  names.forEach((name, id) => assert.equal(labels.id(name), id, `id of ${name}`));
  assert.equal(labels.id('not.a.name'), names.includes('not.a.name') ? names.indexOf('not.a.name') : -1);
  assert.equal(labels.id(''), names.indexOf(''));
  return labels;
}

describe('front-coded labels', () => {
  it('give every name by id and every id by name, names added sorted (binary search over blocks)', () => {
    const names = reversedHosts(new Random(1), 5000).sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b))));
    const labels = check(names);
    assert.equal(labels.sorted, true);
    // Before the first, after the last, between two.
    assert.equal(labels.id('\u0000'), -1);
    assert.equal(labels.id('zzzz'), -1);
    assert.equal(labels.id(`${names[100]}a`), names.indexOf(`${names[100]}a`));
  });

  it('give the same in any order (a sorted permutation), with unicode, empty names and every block boundary', () => {
    const random = new Random(2);
    const names = reversedHosts(random, 3000).sort(() => random.next() - 0.5);
    names.push('', 'ümlaut.example', '日本.jp', 'a'.repeat(300));
    const labels = check(names);
    assert.equal(labels.sorted, false);
    for (const n of [0, 1, 15, 16, 17, 33]) check(names.slice(0, n));
  });

  it('hold reversed host names in a fraction of what JavaScript strings take', () => {
    const names = reversedHosts(new Random(3), 20_000).sort();
    const front = FrontCodedLabels.of(names);
    const text = new TextLabels(names);
    const utf8 = names.reduce((s, n) => s + Buffer.byteLength(n), 0);
    assert.ok(front.memoryBytes() < 0.75 * utf8, `front-coded ${front.memoryBytes()} bytes, names ${utf8} bytes of UTF-8`);
    assert.ok(front.memoryBytes() < 0.25 * text.memoryBytes(), `front-coded ${front.memoryBytes()}, strings ${text.memoryBytes()}`);
  });
});
