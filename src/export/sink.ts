/**
 * A file written in pieces: text is gathered into blocks of about 256 KiB and
 * handed to a write stream, waiting for it to drain when its buffer is full,
 * so an export of any size holds one block at a time, never the whole output.
 * The file is written as PATH.partial and renamed PATH when closed: an export
 * that is killed or fails leaves no file that looks whole (and an older PATH as it was).
 */
import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { FileNotFoundError } from '../errors.js';

const BLOCK = 1 << 18;

export class FileSink {
  private readonly stream: WriteStream;
  private parts: string[] = [];
  private pendingLength = 0;
  private failure: Error | null = null;

  /** Where the bytes go until the file is closed. */
  readonly partialPath: string;

  constructor(readonly path: string) {
    this.partialPath = `${path}.partial`;
    this.stream = createWriteStream(this.partialPath);
    this.stream.on('error', (error) => (this.failure ??= error));
  }

  /** Queues text; call `await sink.flushIfFull()` now and then to let the stream drain. */
  write(text: string): void {
    this.parts.push(text);
    this.pendingLength += text.length;
  }

  get full(): boolean {
    return this.pendingLength >= BLOCK;
  }

  async flushIfFull(): Promise<void> {
    if (this.full) await this.flush();
  }

  async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.flush();
    await this.send(bytes);
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.pendingLength = 0;
    await this.send(Buffer.from(text, 'utf8'));
  }

  /** Writes what is left and closes the file; returns its size in bytes. */
  async close(): Promise<number> {
    await this.flush();
    this.check();
    this.stream.end();
    try {
      await once(this.stream, 'finish');
      renameSync(this.partialPath, this.path);
    } catch (error) {
      throw this.wrap(error as Error);
    }
    return this.stream.bytesWritten;
  }

  /** Abandons the file (after an error elsewhere): nothing is left at PATH or PATH.partial. */
  destroy(): void {
    this.stream.destroy();
    rmSync(this.partialPath, { force: true });
  }

  private async send(bytes: Uint8Array): Promise<void> {
    this.check();
    if (bytes.length === 0) return;
    if (!this.stream.write(bytes)) {
      try {
        await once(this.stream, 'drain');
      } catch (error) {
        throw this.wrap(error as Error);
      }
    }
  }

  private check(): void {
    if (this.failure !== null) throw this.wrap(this.failure);
  }

  private wrap(error: Error): Error {
    return new FileNotFoundError(this.path, `cannot write: ${error.message}`);
  }
}
