import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregateRanks, averageRankPosition, rankPositions } from '../../src/analysis/aggregate.js';
import { OptionError } from '../../src/errors.js';

describe('rank aggregation and evaluation', () => {
  it('gives positions by decreasing score, ties sharing their average position', () => {
    assert.deepEqual(Array.from(rankPositions([0.1, 0.5, 0.3, 0.5])), [4, 1.5, 3, 1.5]);
  });

  it('takes the best or the mean position over rankings', () => {
    const a = [3, 2, 1, 0];
    const b = [0, 1, 2, 3];
    assert.deepEqual(Array.from(aggregateRanks([a, b], 'best')), [1, 2, 2, 1]);
    assert.deepEqual(Array.from(aggregateRanks([a, b], 'mean')), [2.5, 2.5, 2.5, 2.5]);
    assert.throws(() => aggregateRanks([a, [1, 2]]), OptionError);
  });

  it('evaluates a ranking by the average position of chosen pages', () => {
    const scores = [0.4, 0.1, 0.3, 0.2];
    assert.equal(averageRankPosition(scores, [0, 2]), 1.5);
    assert.equal(averageRankPosition(scores, [1]), 4);
    assert.throws(() => averageRankPosition(scores, []), OptionError);
  });
});
