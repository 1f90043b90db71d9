/**
 * A big-endian bit writer with the instantaneous codes WebGraph uses (the
 * writing side of bit-reader.ts), and the lengths of those codes so that an
 * encoder can price alternatives without writing them.
 *
 * Written bytes accumulate in a buffer the caller drains with take(): the
 * encoder hands them to a file stream in chunks, never holding the stream.
 */

/** Common interface of the writer and the counter, so one encoder routine serves both. */
export interface BitSink {
  writeUnary(x: number): void;
  writeGamma(x: number): void;
  writeZeta(x: number, k: number): void;
}

/** floor(log2(value)) for value >= 1 (up to 2^53). */
export function mostSignificantBit(value: number): number {
  return value < 0x1_0000_0000 ? 31 - Math.clz32(value) : 32 + (31 - Math.clz32(Math.floor(value / 0x1_0000_0000)));
}

export function gammaLength(x: number): number {
  return 2 * mostSignificantBit(x + 1) + 1;
}

/** zeta_k (Boldi and Vigna, "Codes for the World-Wide Web", 2005): unary bucket h, then a minimal binary code. */
export function zetaLength(x: number, k: number): number {
  const value = x + 1;
  const h = Math.floor(mostSignificantBit(value) / k);
  const left = 2 ** (h * k);
  const width = (h + 1) * k;
  return h + 1 + (value - left < left ? width - 1 : width);
}

/** Counts the bits an encoding would take. */
export class BitCounter implements BitSink {
  bits = 0;
  writeUnary(x: number): void {
    this.bits += x + 1;
  }
  writeGamma(x: number): void {
    this.bits += gammaLength(x);
  }
  writeZeta(x: number, k: number): void {
    this.bits += zetaLength(x, k);
  }
}

export class BitWriter implements BitSink {
  /** Bits written so far. */
  position = 0;
  private buffer: Uint8Array;
  private used = 0;
  /** Pending bits not yet forming a byte (fewer than 8), right-aligned. */
  private pending = 0;
  private pendingBits = 0;

  constructor(initialBytes = 1 << 16) {
    this.buffer = new Uint8Array(initialBytes);
  }

  /** `width` (0..53) low bits of value, most significant first. */
  writeBits(value: number, width: number): void {
    if (width > 24) {
      const low = value % 0x100_0000;
      this.writeBits((value - low) / 0x100_0000, width - 24);
      this.writeBits(low, 24);
      return;
    }
    this.position += width;
    let pending = this.pending * (1 << width) + (value & ((1 << width) - 1));
    let pendingBits = this.pendingBits + width;
    while (pendingBits >= 8) {
      pendingBits -= 8;
      this.pushByte(pending >>> pendingBits);
      pending &= (1 << pendingBits) - 1;
    }
    this.pending = pending;
    this.pendingBits = pendingBits;
  }

  /** x zeros, then a one. */
  writeUnary(x: number): void {
    let zeros = x;
    while (zeros > 24) {
      this.writeBits(0, 24);
      zeros -= 24;
    }
    this.writeBits(1, zeros + 1);
  }

  writeGamma(x: number): void {
    const value = x + 1;
    const msb = mostSignificantBit(value);
    this.writeUnary(msb);
    this.writeBits(value - 2 ** msb, msb);
  }

  writeZeta(x: number, k: number): void {
    const value = x + 1;
    const h = Math.floor(mostSignificantBit(value) / k);
    this.writeUnary(h);
    const left = 2 ** (h * k);
    const offset = value - left;
    const width = (h + 1) * k;
    if (offset < left) this.writeBits(offset, width - 1);
    else this.writeBits(offset + left, width);
  }

  /** Bytes completed so far: hands them over and forgets them. */
  take(): Uint8Array {
    const bytes = this.buffer.slice(0, this.used);
    this.used = 0;
    return bytes;
  }

  /** Bytes buffered and not taken yet. */
  get buffered(): number {
    return this.used;
  }

  /**
   * Pads with zeros to a byte, then with zero bytes to a multiple of 8 bytes
   * (as WebGraph's streams end), and returns what was not taken yet.
   */
  finish(): Uint8Array {
    if (this.pendingBits > 0) this.writeBits(0, 8 - this.pendingBits);
    const totalBytes = this.position / 8;
    const padding = (8 - (totalBytes % 8)) % 8;
    for (let i = 0; i < padding; i++) this.pushByte(0);
    return this.take();
  }

  private pushByte(byte: number): void {
    if (this.used === this.buffer.length) {
      const larger = new Uint8Array(this.buffer.length * 2);
      larger.set(this.buffer);
      this.buffer = larger;
    }
    this.buffer[this.used++] = byte;
  }
}
