import { valueWrite, writeInOrder, type ListedWrite, type Storage } from '../storage/index.js';
import type { WebhookEventType } from './payloads.js';
import type { DeliverySequence } from './sequence.js';

/** One attempt as the API shows it. */
export interface AttemptRecord {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no response arrived. */
  status: number | null;
  duration_ms: number;
  /** Why the attempt failed (timeout, connection refused, HTTP 503, …); null when it succeeded. */
  error: string | null;
  /** When the attempt is retried, after how long. */
  retry_in_ms: number | null;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'skipped';

/** One event to one URL, with every attempt made. */
export interface DeliveryRecord {
  seq: number;
  /** The event's number in the replay feed (`GET /webhooks/events`); absent on records older than the feed. */
  event_seq?: number;
  delivery_id: string;
  environment: string;
  type: WebhookEventType;
  connection_id: string | null;
  provider_config_key: string | null;
  /** Which URL: the environment's primary or secondary, or the connection's own; none when no URL was set. */
  target: 'primary' | 'secondary' | 'connection' | 'none';
  url: string | null;
  state: DeliveryState;
  /** Why a delivery was skipped or gave up. */
  reason: string | null;
  attempts: AttemptRecord[];
  created_at: string;
  updated_at: string;
}

export interface DeliveryFilter {
  connection_id?: string | undefined;
  provider_config_key?: string | undefined;
  type?: WebhookEventType | undefined;
  state?: DeliveryState | undefined;
  delivery_id?: string | undefined;
}

export interface DeliveryPage {
  records: DeliveryRecord[];
  /** Continue listing from this sequence number (downwards); null at the end. */
  next: number | null;
}

/** Numbers taken in the history; `store` keeps the records under them (after the numbers themselves). */
export interface ReservedDeliveries {
  first: number;
  store(records: readonly DeliveryRecord[]): Promise<void>;
  /** Settles once the numbers themselves are stored: `writes` must not land before. */
  written: Promise<unknown>;
  /** What `store` writes, for a caller that writes it together with more (`writeInOrder`). */
  writes(records: readonly DeliveryRecord[]): ListedWrite[];
}

export interface DeliveryLog {
  /** Takes `count` numbers, for a caller that stores the records with other writes (`writeInOrder`). */
  reserve(env: string, count: number): Promise<ReservedDeliveries>;
  get(env: string, seq: number): Promise<DeliveryRecord | undefined>;
  /** Read-modify-write of one record; each record is only ever changed by the job that owns it. */
  update(env: string, seq: number, edit: (record: DeliveryRecord) => DeliveryRecord): Promise<void>;
  /** Newest first, from `before` (inclusive) down; examines at most `scanLimit` records per call. */
  list(env: string, filter: DeliveryFilter, limit: number, before?: number): Promise<DeliveryPage>;
}

const batch = 200;

/**
 * The delivery history, numbered per environment: record `n` lives at key `<env>␟<n>`, so the
 * newest are read by counting down from the sequence's current value, and the oldest beyond
 * `retention` are deleted as new ones arrive. No index to rewrite on every delivery.
 */
export function createDeliveryLog(
  storage: Storage,
  sequence: DeliverySequence,
  options: { retention: number; scanLimit: number },
): DeliveryLog {
  const namespace = 'webhook-deliveries';
  const kv = storage.keyv<DeliveryRecord>(namespace);
  const key = (env: string, seq: number) => `${env}\u001f${seq}`;
  const matches = (r: DeliveryRecord, f: DeliveryFilter) =>
    (!f.connection_id || r.connection_id === f.connection_id) &&
    (!f.provider_config_key || r.provider_config_key === f.provider_config_key) &&
    (!f.type || r.type === f.type) &&
    (!f.state || r.state === f.state) &&
    (!f.delivery_id || r.delivery_id === f.delivery_id);

  /**
   * The records, and the deletion of those that leave the kept window as they arrive. Dropping
   * the oldest does not depend on the new ones (their numbers are out of the window once the new
   * ones are taken): all at once, one round trip on a store across a network.
   */
  const writesOf = (records: readonly DeliveryRecord[]): ListedWrite[] => {
    const expired = records
      .filter((r) => r.seq > options.retention)
      .map((r) => valueWrite(namespace, key(r.environment, r.seq - options.retention)));
    return [...records.map((r) => valueWrite(namespace, key(r.environment, r.seq), r)), ...expired];
  };
  return {
    async reserve(env, count) {
      const { first, written } = await sequence.reserve(env, count);
      return {
        first,
        written,
        store: async (records) => {
          await writeInOrder(storage, [writesOf(records)], written);
        },
        writes: writesOf,
      };
    },
    async get(env, seq) {
      return (await kv.get(key(env, seq))) ?? undefined;
    },
    async update(env, seq, edit) {
      const current = await kv.get(key(env, seq));
      if (current) await kv.set(key(env, seq), edit(current));
    },
    async list(env, filter, limit, before) {
      const top = Math.min(before ?? Infinity, await sequence.current(env));
      const floor = Math.max(1, top - options.retention + 1);
      const found: DeliveryRecord[] = [];
      let seq = top;
      let scanned = 0;
      while (seq >= floor && found.length < limit && scanned < options.scanLimit) {
        const count = Math.min(batch, seq - floor + 1, options.scanLimit - scanned);
        const seqs = Array.from({ length: count }, (_, i) => seq - i);
        const values = await kv.getMany(seqs.map((s) => key(env, s)));
        for (let i = 0; i < seqs.length; i++) {
          const record = values[i];
          if (record && matches(record, filter)) found.push(record);
          if (found.length === limit) {
            seq = (seqs[i] as number) - 1;
            return { records: found, next: seq >= floor ? seq : null };
          }
        }
        seq -= count;
        scanned += count;
      }
      return { records: found, next: seq >= floor ? seq : null };
    },
  };
}
