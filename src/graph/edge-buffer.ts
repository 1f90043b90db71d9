/**
 * An append-only list of (source, target[, weight]) kept in fixed-size typed
 * chunks: no copying when it grows, and chunks can be released one by one
 * while the graph is built from them.
 *
 * Sources are stored as runs (value, length) while links arrive grouped by
 * source, as most edge-list files and every crawler's output do: 4 bytes per
 * link instead of 8. When runs stop paying (too many short ones), they are
 * expanded into per-link chunks and the buffer carries on at 8 bytes per link.
 */
export class EdgeBuffer {
  /** 64K links: small enough that the last, partly filled chunk wastes little. */
  static readonly CHUNK_SIZE = 1 << 16;

  private readonly targetChunks: (Int32Array | null)[] = [];
  private readonly weightChunks: (Float64Array | null)[] = [];
  /** Per-link source chunks, or null while sources are kept as runs. */
  private sourceChunks: (Int32Array | null)[] | null = null;
  private runValues: Int32Array = new Int32Array(1024);
  /** runEnds[r] = number of links up to the end of run r. */
  private runEnds: Float64Array = new Float64Array(1024);
  private runCount = 0;
  private readonly scratch = new Int32Array(EdgeBuffer.CHUNK_SIZE);
  private fill = EdgeBuffer.CHUNK_SIZE;
  private count = 0;

  constructor(readonly weighted = false) {}

  get length(): number {
    return this.count;
  }

  get chunkCount(): number {
    return this.targetChunks.length;
  }

  /** True while sources are stored as runs (4 bytes per link). */
  get runLengthSources(): boolean {
    return this.sourceChunks === null;
  }

  push(source: number, target: number, weight = 1): void {
    if (this.fill === EdgeBuffer.CHUNK_SIZE) this.addChunk();
    const last = this.targetChunks.length - 1;
    if (this.sourceChunks === null) {
      if (this.runCount > 0 && this.runValues[this.runCount - 1] === source) {
        this.runEnds[this.runCount - 1]!++;
      } else if (this.runCount > 1024 && this.runCount * 2 > this.count) {
        // Runs average under two links: per-link sources are smaller.
        this.expandRuns();
      } else {
        this.addRun(source);
      }
    }
    if (this.sourceChunks !== null) this.sourceChunks[last]![this.fill] = source;
    this.targetChunks[last]![this.fill] = target;
    if (this.weighted) this.weightChunks[last]![this.fill] = weight;
    this.fill++;
    this.count++;
  }

  /** Number of links stored in chunk i. */
  chunkLength(i: number): number {
    return i < this.targetChunks.length - 1 ? EdgeBuffer.CHUNK_SIZE : this.fill;
  }

  /**
   * The sources of chunk i. With run-length sources this is a scratch array
   * rewritten by the next call: read it before asking for another chunk, and
   * change sources only through mapEndpoints.
   */
  sources(i: number): Int32Array {
    if (this.sourceChunks !== null) return this.live(this.sourceChunks[i]);
    const start = i * EdgeBuffer.CHUNK_SIZE;
    const length = this.chunkLength(i);
    // The run holding link `start`: the first run whose end is beyond it.
    let lo = 0;
    let hi = this.runCount - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.runEnds[mid]! > start) hi = mid;
      else lo = mid + 1;
    }
    let run = lo;
    for (let j = 0; j < length; j++) {
      while (this.runEnds[run]! <= start + j) run++;
      this.scratch[j] = this.runValues[run]!;
    }
    return this.scratch;
  }

  targets(i: number): Int32Array {
    return this.live(this.targetChunks[i]);
  }

  weights(i: number): Float64Array | null {
    return this.weighted ? this.live(this.weightChunks[i]) : null;
  }

  /** Drops chunk i so its memory can be reclaimed; it must not be read again. */
  release(i: number): void {
    if (this.sourceChunks !== null) this.sourceChunks[i] = null;
    this.targetChunks[i] = null;
    if (this.weighted) this.weightChunks[i] = null;
  }

  /** Replaces every endpoint x by map(x), in place. */
  mapEndpoints(map: (x: number) => number): void {
    if (this.sourceChunks === null) {
      for (let r = 0; r < this.runCount; r++) this.runValues[r] = map(this.runValues[r]!);
    }
    for (let i = 0; i < this.targetChunks.length; i++) {
      const length = this.chunkLength(i);
      const targets = this.targets(i);
      for (let j = 0; j < length; j++) targets[j] = map(targets[j]!);
      if (this.sourceChunks !== null) {
        const sources = this.live(this.sourceChunks[i]);
        for (let j = 0; j < length; j++) sources[j] = map(sources[j]!);
      }
    }
  }

  /** Switches to per-link source chunks (needed before editing sources link by link). */
  expandRuns(): void {
    if (this.sourceChunks !== null) return;
    const chunks: (Int32Array | null)[] = [];
    for (let i = 0; i < this.targetChunks.length; i++) {
      if (this.targetChunks[i] === null) {
        chunks.push(null);
        continue;
      }
      const chunk = new Int32Array(EdgeBuffer.CHUNK_SIZE);
      chunk.set(this.sources(i).subarray(0, this.chunkLength(i)));
      chunks.push(chunk);
    }
    this.sourceChunks = chunks;
    this.runValues = new Int32Array(0);
    this.runEnds = new Float64Array(0);
    this.runCount = 0;
  }

  bytes(): number {
    const perLink = 4 + (this.sourceChunks === null ? 0 : 4) + (this.weighted ? 8 : 0);
    return this.targetChunks.length * EdgeBuffer.CHUNK_SIZE * perLink + this.runValues.byteLength + this.runEnds.byteLength;
  }

  private addChunk(): void {
    this.targetChunks.push(new Int32Array(EdgeBuffer.CHUNK_SIZE));
    this.sourceChunks?.push(new Int32Array(EdgeBuffer.CHUNK_SIZE));
    if (this.weighted) this.weightChunks.push(new Float64Array(EdgeBuffer.CHUNK_SIZE));
    this.fill = 0;
  }

  private addRun(source: number): void {
    if (this.runCount === this.runValues.length) {
      const values = new Int32Array(2 * this.runCount);
      values.set(this.runValues);
      this.runValues = values;
      const ends = new Float64Array(2 * this.runCount);
      ends.set(this.runEnds);
      this.runEnds = ends;
    }
    this.runValues[this.runCount] = source;
    this.runEnds[this.runCount] = this.count + 1;
    this.runCount++;
  }

  private live<T>(chunk: T | null | undefined): T {
    if (chunk === null || chunk === undefined) throw new Error('EdgeBuffer: chunk was released');
    return chunk;
  }
}
