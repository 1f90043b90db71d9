/**
 * An append-only list of (source, target[, weight]) kept in fixed-size typed
 * chunks: 8 bytes per edge (16 weighted), no copying when it grows, and chunks
 * can be released one by one while the graph is built from them.
 */
export class EdgeBuffer {
  static readonly CHUNK_SIZE = 1 << 20;

  private readonly sourceChunks: (Int32Array | null)[] = [];
  private readonly targetChunks: (Int32Array | null)[] = [];
  private readonly weightChunks: (Float64Array | null)[] = [];
  private fill = EdgeBuffer.CHUNK_SIZE;
  private count = 0;

  constructor(readonly weighted = false) {}

  get length(): number {
    return this.count;
  }

  get chunkCount(): number {
    return this.sourceChunks.length;
  }

  push(source: number, target: number, weight = 1): void {
    if (this.fill === EdgeBuffer.CHUNK_SIZE) {
      this.sourceChunks.push(new Int32Array(EdgeBuffer.CHUNK_SIZE));
      this.targetChunks.push(new Int32Array(EdgeBuffer.CHUNK_SIZE));
      if (this.weighted) this.weightChunks.push(new Float64Array(EdgeBuffer.CHUNK_SIZE));
      this.fill = 0;
    }
    const last = this.sourceChunks.length - 1;
    this.sourceChunks[last]![this.fill] = source;
    this.targetChunks[last]![this.fill] = target;
    if (this.weighted) this.weightChunks[last]![this.fill] = weight;
    this.fill++;
    this.count++;
  }

  /** Number of edges stored in chunk i. */
  chunkLength(i: number): number {
    return i < this.sourceChunks.length - 1 ? EdgeBuffer.CHUNK_SIZE : this.fill;
  }

  sources(i: number): Int32Array {
    return this.live(this.sourceChunks[i]);
  }

  targets(i: number): Int32Array {
    return this.live(this.targetChunks[i]);
  }

  weights(i: number): Float64Array | null {
    return this.weighted ? this.live(this.weightChunks[i]) : null;
  }

  /** Drops chunk i so its memory can be reclaimed; it must not be read again. */
  release(i: number): void {
    this.sourceChunks[i] = null;
    this.targetChunks[i] = null;
    if (this.weighted) this.weightChunks[i] = null;
  }

  /** Replaces every endpoint x by map(x), in place. */
  mapEndpoints(map: (x: number) => number): void {
    for (let i = 0; i < this.sourceChunks.length; i++) {
      const length = this.chunkLength(i);
      const sources = this.sources(i);
      const targets = this.targets(i);
      for (let j = 0; j < length; j++) {
        sources[j] = map(sources[j]!);
        targets[j] = map(targets[j]!);
      }
    }
  }

  bytes(): number {
    return this.sourceChunks.length * EdgeBuffer.CHUNK_SIZE * (this.weighted ? 16 : 8);
  }

  private live<T>(chunk: T | null | undefined): T {
    if (chunk === null || chunk === undefined) throw new Error('EdgeBuffer: chunk was released');
    return chunk;
  }
}
