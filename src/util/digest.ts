/**
 * Digests as the archive world writes them: SHA-1 in RFC 4648 base 32, 'sha1:' before it
 * (WARC's WARC-Block-Digest and WARC-Payload-Digest, and the content digest of a page).
 */
import { type Hash, createHash } from 'node:crypto';
import { base32 } from 'rfc4648';
import xxhash, { type XXHashAPI } from 'xxhash-wasm';

/** A running digest (SHA-1 by default), labelled as WARC labels digests ('sha1:' and base 32). */
export class Sha1Digest {
  private readonly hash: Hash;

  /** `algorithm`: a hash of node:crypto ('sha1', 'sha256'), its name the label's prefix. */
  constructor(private readonly algorithm: 'sha1' | 'sha256' = 'sha1') {
    this.hash = createHash(algorithm);
  }

  update(chunk: Uint8Array): this {
    this.hash.update(chunk);
    return this;
  }

  /** The algorithm's name, ':' and the digest in base 32. */
  label(): string {
    return `${this.algorithm}:${base32.stringify(this.hash.digest())}`;
  }
}

/** The labelled SHA-1 of some bytes. */
export function sha1Label(...chunks: Uint8Array[]): string {
  const digest = new Sha1Digest();
  for (const chunk of chunks) digest.update(chunk);
  return digest.label();
}

/**
 * The digest of a page's body, to tell a changed body from the same one: XXH64 (a 64-bit
 * non-cryptographic hash, through the xxhash-wasm package), 'xxh64:' and 16 hexadecimal digits.
 * Every body a crawl reads goes through it, so it must cost little: about a third of SHA-256's
 * time here; a collision between two versions of one page has odds of 2^-64.
 */
export class BodyDigest {
  private readonly state: ReturnType<XXHashAPI['create64']>;

  /** Call `await bodyDigestReady` once before the first (the WebAssembly module compiles asynchronously). */
  constructor() {
    if (xxhashApi === null) throw new Error('internal error: BodyDigest before bodyDigestReady');
    this.state = xxhashApi.create64();
  }

  update(chunk: Uint8Array): this {
    this.state.update(chunk);
    return this;
  }

  label(): string {
    return `xxh64:${this.state.digest().toString(16).padStart(16, '0')}`;
  }
}

let xxhashApi: XXHashAPI | null = null;
/** Resolves once BodyDigest can be used. */
export const bodyDigestReady: Promise<void> = xxhash().then((api) => {
  xxhashApi = api;
});

/** Whether BodyDigest can be used without waiting. */
export function bodyDigestLoaded(): boolean {
  return xxhashApi !== null;
}
