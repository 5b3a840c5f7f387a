import { inOrder } from './in-order.js';
import type { ListedWrite, Storage } from './storage.js';

/** A value's write with no index entries, for `writeInOrder`; without a value, its deletion. */
export const valueWrite = (namespace: string, key: string, value?: unknown): ListedWrite => ({
  namespace,
  key,
  value,
  add: [],
  remove: [],
});

type Writer = Pick<Storage, 'commitsTogether' | 'writeListed' | 'keyv' | 'index'>;

/** One write through its namespace's Keyv and index: the entries added, the value, the entries removed. */
async function writeOne(storage: Writer, write: ListedWrite): Promise<boolean> {
  const index = storage.index(write.namespace);
  const values = storage.keyv(write.namespace);
  const { key, value } = write;
  let existed = true;
  await inOrder(storage, [
    ...(write.add.length > 0 ? [() => index.addMany(write.add)] : []),
    value === undefined ? async () => (existed = await values.delete(key)) : () => values.set(key, value),
    ...write.remove.map((e) => () => index.remove(e.list, e.id)),
  ]);
  return existed;
}

/**
 * Writes `steps` one after the other, the writes of a step at once, once `after` has settled (a
 * sequence number's own write, say): in one command where the storage takes several
 * (`writeListed`: one round trip), else step by step (`inOrder`: begun at once where the storage
 * commits a turn's writes together). Answers, per write in order, whether a deletion found a
 * value (true for a value written).
 */
export async function writeInOrder(
  storage: Writer,
  steps: readonly (readonly ListedWrite[])[],
  after?: Promise<unknown>,
): Promise<boolean[]> {
  const { writeListed } = storage;
  if (writeListed) {
    await after;
    return writeListed(steps.flat());
  }
  const answers: boolean[][] = [];
  await inOrder(storage, [
    ...(after ? [() => after] : []),
    ...steps.map((step, i) => async () => {
      answers[i] = await Promise.all(step.map((write) => writeOne(storage, write)));
    }),
  ]);
  return answers.flat();
}
