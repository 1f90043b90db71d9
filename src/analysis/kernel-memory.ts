/**
 * The memory of the WebAssembly kernels (src/analysis/kernels/*.wat): one
 * shared WebAssembly.Memory per solve, holding every array a kernel reads or
 * writes, handed out as typed arrays. Its buffer is a SharedArrayBuffer, so
 * those arrays go to the worker threads like any other shared array, and a
 * worker instantiates the kernel on the same memory (`gaussSeidelSweeps`).
 * A kernel's pointers are the arrays' byteOffsets.
 */
import { GAUSS_SEIDEL_WASM } from './kernels/gauss-seidel-wasm.js';

const PAGE_BYTES = 65_536;
/** wasm32 addresses 4 GB at most. */
const MAX_PAGES = 65_536;

let gaussSeidelModule: WebAssembly.Module | null = null;

/** The compiled Gauss-Seidel kernel (compiled once per thread that asks; a few hundred bytes). */
export function gaussSeidelKernelModule(): WebAssembly.Module {
  gaussSeidelModule ??= new WebAssembly.Module(Buffer.from(GAUSS_SEIDEL_WASM, 'base64'));
  return gaussSeidelModule;
}

/** A kernel's memory, allocated once at its final size, handing out 8-byte-aligned arrays in order. */
export class KernelMemory {
  readonly memory: WebAssembly.Memory;
  private next = 0;
  private readonly bytes: number;

  /** `bytes`: the sum of what will be asked (each request rounded up to 8 bytes). */
  constructor(bytes: number) {
    const pages = Math.max(1, Math.ceil(bytes / PAGE_BYTES));
    if (pages > MAX_PAGES) throw new RangeError(`a kernel memory of ${bytes} bytes is over WebAssembly's 4 GB`);
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    this.bytes = pages * PAGE_BYTES;
  }

  /** Bytes an array of `count` elements of `size` bytes takes here. */
  static bytesFor(count: number, size: number): number {
    return Math.ceil((count * size) / 8) * 8;
  }

  private take(count: number, size: number): number {
    const at = this.next;
    this.next += KernelMemory.bytesFor(count, size);
    if (this.next > this.bytes) throw new RangeError(`kernel memory exhausted (${this.next} of ${this.bytes} bytes)`);
    return at;
  }

  float64(count: number): Float64Array {
    return new Float64Array(this.memory.buffer, this.take(count, 8), count);
  }

  int32(count: number): Int32Array {
    return new Int32Array(this.memory.buffer, this.take(count, 4), count);
  }

  uint32(count: number): Uint32Array {
    return new Uint32Array(this.memory.buffer, this.take(count, 4), count);
  }
}

/** What a thread needs to run the Gauss-Seidel kernel: the module and the memory its arrays are in. */
export interface GaussSeidelKernel {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
}

/** The kernel's `sweep` (kernels/gauss-seidel.wat documents its parameters). */
export type SweepFunction = (
  order: number,
  inOffsets: number,
  inSources: number,
  share: number,
  internalShare: number,
  teleport: number,
  y: number,
  z: number,
  component: number,
  out: number,
  a: number,
  b: number,
  c: number,
  uniformValue: number,
  uniform: number,
  componentId: number,
  measure: number,
) => void;

/** The kernel instantiated on its memory, in this thread. */
export function gaussSeidelSweeps(kernel: GaussSeidelKernel): SweepFunction {
  const instance = new WebAssembly.Instance(kernel.module, { env: { memory: kernel.memory } });
  return instance.exports['sweep'] as SweepFunction;
}
