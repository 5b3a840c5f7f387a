import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { usableSqliteDrivers } from '../../adapters/storage/sqlite-driver.js';
import { runWorkQueueContract } from './queue/contract.js';
import { keyvBackend } from './queue/keyv-backend.js';

// The outbox on a real SQLite file; a restart reopens the file, as a new process would, and a
// worker process of its own is killed mid-job.
// On each driver this Node can use; the worker process opens the file with the same driver.
for (const driver of usableSqliteDrivers()) {
  await runWorkQueueContract(t, `outbox on sqlite (${driver})`, async (t) => {
    const path = join(t.testdir(), 'queue.db');
    return keyvBackend(t, () => createSqliteStorage({ path, driver }), {
      reopen: true,
      processArgs: ['sqlite', path, driver],
    });
  });
}
