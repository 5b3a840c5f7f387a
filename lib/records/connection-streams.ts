import type { Coordinator } from '../coordination/index.js';
import type { RecordsKv } from './log.js';
import { connectionKey, streamOf, type Stream, type StreamRef } from './stream.js';

type Listed = [model: string, variant: string];

/**
 * Which streams (model, variant) a connection has, so that deleting the connection can find and
 * drop its records: stream keys are hashes and Keyv cannot list keys by prefix.
 */
export interface ConnectionStreams {
  add(stream: Stream): Promise<void>;
  of(environment: string, providerConfigKey: string, connectionId: string): Promise<Stream[]>;
  /** Unlists dropped streams; one added meanwhile (a save racing the drop) stays listed. */
  forget(dropped: readonly Stream[]): Promise<void>;
}

export function createConnectionStreams(kv: RecordsKv, coordinator: Coordinator): ConnectionStreams {
  const read = async (key: string): Promise<Listed[]> => {
    const text = await kv.get(key);
    return text === undefined ? [] : (JSON.parse(text) as Listed[]);
  };
  return {
    async add(stream) {
      const { environment, providerConfigKey, connectionId, model } = stream.ref;
      const key = connectionKey(environment, providerConfigKey, connectionId);
      await coordinator.withLock(`records-${key}`, async () => {
        const listed = await read(key);
        if (listed.some(([m, v]) => m === model && v === stream.variant)) return;
        await kv.set(key, JSON.stringify([...listed, [model, stream.variant]]));
      });
    },
    async of(environment, providerConfigKey, connectionId) {
      const listed = await read(connectionKey(environment, providerConfigKey, connectionId));
      return listed.map(([model, variant]) => {
        const ref: StreamRef = { environment, providerConfigKey, connectionId, model, variant };
        return streamOf(ref);
      });
    },
    async forget(dropped) {
      const first = dropped[0];
      if (!first) return;
      const { environment, providerConfigKey, connectionId } = first.ref;
      const key = connectionKey(environment, providerConfigKey, connectionId);
      const gone = new Set(dropped.map((stream) => `${stream.ref.model}\u0000${stream.variant}`));
      await coordinator.withLock(`records-${key}`, async () => {
        const left = (await read(key)).filter(([m, v]) => !gone.has(`${m}\u0000${v}`));
        if (left.length > 0) await kv.set(key, JSON.stringify(left));
        else await kv.delete(key);
      });
    },
  };
}
