import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AttachedLabels, IdentityLabels, IntegerLabels, TextLabels, parseCanonicalInt } from '../../src/graph/labels.js';

describe('labels', () => {
  it('recognises canonical integers only', () => {
    assert.equal(parseCanonicalInt('0'), 0);
    assert.equal(parseCanonicalInt('2147483647'), 2147483647);
    for (const text of ['', '00', '01', '+1', '-1', '1.0', '1e3', ' 1', '2147483648', '99999999999', 'x']) {
      assert.equal(parseCanonicalInt(text), -1, text);
    }
  });

  it('maps ids and labels both ways', () => {
    const identity = new IdentityLabels(3);
    assert.equal(identity.label(2), '2');
    assert.equal(identity.id('2'), 2);
    assert.equal(identity.id('3'), -1);
    const integers = new IntegerLabels(Int32Array.from([1, 4, 9]));
    assert.equal(integers.label(1), '4');
    assert.equal(integers.id('9'), 2);
    assert.equal(integers.id('5'), -1);
    const text = new TextLabels(['a', 'b']);
    assert.equal(text.id('b'), 1);
    assert.equal(text.id('c'), -1);
  });

  it('lays display names over source labels and resolves both', () => {
    const attached = new AttachedLabels(new IntegerLabels(Int32Array.from([1, 2, 3])), [
      'http://x/',
      undefined,
      'http://z/',
    ]);
    assert.equal(attached.label(0), 'http://x/');
    assert.equal(attached.label(1), '2');
    assert.equal(attached.id('http://z/'), 2);
    assert.equal(attached.id('1'), 0);
    assert.equal(attached.id('http://nowhere/'), -1);
  });
});
