/** Growing the typed arrays that hold per-page state. */

type GrowableArray = Int32Array | Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** A copy of `array` with room for `size` entries; the new ones hold `empty`. */
export function grown<T extends GrowableArray>(array: T, size: number, empty = 0): T {
  const bigger = new (array.constructor as new (n: number) => T)(size);
  if (empty !== 0) bigger.fill(empty, array.length);
  bigger.set(array);
  return bigger;
}
