/**
 * Checked conversion of option strings into the values use cases need. The CLI passes its
 * options as given; the HTTP API passes its parameters as strings under the same names
 * (camelCase of the option: --max-level is maxLevel) and reports an OptionError by that name.
 */
import bytes from 'bytes';
import { OptionError, UnknownNodeError } from '../errors.js';
import type { Graph } from '../graph/graph.js';
import { GRAPH_LINK_KINDS, LINK_KINDS, type LinkFilter, type LinkKind, REL_BITS, REL_TOKENS, type RelToken } from '../store/store.js';

/** A size in bytes: 123, 800MB, 1.5GB, 6G (units of 1024, as `bytes` reads them), at least `min`. */
export function bytesOption(option: string, text: string, min: number): number {
  const written = text.trim().replace(/^(\d+(?:\.\d+)?)\s*([kmgtp])$/i, '$1$2b');
  const value = /^\d+$/.test(written) ? Number(written) : bytes.parse(written);
  if (value === null || !Number.isFinite(value) || value < min) {
    throw new OptionError(option, `expected a size of at least ${bytes.format(min)} (e.g. 800MB, 6GB), got '${text}'`);
  }
  return Math.floor(value);
}

/** An integer option in [min, max] (max: none by default, but never beyond what a double holds exactly). */
export function integerOption(option: string, text: string | undefined, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    throw new OptionError(option, max === Number.MAX_SAFE_INTEGER ? `expected an integer of at least ${min}, got '${text}'` : `expected an integer from ${min} to ${max}, got '${text}'`);
  }
  return value;
}

/** Threads a command may start: beyond this, a mistake (each thread has its own stacks and buffers). */
export const MAX_THREADS = 256;

export function numberOption(
  option: string,
  text: string | undefined,
  fallback: number,
  check: { min?: number; max?: number; exclusiveMin?: boolean; exclusiveMax?: boolean } = {},
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  const { min = -Infinity, max = Infinity, exclusiveMin = false, exclusiveMax = false } = check;
  const ok =
    text.trim() !== '' &&
    Number.isFinite(value) &&
    (exclusiveMin ? value > min : value >= min) &&
    (exclusiveMax ? value < max : value <= max);
  if (!ok) {
    const low = min === -Infinity ? '' : `${exclusiveMin ? '(' : '['}${min}, `;
    const high = max === Infinity ? 'inf)' : `${max}${exclusiveMax ? ')' : ']'}`;
    throw new OptionError(option, `expected a number${low === '' ? '' : ` in ${low}${high}`}, got '${text}'`);
  }
  return value;
}

export function choiceOption<T extends string>(option: string, text: string | undefined, choices: readonly T[], fallback: T): T {
  if (text === undefined) return fallback;
  if (!(choices as readonly string[]).includes(text)) {
    throw new OptionError(option, `expected one of ${choices.join(', ')}, got '${text}'`);
  }
  return text as T;
}

/** The id of the page with this label (or URL from a label file); a typed error naming the option otherwise. */
export function pageId(graph: Graph, label: string, option: string): number {
  const id = graph.labels.id(label);
  if (id < 0) throw new UnknownNodeError(label, option);
  return id;
}

/**
 * A store's link selection as `--links` gives it: comma-separated kinds (anchor, area, frame,
 * iframe, refresh, redirect, canonical, alternate, sitemap), `graph` (the web graph's kinds, the
 * analyses' default) or `all`; `-KIND` leaves a kind out, and `-nofollow`, `-ugc`, `-sponsored`
 * leave out the links with that rel. With only removals, they apply to `fallback`.
 * E.g. `-nofollow` (PageRank without nofollow links), `anchor,redirect`, `all,-sitemap`.
 */
export function linkFilterOption(option: string, text: string | undefined, fallback: readonly LinkKind[] = GRAPH_LINK_KINDS): Required<LinkFilter> {
  if (text === undefined) return { kinds: fallback, withoutRel: 0 };
  const tokens = text.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (tokens.length === 0) throw new OptionError(option, 'expected link kinds, got nothing');
  const adding = tokens.filter((t) => !t.startsWith('-'));
  const kinds = new Set<LinkKind>(adding.length === 0 ? fallback : []);
  let withoutRel = 0;
  const words = `${LINK_KINDS.join(', ')}, graph, all, or -KIND, -nofollow, -ugc, -sponsored`;
  for (const token of tokens) {
    const removing = token.startsWith('-');
    const name = (removing ? token.slice(1) : token).toLowerCase();
    const group = name === 'graph' ? GRAPH_LINK_KINDS : name === 'all' ? LINK_KINDS : (LINK_KINDS as readonly string[]).includes(name) ? [name as LinkKind] : null;
    if (group !== null) {
      for (const kind of group) {
        if (removing) kinds.delete(kind);
        else kinds.add(kind);
      }
    } else if (removing && (REL_TOKENS as readonly string[]).includes(name)) withoutRel |= REL_BITS[name as RelToken];
    else throw new OptionError(option, `'${token.slice(0, 40)}' is not a link kind: expected ${words}`);
  }
  if (kinds.size === 0) throw new OptionError(option, `'${text.slice(0, 60)}' leaves no link kind`);
  return { kinds: LINK_KINDS.filter((k) => kinds.has(k)), withoutRel };
}
