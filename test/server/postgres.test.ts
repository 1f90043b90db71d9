import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { startTestServer } from '../store/postgres-server.js';
import { serverSuite } from './server-suite.js';

// In CI (WGA_REQUIRE_POSTGRES=1) a server that cannot start fails the run instead of skipping.
const required = process.env.WGA_REQUIRE_POSTGRES === '1';
const cluster = await startTestServer();
if (typeof cluster === 'string') {
  if (required) it('starts a PostgreSQL server', () => assert.fail(`PostgreSQL is required (WGA_REQUIRE_POSTGRES=1): ${cluster}`));
  else it('wga serve on PostgreSQL', (t) => t.skip(cluster));
} else {
  after(() => cluster.stop());
  serverSuite('PostgreSQL', () => cluster.createDatabase());
}
