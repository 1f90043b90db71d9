import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StepTable } from '../../src/util/step-table.js';
import { Random } from '../../src/util/random.js';

describe('StepTable', () => {
  it('gives every id the value of the last step at or before it, against a plain array', () => {
    const random = new Random(7);
    for (const initial of [0, -1.5]) {
      const table = new StepTable(initial);
      const expected: number[] = [];
      let id = 0;
      let value = initial;
      let changes = 0;
      // Runs of ids holding one value; sometimes a value set again (no step), sometimes twice at one id.
      while (id < 5000) {
        const run = 1 + random.nextInt(40);
        const draw = random.nextInt(4);
        const next = draw === 0 ? value : random.nextInt(1000) / 7;
        if (next !== value) changes++;
        value = next;
        table.set(id, value);
        if (draw === 1) {
          // The same id set again: the later value holds.
          value = random.nextInt(1000) / 3;
          table.set(id, value);
        }
        for (let k = 0; k < run; k++) expected.push(value);
        id += run;
      }
      for (let i = 0; i < expected.length; i++) assert.equal(table.get(i), expected[i], `id ${i}`);
      assert.ok(table.steps <= changes + 1000 && table.steps > 100, `${table.steps} steps for ${changes} changes`);
      assert.equal(table.get(1e9), value, 'ids after the last step hold its value');
    }
  });

  it('holds its initial value before any step, adds no step for an unchanged value, refuses a smaller id', () => {
    const table = new StepTable(2);
    assert.equal(table.get(0), 2);
    table.set(0, 2);
    assert.equal(table.steps, 0);
    table.set(10, 3);
    table.set(12, 3);
    assert.equal(table.steps, 1);
    assert.deepEqual([table.get(9), table.get(10), table.get(11), table.get(100)], [2, 3, 3, 3]);
    assert.throws(() => table.set(5, 1), RangeError);
    assert.equal(table.get(5), 2, 'a refused step changes nothing');
  });
});
