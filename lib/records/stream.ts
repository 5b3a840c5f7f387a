import { createHash } from 'node:crypto';
import type { ConnectionScope } from '../connections/index.js';

/** Which records: one model (and variant) of one connection, in one environment. */
export interface StreamRef extends ConnectionScope {
  model: string;
  /** Absent means the base variant; `'base'` names the same stream. */
  variant?: string | undefined;
}

export const baseVariant = 'base';

/** A stream's storage identity and the keys of everything it owns in the records namespace. */
export interface Stream {
  readonly ref: StreamRef;
  readonly variant: string;
  /** 32 hex characters: a hash of every part of the ref, so no name can collide with another. */
  readonly id: string;
  /** The first 8 bytes of the id, written into every cursor of this stream. */
  readonly tag: Buffer;
  readonly headKey: string;
  readonly lockKey: string;
  chunkKey(start: number): string;
  recordKey(id: string): string;
}

const hash = (parts: readonly string[]) =>
  // Length-prefixed parts: ("a:b", "c") and ("a", "b:c") hash differently.
  createHash('sha256')
    .update(parts.map((p) => `${p.length}:${p}`).join('|'))
    .digest();

export function streamOf(ref: StreamRef): Stream {
  const variant = ref.variant ?? baseVariant;
  const digest = hash([ref.environment, ref.providerConfigKey, ref.connectionId, ref.model, variant]);
  const id = digest.subarray(0, 16).toString('hex');
  return {
    ref,
    variant,
    id,
    tag: digest.subarray(0, 8),
    headKey: `${id}:h`,
    lockKey: `records:${id}`,
    chunkKey: (start) => `${id}:c:${start}`,
    recordKey: (recordId) => `${id}:r:${recordId}`,
  };
}

/** The key listing a connection's streams, so they can be dropped with the connection. */
export function connectionKey(environment: string, providerConfigKey: string, connectionId: string): string {
  return `conn:${hash([environment, providerConfigKey, connectionId]).subarray(0, 16).toString('hex')}`;
}
