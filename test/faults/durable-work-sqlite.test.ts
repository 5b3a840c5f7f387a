import { join } from 'node:path';
import t from 'tap';
import { killAndRestart } from './durable-work.js';

// Two gateway processes start in turn; on a loaded machine each start alone can take half a minute.
t.setTimeout(300_000);

t.test('SQLite: accepted work survives a SIGKILL', (t) =>
  killAndRestart(t, { STORE_URL: `sqlite://${join(t.testdir({}), 'portico.db')}` }),
);
