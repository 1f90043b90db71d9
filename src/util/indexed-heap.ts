/**
 * A binary max-heap of item ids (0, 1, 2, ...) keyed by numbers, with each
 * item's position kept so that its key can change in O(log n): the priority
 * structure of OPIC's Greedy page selection. Equal keys come out smallest id
 * first, so runs are reproducible.
 */
import { grown } from './typed-arrays.js';
export class IndexedMaxHeap {
  private heap: Int32Array;
  /** position[item] = index in heap, or -1 when the item is not in the heap. */
  private position: Int32Array;
  private keys: Float64Array;
  private count = 0;

  constructor(capacity = 16) {
    this.heap = new Int32Array(Math.max(1, capacity));
    this.position = new Int32Array(Math.max(1, capacity)).fill(-1);
    this.keys = new Float64Array(Math.max(1, capacity));
  }

  get size(): number {
    return this.count;
  }

  has(item: number): boolean {
    return item < this.position.length && this.position[item]! >= 0;
  }

  key(item: number): number {
    return this.keys[item]!;
  }

  /** The item with the largest key, or -1 when empty. */
  top(): number {
    return this.count === 0 ? -1 : this.heap[0]!;
  }

  /** Inserts the item, or changes its key if present. */
  set(item: number, key: number): void {
    this.ensureItem(item);
    const at = this.position[item]!;
    if (at < 0) {
      if (this.count === this.heap.length) this.heap = grown(this.heap, 2 * this.count);
      this.keys[item] = key;
      this.heap[this.count] = item;
      this.position[item] = this.count;
      this.count++;
      this.siftUp(this.count - 1);
      return;
    }
    const old = this.keys[item]!;
    this.keys[item] = key;
    if (key > old) this.siftUp(at);
    else if (key < old) this.siftDown(at);
  }

  /** Adds `delta` to the item's key (inserting it with that key if absent). */
  add(item: number, delta: number): void {
    this.set(item, this.has(item) ? this.keys[item]! + delta : delta);
  }

  remove(item: number): void {
    if (!this.has(item)) return;
    const at = this.position[item]!;
    const last = this.heap[this.count - 1]!;
    this.count--;
    this.position[item] = -1;
    if (at === this.count) return;
    this.heap[at] = last;
    this.position[last] = at;
    this.siftUp(at);
    this.siftDown(this.position[last]!);
  }

  private before(a: number, b: number): boolean {
    const ka = this.keys[a]!;
    const kb = this.keys[b]!;
    return ka > kb || (ka === kb && a < b);
  }

  private siftUp(start: number): void {
    let i = start;
    const item = this.heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const other = this.heap[parent]!;
      if (!this.before(item, other)) break;
      this.heap[i] = other;
      this.position[other] = i;
      i = parent;
    }
    this.heap[i] = item;
    this.position[item] = i;
  }

  private siftDown(start: number): void {
    let i = start;
    const item = this.heap[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.count) break;
      const right = left + 1;
      const child = right < this.count && this.before(this.heap[right]!, this.heap[left]!) ? right : left;
      const other = this.heap[child]!;
      if (!this.before(other, item)) break;
      this.heap[i] = other;
      this.position[other] = i;
      i = child;
    }
    this.heap[i] = item;
    this.position[item] = i;
  }

  private ensureItem(item: number): void {
    if (item < this.position.length) return;
    const size = Math.max(item + 1, 2 * this.position.length);
    this.position = grown(this.position, size, -1);
    this.keys = grown(this.keys, size);
  }
}
