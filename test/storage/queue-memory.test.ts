import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { runWorkQueueContract } from './queue/contract.js';
import { keyvBackend } from './queue/keyv-backend.js';

// The outbox on memory storage. A "restart" closes the handles but keeps the store: memory
// storage itself does not survive a real restart, which is why it is for tests and demos.
await runWorkQueueContract(t, 'outbox on memory', async (t) =>
  keyvBackend(t, () => createMemoryStorage(), { reopen: false }),
);
