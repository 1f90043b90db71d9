/**
 * Errors as the HTTP API answers them: a 4xx (or 5xx) status with
 * `{"error": {"code", "message", "parameter"?}}`, never a stack trace. Use-case errors (src/app)
 * name a CLI option (`--max-level`); the API names the same thing as its parameter (`maxLevel`).
 */
import { OptionError, InputFormatError, FileNotFoundError, UnknownNodeError, WgaError } from '../errors.js';
import { PageNotFoundError, RunNotFoundError } from '../app/pages.js';
import { StoreError } from '../store/store.js';
import { CrawlRunningError } from '../app/crawl-guard.js';

export type ErrorCode = 'bad-request' | 'bad-input' | 'not-found' | 'forbidden' | 'bad-host' | 'conflict' | 'too-large' | 'store' | 'internal';

/** An error with the HTTP status and code to answer it with. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 405 | 409 | 413 | 415 | 500 | 503,
    readonly code: ErrorCode,
    message: string,
    readonly parameter?: string,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; parameter?: string };
}

/** `--max-level` -> `maxLevel`; `<reference>` -> `reference`; `--method pagerank` -> `method`. */
export function parameterName(option: string): string {
  const word = option.trim().split(/\s+/)[0]!.replace(/^--?/, '').replace(/^<(.*)>$/, '$1');
  return word.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Messages come from our own code but may quote crawled text: no control characters, bounded length. */
function clean(message: string): string {
  // eslint-disable-next-line no-control-regex
  const text = message.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

/** The status and body to answer an error with; `log` gets the unexpected ones (with their stack). */
export function toErrorResponse(error: unknown, log: (text: string) => void): { status: number; body: ErrorBody } {
  const body = (code: ErrorCode, message: string, parameter?: string): ErrorBody => ({
    error: { code, message: clean(message), ...(parameter === undefined ? {} : { parameter }) },
  });
  if (error instanceof HttpError) return { status: error.status, body: body(error.code, error.message, error.parameter) };
  if (error instanceof OptionError) {
    const parameter = parameterName(error.option);
    const message = error.message.startsWith(`${error.option}: `) ? `${parameter}: ${error.message.slice(error.option.length + 2)}` : error.message;
    return { status: 400, body: body('bad-request', message, parameter) };
  }
  if (error instanceof UnknownNodeError) {
    const where = /^([^:]+):/.exec(error.message)?.[1];
    return { status: 404, body: body('not-found', error.message.replace(/^--([a-z-]+)/, (_, o: string) => parameterName(o)), where === undefined ? undefined : parameterName(where)) };
  }
  if (error instanceof PageNotFoundError) return { status: 404, body: body('not-found', error.message, 'url') };
  if (error instanceof RunNotFoundError) return { status: 404, body: body('not-found', error.message) };
  if (error instanceof InputFormatError || error instanceof FileNotFoundError) return { status: 400, body: body('bad-input', error.message) };
  if (error instanceof CrawlRunningError) return { status: 409, body: body('conflict', error.message) };
  if (error instanceof StoreError) return { status: 503, body: body('store', error.message) };
  if (error instanceof WgaError) return { status: 400, body: body('bad-request', error.message) };
  log(`wga serve: internal error: ${(error as Error)?.stack ?? String(error)}`);
  return { status: 500, body: body('internal', 'internal error (the server log has the details)') };
}
