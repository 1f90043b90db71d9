import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeRate } from '../../src/app/changes.js';
import { linkFilterOption } from '../../src/app/values.js';
import { GRAPH_LINK_KINDS, LINK_KINDS } from '../../src/store/store.js';
import { Random } from '../../src/util/random.js';

describe("Cho and Garcia-Molina's estimator of a page's change rate", () => {
  it('matches the formula, is 0 without changes, finite when every visit saw a change, null before two visits', () => {
    const day = 86_400_000;
    // 11 visits a day apart, 4 changes: -ln((10 - 4 + 0.5) / (10 + 0.5)) changes a day.
    assert.ok(Math.abs(changeRate(11, 4, 10 * day)! - -Math.log(6.5 / 10.5)) < 1e-12);
    assert.equal(changeRate(11, 0, 10 * day), 0);
    assert.ok(Math.abs(changeRate(11, 10, 10 * day)! - Math.log(21)) < 1e-12);
    assert.equal(changeRate(1, 0, day), null);
    assert.equal(changeRate(3, 1, 0), null);
  });

  it('recovers the rate of a simulated Poisson process within its error (n = 200 visits)', () => {
    const random = new Random(5);
    for (const rate of [0.2, 1, 2]) {
      const n = 200;
      let changes = 0;
      // A change was seen at a visit when at least one Poisson event fell in the day before it.
      for (let i = 0; i < n; i++) if (random.next() < 1 - Math.exp(-rate)) changes++;
      const estimate = changeRate(n + 1, changes, n * 86_400_000)!;
      assert.ok(Math.abs(estimate - rate) < 0.25 * rate + 0.05, `rate ${rate}: estimate ${estimate}`);
    }
  });
});

describe('--links', () => {
  it('takes kinds, graph and all, removals of kinds and of rel tokens', () => {
    assert.deepEqual(linkFilterOption('--links', undefined), { kinds: GRAPH_LINK_KINDS, withoutRel: 0 });
    assert.deepEqual(linkFilterOption('--links', '-nofollow'), { kinds: GRAPH_LINK_KINDS, withoutRel: 1 });
    assert.deepEqual(linkFilterOption('--links', 'anchor,redirect'), { kinds: ['anchor', 'redirect'], withoutRel: 0 });
    assert.deepEqual(linkFilterOption('--links', 'all,-sitemap,-ugc,-sponsored'), { kinds: LINK_KINDS.filter((k) => k !== 'sitemap'), withoutRel: 6 });
    assert.deepEqual(linkFilterOption('--links', '-iframe,-frame'), { kinds: GRAPH_LINK_KINDS.filter((k) => k !== 'iframe' && k !== 'frame'), withoutRel: 0 });
    assert.deepEqual(linkFilterOption('--links', 'graph, canonical'), { kinds: [...GRAPH_LINK_KINDS, 'canonical'], withoutRel: 0 });
    assert.throws(() => linkFilterOption('--links', 'anchors'), /--links: 'anchors' is not a link kind/);
    assert.throws(() => linkFilterOption('--links', 'anchor,-anchor'), /leaves no link kind/);
    assert.throws(() => linkFilterOption('--links', ' , '), /expected link kinds/);
  });
});
