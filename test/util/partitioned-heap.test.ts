import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PartitionedMaxHeap } from '../../src/util/partitioned-heap.js';
import { Random } from '../../src/util/random.js';

/** The heap's specification, by brute force: items with their key and part, parts switched on or off. */
class Model {
  readonly keys = new Map<number, number>();
  readonly partOf = new Map<number, number>();
  readonly inHeap = new Set<number>();
  readonly disabled = new Set<number>();
  readonly clusterOf = new Map<number, number>();
  readonly disabledClusters = new Set<number>();

  constructor(readonly lanes: number) {}

  set(item: number, key: number, part: number): void {
    this.keys.set(item, key);
    this.partOf.set(item, part);
    this.inHeap.add(item);
  }

  changeKey(item: number, key: number): void {
    // Out of the heap the key is remembered, nothing else changes.
    this.keys.set(item, key);
  }

  remove(item: number): void {
    this.inHeap.delete(item);
  }

  setEnabled(part: number, enabled: boolean): void {
    if (enabled) this.disabled.delete(part);
    else this.disabled.add(part);
  }

  setCluster(part: number, cluster: number): void {
    this.clusterOf.set(part, cluster);
  }

  setClusterEnabled(cluster: number, enabled: boolean): void {
    if (enabled) this.disabledClusters.delete(cluster);
    else this.disabledClusters.add(cluster);
  }

  /** Largest key among enabled parts of enabled clusters of the lane; ties: smallest part, then smallest item. */
  top(lane: number): number {
    let best = -1;
    for (const item of this.inHeap) {
      const part = this.partOf.get(item)!;
      if (part % this.lanes !== lane || this.disabled.has(part) || this.disabledClusters.has(this.clusterOf.get(part) ?? 0)) continue;
      if (best < 0 || this.before(item, best)) best = item;
    }
    return best;
  }

  partSize(part: number): number {
    let count = 0;
    for (const item of this.inHeap) if (this.partOf.get(item) === part) count++;
    return count;
  }

  private before(a: number, b: number): boolean {
    const ka = this.keys.get(a)!;
    const kb = this.keys.get(b)!;
    if (ka !== kb) return ka > kb;
    const pa = this.partOf.get(a)!;
    const pb = this.partOf.get(b)!;
    if (pa !== pb) return pa < pb;
    return a < b;
  }
}

/** `owned`: the heap asks the owner for parts, so it tells the part of an item in the heap only. */
function checkAgainst(heap: PartitionedMaxHeap, model: Model, items: number, parts: number, where: string, owned = false): void {
  assert.equal(heap.size, model.inHeap.size, `${where}: size`);
  for (let lane = 0; lane < model.lanes; lane++) assert.equal(heap.top(lane), model.top(lane), `${where}: top(${lane})`);
  for (let part = 0; part < parts + 2; part++) {
    assert.equal(heap.partSize(part), model.partSize(part), `${where}: partSize(${part})`);
    assert.equal(heap.isEnabled(part), !model.disabled.has(part), `${where}: isEnabled(${part})`);
    assert.equal(heap.cluster(part), model.clusterOf.get(part) ?? 0, `${where}: cluster(${part})`);
  }
  for (let item = 0; item < items + 2; item++) {
    const inHeap = model.inHeap.has(item);
    assert.equal(heap.has(item), inHeap, `${where}: has(${item})`);
    if (model.partOf.has(item) && (inHeap || !owned)) assert.equal(heap.part(item), model.partOf.get(item), `${where}: part(${item})`);
    else assert.equal(heap.part(item), -1, `${where}: part(${item}) ${owned ? 'out of the heap' : 'before its first set'}`);
    if (inHeap) assert.equal(heap.key(item), model.keys.get(item), `${where}: key(${item})`);
  }
}

describe('PartitionedMaxHeap', () => {
  it('is empty at first', () => {
    const heap = new PartitionedMaxHeap(3);
    assert.equal(heap.lanes, 3);
    assert.equal(heap.size, 0);
    for (let lane = 0; lane < 3; lane++) assert.equal(heap.top(lane), -1);
    assert.equal(heap.top(), -1);
    assert.equal(heap.has(0), false);
    assert.equal(heap.has(1_000_000), false);
    assert.equal(heap.part(5), -1);
    assert.equal(heap.part(1_000_000), -1);
    assert.equal(heap.partSize(0), 0);
    assert.equal(heap.partSize(1_000), 0);
    assert.equal(heap.isEnabled(0), true);
    assert.equal(heap.isEnabled(1_000), true);
    // Removing or re-keying what is not there is harmless.
    heap.remove(3);
    heap.remove(1_000_000);
    heap.changeKey(2, 5);
    heap.changeKey(1_000_000, 5);
    assert.equal(heap.size, 0);
    assert.equal(heap.top(), -1);
  });

  it('orders by key, then smallest part, then smallest item', () => {
    const heap = new PartitionedMaxHeap(1, 1);
    heap.set(9, 5, 2);
    heap.set(4, 5, 2);
    heap.set(7, 5, 1);
    heap.set(1, 3, 0);
    assert.equal(heap.top(), 7, 'equal keys: the smaller part first although item 4 is smaller');
    heap.remove(7);
    assert.equal(heap.top(), 4, 'equal keys in one part: the smaller item first');
    heap.changeKey(9, 6);
    assert.equal(heap.top(), 9);
    heap.set(9, 6, 0);
    assert.equal(heap.part(9), 0, 'set moves an item to another part');
    assert.equal(heap.partSize(2), 1);
    assert.equal(heap.partSize(0), 2);
    heap.set(1, Infinity, 0);
    assert.equal(heap.top(), 1);
    heap.set(1, -Infinity, 0);
    assert.equal(heap.top(), 9);
    assert.equal(heap.size, 3);
  });

  it('hides disabled parts from top() without losing their items', () => {
    const heap = new PartitionedMaxHeap(2);
    heap.set(0, 10, 0); // lane 0
    heap.set(1, 9, 2); // lane 0
    heap.set(2, 8, 1); // lane 1
    heap.set(3, 7, 3); // lane 1
    assert.deepEqual([heap.top(0), heap.top(1)], [0, 2]);
    heap.setEnabled(0, false);
    heap.setEnabled(1, false);
    assert.deepEqual([heap.top(0), heap.top(1)], [1, 3]);
    assert.equal(heap.isEnabled(0), false);
    // Changes inside a disabled part are kept and show when it comes back.
    heap.set(4, 100, 0);
    heap.changeKey(0, 1);
    assert.equal(heap.top(0), 1);
    assert.equal(heap.partSize(0), 2);
    heap.setEnabled(2, false);
    assert.equal(heap.top(0), -1, 'every part of the lane is off');
    heap.setEnabled(0, true);
    heap.setEnabled(0, true); // twice: no change
    assert.equal(heap.top(0), 4);
    // A part can be switched off before it has items.
    heap.setEnabled(40, false);
    heap.set(5, 1000, 40);
    assert.equal(heap.top(0), 4);
    assert.equal(heap.has(5), true);
    heap.setEnabled(40, true);
    assert.equal(heap.top(0), 5);
    assert.equal(heap.size, 6);
  });

  it('hides a whole cluster of parts at once, and orders clusters by their best part', () => {
    const heap = new PartitionedMaxHeap(1);
    heap.set(0, 5, 0);
    heap.set(1, 5, 1);
    heap.set(2, 4, 2);
    heap.setCluster(1, 7);
    heap.setCluster(2, 7);
    assert.equal(heap.cluster(2), 7);
    assert.equal(heap.top(), 0, 'equal keys: part 0 (cluster 0) before part 1 (cluster 7)');
    heap.setClusterEnabled(0, false);
    assert.equal(heap.top(), 1);
    heap.setClusterEnabled(7, false);
    assert.equal(heap.top(), -1, 'both clusters off');
    assert.equal(heap.isClusterEnabled(7), false);
    heap.set(2, 9, 2); // changes inside a cluster that is off are kept
    heap.setClusterEnabled(7, true);
    assert.equal(heap.top(), 2);
    heap.setEnabled(2, false); // a part off inside an enabled cluster
    assert.equal(heap.top(), 1);
    heap.setCluster(1, 0); // moved into a cluster that is off
    assert.equal(heap.top(), -1);
    heap.setClusterEnabled(0, true);
    assert.equal(heap.top(), 0);
    assert.equal(heap.size, 3);
  });

  it('remembers an item part and key once out of the heap, and takes it back', () => {
    const heap = new PartitionedMaxHeap(1, 2);
    heap.set(3, 2, 5);
    heap.remove(3);
    assert.equal(heap.has(3), false);
    assert.equal(heap.part(3), 5);
    heap.changeKey(3, 42);
    assert.equal(heap.key(3), 42);
    assert.equal(heap.has(3), false, 'changeKey does not insert');
    assert.equal(heap.top(), -1);
    heap.set(3, 1, 5);
    assert.equal(heap.top(), 3);
    assert.equal(heap.key(3), 1);
  });

  it('grows to large item ids and many parts', () => {
    const heap = new PartitionedMaxHeap(4, 1);
    for (let k = 0; k < 2000; k++) heap.set(k * 997, k % 13, k % 301);
    assert.equal(heap.size, 2000);
    let total = 0;
    for (let part = 0; part < 301; part++) total += heap.partSize(part);
    assert.equal(total, 2000);
    // Drain lane by lane: keys come out in non-increasing order.
    for (let lane = 0; lane < 4; lane++) {
      let previous = Infinity;
      for (let guard = 0; guard < 2001; guard++) {
        const top = heap.top(lane);
        if (top < 0) break;
        assert.equal(heap.part(top) % 4, lane);
        assert.ok(heap.key(top) <= previous);
        previous = heap.key(top);
        heap.remove(top);
      }
    }
    assert.equal(heap.size, 0);
  });

  it('agrees with a brute-force model on random operation sequences, parts kept by the heap or told by their owner', () => {
    for (const [seed, lanes, items, parts, steps, keyRange] of [
      [1, 1, 30, 4, 4000, 10],
      [2, 4, 60, 16, 4000, 5],
      [3, 3, 200, 40, 5000, 1000],
      [4, 2, 12, 3, 3000, 3], // many ties
      [5, 4, 500, 9, 3000, 1e9],
    ] as const) for (const owned of [false, true]) {
      const random = new Random(seed);
      // Owned: the heap asks the owner's record of each item's part (as OPIC's hosts and classes), updated after each set.
      const ownerParts = new Map<number, number>();
      const heap = new PartitionedMaxHeap(lanes, 1 + (seed % 3), owned ? (item) => ownerParts.get(item)! : null);
      const model = new Model(lanes);
      for (let step = 0; step < steps; step++) {
        const item = random.nextInt(items);
        const part = random.nextInt(parts);
        // Integer keys give ties; sometimes a fractional or negative one.
        const key = random.nextInt(4) === 0 ? (random.next() - 0.5) * keyRange : random.nextInt(keyRange);
        const operation = random.nextInt(100);
        let what: string;
        if (operation < 35) {
          heap.set(item, key, part);
          ownerParts.set(item, part);
          model.set(item, key, part);
          what = `set(${item}, ${key}, ${part})`;
        } else if (operation < 55) {
          heap.changeKey(item, key);
          model.changeKey(item, key);
          what = `changeKey(${item}, ${key})`;
        } else if (operation < 70) {
          heap.remove(item);
          model.remove(item);
          what = `remove(${item})`;
        } else if (operation < 76) {
          const enabled = random.nextInt(3) !== 0;
          heap.setEnabled(part, enabled);
          model.setEnabled(part, enabled);
          what = `setEnabled(${part}, ${enabled})`;
        } else if (operation < 78) {
          // Clusters: a part moves to one of a few (with or without items in it).
          const cluster = random.nextInt(4);
          heap.setCluster(part, cluster);
          model.setCluster(part, cluster);
          what = `setCluster(${part}, ${cluster})`;
        } else if (operation < 80) {
          const cluster = random.nextInt(4);
          const enabled = random.nextInt(2) === 0;
          heap.setClusterEnabled(cluster, enabled);
          model.setClusterEnabled(cluster, enabled);
          what = `setClusterEnabled(${cluster}, ${enabled})`;
        } else if (operation < 90 && model.inHeap.size > 0) {
          // Pop the top of a lane, as a crawler does.
          const lane = random.nextInt(lanes);
          const top = heap.top(lane);
          assert.equal(top, model.top(lane), `seed ${seed} step ${step}: top(${lane}) before pop`);
          if (top >= 0) {
            heap.remove(top);
            model.remove(top);
          }
          what = `pop(${lane})`;
        } else {
          // Re-set an item with its own key and part: a no-op.
          const present = [...model.inHeap];
          if (present.length === 0) continue;
          const again = present[random.nextInt(present.length)]!;
          heap.set(again, model.keys.get(again)!, model.partOf.get(again)!);
          what = `set(${again}) unchanged`;
        }
        // The full check is O(items + parts); do it often but not at every step.
        if (step % 7 === 0 || step > steps - 50) checkAgainst(heap, model, items, parts, `seed ${seed}${owned ? ' (owned parts)' : ''} step ${step} after ${what}`, owned);
        else for (let lane = 0; lane < lanes; lane++) assert.equal(heap.top(lane), model.top(lane), `seed ${seed} step ${step} after ${what}: top(${lane})`);
      }
    }
  });
});
