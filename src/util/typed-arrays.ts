/** Growing the typed arrays that hold per-page state. */

type GrowableArray = Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array;

/** A copy of `array` with room for `size` entries; the new ones hold `empty`. */
export function grown<T extends GrowableArray>(array: T, size: number, empty = 0): T {
  const bigger = new (array.constructor as new (n: number) => T)(size);
  if (empty !== 0) bigger.fill(empty, array.length);
  bigger.set(array);
  return bigger;
}

/**
 * Per-page columns of a crawl (issue 38). A large allocation is the kernel's zero pages: only the
 * entries written cost RAM, so room reserved ahead is address space, not memory. Two uses:
 * - a crawl's columns start with room for many pages (reservedArrays), so that most crawls never
 *   copy them: a copy keeps the old array until a full collection, about as much RAM again as the
 *   data when the peak is measured;
 * - past that room a column grows 8 times (columnSize), three times fewer copies than doubling,
 *   at no RAM cost for the room.
 * Both only for allocations of FRESH_PAGES_BYTES or more: glibc serves a smaller one from memory it
 * had before when it can, and calloc then clears it, which makes all of it resident (in a process
 * that runs crawl after crawl, `wga serve` or the tests, 200 MB stayed resident that way). Small
 * columns are therefore reserved together, as views of one buffer. Neither holds for an array
 * filled with a non-zero "empty" value (the fill writes every entry): such columns store their
 * values shifted so that 0 means empty.
 */
export interface ColumnConstructor<T> {
  new (length: number): T;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** Allocations from this size on are fresh pages (glibc's mmap threshold never exceeds 32 MB on 64-bit systems). */
export const FRESH_PAGES_BYTES = 32 * 2 ** 20;

/**
 * The length columns of `length` entries grow to when they need `needed`, the smallest of them
 * `bytesPerElement` bytes an entry: 8 times as long once that column's new allocation is fresh pages,
 * else twice.
 */
export function columnSize(length: number, needed: number, bytesPerElement = 1): number {
  const eightfold = length * 8 * bytesPerElement >= FRESH_PAGES_BYTES;
  return Math.max(needed, eightfold ? length * 8 : length * 2);
}

/** A copy of `array` with room for at least `needed` entries (new entries 0), as columnSize says. */
export function grownColumn<T extends GrowableArray>(array: T, needed: number): T {
  const make = array.constructor as ColumnConstructor<T>;
  const wanted = columnSize(array.length, needed, make.BYTES_PER_ELEMENT);
  const bigger = reservedArray(make, wanted) ?? new make(Math.max(needed, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** One zeroed column of `capacity` entries reserved ahead (see reservedArrays), or null. */
export function reservedArray<T extends GrowableArray>(make: ColumnConstructor<T>, capacity: number): T | null {
  return reservedArrays<[T]>(capacity, make)?.[0] ?? null;
}

/**
 * Zeroed columns of `capacity` entries each, views of one buffer, or null: when together they are
 * under FRESH_PAGES_BYTES (reserving them would cost RAM), or when the system refuses that much
 * address space (strict overcommit, a ulimit -v). The caller then starts small and grows.
 */
export function reservedArrays<T extends GrowableArray[]>(capacity: number, ...makes: { [K in keyof T]: ColumnConstructor<T[K]> }): T | null {
  const offsets: number[] = [];
  let total = 0;
  for (const make of makes) {
    offsets.push(total);
    // Each view starts on an 8-byte boundary (a Float64Array's offset must be a multiple of 8).
    total += Math.ceil((capacity * (make as ColumnConstructor<GrowableArray>).BYTES_PER_ELEMENT) / 8) * 8;
  }
  if (total < FRESH_PAGES_BYTES) return null;
  let buffer: ArrayBuffer;
  try {
    buffer = new ArrayBuffer(total);
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
  return makes.map((make, i) => new (make as ColumnConstructor<GrowableArray>)(buffer, offsets[i]!, capacity)) as T;
}
