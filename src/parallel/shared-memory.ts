/**
 * Typed arrays on SharedArrayBuffer, so worker threads can read a graph and
 * write results without copies. V8 reads and writes them as fast as
 * ordinary typed arrays.
 */

export function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * length));
}

export function sharedUint32(length: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * length));
}

export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(8 * length));
}

export function isShared(array: ArrayBufferView): boolean {
  return array.buffer instanceof SharedArrayBuffer;
}

/** The array itself when it is already shared, else a shared copy. */
export function shareInt32(array: Int32Array): Int32Array {
  if (isShared(array)) return array;
  const copy = sharedInt32(array.length);
  copy.set(array);
  return copy;
}

export function shareUint32(array: Uint32Array): Uint32Array {
  if (isShared(array)) return array;
  const copy = sharedUint32(array.length);
  copy.set(array);
  return copy;
}

export function shareFloat64(array: Float64Array): Float64Array {
  if (isShared(array)) return array;
  const copy = sharedFloat64(array.length);
  copy.set(array);
  return copy;
}

export function sharedUint8(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}
