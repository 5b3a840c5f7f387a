import Keyv from 'keyv';
import type { IndexEntry, Storage, StorageInventory } from './storage.js';

/**
 * Namespaces not copied: work in flight belongs to the source's own queue (each store keeps jobs
 * its own way, and schedules are set again by the gateway at start), the health probe's key is
 * scratch, and the webhook delivery history and replay feed are numbered by counters a store
 * keeps its own way (copied, their numbers would collide with new ones).
 */
const skipped = (namespace: string) =>
  namespace.startsWith('queue:') ||
  namespace === 'queue-schedules' ||
  namespace === 'health' ||
  namespace === 'webhook-deliveries' ||
  namespace === 'webhook-events' ||
  namespace.endsWith('-sequence');

const batch = 500;

export interface CopyProgress {
  namespace: string;
  /** `keys` for a Keyv namespace, `index` for ordered-index entries. */
  kind: 'keys' | 'index';
  copied: number;
}

export interface CopyReport {
  namespaces: { namespace: string; keys: number }[];
  indexEntries: number;
  skipped: string[];
}

/** True when `storage` holds anything a copy would write (so copying into it would mix two stores). */
export async function holdsData(storage: Storage): Promise<boolean> {
  const inventory = inventoryOf(storage);
  if ((await inventory.namespaces()).some((n) => !skipped(n) && n !== 'storage-layout')) return true;
  for await (const page of inventory.indexEntries()) if (page.length > 0) return true;
  return false;
}

/**
 * Copies what the gateway keeps (integrations, connections, records, settings, script state
 * and logs, and every ordered index) from one store to another, value by value as stored:
 * sealed values stay sealed, so no key is needed, and a value with a time to live keeps what
 * is left of it. Writes are plain overwrites, so a copy cut short can simply be run again.
 */
export async function copyStore(
  from: Storage,
  to: Storage,
  onProgress: (p: CopyProgress) => void = () => {},
): Promise<CopyReport> {
  const report: CopyReport = { namespaces: [], indexEntries: 0, skipped: [] };
  const source = inventoryOf(from);
  for (const namespace of (await source.namespaces()).sort()) {
    if (skipped(namespace)) {
      report.skipped.push(namespace);
      continue;
    }
    const keys = await copyNamespace(from, to, namespace, (copied) => onProgress({ namespace, kind: 'keys', copied }));
    report.namespaces.push({ namespace, keys });
  }
  let pending: IndexEntry[] = [];
  const flush = async () => {
    const byNamespace = new Map<string, IndexEntry[]>();
    for (const e of pending) byNamespace.set(e.namespace, [...(byNamespace.get(e.namespace) ?? []), e]);
    for (const [namespace, entries] of byNamespace) await to.index(namespace).addMany(entries);
    report.indexEntries += pending.length;
    onProgress({ namespace: pending[0]?.namespace ?? '', kind: 'index', copied: report.indexEntries });
    pending = [];
  };
  for await (const page of source.indexEntries()) {
    pending.push(...page);
    if (pending.length >= batch) await flush();
  }
  if (pending.length > 0) await flush();
  return report;
}

async function copyNamespace(
  from: Storage,
  to: Storage,
  namespace: string,
  progress: (copied: number) => void,
): Promise<number> {
  const source = rawKeyv(from.keyv(namespace));
  const target = rawKeyv(to.keyv(namespace));
  if (!source.iterator) throw new Error(`the source store cannot list namespace "${namespace}"`);
  let keys: string[] = [];
  let copied = 0;
  const flush = async () => {
    const texts = await source.get(keys);
    const now = Date.now();
    const entries: { key: string; value: string; ttl?: number }[] = [];
    texts.forEach((text, i) => {
      if (typeof text !== 'string') return; // deleted or expired since it was listed
      const expires = expiresOf(text);
      if (expires !== undefined && expires - now <= 0) return;
      const key = keys[i] as string;
      entries.push(expires === undefined ? { key, value: text } : { key, value: text, ttl: expires - now });
    });
    if (entries.length > 0) await target.setMany(entries);
    copied += entries.length;
    progress(copied);
    keys = [];
  };
  for await (const [key] of source.iterator(undefined)) {
    keys.push(key as string);
    if (keys.length >= batch) await flush();
  }
  if (keys.length > 0) await flush();
  return copied;
}

/**
 * A second Keyv on the same store adapter that reads and writes the stored text as it is: no
 * value is opened or re-encoded (a namespace may have its own serializer, as the records' has),
 * and the caller's own Keyv, which the gateway may go on using, is left as it was.
 */
function rawKeyv(kv: Keyv): Keyv<string> {
  return new Keyv<string>({
    store: kv.opts.store,
    ...(kv.namespace === undefined ? {} : { namespace: kv.namespace }),
    useKeyPrefix: false,
    throwOnErrors: true,
    serialize: (data: { value?: unknown }) => data.value as string,
    deserialize: <Value>(text: string) => ({ value: text as Value }),
  });
}

/** Keyv's own format is `{"value":…,"expires":…}`; its expiry becomes the copy's time to live. */
function expiresOf(text: string): number | undefined {
  if (!text.startsWith('{"value"')) return undefined;
  try {
    const expires = (JSON.parse(text) as { expires?: unknown }).expires;
    return typeof expires === 'number' ? expires : undefined;
  } catch {
    return undefined;
  }
}

function inventoryOf(storage: Storage): StorageInventory {
  if (!storage.inventory)
    throw new Error(`a ${storage.kind} store cannot list what it holds, so it cannot be copied from or into`);
  return storage.inventory;
}
