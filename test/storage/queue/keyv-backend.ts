import type { Test } from 'tap';
import { createKeyvQueue } from '../../../adapters/storage/index.js';
import type { QueueOptions, WorkQueue } from '../../../lib/queue/index.js';
import type { Storage } from '../../../lib/storage/index.js';
import type { Payload, QueueBackend } from './contract.js';

/**
 * The Keyv outbox over `openStorage()`. A restart closes every handle and, when the store lives
 * in a file (`reopen`), reopens it as a new process would; memory storage keeps its maps.
 */
export function keyvBackend(
  t: Test,
  openStorage: () => Storage,
  options: { reopen: boolean; processArgs?: string[] },
): QueueBackend {
  let storage = openStorage();
  let opened: WorkQueue<Payload>[] = [];
  const closeAll = async () => {
    for (const queue of opened) await queue.close();
    opened = [];
  };
  t.teardown(async () => {
    await closeAll();
    await storage.close();
  });
  return {
    async open(queueOptions: QueueOptions = {}) {
      // Handles in one process see each other's jobs through the poll; the contract's racing
      // test has them all find the same jobs at start instead, so the poll stays out of the way.
      const queue = createKeyvQueue<Payload>(storage, 'contract', {
        errorDelayMs: 100,
        ...queueOptions,
        pollMs: 60_000,
        tickMs: 100,
      });
      opened.push(queue);
      return queue;
    },
    async restart() {
      await closeAll();
      if (!options.reopen) return;
      await storage.close();
      storage = openStorage();
    },
    ...(options.processArgs ? { processArgs: options.processArgs } : {}),
  };
}
