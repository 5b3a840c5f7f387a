import type { Storage } from './storage.js';

/**
 * Runs writes that must not land before the ones ahead of them (an index entry before its
 * value, a sequence number before what it numbers). Where the storage commits a turn's writes
 * together or not at all, they are begun at once and share one commit; elsewhere each waits
 * for the previous one.
 */
export async function inOrder(storage: Pick<Storage, 'commitsTogether'>, writes: readonly (() => Promise<unknown>)[]) {
  if (storage.commitsTogether) {
    await Promise.all(writes.map((write) => write()));
    return;
  }
  for (const write of writes) await write();
}
