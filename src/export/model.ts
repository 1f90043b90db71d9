/**
 * What an export writes, whatever the format: pages (numbered 0..n-1, each
 * with typed attributes) and links as compressed rows, each link optionally
 * with its kind, rel tokens (nofollow, ugc, sponsored) and weight. The writers (gexf.ts, graphml.ts,
 * parquet.ts, tsv.ts, and the BV writer) only read this.
 */
import { type LinkKind, relTokens } from '../store/store.js';

export type AttributeType = 'string' | 'integer' | 'double' | 'boolean';
export type AttributeValue = string | number | boolean | null;

export interface NodeAttribute {
  name: string;
  type: AttributeType;
  /** The value for page v; null (or NaN for numbers) when the page has none. */
  value(v: number): AttributeValue;
}

export interface ExportGraph {
  nodeCount: number;
  edgeCount: number;
  /** The page's name: its URL, host or label. */
  label(v: number): string;
  /** What the labels are ('url' from a store, 'host' for a host graph, 'label' otherwise). */
  labelName: string;
  attributes: NodeAttribute[];
  /** Links of page v: targets[offsets[v] .. offsets[v+1]), increasing. */
  offsets: Uint32Array;
  targets: Int32Array;
  /** kinds[e]: index in `kindNames` of link e's kind, when the source has kinds. */
  kinds: Uint8Array | null;
  kindNames: readonly LinkKind[];
  /** rel[e]: the rel bits (store.ts REL_BITS) every link with rel behind link e carries: nofollow, ugc, sponsored. */
  rel: Uint8Array | null;
  /** Link weights (a host graph's page-link counts, a weighted file's weights). */
  weights: Float64Array | null;
}

/** A value is written only when present: null and NaN are left out. */
export function present(value: AttributeValue): value is string | number | boolean {
  return value !== null && !(typeof value === 'number' && Number.isNaN(value));
}

/** Shortest decimal text that reads back as the same double. */
export function numberText(value: number): string {
  return Number.isFinite(value) ? String(value) : value > 0 ? 'INF' : '-INF';
}

/** A link's rel bits as the exports write them: its tokens, space-separated ('' for none). */
export function relText(bits: number): string {
  return relTokens(bits).join(' ');
}
