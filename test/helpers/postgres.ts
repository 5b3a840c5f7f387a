import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import pg from 'pg';
import type { Test } from 'tap';

export const postgresUrl = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** True when something answers on the PostgreSQL port. */
export function postgresAnswers(url = postgresUrl): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 5432) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * PostgreSQL-backed tests run when PostgreSQL answers; without it they skip with a reason,
 * except under CI=true where a missing PostgreSQL fails the test.
 */
export async function requirePostgres(t: Test): Promise<boolean> {
  if (await postgresAnswers()) return true;
  if (process.env.CI === 'true') {
    t.fail(`PostgreSQL does not answer at ${postgresUrl}; under CI the PostgreSQL-backed tests are mandatory`);
    return false;
  }
  t.plan(0, `PostgreSQL does not answer at ${postgresUrl}: skipped (start PostgreSQL to run this test)`);
  return false;
}

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
