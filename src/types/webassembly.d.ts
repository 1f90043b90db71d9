/**
 * The part of the WebAssembly JavaScript API that src/analysis/kernel-memory.ts
 * uses. TypeScript declares it in its DOM library, which a Node program does
 * not load (tsconfig: lib ES2022, types node), and @types/node 20 leaves it out.
 */
declare namespace WebAssembly {
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
  }
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
}
