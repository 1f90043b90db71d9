/**
 * Out-lists packed from links in (source, target) order (src/store/out-lists.ts): repeated targets
 * (a link of several kinds) and self-links left out, batches that split between sources, links
 * out of order refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type OutListBatch, OutListPacker } from '../../src/store/out-lists.js';

/** A batch as [source, targets] pairs. */
function lists(batch: OutListBatch): Array<[number, number[]]> {
  const result: Array<[number, number[]]> = [];
  for (let i = 0, start = 0; i < batch.sources.length; i++) {
    result.push([batch.sources[i]!, Array.from(batch.targets.subarray(start, batch.ends[i]!))]);
    start = batch.ends[i]!;
  }
  return result;
}

describe('out-lists packed from sorted links', () => {
  it('keeps each target of a source once and leaves self-links and sources left with nothing out', () => {
    const packer = new OutListPacker(2);
    const links: Array<[number, number]> = [[1, 2], [1, 2], [1, 5], [3, 3], [4, 1], [4, 4], [4, 4], [4, 9], [4, 9], [7, 7]];
    for (const [s, t] of links) packer.add(s, t);
    assert.equal(packer.links, 4);
    assert.deepEqual(lists(packer.take()), [[1, [2, 5]], [4, [1, 9]]]);
    // The packer starts again after a take; the arrays of the batch taken are its own.
    packer.add(8, 1);
    packer.add(8, 3);
    const batch = packer.take();
    assert.deepEqual(lists(batch), [[8, [1, 3]]]);
    assert.deepEqual(lists(packer.take()), []);
  });

  it('grows past its first room, the lists unchanged', () => {
    const packer = new OutListPacker(16);
    const expected: Array<[number, number[]]> = [];
    for (let s = 0; s < 300; s++) {
      const targets = Array.from({ length: s % 7 }, (_, k) => s + 1 + 3 * k);
      for (const t of targets) packer.add(s, t);
      if (targets.length > 0) expected.push([s, targets]);
    }
    const batch = packer.take();
    assert.equal(batch.ends[batch.ends.length - 1], batch.targets.length);
    assert.deepEqual(lists(batch), expected);
  });

  it('refuses links out of source or target order, naming them', () => {
    const packer = new OutListPacker();
    packer.add(5, 1);
    assert.throws(() => packer.add(4, 2), /source 4 after 5/);
    const again = new OutListPacker();
    again.add(5, 3);
    assert.throws(() => again.add(5, 2), /target 2 after 3 of source 5/);
  });
});
