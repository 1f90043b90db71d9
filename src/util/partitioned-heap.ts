/**
 * A max-heap of item ids split into parts, and parts gathered in clusters:
 * each item is in one part, each part is its own binary heap; each cluster
 * keeps, per lane (part % lanes), a heap of its parts by their best key; and a
 * top-level heap per lane orders the clusters by their best part. A part can
 * be switched off, and so can a whole cluster: either hides its items from
 * top() without touching them, in O(log parts) and O(log clusters).
 *
 * This is what a polite crawler needs from OPIC's Greedy selection: the
 * page with the most cash among the hosts that may be fetched now. Parts are
 * (host, class) pairs; a busy host's parts are switched off until its
 * connection or its politeness delay frees it. Clusters are server
 * addresses: thousands of hosts on one shared-hosting address are switched
 * off together, in one step, while the address has --per-ip requests
 * running (switching each host off and on again cost a crawl of 10^4 hosts
 * on 4 addresses 45% of its time). Equal keys come out smallest id first
 * within a part, smallest part first between parts (clusters included: a
 * cluster is ordered by its best part's key, then that part's number).
 */
import { columnSize, grown, reservedArrays } from './typed-arrays.js';

/**
 * Many binary max-heaps over disjoint ids (an id is in at most one of them), keyed by a stored key
 * with a stored tie-breaker (smaller first), positions shared in one array.
 */
class HeapFamily {
  private heaps: Int32Array[] = [];
  private sizes: number[] = [];
  /** position[id]: index in its heap, -1 when out. home[id]: the heap it is in. */
  private position = new Int32Array(16).fill(-1);
  private home = new Int32Array(16);
  private keys = new Float64Array(16);
  private ties = new Float64Array(16);

  has(id: number): boolean {
    return id < this.position.length && this.position[id]! >= 0;
  }

  top(heap: number): number {
    return heap < this.sizes.length && this.sizes[heap]! > 0 ? this.heaps[heap]![0]! : -1;
  }

  key(id: number): number {
    return this.keys[id]!;
  }

  tie(id: number): number {
    return this.ties[id]!;
  }

  /** Puts id in `heap` with (key, tie), or moves it there, or re-keys it. */
  place(heap: number, id: number, key: number, tie: number): void {
    if (id >= this.position.length) {
      const size = Math.max(id + 1, 2 * this.position.length);
      this.position = grown(this.position, size, -1);
      this.home = grown(this.home, size);
      this.keys = grown(this.keys, size);
      this.ties = grown(this.ties, size);
    }
    while (this.heaps.length <= heap) {
      this.heaps.push(new Int32Array(4));
      this.sizes.push(0);
    }
    const at = this.position[id]!;
    if (at >= 0 && this.home[id] !== heap) this.remove(id);
    if (this.position[id]! < 0) {
      const size = this.sizes[heap]!;
      if (size === this.heaps[heap]!.length) this.heaps[heap] = grown(this.heaps[heap]!, 2 * size);
      this.heaps[heap]![size] = id;
      this.position[id] = size;
      this.home[id] = heap;
      this.keys[id] = key;
      this.ties[id] = tie;
      this.sizes[heap] = size + 1;
      this.siftUp(heap, size);
      return;
    }
    const oldKey = this.keys[id]!;
    const oldTie = this.ties[id]!;
    if (oldKey === key && oldTie === tie) return;
    this.keys[id] = key;
    this.ties[id] = tie;
    if (key > oldKey || (key === oldKey && tie < oldTie)) this.siftUp(heap, at);
    else this.siftDown(heap, at);
  }

  remove(id: number): void {
    if (!this.has(id)) return;
    const heap = this.home[id]!;
    const array = this.heaps[heap]!;
    const at = this.position[id]!;
    const size = --this.sizes[heap]!;
    this.position[id] = -1;
    if (at !== size) {
      const last = array[size]!;
      array[at] = last;
      this.position[last] = at;
      this.siftUp(heap, at);
      this.siftDown(heap, this.position[last]!);
    }
  }

  private before(a: number, b: number): boolean {
    const ka = this.keys[a]!;
    const kb = this.keys[b]!;
    return ka > kb || (ka === kb && this.ties[a]! < this.ties[b]!);
  }

  private siftUp(heap: number, start: number): void {
    const array = this.heaps[heap]!;
    let i = start;
    const id = array[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const other = array[parent]!;
      if (!this.before(id, other)) break;
      array[i] = other;
      this.position[other] = i;
      i = parent;
    }
    array[i] = id;
    this.position[id] = i;
  }

  private siftDown(heap: number, start: number): void {
    const array = this.heaps[heap]!;
    const count = this.sizes[heap]!;
    let i = start;
    const id = array[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= count) break;
      const right = left + 1;
      const child = right < count && this.before(array[right]!, array[left]!) ? right : left;
      const other = array[child]!;
      if (!this.before(other, id)) break;
      array[i] = other;
      this.position[other] = i;
      i = child;
    }
    array[i] = id;
    this.position[id] = i;
  }
}

/** Parts get their own array on their first item: a crawl can know many hosts with few pages each. */
const EMPTY = new Int32Array(0);

export class PartitionedMaxHeap {
  readonly lanes: number;
  /**
   * partOf[item]: the item's part + 1, kept while the item is out of the heap (0 before its first
   * set); empty when the owner tells an item's part (`partOfItem`, the constructor's option: a
   * crawl's OPIC knows each page's host and class, and 4 bytes a known URL are saved, issue 38).
   * position[item]: its index in its part's heap + 1, 0 when out of the heap. Both count from
   * 1 so that a fresh array means "no item" without being filled: a large capacity reserved up
   * front then costs RAM only for the items set (util/typed-arrays.ts, reservedArray).
   */
  private partOf: Int32Array;
  private readonly partOfItem: ((item: number) => number) | null;
  private position: Int32Array;
  private keys: Float64Array;
  private heaps: Int32Array[] = [];
  private sizes: number[] = [];
  private disabled: Uint8Array = new Uint8Array(16);
  /** clusterOf[part]: the cluster a part belongs to (0 until set). */
  private clusterOf = new Int32Array(16);
  private clusterDisabled = new Uint8Array(16);
  /**
   * Heap `cluster * lanes + lane` holds the cluster's enabled, non-empty parts of that lane, keyed by
   * their top item's key (ties: smaller part).
   */
  private readonly parts = new HeapFamily();
  /**
   * Heap `lane` holds ids `cluster * lanes + lane` of enabled clusters with an enabled, non-empty
   * part in that lane, keyed by their best part's key (ties: that part's number).
   */
  private readonly clusters = new HeapFamily();
  private count = 0;

  /**
   * `partOf`, when given, tells the part of an item in the heap (the one it was last set with): the
   * owner then must remove an item before what partOf answers for it changes.
   */
  constructor(lanes = 1, capacity = 16, partOf: ((item: number) => number) | null = null) {
    this.lanes = lanes;
    this.partOfItem = partOf;
    if (partOf === null) {
      const reserved = capacity > 16 ? reservedArrays<[Int32Array, Int32Array, Float64Array]>(capacity, Int32Array, Int32Array, Float64Array) : null;
      [this.partOf, this.position, this.keys] = reserved ?? [new Int32Array(16), new Int32Array(16), new Float64Array(16)];
    } else {
      const reserved = capacity > 16 ? reservedArrays<[Int32Array, Float64Array]>(capacity, Int32Array, Float64Array) : null;
      [this.position, this.keys] = reserved ?? [new Int32Array(16), new Float64Array(16)];
      this.partOf = new Int32Array(0);
    }
  }

  /** The part of an item in the heap, or of an item out of it when the heap keeps parts (else -1). */
  private partNow(item: number): number {
    if (this.partOfItem !== null) return this.position[item]! > 0 ? this.partOfItem(item) : -1;
    return this.partOf[item]! - 1;
  }

  get size(): number {
    return this.count;
  }

  has(item: number): boolean {
    return item < this.position.length && this.position[item]! > 0;
  }

  key(item: number): number {
    return this.keys[item]!;
  }

  part(item: number): number {
    return item < this.position.length ? this.partNow(item) : -1;
  }

  /** The best item of a lane among enabled parts, or -1. */
  top(lane = 0): number {
    const clusterLane = this.clusters.top(lane);
    if (clusterLane < 0) return -1;
    return this.heaps[this.parts.top(clusterLane)]![0]!;
  }

  /** Inserts the item into `part` with `key`, or moves it there and changes its key. */
  set(item: number, key: number, part: number): void {
    this.ensureItem(item);
    this.ensurePart(part);
    if (this.position[item]! > 0 && this.partNow(item) !== part) this.remove(item);
    const at = this.position[item]! - 1;
    const heap = this.heaps[part]!;
    if (at < 0) {
      let size = this.sizes[part]!;
      let array = heap;
      if (size === array.length) {
        array = new Int32Array(Math.max(4, 2 * size));
        array.set(heap);
        this.heaps[part] = array;
      }
      if (this.partOfItem === null) this.partOf[item] = part + 1;
      this.keys[item] = key;
      array[size] = item;
      this.position[item] = size + 1;
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
    this.set(item, key, this.partNow(item));
  }

  remove(item: number): void {
    if (!this.has(item)) return;
    const part = this.partNow(item);
    const heap = this.heaps[part]!;
    const at = this.position[item]! - 1;
    const size = --this.sizes[part]!;
    this.count--;
    this.position[item] = 0;
    if (at !== size) {
      const last = heap[size]!;
      heap[at] = last;
      this.position[last] = at + 1;
      this.siftUp(part, at);
      this.siftDown(part, this.position[last]! - 1);
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

  /** Puts a part in a cluster (every part starts in cluster 0). */
  setCluster(part: number, cluster: number): void {
    this.ensurePart(part);
    const old = this.clusterOf[part]!;
    if (old === cluster) return;
    this.ensureCluster(cluster);
    this.parts.remove(part);
    this.refreshCluster(old, part % this.lanes);
    this.clusterOf[part] = cluster;
    this.refreshTop(part);
  }

  cluster(part: number): number {
    return part < this.clusterOf.length ? this.clusterOf[part]! : 0;
  }

  /** Shows or hides the items of every part of a cluster from top(). */
  setClusterEnabled(cluster: number, enabled: boolean): void {
    this.ensureCluster(cluster);
    const flag = enabled ? 0 : 1;
    if (this.clusterDisabled[cluster] === flag) return;
    this.clusterDisabled[cluster] = flag;
    for (let lane = 0; lane < this.lanes; lane++) this.refreshCluster(cluster, lane);
  }

  isClusterEnabled(cluster: number): boolean {
    return cluster >= this.clusterDisabled.length || this.clusterDisabled[cluster] === 0;
  }

  /** Items currently in the part's heap. */
  partSize(part: number): number {
    return part < this.sizes.length ? this.sizes[part]! : 0;
  }

  /** A part's top or state changed: its place in its cluster, and its cluster's place in the lane. */
  private refreshTop(part: number): void {
    const lane = part % this.lanes;
    const cluster = this.clusterOf[part]!;
    if (this.sizes[part] === 0 || this.disabled[part] === 1) this.parts.remove(part);
    else this.parts.place(cluster * this.lanes + lane, part, this.keys[this.heaps[part]![0]!]!, part);
    this.refreshCluster(cluster, lane);
  }

  private refreshCluster(cluster: number, lane: number): void {
    const id = cluster * this.lanes + lane;
    const best = this.parts.top(id);
    if (best < 0 || this.clusterDisabled[cluster] === 1) this.clusters.remove(id);
    else this.clusters.place(lane, id, this.parts.key(best), best);
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
      this.position[other] = i + 1;
      i = parent;
    }
    heap[i] = item;
    this.position[item] = i + 1;
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
      this.position[other] = i + 1;
      i = child;
    }
    heap[i] = item;
    this.position[item] = i + 1;
  }

  private ensureItem(item: number): void {
    if (item < this.position.length) return;
    const size = columnSize(this.position.length, item + 1, Int32Array.BYTES_PER_ELEMENT);
    if (this.partOfItem === null) this.partOf = grown(this.partOf, size);
    this.position = grown(this.position, size);
    this.keys = grown(this.keys, size);
  }

  private ensurePart(part: number): void {
    while (this.heaps.length <= part) {
      this.heaps.push(EMPTY);
      this.sizes.push(0);
    }
    if (part >= this.disabled.length) this.disabled = grown(this.disabled, Math.max(part + 1, 2 * this.disabled.length));
    if (part >= this.clusterOf.length) this.clusterOf = grown(this.clusterOf, Math.max(part + 1, 2 * this.clusterOf.length));
  }

  private ensureCluster(cluster: number): void {
    if (cluster >= this.clusterDisabled.length) this.clusterDisabled = grown(this.clusterDisabled, Math.max(cluster + 1, 2 * this.clusterDisabled.length));
  }
}
