import { valueWrite, writeInOrder, type ListedWrite, type Storage } from '../storage/index.js';
import type { WebhookEventType } from './payloads.js';
import type { DeliverySequence } from './sequence.js';

/** One event as the replay feed keeps it: the exact body that was (or would have been) signed and sent. */
export interface StoredEvent {
  seq: number;
  delivery_id: string;
  type: WebhookEventType;
  connection_id: string | null;
  provider_config_key: string | null;
  body: string;
  created_at: string;
}

export interface EventPage {
  events: StoredEvent[];
  /** Pass as `after` for the next page: the last event returned (or skipped as a hole). */
  next_after: number;
  has_more: boolean;
}

/** A number taken in the feed; `store` keeps the event under it (after the number itself). */
export interface ReservedEvent {
  seq: number;
  store(event: Omit<StoredEvent, 'seq'>): Promise<void>;
  /** Settles once the number itself is stored: `writes` must not land before. */
  written: Promise<unknown>;
  /** What `store` writes, for a caller that writes it together with more (`writeInOrder`). */
  writes(event: Omit<StoredEvent, 'seq'>): ListedWrite[];
}

export interface EventLog {
  append(env: string, event: Omit<StoredEvent, 'seq'>): Promise<number>;
  /** Takes the next number, for a caller that stores the event with other writes (`writeInOrder`). */
  reserve(env: string): Promise<ReservedEvent>;
  get(env: string, seq: number): Promise<StoredEvent | undefined>;
  /** Events after `after`, oldest first, at most `limit`. */
  after(env: string, after: number, limit: number): Promise<EventPage>;
}

/**
 * A number reserved but not stored yet is an event being accepted right now: the feed stops
 * before it, so no reader jumps past it. One still missing this long after a later event was
 * stored was lost with a crashed process between the two writes, and is skipped.
 */
const holeGraceMs = 30_000;

/**
 * Every event of an environment, numbered 1, 2, 3, … in the order accepted, kept like the delivery
 * history (the newest `retention`), for customers that were down to fetch what they missed.
 */
export function createEventLog(storage: Storage, sequence: DeliverySequence, options: { retention: number }): EventLog {
  const namespace = 'webhook-events';
  const kv = storage.keyv<StoredEvent>(namespace);
  const key = (env: string, seq: number) => `${env}\u001f${seq}`;
  // The event that leaves the kept window goes beside the new one, not after it: its number is
  // out of the window once this one is taken, whether or not the event lands.
  const writesOf = (env: string, seq: number, event: Omit<StoredEvent, 'seq'>): ListedWrite[] => [
    valueWrite(namespace, key(env, seq), { seq, ...event }),
    ...(seq > options.retention ? [valueWrite(namespace, key(env, seq - options.retention))] : []),
  ];
  const reserve = async (env: string): Promise<ReservedEvent> => {
    const { first: seq, written } = await sequence.reserve(env, 1);
    const writes = (event: Omit<StoredEvent, 'seq'>) => writesOf(env, seq, event);
    return {
      seq,
      written,
      writes,
      store: async (event) => {
        await writeInOrder(storage, [writes(event)], written);
      },
    };
  };
  return {
    reserve,
    async append(env, event) {
      const reserved = await reserve(env);
      await reserved.store(event);
      return reserved.seq;
    },
    async get(env, seq) {
      return (await kv.get(key(env, seq))) ?? undefined;
    },
    async after(env, after, limit) {
      const top = await sequence.current(env);
      const first = Math.max(after + 1, top - options.retention + 1);
      const seqs: number[] = [];
      for (let seq = first; seq <= top && seqs.length < limit; seq++) seqs.push(seq);
      const values = seqs.length > 0 ? await kv.getMany(seqs.map((seq) => key(env, seq))) : [];
      const events: StoredEvent[] = [];
      let cursor = Math.max(after, first - 1);
      const now = Date.now();
      for (let i = 0; i < seqs.length; i++) {
        const event = values[i];
        if (event) {
          events.push(event);
          cursor = event.seq;
          continue;
        }
        const later = values.slice(i + 1).find((v) => v !== undefined);
        if (!later || now - Date.parse(later.created_at) < holeGraceMs) break;
        cursor = seqs[i] as number;
      }
      return { events, next_after: cursor, has_more: cursor < top };
    },
  };
}
