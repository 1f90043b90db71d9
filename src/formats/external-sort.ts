/**
 * Links sorted by (source, target) in bounded memory: pairs are gathered in a buffer of `runLinks`,
 * each full buffer sorted (least significant digit radix sort, 16 bits at a time) and written to a
 * run file in the temporary directory, and the runs merged (a heap over one read buffer per run).
 * The memory is the buffer (16 bytes per link of it: the pairs and the radix sort's copy) and 2 MB
 * per run; the disk, 8 bytes per link. What a graph of billions of links in a text file needs to
 * reach the compact form without holding its edge list.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Pairs per run read buffer in the merge. */
const READ_PAIRS = 1 << 18;

/** Sorts pairs (a[i], b[i]) by a then b, in place, using the scratch arrays (as long). */
export function radixSortPairs(a: Int32Array, b: Int32Array, length: number, scratchA: Int32Array, scratchB: Int32Array): void {
  let maxA = 0;
  let maxB = 0;
  for (let i = 0; i < length; i++) {
    if (a[i]! > maxA) maxA = a[i]!;
    if (b[i]! > maxB) maxB = b[i]!;
  }
  const counts = new Int32Array(65537);
  let fromA = a;
  let fromB = b;
  let toA = scratchA;
  let toB = scratchB;
  // Least significant digit first: b's low and high 16 bits, then a's.
  const passes: Array<[boolean, number]> = [];
  passes.push([false, 0]);
  if (maxB >= 65536) passes.push([false, 16]);
  passes.push([true, 0]);
  if (maxA >= 65536) passes.push([true, 16]);
  for (const [byA, shift] of passes) {
    counts.fill(0);
    const key = byA ? fromA : fromB;
    for (let i = 0; i < length; i++) counts[((key[i]! >>> shift) & 0xffff) + 1]!++;
    for (let d = 1; d <= 65536; d++) counts[d]! += counts[d - 1]!;
    for (let i = 0; i < length; i++) {
      const slot = counts[(key[i]! >>> shift) & 0xffff]!++;
      toA[slot] = fromA[i]!;
      toB[slot] = fromB[i]!;
    }
    [fromA, toA] = [toA, fromA];
    [fromB, toB] = [toB, fromB];
  }
  if (fromA !== a) {
    a.set(fromA.subarray(0, length));
    b.set(fromB.subarray(0, length));
  }
}

export class ExternalPairSorter {
  private a: Int32Array;
  private b: Int32Array;
  private fill = 0;
  private readonly runs: Array<{ path: string; pairs: number }> = [];
  private dir: string | null = null;
  private total = 0;

  constructor(
    private readonly tmpRoot: string,
    readonly runLinks = 1 << 26,
  ) {
    this.a = new Int32Array(runLinks);
    this.b = new Int32Array(runLinks);
  }

  get pairs(): number {
    return this.total;
  }

  get runCount(): number {
    return this.runs.length;
  }

  add(source: number, target: number): void {
    if (this.fill === this.runLinks) this.spill();
    this.a[this.fill] = source;
    this.b[this.fill++] = target;
    this.total++;
  }

  private scratch: [Int32Array, Int32Array] | null = null;

  private sortBuffer(): void {
    // The radix sort's copy, allocated once and kept for the next runs.
    this.scratch ??= [new Int32Array(this.runLinks), new Int32Array(this.runLinks)];
    radixSortPairs(this.a, this.b, this.fill, this.scratch[0], this.scratch[1]);
  }

  /** Sorts the buffer and writes it as a run. */
  private spill(): void {
    this.sortBuffer();
    this.dir ??= mkdtempSync(join(this.tmpRoot, 'wga-sort-'));
    const path = join(this.dir, `run-${this.runs.length}.pairs`);
    const fd = openSync(path, 'w');
    try {
      const chunk = new Int32Array(2 * READ_PAIRS);
      let position = 0;
      for (let start = 0; start < this.fill; start += READ_PAIRS) {
        const end = Math.min(this.fill, start + READ_PAIRS);
        for (let i = start; i < end; i++) {
          chunk[2 * (i - start)] = this.a[i]!;
          chunk[2 * (i - start) + 1] = this.b[i]!;
        }
        const bytes = new Uint8Array(chunk.buffer, 0, 8 * (end - start));
        for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
        position += bytes.length;
      }
    } finally {
      closeSync(fd);
    }
    this.runs.push({ path, pairs: this.fill });
    this.fill = 0;
  }

  /** Calls `visit(source, target)` for every pair in order (repeats included), then removes the runs. */
  drain(visit: (source: number, target: number) => void): void {
    try {
      if (this.runs.length === 0) {
        this.sortBuffer();
        for (let i = 0; i < this.fill; i++) visit(this.a[i]!, this.b[i]!);
        return;
      }
      if (this.fill > 0) this.spill();
      this.merge(visit);
    } finally {
      this.cleanUp();
      // The buffers go with the runs: what follows (the transposition) needs the memory.
      this.scratch = null;
      this.a = this.b = new Int32Array(0);
    }
  }

  private merge(visit: (source: number, target: number) => void): void {
    const k = this.runs.length;
    const fds = this.runs.map((run) => openSync(run.path, 'r'));
    try {
      const buffers = Array.from({ length: k }, () => new Int32Array(2 * READ_PAIRS));
      const filled = new Int32Array(k);
      const at = new Int32Array(k);
      const read = new Float64Array(k);
      const refill = (r: number): boolean => {
        const left = this.runs[r]!.pairs - read[r]!;
        if (left <= 0) return false;
        const pairs = Math.min(READ_PAIRS, left);
        const bytes = new Uint8Array(buffers[r]!.buffer, 0, 8 * pairs);
        let done = 0;
        while (done < bytes.length) {
          const got = readSync(fds[r]!, bytes, done, bytes.length - done, 8 * read[r]! + done);
          if (got <= 0) throw new Error(`sort run ${this.runs[r]!.path} ends early`);
          done += got;
        }
        read[r]! += pairs;
        filled[r] = pairs;
        at[r] = 0;
        return true;
      };
      // A binary heap of runs by their current pair.
      const heap = new Int32Array(k);
      let size = 0;
      const less = (r: number, s: number): boolean => {
        const ra = buffers[r]![2 * at[r]!]!;
        const sa = buffers[s]![2 * at[s]!]!;
        return ra < sa || (ra === sa && buffers[r]![2 * at[r]! + 1]! < buffers[s]![2 * at[s]! + 1]!);
      };
      const down = (start: number): void => {
        let i = start;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= size) return;
          let c = l;
          if (l + 1 < size && less(heap[l + 1]!, heap[l]!)) c = l + 1;
          if (!less(heap[c]!, heap[i]!)) return;
          const t = heap[i]!;
          heap[i] = heap[c]!;
          heap[c] = t;
          i = c;
        }
      };
      for (let r = 0; r < k; r++) if (refill(r)) heap[size++] = r;
      for (let i = (size >> 1) - 1; i >= 0; i--) down(i);
      while (size > 0) {
        const r = heap[0]!;
        const buffer = buffers[r]!;
        visit(buffer[2 * at[r]!]!, buffer[2 * at[r]! + 1]!);
        at[r]!++;
        if (at[r]! === filled[r]! && !refill(r)) heap[0] = heap[--size]!;
        down(0);
      }
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  /** Removes the run files (also on failure). */
  cleanUp(): void {
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
    this.runs.length = 0;
  }
}
