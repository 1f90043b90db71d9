/**
 * Content codings of an HTTP body (RFC 9110, Section 8.4): gzip (and x-gzip),
 * deflate (the zlib format, or raw deflate as some servers send it) and br,
 * through Node's zlib, as streams, so a body is decoded as it arrives and its
 * decoded size can be capped before it is all there: a few kilobytes of
 * gzip that would grow to gigabytes stop at the cap. An encoding we cannot
 * decode is named in a typed error, never taken for HTML.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

export type ContentCoding = 'gzip' | 'deflate' | 'br';
/** What wga asks for by default (Accept-Encoding). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';
/** More layers than this are refused (real servers use one). */
const MAX_CODINGS = 3;

export type ParsedEncoding = { ok: true; codings: ContentCoding[] } | { ok: false; problem: string };

/** The codings of a Content-Encoding header, in the order they were applied; identity dropped. */
export function parseContentEncoding(header: string | string[] | undefined): ParsedEncoding {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  const codings: ContentCoding[] = [];
  for (const raw of value.split(',')) {
    const token = raw.trim().toLowerCase();
    if (token === '' || token === 'identity') continue;
    if (token === 'gzip' || token === 'x-gzip') codings.push('gzip');
    else if (token === 'deflate') codings.push('deflate');
    else if (token === 'br') codings.push('br');
    else return { ok: false, problem: `unsupported Content-Encoding '${raw.trim().slice(0, 40)}'` };
  }
  if (codings.length > MAX_CODINGS) return { ok: false, problem: `Content-Encoding with ${codings.length} codings` };
  return { ok: true, codings };
}

/**
 * "deflate" is the zlib format by the RFC, raw deflate in some servers: the first two bytes tell
 * (a zlib header is CM = 8 with a 16-bit value divisible by 31).
 */
class AutoInflate extends Transform {
  private inner: Transform | null = null;
  private pending: TransformCallback | null = null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.inner === null) {
      const zlibHeader = chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
      this.inner = zlibHeader ? createInflate() : createInflateRaw();
      this.inner.on('data', (data: Buffer) => this.push(data));
      this.inner.on('error', (error) => this.destroy(error));
    }
    if (!this.inner.write(chunk)) this.inner.once('drain', callback);
    else callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.inner === null) {
      callback();
      return;
    }
    this.pending = callback;
    this.inner.once('end', () => this.pending?.());
    this.inner.end();
  }
}

/** Streams that undo the codings, outermost (applied last) first. */
export function decoderStreams(codings: readonly ContentCoding[]): Transform[] {
  return [...codings].reverse().map((coding) => {
    // zlib's default finish: a body cut short is an error ("unexpected end of file"), not data silently lost.
    if (coding === 'gzip') return createGunzip();
    if (coding === 'br') return createBrotliDecompress();
    return new AutoInflate();
  });
}

/** Whether bytes begin as a gzip file does (a sitemap.xml.gz served without Content-Encoding). */
export function looksGzipped(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** The words for an error zlib raised while decoding. */
export function decodingProblem(codings: readonly ContentCoding[], error: unknown): string {
  const message = (error as Error).message ?? String(error);
  return `broken ${codings.join('+') || 'gzip'} body: ${message.slice(0, 120)}`;
}

/** Whether an error came from a decoder (zlib or brotli), not from the network. */
export function isDecodingError(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  return code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR' || code === 'ERR_ZLIB_INITIALIZATION_FAILED';
}
