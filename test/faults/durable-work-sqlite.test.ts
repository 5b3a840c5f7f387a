import { join } from 'node:path';
import t from 'tap';
import { killAndRestart } from './durable-work.js';

t.test('SQLite: accepted work survives a SIGKILL', (t) => killAndRestart(t, { STORE_URL: `sqlite://${join(t.testdir({}), 'portico.db')}` }));
