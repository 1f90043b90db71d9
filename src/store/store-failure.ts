/**
 * What a failure of the database means to a user: a short text saying what happened, and whether
 * waiting may cure it (a server restarting, a network blip, a lock held by another process) or
 * not (a full disk, a damaged file, a refused statement). Errors that are not the database's
 * (bugs) are not classified: they stay internal errors.
 */
import { ExitCode } from '../errors.js';
import { StoreError } from './store.js';

export interface StoreFailure {
  /** Whether the same request may succeed later unchanged. */
  transient: boolean;
  /** One line, e.g. "connection refused (ECONNREFUSED)". */
  text: string;
}

/** Network errors of the socket to a database server. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EAI_AGAIN: 'name lookup failed for now',
};

/** The messages of node-postgres for a connection that broke or did not answer. */
const PG_CONNECTION_MESSAGES: Array<[RegExp, string]> = [
  [/^Query read timeout$/, 'no answer within query_timeout (a paused or overloaded server?)'],
  [/timeout/i, 'no answer in time'],
  [/^Connection terminated/, 'the connection to the server was lost'],
  [/encountered a connection error and is not queryable/, 'the connection to the server was lost'],
  [/^Client has already been connected/, 'the connection to the server was lost'],
];

/**
 * SQLSTATE classes and codes (PostgreSQL, Appendix A) after which a retry may succeed: connection
 * exceptions (08), the server shutting down or starting (57P01-57P03), too many connections (53300),
 * serialization failures and deadlocks (40001, 40P01).
 */
function transientSqlState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code === '40001' || code === '40P01';
}

const SQLITE_TEXT: Record<string, [boolean, string]> = {
  SQLITE_BUSY: [true, 'the database file is locked by another process'],
  SQLITE_LOCKED: [true, 'a table is locked'],
  SQLITE_FULL: [false, 'the disk (or the database\'s size limit) is full'],
  SQLITE_READONLY: [false, 'the database file cannot be written'],
  SQLITE_CORRUPT: [false, 'the database file is damaged'],
  SQLITE_NOTADB: [false, 'not an SQLite database'],
  SQLITE_CANTOPEN: [false, 'the database file cannot be opened'],
  SQLITE_PERM: [false, 'permission denied'],
};

/** The failure `error` describes, or null when it is not a database's. */
export function storeFailure(error: unknown): StoreFailure | null {
  if (error instanceof StoreFailureError) return { transient: error.transient, text: error.failure };
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code in NETWORK_CODES) return { transient: true, text: `${NETWORK_CODES[code]} (${code})` };
    if (code.startsWith('SQLITE_')) {
      const base = code.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1');
      const known = SQLITE_TEXT[code] ?? SQLITE_TEXT[base];
      if (base === 'SQLITE_IOERR') return { transient: false, text: `input/output error on the database file: ${error.message} (${code})` };
      return { transient: known?.[0] ?? false, text: `${known?.[1] ?? error.message} (${code})` };
    }
    if (/^[0-9A-Z]{5}$/.test(code) && (error as { severity?: unknown }).severity !== undefined) {
      if (code === '53100') return { transient: false, text: `the server's disk is full: ${error.message} (SQLSTATE ${code})` };
      return { transient: transientSqlState(code), text: `${error.message} (SQLSTATE ${code})` };
    }
  }
  for (const [pattern, text] of PG_CONNECTION_MESSAGES) {
    if (pattern.test(error.message)) return { transient: true, text: `${text}: ${error.message}` };
  }
  return null;
}

/** A database failure, named with the store's location (password masked) on one line. */
export class StoreFailureError extends StoreError {
  readonly transient: boolean;
  readonly failure: string;
  constructor(location: string, failure: StoreFailure, exitCode: number = ExitCode.input) {
    super(location, failure.text);
    this.transient = failure.transient;
    this.failure = failure.text;
    Object.defineProperty(this, 'exitCode', { value: exitCode });
  }
}

/**
 * The store with every method's database failure turned into a StoreFailureError naming the
 * store: one line for the user instead of a driver's error with a stack.
 */
export function withStoreFailures<T extends object>(store: T, location: string): T {
  const translate = (error: unknown): unknown => {
    if (error instanceof StoreError) return error;
    const failure = storeFailure(error);
    return failure === null ? error : new StoreFailureError(location, failure);
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw translate(error);
        }
        return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(translate(error))) : result;
      };
    },
  });
}
