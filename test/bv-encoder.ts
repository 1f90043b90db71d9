/**
 * A WebGraph BVGraph encoder written for the tests from the format's
 * definition (Boldi and Vigna, "The WebGraph Framework I"), independent of
 * the decoder under test: it lets the tests make graphs with every window
 * size, interval length and zeta parameter the format allows.
 */

export class BitWriter {
  private readonly bits: number[] = [];

  get length(): number {
    return this.bits.length;
  }

  writeBit(bit: number): void {
    this.bits.push(bit & 1);
  }

  /** `width` low bits of value, most significant first. */
  writeBits(value: number, width: number): void {
    for (let i = width - 1; i >= 0; i--) this.writeBit(Math.floor(value / 2 ** i) % 2);
  }

  /** x zeros, then a one. */
  writeUnary(x: number): void {
    for (let i = 0; i < x; i++) this.writeBit(0);
    this.writeBit(1);
  }

  writeGamma(x: number): void {
    const value = x + 1;
    const length = Math.floor(Math.log2(value));
    this.writeUnary(length);
    this.writeBits(value, length);
  }

  writeDelta(x: number): void {
    const value = x + 1;
    const length = Math.floor(Math.log2(value));
    this.writeGamma(length);
    this.writeBits(value, length);
  }

  /** zeta_k: unary bucket h with x + 1 in [2^hk, 2^(h+1)k), then a minimal binary code in the bucket. */
  writeZeta(x: number, k: number): void {
    const value = x + 1;
    let h = 0;
    while (value >= 2 ** ((h + 1) * k)) h++;
    this.writeUnary(h);
    const left = 2 ** (h * k);
    const offset = value - left;
    const width = (h + 1) * k;
    if (offset < left) this.writeBits(offset, width - 1);
    else this.writeBits(offset + left, width);
  }

  /** Bytes, zero-padded (to 8 bytes, as WebGraph pads its streams). */
  toBytes(): Uint8Array {
    const bytes = new Uint8Array(Math.ceil(this.bits.length / 64) * 8);
    this.bits.forEach((bit, i) => {
      if (bit) bytes[i >> 3]! |= 0x80 >> (i & 7);
    });
    return bytes;
  }
}

export interface BvParameters {
  windowSize: number;
  minIntervalLength: number;
  zetaK: number;
}

function int2nat(x: number): number {
  return x >= 0 ? 2 * x : -2 * x - 1;
}

/**
 * Encodes successor lists (each sorted, distinct; self-links allowed).
 * `reference(x)` picks the list to copy from (0 = none); it must be within the window.
 */
export function encodeBvGraph(
  lists: number[][],
  parameters: BvParameters,
  reference: (x: number) => number,
): { graph: Uint8Array; offsets: Uint8Array; properties: string; arcs: number } {
  const { windowSize, minIntervalLength, zetaK } = parameters;
  const out = new BitWriter();
  const offsets = new BitWriter();
  let previousOffset = 0;
  let arcs = 0;
  lists.forEach((list, x) => {
    offsets.writeGamma(out.length - previousOffset);
    previousOffset = out.length;
    arcs += list.length;
    out.writeGamma(list.length);
    if (list.length === 0) return;
    let extras = list;
    if (windowSize > 0) {
      const r = Math.min(reference(x), windowSize, x);
      out.writeUnary(r);
      if (r > 0) {
        const referenced = lists[x - r]!;
        const own = new Set(list);
        // Runs of copied / skipped entries of the referenced list, starting with a copy run.
        const runs: number[] = [];
        let copying = true;
        let run = 0;
        for (const v of referenced) {
          if (own.has(v) === copying) run++;
          else {
            runs.push(run);
            copying = !copying;
            run = 1;
          }
        }
        runs.push(run);
        const blocks = runs.slice(0, -1); // the last run is implied by the parity of the count
        out.writeGamma(blocks.length);
        blocks.forEach((b, i) => out.writeGamma(i === 0 ? b : b - 1));
        const copied = new Set(referenced.filter((v) => own.has(v)));
        extras = list.filter((v) => !copied.has(v));
      }
    }
    if (extras.length === 0) return;
    let residuals = extras;
    if (minIntervalLength > 0) {
      const intervals: Array<[number, number]> = [];
      const rest: number[] = [];
      for (let i = 0; i < extras.length; ) {
        let j = i;
        while (j + 1 < extras.length && extras[j + 1] === extras[j]! + 1) j++;
        const length = j - i + 1;
        if (length >= minIntervalLength) intervals.push([extras[i]!, length]);
        else rest.push(...extras.slice(i, j + 1));
        i = j + 1;
      }
      out.writeGamma(intervals.length);
      let previousEnd = 0;
      intervals.forEach(([left, length], i) => {
        out.writeGamma(i === 0 ? int2nat(left - x) : left - previousEnd - 1);
        out.writeGamma(length - minIntervalLength);
        previousEnd = left + length;
      });
      residuals = rest;
    }
    residuals.forEach((v, i) => out.writeZeta(i === 0 ? int2nat(v - x) : v - residuals[i - 1]! - 1, zetaK));
  });
  offsets.writeGamma(out.length - previousOffset);
  const properties = [
    '#BVGraph properties',
    `nodes=${lists.length}`,
    `arcs=${arcs}`,
    `windowsize=${windowSize}`,
    `minintervallength=${minIntervalLength}`,
    `zetak=${zetaK}`,
    'version=0',
    'compressionflags=',
    'graphclass=it.unimi.dsi.webgraph.BVGraph',
  ].join('\n');
  return { graph: out.toBytes(), offsets: offsets.toBytes(), properties, arcs };
}
