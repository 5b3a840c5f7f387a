import type { PorticoClient } from '../../client/index.js';
import type { HostRecords } from '../../scripts/local.js';

type Data = Record<string, unknown>;
interface Known {
  data: Data;
  deleted: boolean;
}

export interface ModelChanges {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** What the run handed to batchSave / batchUpdate (merged), last version per id. */
  records: Data[];
  /** Ids batchDelete (or deletion detection) would mark deleted. */
  deletedIds: string[];
}

/** Key order does not make a record different. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Data)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const idsPerRead = 100;

/**
 * The records side of the dry run's host: counts what a run's batches would change, as the
 * gateway would count them (added: new or coming back from deleted; updated: content changed;
 * unchanged otherwise), by reading the connection's stored records through GET /records, and
 * writing nothing.
 */
export function createRecordTracker(
  client: PorticoClient,
  where: { providerConfigKey: string; connectionId: string },
): HostRecords & { changes(models: readonly string[]): Record<string, ModelChanges> } {
  const overlay = new Map<string, Map<string, Known>>();
  const changes = new Map<string, Omit<ModelChanges, 'records'>>();
  const latest = new Map<string, Map<string, Data>>();
  const seen = new Map<string, Set<string>>();
  const of = <V>(map: Map<string, V>, model: string, make: () => V): V => {
    let value = map.get(model);
    if (!value) map.set(model, (value = make()));
    return value;
  };
  const changesOf = (model: string) =>
    of(changes, model, () => ({ added: 0, updated: 0, deleted: 0, unchanged: 0, deletedIds: [] as string[] }));
  const latestOf = (model: string) => of(latest, model, () => new Map<string, Data>());

  /** Current state of these ids: this run's writes first, then the gateway's records. */
  async function current(model: string, ids: readonly string[]): Promise<Map<string, Known>> {
    const mine = of(overlay, model, () => new Map<string, Known>());
    const out = new Map<string, Known>();
    const missing = [...new Set(ids.filter((id) => !mine.has(id)))];
    for (let i = 0; i < missing.length; i += idsPerRead) {
      const page = await client.listRecords({
        ...where,
        model,
        ids: missing.slice(i, i + idsPerRead),
        limit: idsPerRead,
      });
      for (const { _service_metadata: meta, ...data } of page.records) {
        // A pruned payload is gone: saving it again is an update.
        out.set(String(data.id), { data: meta.pruned_at ? {} : data, deleted: meta.deleted_at !== null });
      }
    }
    for (const id of ids) if (mine.has(id)) out.set(id, mine.get(id) as Known);
    return out;
  }

  const remember = (model: string, id: string, known: Known) => {
    of(overlay, model, () => new Map()).set(id, known);
    of(seen, model, () => new Set<string>()).add(id);
    latestOf(model).set(id, known.data);
  };

  return {
    async batchSave({ model }, batch) {
      const records = batch as Data[];
      const before = await current(
        model,
        records.map((r) => String(r.id)),
      );
      const c = changesOf(model);
      const result = { added: 0, updated: 0, deleted: 0 };
      for (const record of records) {
        const id = String(record.id);
        const old = before.get(id);
        if (!old || old.deleted) result.added++;
        else if (canonical(old.data) !== canonical(record)) result.updated++;
        else c.unchanged++;
        before.set(id, { data: record, deleted: false });
        remember(model, id, { data: record, deleted: false });
      }
      c.added += result.added;
      c.updated += result.updated;
      return result;
    },
    async batchUpdate({ model }, batch) {
      const partials = batch as Data[];
      const before = await current(
        model,
        partials.map((r) => String(r.id)),
      );
      const c = changesOf(model);
      let updated = 0;
      for (const partial of partials) {
        const id = String(partial.id);
        const old = before.get(id);
        if (!old || old.deleted) continue;
        const merged = { ...old.data, ...partial };
        if (canonical(old.data) !== canonical(merged)) updated++;
        else c.unchanged++;
        before.set(id, { data: merged, deleted: false });
        remember(model, id, { data: merged, deleted: false });
      }
      c.updated += updated;
      return { added: 0, updated, deleted: 0 };
    },
    async batchDelete({ model }, ids) {
      const before = await current(model, ids);
      const c = changesOf(model);
      let deleted = 0;
      for (const id of ids) {
        const old = before.get(id);
        if (!old || old.deleted) continue;
        deleted++;
        c.deletedIds.push(id);
        before.set(id, { data: old.data, deleted: true });
        of(overlay, model, () => new Map()).set(id, { data: old.data, deleted: true });
        latestOf(model).delete(id);
      }
      c.deleted += deleted;
      return { added: 0, updated: 0, deleted };
    },
    /** A full run's deletion detection: stored records this run did not save would be marked deleted. */
    async deleteNotSeenSince({ model }) {
      const c = changesOf(model);
      const touched = seen.get(model) ?? new Set<string>();
      const gone = new Set(c.deletedIds);
      let cursor: string | undefined;
      let count = 0;
      for (;;) {
        const page = await client.listRecords({
          ...where,
          model,
          filter: ['added', 'updated'],
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        });
        for (const record of page.records) {
          const id = String(record.id);
          if (touched.has(id) || gone.has(id)) continue;
          gone.add(id);
          c.deletedIds.push(id);
          count++;
        }
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
      }
      c.deleted += count;
      return { deleted: count };
    },
    // Nothing is written, so nothing is announced.
    latestCursorSince: async () => null,
    changes(models) {
      return Object.fromEntries(models.map((m) => [m, { ...changesOf(m), records: [...latestOf(m).values()] }]));
    },
  };
}
