/**
 * A small, fast, seeded pseudo-random generator (xoshiro128**, Blackman and
 * Vigna), so every generated graph and every random walk can be reproduced
 * from its seed. Not for cryptography.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 spreads any integer seed over the 128-bit state.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** A uniform number in [0, 1) with 32 random bits. */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** A uniform integer in [0, bound), bound <= 2^32, without modulo bias. */
  nextInt(bound: number): number {
    if (bound <= 0) throw new RangeError(`nextInt: bound must be positive, got ${bound}`);
    // Reject the first 2^32 mod bound values so that x mod bound is uniform.
    const threshold = 4294967296 % bound;
    for (;;) {
      const x = this.nextUint32();
      if (x >= threshold) return x % bound;
    }
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
