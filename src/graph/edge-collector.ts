import { EdgeBuffer } from './edge-buffer.js';
import { type BuildOptions, type BuiltGraph, buildFromEdges } from './builder.js';
import { IdentityLabels, IntegerLabels, type Labels, TextLabels, parseCanonicalInt } from './labels.js';

/**
 * Collects labelled links and turns labels into dense ids.
 *
 * While every label is a canonical integer below 2^31 the links are stored as
 * those integers, and ids are given at the end in increasing label order, so a
 * 0-based numeric edge list keeps id = label (and matches the WebGraph file of
 * the same graph). At the first label that is not such an integer the
 * collector switches to text labels for good: every label, numeric or not, is
 * then interned as a string in order of first appearance. The nodes are
 * exactly the labels that appear in a link.
 */
export class EdgeCollector {
  private readonly edges: EdgeBuffer;
  private textIds: Map<string, number> | null = null;
  private textNames: string[] | null = null;
  private maxValue = -1;

  constructor(weighted = false) {
    this.edges = new EdgeBuffer(weighted);
  }

  get numeric(): boolean {
    return this.textIds === null;
  }

  get edgeCount(): number {
    return this.edges.length;
  }

  get weighted(): boolean {
    return this.edges.weighted;
  }

  /** Adds a link between two canonical integer labels (only while numeric). */
  addNumeric(source: number, target: number, weight = 1): void {
    if (this.textIds !== null) {
      this.addText(String(source), String(target), weight);
      return;
    }
    if (source > this.maxValue) this.maxValue = source;
    if (target > this.maxValue) this.maxValue = target;
    this.edges.push(source, target, weight);
  }

  /** Adds a link between two text labels; switches to text mode if needed. */
  addText(source: string, target: string, weight = 1): void {
    if (this.textIds === null) this.switchToText();
    this.edges.push(this.intern(source), this.intern(target), weight);
  }

  /** Adds a link, choosing numeric or text storage from the labels. */
  add(source: string, target: string, weight = 1): void {
    if (this.textIds === null) {
      const s = parseCanonicalInt(source);
      const t = parseCanonicalInt(target);
      if (s >= 0 && t >= 0) {
        this.addNumeric(s, t, weight);
        return;
      }
    }
    this.addText(source, target, weight);
  }

  /** Builds the graph; the collector must not be used afterwards. */
  build(options: BuildOptions = {}): BuiltGraph {
    if (this.textIds !== null) {
      const names = this.textNames!;
      return buildFromEdges(names.length, this.edges, new TextLabels(names, this.textIds), options);
    }
    const { nodeCount, labels } = this.numberNumericLabels();
    return buildFromEdges(nodeCount, this.edges, labels, options);
  }

  private intern(label: string): number {
    let id = this.textIds!.get(label);
    if (id === undefined) {
      id = this.textNames!.length;
      this.textIds!.set(label, id);
      this.textNames!.push(label);
    }
    return id;
  }

  /** Re-labels the integers stored so far as text, in order of first appearance. */
  private switchToText(): void {
    this.textIds = new Map();
    this.textNames = [];
    const edges = this.edges;
    edges.expandRuns();
    for (let i = 0; i < edges.chunkCount; i++) {
      const length = edges.chunkLength(i);
      const sources = edges.sources(i);
      const targets = edges.targets(i);
      for (let j = 0; j < length; j++) {
        sources[j] = this.intern(String(sources[j]!));
        targets[j] = this.intern(String(targets[j]!));
      }
    }
  }

  /**
   * Gives dense ids to the integer labels in increasing order. A direct table
   * when the largest label is not much larger than the data (the usual case),
   * otherwise a sort of the distinct labels and binary search.
   */
  private numberNumericLabels(): { nodeCount: number; labels: Labels } {
    const edges = this.edges;
    const max = this.maxValue;
    if (max < 0) return { nodeCount: 0, labels: new IdentityLabels(0) };
    if (max + 1 <= 2 * edges.length + (1 << 20)) {
      const table = new Int32Array(max + 1).fill(-1);
      this.forEachEndpoint((x) => {
        table[x] = 0;
      });
      let count = 0;
      for (let x = 0; x <= max; x++) if (table[x] === 0) table[x] = count++;
      if (count === max + 1) return { nodeCount: count, labels: new IdentityLabels(count) };
      const values = new Int32Array(count);
      for (let x = 0; x <= max; x++) if (table[x]! >= 0) values[table[x]!] = x;
      this.remap((x) => table[x]!);
      return { nodeCount: count, labels: new IntegerLabels(values) };
    }
    const all = new Int32Array(2 * edges.length);
    let k = 0;
    this.forEachEndpoint((x) => {
      all[k++] = x;
    });
    all.sort();
    let count = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[count++] = all[i]!;
    const values = all.slice(0, count);
    const labels = new IntegerLabels(values);
    this.remap((x) => labels.indexOf(x));
    return { nodeCount: count, labels };
  }

  private forEachEndpoint(visit: (x: number) => void): void {
    const edges = this.edges;
    for (let i = 0; i < edges.chunkCount; i++) {
      const length = edges.chunkLength(i);
      const sources = edges.sources(i);
      const targets = edges.targets(i);
      for (let j = 0; j < length; j++) {
        visit(sources[j]!);
        visit(targets[j]!);
      }
    }
  }

  private remap(map: (x: number) => number): void {
    this.edges.mapEndpoints(map);
  }
}
