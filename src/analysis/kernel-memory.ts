/**
 * The memory of the WebAssembly kernels (src/analysis/kernels/*.wat): one
 * shared WebAssembly.Memory per solve, holding every array a kernel reads or
 * writes, handed out as typed arrays. Its buffer is a SharedArrayBuffer, so
 * those arrays go to the worker threads like any other shared array, and a
 * worker instantiates the kernel on the same memory (`gaussSeidelSweeps`).
 * A kernel's pointers are the arrays' byteOffsets.
 */
import { setFlagsFromString } from 'node:v8';
import { GAUSS_SEIDEL_WASM } from './kernels/gauss-seidel-wasm.js';
import { SCC_WASM } from './kernels/scc-wasm.js';

const PAGE_BYTES = 65_536;
/** wasm32 addresses 4 GB at most. */
const MAX_PAGES = 65_536;

/**
 * The largest kernel memory a caller should ask for: half of what wasm32 addresses. A graph of
 * few links and very many pages can need more than its links suggest (the kernels' arrays are
 * per page); its callers then keep to JavaScript.
 */
export const MAX_KERNEL_BYTES = 2 ** 31;

const compiled = new Map<string, WebAssembly.Module>();

function compiledModule(base64: string): WebAssembly.Module {
  let module = compiled.get(base64);
  if (module === undefined) {
    // Optimised code from the start: V8 otherwise runs a function's first calls on its baseline
    // compiler (Liftoff) and a kernel called once per solve (Tarjan's search, a large component's
    // first sweep) never leaves it. The modules are a few kilobytes: compiling them costs
    // milliseconds, and a fresh process's solve on cnr-2000 took about 12 ms less (2026-11-25).
    // The flag is V8's and process-wide; wga's kernels are the only WebAssembly it compiles.
    setFlagsFromString('--no-liftoff');
    module = new WebAssembly.Module(Buffer.from(base64, 'base64'));
    compiled.set(base64, module);
  }
  return module;
}

/** The compiled Gauss-Seidel kernel (compiled once per thread that asks; about a kilobyte). */
export function gaussSeidelKernelModule(): WebAssembly.Module {
  return compiledModule(GAUSS_SEIDEL_WASM);
}

/** The kernel's `tarjan` (kernels/scc.wat): returns the number of components. */
export type TarjanFunction = (
  outOffsets: number,
  outTargets: number,
  index: number,
  low: number,
  component: number,
  stack: number,
  callPage: number,
  callEdge: number,
  sizes: number,
  n: number,
) => number;

/** Tarjan's search instantiated on `memory`. */
export function sccKernel(memory: KernelMemory): TarjanFunction {
  const { exports } = new WebAssembly.Instance(compiledModule(SCC_WASM), { env: { memory: memory.memory } });
  return exports['tarjan'] as TarjanFunction;
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

/** The kernel's `handOff`: y and z rescaled over a range (rescale = 1), extrapolated (extrapolate = 1), kept as the next sweep's start (keep = 1), z copied into another view (copy = 1). */
export type HandOffFunction = (
  order: number,
  y: number,
  z: number,
  other: number,
  a: number,
  b: number,
  scale: number,
  rescale: number,
  copy: number,
  previous: number,
  share: number,
  factor: number,
  extrapolate: number,
  keep: number,
) => void;

/** The check's two passes (googleStepThread): the mass and dangling mass of y, then the pull with its residual. */
export type MassAndDanglingFunction = (y: number, share: number, out: number, a: number, b: number) => void;
export type GooglePullFunction = (
  inOffsets: number,
  inSources: number,
  z: number,
  y: number,
  teleport: number,
  stepped: number,
  out: number,
  a: number,
  b: number,
  cScale: number,
  jump: number,
  scale: number,
  uniformValue: number,
  uniform: number,
) => void;

/** The kernel's `singles`: a run of single-page components; returns the links pulled. */
export type SinglesFunction = (
  order: number,
  inOffsets: number,
  inSources: number,
  share: number,
  teleport: number,
  y: number,
  z: number,
  a: number,
  b: number,
  c: number,
  uniformValue: number,
  uniform: number,
) => number;
/** The kernel's `smallSweep`: one sweep of a small component over its local list of internal in-links. */
export type SmallSweepFunction = (
  order: number,
  offsets: number,
  sources: number,
  constant: number,
  share: number,
  internalShare: number,
  y: number,
  z: number,
  out: number,
  s: number,
  size: number,
  c: number,
) => void;

export interface GaussSeidelFunctions {
  sweep: SweepFunction;
  singles: SinglesFunction;
  smallSweep: SmallSweepFunction;
  handOff: HandOffFunction;
  massAndDangling: MassAndDanglingFunction;
  googlePull: GooglePullFunction;
}

/** The kernel instantiated on its memory, in this thread. */
export function gaussSeidelKernel(kernel: GaussSeidelKernel): GaussSeidelFunctions {
  const { exports } = new WebAssembly.Instance(kernel.module, { env: { memory: kernel.memory } });
  return {
    sweep: exports['sweep'] as SweepFunction,
    singles: exports['singles'] as SinglesFunction,
    smallSweep: exports['smallSweep'] as SmallSweepFunction,
    handOff: exports['handOff'] as HandOffFunction,
    massAndDangling: exports['massAndDangling'] as MassAndDanglingFunction,
    googlePull: exports['googlePull'] as GooglePullFunction,
  };
}
