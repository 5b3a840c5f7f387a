import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { answers, requireService } from './service.js';

export const postgresUrl = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** True when something answers on the PostgreSQL port. */
export const postgresAnswers = (url = postgresUrl) => answers(url, 5432);

/** PostgreSQL-backed tests: skipped without PostgreSQL, except under CI=true where they fail. */
export const requirePostgres = async (t: Test) => requireService(t, 'PostgreSQL', postgresUrl, await postgresAnswers());

/**
 * A schema of this test run's own (`portico_test_<random>`), dropped at teardown with
 * everything in it: parallel test files never share a table. Answers the store URL naming it.
 */
export function postgresSchema(t: Test, label = 'run'): { schema: string; url: string } {
  const schema = `portico_test_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(5).toString('hex')}`;
  t.teardown(() => dropSchema(schema));
  const url = new URL(postgresUrl);
  url.searchParams.set('schema', schema);
  return { schema, url: url.toString() };
}

export async function dropSchema(schema: string, url = postgresUrl): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
