/**
 * Opens the store a `--db` option names: a postgres:// (or postgresql://)
 * URL for a PostgreSQL server, anything else for a SQLite file.
 */
import { SqliteStore } from './sqlite.js';
import type { Store } from './store.js';
import { withStoreFailures } from './store-failure.js';

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** The location without a password, for messages. */
export function redactLocation(spec: string): string {
  if (!isPostgresUrl(spec)) return spec;
  try {
    const url = new URL(spec);
    if (url.password !== '') url.password = '***';
    // libpq takes the password as a parameter too (?password=...), and sslpassword for a key.
    for (const name of [...url.searchParams.keys()]) {
      if (/^(ssl)?password$/i.test(name)) url.searchParams.set(name, '***');
    }
    return url.href.replace(/%2A%2A%2A/g, '***');
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** The store `spec` names; its database failures reach callers as one-line StoreFailureErrors. */
export async function openStore(spec: string, options: { create?: boolean } = {}): Promise<Store> {
  if (isPostgresUrl(spec)) {
    const { PostgresStore } = await import('./postgres.js');
    return withStoreFailures(await PostgresStore.open(spec), redactLocation(spec));
  }
  return withStoreFailures(SqliteStore.open(spec, options), spec);
}
