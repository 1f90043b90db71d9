/**
 * A value per id that changes at few ids, kept as steps: (first id, value) pairs in increasing id
 * order, looked up by binary search. Issue 38: a page that was never read keeps what it was given
 * when it was found (OPIC's clock then, Adaptive OPIC's default rate then). Pages are numbered as
 * they are found and those values change only at reads, so one step per read replaces a column of
 * one value per known page.
 */
import { grownColumn } from './typed-arrays.js';

export class StepTable {
  private starts = new Int32Array(16);
  private values = new Float64Array(16);
  private count = 0;

  /** `initial`: the value of the ids before the first step. */
  constructor(private readonly initial = 0) {}

  /** Steps kept (one per change of value). */
  get steps(): number {
    return this.count;
  }

  /** Bytes the steps take (the arrays' lengths, room included). */
  get bytes(): number {
    return this.starts.byteLength + this.values.byteLength;
  }

  /** Ids from `id` on hold `value`, until a later step. Ids must not decrease from call to call. */
  set(id: number, value: number): void {
    const last = this.count - 1;
    if (last >= 0) {
      if (id < this.starts[last]!) throw new RangeError(`step table: id ${id} comes before the last step's ${this.starts[last]}`);
      if (Object.is(this.values[last], value)) return;
      if (this.starts[last] === id) {
        this.values[last] = value;
        return;
      }
    } else if (Object.is(this.initial, value)) {
      return;
    }
    if (this.count === this.starts.length) {
      this.starts = grownColumn(this.starts, this.count + 1);
      this.values = grownColumn(this.values, this.count + 1);
    }
    this.starts[this.count] = id;
    this.values[this.count] = value;
    this.count++;
  }

  /** The value id holds: that of the last step at or before it. */
  get(id: number): number {
    let low = 0;
    let high = this.count - 1;
    // The last step whose start is <= id.
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (this.starts[middle]! <= id) low = middle + 1;
      else high = middle - 1;
    }
    return high >= 0 ? this.values[high]! : this.initial;
  }
}
