import t from 'tap';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';
import { killAndRestart } from './durable-work.js';

// Two gateway processes start in turn; on a loaded machine each start alone can take half a minute.
t.setTimeout(300_000);

t.test('PostgreSQL: accepted work survives a SIGKILL', async (t) => {
  if (!(await requirePostgres(t))) return;
  // The gateway processes reach their schema through the store URL, as SERVICE_STORE_URL would.
  await killAndRestart(t, { STORE_URL: postgresSchema(t, 'durable_work').url });
});
