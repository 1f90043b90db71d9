/**
 * A max-heap of item ids split into parts: each item is in one part, each
 * part is its own binary heap, and a top-level heap per lane orders the
 * parts by their best key. A part can be switched off, which hides its items
 * from top() without touching them, in O(log parts).
 *
 * This is what a polite crawler needs from OPIC's Greedy selection: the
 * page with the most cash among the hosts that may be fetched now. Parts are
 * (host, class) pairs; a busy host's parts are switched off until its
 * connection or its politeness delay frees it. Equal keys come out smallest
 * id first within a part, smallest part first between parts.
 */
import { IndexedMaxHeap } from './indexed-heap.js';
import { grown } from './typed-arrays.js';

/** Parts get their own array on their first item: a crawl can know many hosts with few pages each. */
const EMPTY = new Int32Array(0);

export class PartitionedMaxHeap {
  readonly lanes: number;
  /** partOf[item]: the item's part, kept while the item is out of the heap (-1 before its first set). */
  private partOf: Int32Array;
  /** position[item]: index in its part's heap, or -1 when out of the heap. */
  private position: Int32Array;
  private keys: Float64Array;
  private heaps: Int32Array[] = [];
  private sizes: number[] = [];
  private disabled: Uint8Array = new Uint8Array(16);
  /** One heap of parts per lane (part % lanes), keyed by their top item's key. */
  private readonly tops: IndexedMaxHeap[];
  private count = 0;

  constructor(lanes = 1, capacity = 16) {
    this.lanes = lanes;
    this.tops = Array.from({ length: lanes }, () => new IndexedMaxHeap());
    this.partOf = new Int32Array(Math.max(1, capacity)).fill(-1);
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

  part(item: number): number {
    return item < this.partOf.length ? this.partOf[item]! : -1;
  }

  /** The best item of a lane among enabled parts, or -1. */
  top(lane = 0): number {
    const part = this.tops[lane]!.top();
    return part < 0 ? -1 : this.heaps[part]![0]!;
  }

  /** Inserts the item into `part` with `key`, or moves it there and changes its key. */
  set(item: number, key: number, part: number): void {
    this.ensureItem(item);
    this.ensurePart(part);
    if (this.position[item]! >= 0 && this.partOf[item] !== part) this.remove(item);
    const at = this.position[item]!;
    const heap = this.heaps[part]!;
    if (at < 0) {
      let size = this.sizes[part]!;
      let array = heap;
      if (size === array.length) {
        array = new Int32Array(Math.max(4, 2 * size));
        array.set(heap);
        this.heaps[part] = array;
      }
      this.partOf[item] = part;
      this.keys[item] = key;
      array[size] = item;
      this.position[item] = size;
      this.sizes[part] = ++size;
      this.count++;
      this.siftUp(part, size - 1);
    } else {
      const old = this.keys[item]!;
      this.keys[item] = key;
      if (key > old) this.siftUp(part, at);
      else if (key < old) this.siftDown(part, at);
      else return;
    }
    this.refreshTop(part);
  }

  /** Changes the key of an item in the heap (no-op when it is out). */
  changeKey(item: number, key: number): void {
    if (!this.has(item)) {
      if (item < this.keys.length) this.keys[item] = key;
      return;
    }
    this.set(item, key, this.partOf[item]!);
  }

  remove(item: number): void {
    if (!this.has(item)) return;
    const part = this.partOf[item]!;
    const heap = this.heaps[part]!;
    const at = this.position[item]!;
    const size = --this.sizes[part]!;
    this.count--;
    this.position[item] = -1;
    if (at !== size) {
      const last = heap[size]!;
      heap[at] = last;
      this.position[last] = at;
      this.siftUp(part, at);
      this.siftDown(part, this.position[last]!);
    }
    this.refreshTop(part);
  }

  /** Shows or hides a part's items from top(). */
  setEnabled(part: number, enabled: boolean): void {
    this.ensurePart(part);
    const flag = enabled ? 0 : 1;
    if (this.disabled[part] === flag) return;
    this.disabled[part] = flag;
    this.refreshTop(part);
  }

  isEnabled(part: number): boolean {
    return part >= this.heaps.length || this.disabled[part] === 0;
  }

  /** Items currently in the part's heap. */
  partSize(part: number): number {
    return part < this.sizes.length ? this.sizes[part]! : 0;
  }

  private refreshTop(part: number): void {
    const tops = this.tops[part % this.lanes]!;
    if (this.sizes[part] === 0 || this.disabled[part] === 1) tops.remove(part);
    else tops.set(part, this.keys[this.heaps[part]![0]!]!);
  }

  private before(a: number, b: number): boolean {
    const ka = this.keys[a]!;
    const kb = this.keys[b]!;
    return ka > kb || (ka === kb && a < b);
  }

  private siftUp(part: number, start: number): void {
    const heap = this.heaps[part]!;
    let i = start;
    const item = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const other = heap[parent]!;
      if (!this.before(item, other)) break;
      heap[i] = other;
      this.position[other] = i;
      i = parent;
    }
    heap[i] = item;
    this.position[item] = i;
  }

  private siftDown(part: number, start: number): void {
    const heap = this.heaps[part]!;
    const count = this.sizes[part]!;
    let i = start;
    const item = heap[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= count) break;
      const right = left + 1;
      const child = right < count && this.before(heap[right]!, heap[left]!) ? right : left;
      const other = heap[child]!;
      if (!this.before(other, item)) break;
      heap[i] = other;
      this.position[other] = i;
      i = child;
    }
    heap[i] = item;
    this.position[item] = i;
  }

  private ensureItem(item: number): void {
    if (item < this.position.length) return;
    const size = Math.max(item + 1, 2 * this.position.length);
    this.partOf = grown(this.partOf, size, -1);
    this.position = grown(this.position, size, -1);
    this.keys = grown(this.keys, size);
  }

  private ensurePart(part: number): void {
    while (this.heaps.length <= part) {
      this.heaps.push(EMPTY);
      this.sizes.push(0);
    }
    if (part >= this.disabled.length) this.disabled = grown(this.disabled, Math.max(part + 1, 2 * this.disabled.length));
  }
}
