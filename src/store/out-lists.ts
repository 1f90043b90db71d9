/**
 * Out-lists read back from a store, packed: what a resumed crawl gives its live PageRank (and its
 * re-reads) instead of the whole graph with its URLs (issue 38: a crawl of 10^7 pages and 10^8
 * links resumed in under a minute). Both stores read links in (source, target) order and pack them
 * here, so that both give the same lists: the web graph's convention of builder.ts, parallel links
 * (of several kinds) one edge, self-links dropped.
 */

/** Out-lists of consecutive sources, in the store's page ids. */
export interface OutListBatch {
  /** Sources with at least one link, increasing. */
  sources: Int32Array;
  /** ends[i]: where sources[i]'s targets end in `targets` (they start at ends[i - 1], or 0). */
  ends: Int32Array;
  /** Each source's distinct targets, increasing, none the source itself. */
  targets: Int32Array;
}

/**
 * Packs links given in (source, target) order, as two parallel arrays or one packed integer per
 * link (source * shift + target): repeated targets of a source and self-links are left out.
 */
export class OutListPacker {
  private sources: number[] = [];
  private ends: number[] = [];
  private targets: Int32Array;
  private length = 0;
  private source = -1;
  /** The source's last target kept (-1: none yet). */
  private last = -1;

  constructor(expectedLinks = 1 << 16) {
    this.targets = new Int32Array(Math.max(16, expectedLinks));
  }

  /** Links kept in this batch so far. */
  get links(): number {
    return this.length;
  }

  add(source: number, target: number): void {
    if (source !== this.source) {
      if (source < this.source) throw new Error(`out-lists: source ${source} after ${this.source} (links must come in source order)`);
      this.endSource();
      this.source = source;
    }
    if (target === source || target === this.last) return;
    if (target < this.last) throw new Error(`out-lists: target ${target} after ${this.last} of source ${source} (targets must come in increasing order)`);
    if (this.last === -1) this.sources.push(source);
    this.last = target;
    if (this.length === this.targets.length) {
      const grown = new Int32Array(2 * this.targets.length);
      grown.set(this.targets);
      this.targets = grown;
    }
    this.targets[this.length++] = target;
  }

  /** The batch packed so far; the packer starts a new one (take it between two sources). */
  take(): OutListBatch {
    this.endSource();
    this.source = -1;
    const batch: OutListBatch = { sources: Int32Array.from(this.sources), ends: Int32Array.from(this.ends), targets: this.targets.slice(0, this.length) };
    this.sources = [];
    this.ends = [];
    this.length = 0;
    return batch;
  }

  private endSource(): void {
    if (this.last !== -1) this.ends.push(this.length);
    this.last = -1;
  }
}
