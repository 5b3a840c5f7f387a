import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { runWorkQueueContract } from './queue/contract.js';
import { keyvBackend } from './queue/keyv-backend.js';

// The outbox on a real SQLite file; a restart reopens the file, as a new process would, and a
// worker process of its own is killed mid-job.
await runWorkQueueContract(t, 'outbox on sqlite', async (t) => {
  const path = join(t.testdir(), 'queue.db');
  return keyvBackend(t, () => createSqliteStorage({ path }), { reopen: true, processArgs: ['sqlite', path, ''] });
});
