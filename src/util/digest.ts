/**
 * Digests as the archive world writes them: SHA-1 in RFC 4648 base 32, 'sha1:' before it
 * (WARC's WARC-Block-Digest and WARC-Payload-Digest, and the content digest of a page).
 */
import { type Hash, createHash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base 32 with padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** A running SHA-1, labelled as WARC labels it. */
export class Sha1Digest {
  private readonly hash: Hash = createHash('sha1');

  update(chunk: Uint8Array): this {
    this.hash.update(chunk);
    return this;
  }

  /** 'sha1:' and the digest in base 32. */
  label(): string {
    return `sha1:${base32(this.hash.digest())}`;
  }
}

/** The labelled SHA-1 of some bytes. */
export function sha1Label(...chunks: Uint8Array[]): string {
  const digest = new Sha1Digest();
  for (const chunk of chunks) digest.update(chunk);
  return digest.label();
}
