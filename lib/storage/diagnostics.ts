import { channel } from 'node:diagnostics_channel';
import type Keyv from 'keyv';
import type { QueueOptions } from '../queue/index.js';
import type { ListedWrite, Storage } from './storage.js';

/** `portico:storage:error` on `node:diagnostics_channel`: a store operation failed (the caller gets the error too). */
export const storageChannels = {
  error: channel('portico:storage:error'),
};

export interface StorageErrorEvent {
  /** The back end (`sqlite`, `redis`, …). */
  kind: string;
  /** The Keyv namespace the operation was on. */
  namespace: string;
}

/**
 * The same storage, with one `error` listener on each of its Keyv namespaces that publishes a
 * `portico:storage:error` event. Keyv emits the error and (with `throwOnErrors`) throws it too,
 * so callers still see every failure; this only makes them countable. A value written with its
 * index entries (`writeListed`) counts as its namespace's, as a Keyv write does.
 */
export function observeStorage(storage: Storage): Storage {
  const observed = new WeakSet<Keyv>();
  const failed = (namespace: string) => {
    if (storageChannels.error.hasSubscribers) storageChannels.error.publish({ kind: storage.kind, namespace });
  };
  const { writeListed } = storage;
  return Object.freeze({
    kind: storage.kind,
    shared: storage.shared,
    commitsTogether: storage.commitsTogether,
    coordinator: storage.coordinator,
    queue: <T>(name: string, options?: QueueOptions) => storage.queue<T>(name, options),
    index: (namespace: string) => storage.index(namespace),
    pages: storage.pages,
    // Values written with their entries in one command: a failure counts for each namespace written, as Keyv's do.
    writeListed:
      writeListed &&
      ((writes: readonly ListedWrite[]) =>
        writeListed(writes).catch((error: unknown) => {
          for (const namespace of new Set(writes.map((w) => w.namespace))) failed(namespace);
          throw error;
        })),
    keyv<T = unknown>(namespace: string): Keyv<T> {
      const keyv = storage.keyv<T>(namespace);
      if (!observed.has(keyv)) {
        observed.add(keyv);
        keyv.on('error', () => failed(namespace));
      }
      return keyv;
    },
    close: () => storage.close(),
  });
}
