import type { ListedWrite } from '../../../lib/storage/index.js';
import { serialize } from '../serialize.js';
import type { Db } from './pool.js';

/** Sorts by a text key: two statements over the same rows lock them in the same order (no deadlock). */
const byKey = <T>(entries: Map<string, T>) =>
  [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);

/**
 * One statement for every write: its parts are data-modifying CTEs, which all see the database
 * as it was before the statement, so no row may be touched by two of them. The writes are
 * folded first, each later one over the earlier (a value set then deleted is deleted; an entry
 * added then removed is removed), which is what running them in order would leave.
 */
const sql = `WITH
  added AS (
    INSERT INTO portico_index (namespace, list, id, ord)
    SELECT n, l, i, o FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[]) AS t(n, l, i, o)
    ON CONFLICT (namespace, list, id) DO UPDATE SET ord = excluded.ord
    RETURNING 1),
  removed AS (
    DELETE FROM portico_index x USING unnest($5::text[], $6::text[], $7::text[]) AS t(n, l, i)
    WHERE x.namespace = t.n AND x.list = t.l AND x.id = t.i
    RETURNING 1),
  stored AS (
    INSERT INTO portico_kv (namespace, key, value, expires)
    SELECT n, k, v, NULL FROM unnest($8::text[], $9::text[], $10::text[]) AS t(n, k, v)
    ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires = NULL
    RETURNING 1),
  deleted AS (
    DELETE FROM portico_kv x USING unnest($11::text[], $12::text[]) AS t(n, k)
    WHERE x.namespace = t.n AND x.key = t.k
    RETURNING x.namespace, x.key)
SELECT (SELECT count(*) FROM added) + (SELECT count(*) FROM removed) + (SELECT count(*) FROM stored)
  + (SELECT count(*) FROM deleted) AS changed,
  (SELECT coalesce(array_agg(namespace || chr(31) || key), '{}') FROM deleted) AS deleted`;

/**
 * Values and their ordered-index entries in one statement (`Storage.writeListed`): one commit,
 * all or none, where a collection would otherwise wait for one commit per write. Values are
 * stored in Keyv's text (no expiry), as the namespace's Keyv writes them. `wrote` is told how
 * many rows changed (the statistics upkeep counts writes by their statement, which here says
 * SELECT); `sweep` runs the expired rows' sweeper as a Keyv write would.
 */
export function createPostgresListedWrite(
  db: Db,
  hooks: { wrote?: ((rows: number) => void) | undefined; sweep: () => void },
) {
  return async (writes: readonly ListedWrite[]): Promise<boolean[]> => {
    if (writes.length === 0) return [];
    const values = new Map<string, { namespace: string; key: string; text: string | undefined }>();
    const entries = new Map<string, { namespace: string; list: string; id: string; order: number | undefined }>();
    for (const w of writes) {
      for (const e of w.add)
        entries.set(`${w.namespace}\u0000${e.list}\u0000${e.id}`, { namespace: w.namespace, ...e });
      const at = `${w.namespace}\u0000${w.key}`;
      const text = w.value === undefined ? undefined : serialize({ value: w.value });
      values.set(at, { namespace: w.namespace, key: w.key, text });
      for (const e of w.remove)
        entries.set(`${w.namespace}\u0000${e.list}\u0000${e.id}`, { namespace: w.namespace, ...e, order: undefined });
    }
    const adds = byKey(entries).filter((e) => e.order !== undefined);
    const removes = byKey(entries).filter((e) => e.order === undefined);
    const sets = byKey(values).filter((v) => v.text !== undefined);
    const deletes = byKey(values).filter((v) => v.text === undefined);
    const { rows } = await db.query<{ changed: string; deleted: string[] }>(sql, [
      adds.map((e) => e.namespace),
      adds.map((e) => e.list),
      adds.map((e) => e.id),
      adds.map((e) => e.order),
      removes.map((e) => e.namespace),
      removes.map((e) => e.list),
      removes.map((e) => e.id),
      sets.map((v) => v.namespace),
      sets.map((v) => v.key),
      sets.map((v) => v.text),
      deletes.map((v) => v.namespace),
      deletes.map((v) => v.key),
    ]);
    hooks.wrote?.(Number(rows[0]?.changed ?? 0));
    hooks.sweep();
    // A deletion found a value if the database had one, or an earlier write of this call set it.
    const deleted = new Set((rows[0]?.deleted ?? []).map((k) => k.replace('\u001f', '\u0000')));
    const here = new Map<string, boolean>();
    return writes.map((w) => {
      const at = `${w.namespace}\u0000${w.key}`;
      const existed = w.value !== undefined || (here.get(at) ?? deleted.has(at));
      here.set(at, w.value !== undefined);
      return existed;
    });
  };
}
