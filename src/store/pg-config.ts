/**
 * How wga connects to PostgreSQL: the URL as given, with timeouts and keepalives so that a server
 * that accepts connections but never answers (paused, a wrong port behind a proxy) or goes away
 * mid-query ends in an error instead of a wait without end. Each default can be changed in the URL,
 * with libpq's `connect_timeout` (seconds) and pg's `query_timeout` / `statement_timeout`
 * (milliseconds); `keepalives=0` turns keepalives off.
 */
import pg from 'pg';

/** Seconds to wait for a connection (libpq's connect_timeout). */
export const DEFAULT_CONNECT_TIMEOUT_S = 10;
/** Longest wait for any one answer of the server, ms (pg's query_timeout, checked by the client). */
export const DEFAULT_QUERY_TIMEOUT_MS = 10 * 60_000;
/** TCP keepalive probes start after this much silence, ms. */
const KEEPALIVE_IDLE_MS = 10_000;

function positive(value: string | null): number | null {
  if (value === null) return null;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : null;
}

/** The pool (or client) configuration of a postgres:// URL. */
export function pgConfig(url: string, extra: pg.PoolConfig = {}): pg.PoolConfig {
  let params = new URLSearchParams();
  try {
    params = new URL(url).searchParams;
  } catch {
    // pg reports an unparsable URL itself.
  }
  const connect = positive(params.get('connect_timeout')) ?? DEFAULT_CONNECT_TIMEOUT_S;
  const query = positive(params.get('query_timeout')) ?? DEFAULT_QUERY_TIMEOUT_MS;
  return {
    connectionString: url,
    // 0 means "wait forever" to libpq and to pg: kept as given.
    connectionTimeoutMillis: connect * 1000,
    query_timeout: query,
    keepAlive: params.get('keepalives') !== '0',
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    ...extra,
  };
}

/**
 * Submits a COPY stream on `client` without pg's query_timeout: a COPY of a large graph may rightly
 * last longer than any one answer should, and pg-copy-streams' COPY TO never calls back, so a timer
 * set for it would outlive the stream (holding the process open) and then fail a finished COPY.
 * pg reads the timeout from the client's connection parameters when the query is submitted, so
 * lifting it for that one synchronous call is enough; a dead connection is still found by keepalives.
 */
export function submitCopy<T extends pg.Submittable>(client: pg.ClientBase, stream: T): T {
  const parameters = (client as unknown as { connectionParameters?: { query_timeout?: number } }).connectionParameters;
  const saved = parameters?.query_timeout;
  if (parameters) parameters.query_timeout = 0;
  try {
    return client.query(stream);
  } finally {
    if (parameters) parameters.query_timeout = saved;
  }
}

/**
 * A pool whose clients never crash the process: pg emits 'error' on a client whose connection
 * breaks, and pg-pool listens only while the client is idle. A client checked out (inside a
 * transaction) would throw it as an uncaught exception; its queries get the error anyway.
 */
export function newPool(url: string, extra: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(pgConfig(url, extra));
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
