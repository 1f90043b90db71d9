/**
 * A big-endian bit reader with the instantaneous codes WebGraph uses
 * (Boldi and Vigna, "The WebGraph Framework I", and the MG4J bit streams):
 * unary (x zeros then a one), gamma, delta and zeta_k.
 */

/** Thrown when a code runs past the end of the data or cannot be a valid code. */
export class BitStreamError extends Error {
  constructor(
    readonly bitPosition: number,
    reason = 'the data ends in the middle of a code',
  ) {
    super(`${reason} (bit ${bitPosition})`);
  }
}

export class BitReader {
  /** Position of the next bit to read, counted from the first bit of the data. */
  position = 0;
  private readonly byteLength: number;

  constructor(private readonly bytes: Uint8Array) {
    this.byteLength = bytes.length;
  }

  get bitLength(): number {
    return this.byteLength * 8;
  }

  readBit(): number {
    const p = this.position;
    const byteIndex = p >>> 3;
    if (byteIndex >= this.byteLength) throw new BitStreamError(p);
    this.position = p + 1;
    return (this.bytes[byteIndex]! >>> (7 - (p & 7))) & 1;
  }

  /** Unary code: the number of zeros before the next one. */
  readUnary(): number {
    const bytes = this.bytes;
    let byteIndex = this.position >>> 3;
    if (byteIndex >= this.byteLength) throw new BitStreamError(this.position);
    const offset = this.position & 7;
    // The unread bits of the current byte, left-aligned in 8 bits.
    let byte = (bytes[byteIndex]! << offset) & 0xff;
    if (byte !== 0) {
      const zeros = Math.clz32(byte) - 24;
      this.position += zeros + 1;
      return zeros;
    }
    let count = 8 - offset;
    for (;;) {
      byteIndex++;
      if (byteIndex >= this.byteLength) throw new BitStreamError(this.position);
      byte = bytes[byteIndex]!;
      if (byte !== 0) {
        const zeros = Math.clz32(byte) - 24;
        this.position = byteIndex * 8 + zeros + 1;
        return count + zeros;
      }
      count += 8;
    }
  }

  /** The next `width` bits (0 <= width <= 53) as an unsigned number. */
  readBits(width: number): number {
    if (width === 0) return 0;
    const end = this.position + width;
    if (end > this.byteLength * 8) throw new BitStreamError(this.position);
    const bytes = this.bytes;
    let value = 0;
    let p = this.position;
    let remaining = width;
    while (remaining > 0) {
      const offset = p & 7;
      const available = 8 - offset;
      const take = available < remaining ? available : remaining;
      const bits = (bytes[p >>> 3]! >>> (available - take)) & ((1 << take) - 1);
      value = value * (1 << take) + bits;
      p += take;
      remaining -= take;
    }
    this.position = end;
    return value;
  }

  /** Elias gamma code of x >= 0 (codes x + 1). */
  readGamma(): number {
    const msb = this.readUnary();
    if (msb > 52) throw new BitStreamError(this.position, 'impossible code length');
    return 2 ** msb + this.readBits(msb) - 1;
  }

  /** Elias delta code of x >= 0. */
  readDelta(): number {
    const msb = this.readGamma();
    if (msb > 52) throw new BitStreamError(this.position, 'impossible code length');
    return 2 ** msb + this.readBits(msb) - 1;
  }

  /** Boldi-Vigna zeta_k code of x >= 0 (a minimal binary code per unary bucket). */
  readZeta(k: number): number {
    const h = this.readUnary();
    if (h * k + k - 1 > 52) throw new BitStreamError(this.position, 'impossible code length');
    const left = 2 ** (h * k);
    const m = this.readBits(h * k + k - 1);
    if (m < left) return m + left - 1;
    return m * 2 + this.readBit() - 1;
  }
}

/** WebGraph's mapping of naturals to integers: 0, 1, 2, 3, 4 -> 0, -1, 1, -2, 2. */
export function natToInt(x: number): number {
  return x % 2 === 0 ? x / 2 : -(x + 1) / 2;
}
