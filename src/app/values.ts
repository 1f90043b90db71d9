/**
 * Checked conversion of option strings into the values use cases need. The CLI passes its
 * options as given; the HTTP API passes its parameters as strings under the same names
 * (camelCase of the option: --max-level is maxLevel) and reports an OptionError by that name.
 */
import { OptionError, UnknownNodeError } from '../errors.js';
import type { Graph } from '../graph/graph.js';

export function integerOption(option: string, text: string | undefined, fallback: number, min = 0): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min) {
    throw new OptionError(option, `expected an integer of at least ${min}, got '${text}'`);
  }
  return value;
}

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
