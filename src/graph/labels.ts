/**
 * Dense node ids (0..n-1) to the labels pages had in their source (numbers or
 * URLs) and back. Three representations, chosen by the loaders for memory:
 * identity (label = id), sorted integers, and arbitrary text.
 */
export interface Labels {
  readonly size: number;
  /** The label of node `id`, as it appeared in the source. */
  label(id: number): string;
  /** The id of the node with this label, or -1. */
  id(label: string): number;
  /** Approximate bytes held by the mapping. */
  memoryBytes(): number;
}

/** Node i is labelled "i" (WebGraph files, generated graphs). */
export class IdentityLabels implements Labels {
  constructor(readonly size: number) {}
  label(id: number): string {
    return String(id);
  }
  id(label: string): number {
    const value = parseCanonicalInt(label);
    return value >= 0 && value < this.size ? value : -1;
  }
  memoryBytes(): number {
    return 0;
  }
}

/** Node i is labelled by values[i]; values are distinct non-negative integers in increasing order. */
export class IntegerLabels implements Labels {
  constructor(readonly values: Int32Array) {}
  get size(): number {
    return this.values.length;
  }
  label(id: number): string {
    return String(this.values[id]);
  }
  id(label: string): number {
    const value = parseCanonicalInt(label);
    return value < 0 ? -1 : this.indexOf(value);
  }
  /** The id of the node labelled with the integer `target`, or -1. */
  indexOf(target: number): number {
    const values = this.values;
    let lo = 0;
    let hi = values.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = values[mid]!;
      if (v === target) return mid;
      if (v < target) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
  memoryBytes(): number {
    return this.values.byteLength;
  }
}

/** Arbitrary text labels (URLs), ids in order of first appearance. */
export class TextLabels implements Labels {
  private index: Map<string, number> | undefined;
  constructor(readonly names: readonly string[], index?: Map<string, number>) {
    this.index = index;
  }
  get size(): number {
    return this.names.length;
  }
  label(id: number): string {
    return this.names[id]!;
  }
  id(label: string): number {
    if (this.index === undefined) {
      this.index = new Map();
      this.names.forEach((name, i) => this.index!.set(name, i));
    }
    return this.index.get(label) ?? -1;
  }
  memoryBytes(): number {
    let bytes = 0;
    for (const name of this.names) bytes += 2 * name.length + 16;
    return bytes + (this.index === undefined ? 0 : 40 * this.names.length);
  }
}

/**
 * Display labels (e.g. URLs from a label file) laid over the source labels:
 * `label()` gives the display label where there is one, and `id()` accepts
 * either form, so `--root http://...` and `--root 17` both work.
 */
export class AttachedLabels implements Labels {
  private readonly byDisplay = new Map<string, number>();
  constructor(
    readonly base: Labels,
    readonly display: readonly (string | undefined)[],
  ) {
    display.forEach((name, i) => {
      if (name !== undefined && !this.byDisplay.has(name)) this.byDisplay.set(name, i);
    });
  }
  get size(): number {
    return this.base.size;
  }
  label(id: number): string {
    return this.display[id] ?? this.base.label(id);
  }
  id(label: string): number {
    return this.byDisplay.get(label) ?? this.base.id(label);
  }
  memoryBytes(): number {
    let bytes = this.base.memoryBytes();
    for (const name of this.display) if (name !== undefined) bytes += 2 * name.length + 56;
    return bytes;
  }
}

/**
 * The value of a canonical non-negative decimal integer below 2^31 ("0", "17",
 * not "017", "+1" or "1e3"), or -1. Canonical form is what makes a numeric
 * label round-trip to the same text, so numbers can be stored as numbers.
 */
export function parseCanonicalInt(text: string): number {
  const len = text.length;
  if (len === 0 || len > 10) return -1;
  if (len > 1 && text.charCodeAt(0) === 48) return -1;
  let value = 0;
  for (let i = 0; i < len; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value <= 0x7fffffff ? value : -1;
}
