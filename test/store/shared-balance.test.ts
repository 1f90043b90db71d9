import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BalanceSelf, balance } from '../../src/store/shared-balance.js';

/** An instance holding partitions 0..n-1, each with `work[p]` waiting pages on `hosts[p]` hosts. */
function self(state: BalanceSelf['state'], work: number[], hosts: number[], neededHosts = 24): BalanceSelf {
  const workByPartition = new Map<number, number>();
  const hostsByPartition = new Map<number, number>();
  work.forEach((w, p) => w > 0 && workByPartition.set(p, w));
  hosts.forEach((h, p) => h > 0 && hostsByPartition.set(p, h));
  return {
    state,
    keep: work.map((_, p) => p),
    workByPartition,
    hostsByPartition,
    neededHosts,
    waitingPages: work.reduce((a, b) => a + b, 0),
  };
}

describe('balancing the partitions of a shared crawl', () => {
  it('leaves a balanced crawl alone', () => {
    const me = self('working', [100, 100, 100, 100], [10, 10, 10, 10]);
    const d = balance(me, { partitions: 16, freeWithWork: 0, others: [{ state: 'working', waitingPages: 380 }, { state: 'working', waitingPages: 420 }, { state: 'working', waitingPages: 400 }] });
    assert.deepEqual(d.letGo, []);
    assert.equal(d.low, false);
    assert.equal(d.fair, 4);
    assert.equal(d.want, 0);
  });

  it('splits partitions with work with an idle instance (the paper), keeping one', () => {
    const me = self('working', [50, 10, 30, 0], [5, 1, 3, 0]);
    const d = balance(me, { partitions: 8, freeWithWork: 0, others: [{ state: 'waiting', waitingPages: 0 }] });
    // Three with work, one waiter: floor(3 * 1 / 2) = 1 of them, the one with the least work.
    assert.deepEqual(d.letGo, [1]);
  });

  it('gives a short instance only the hosts it can spare', () => {
    // 5 partitions of 20 hosts each, needing 24: keeps 2 (40 >= 1.5 * 24 = 36), may give the other 3,
    // at most floor(5 * 1 / 2) = 2 of them.
    const me = self('working', [500, 500, 500, 500, 500], [20, 20, 20, 20, 20]);
    const d = balance(me, { partitions: 10, freeWithWork: 0, others: [{ state: 'short', waitingPages: 100 }] });
    assert.equal(d.letGo.length, 2);
    for (const p of d.letGo) assert.ok(p >= 2, `partition ${p} is one of those kept`);
    // An instance that needs all of its hosts gives nothing: a host is limited by politeness, whoever holds it.
    const needy = self('working', [500, 500, 500], [10, 10, 10]);
    assert.deepEqual(balance(needy, { partitions: 10, freeWithWork: 0, others: [{ state: 'short', waitingPages: 100 }] }).letGo, []);
  });

  it('a short or low instance takes its part of the free partitions with work, beyond its fair share', () => {
    const short = self('short', [10, 10], [2, 2]);
    const d = balance(short, { partitions: 4, freeWithWork: 6, others: [{ state: 'working', waitingPages: 900 }] });
    assert.equal(d.fair, 2);
    assert.equal(d.want, 6);
    const low = self('working', [100, 100], [30, 30]);
    const e = balance(low, { partitions: 4, freeWithWork: 4, others: [{ state: 'working', waitingPages: 2000 }, { state: 'working', waitingPages: 100 }] });
    // Mean (200 + 2000 + 100) / 3 = 767: 200 and 100 are below 0.6 of it; two low instances share the 4 free ones.
    assert.equal(e.low, true);
    assert.equal(e.want, 2);
  });

  it('lets go work worth about its excess to an instance low on work, keeping the hosts it needs', () => {
    // Waiting 100+200+300+400+1000 = 2000; another has 200: mean 1100, excess 900, 200 < 0.6 * 1100.
    const me = self('working', [100, 200, 300, 400, 1000], [10, 10, 10, 10, 10]);
    const d = balance(me, { partitions: 10, freeWithWork: 0, others: [{ state: 'working', waitingPages: 200 }] });
    // Smallest first while within the excess and leaving >= 36 hosts: 100 (left 40 hosts), then 200
    // would leave 30 hosts < 36: stop there.
    assert.deepEqual(d.letGo, [0]);
    // With hosts to spare, it gives 100 + 200 + 300 = 600 <= 900 (400 more would pass the excess).
    const roomy = self('working', [100, 200, 300, 400, 1000], [30, 30, 30, 30, 30]);
    assert.deepEqual(balance(roomy, { partitions: 10, freeWithWork: 0, others: [{ state: 'working', waitingPages: 200 }] }).letGo, [0, 1, 2]);
    // Not above 1.2 times the mean: nothing moves.
    const even = self('working', [100, 100], [30, 30]);
    assert.deepEqual(balance(even, { partitions: 10, freeWithWork: 0, others: [{ state: 'working', waitingPages: 100 }, { state: 'working', waitingPages: 300 }] }).letGo, []);
  });
});
