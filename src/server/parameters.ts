/**
 * A request's query parameters, checked: a missing or malformed one is a 400 that names it.
 */
import type { Context } from 'hono';
import { integerOption } from '../app/values.js';
import { OptionError } from '../errors.js';
import { HttpError } from './http-errors.js';

/** A parameter's value; an empty one counts as not given. */
export function query(c: Context, name: string): string | undefined {
  const value = c.req.query(name);
  return value === undefined || value === '' ? undefined : value;
}

export function required(c: Context, name: string): string {
  const value = query(c, name);
  if (value === undefined) throw new HttpError(400, 'bad-request', `${name}: missing`, name);
  return value;
}

export function integer(c: Context, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = integerOption(name, query(c, name), fallback, min);
  if (value > max) throw new OptionError(name, `at most ${max}, got ${value}`);
  return value;
}

export function flag(c: Context, name: string): boolean {
  const value = query(c, name);
  if (value === undefined) return false;
  if (['1', 'true', 'yes'].includes(value)) return true;
  if (['0', 'false', 'no'].includes(value)) return false;
  throw new HttpError(400, 'bad-request', `${name}: expected true or false, got '${value.slice(0, 40)}'`, name);
}
