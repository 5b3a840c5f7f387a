import type { Connection, ConnectionService } from '../../connections/index.js';
import type { Storage } from '../../storage/index.js';

/**
 * Which connections hold an app installation: `<env>␟<integration>␟<installation id>` → connection
 * ids, kept from the connection events (created, overridden), so routing a provider webhook reads
 * one key instead of scanning the integration's connections. Entries are checked against the
 * connection on lookup, and stale ones (deleted, re-imported with another installation) dropped.
 */
export interface InstallationIndex {
  /** Indexes the connection if it is an APP connection. */
  track(env: string, providerConfigKey: string, connectionId: string): Promise<void>;
  find(env: string, providerConfigKey: string, installationId: string): Promise<Connection[]>;
}

export function createInstallationIndex(storage: Storage, connections: ConnectionService): InstallationIndex {
  const kv = storage.keyv<string[]>('webhook-installations');
  const key = (env: string, pck: string, installationId: string) => `${env}\u001f${pck}\u001f${installationId}`;
  const change = (k: string, edit: (ids: string[]) => string[] | undefined) =>
    storage.coordinator.withLock(`webhook-installations:${k}`, async () => {
      const next = edit((await kv.get(k)) ?? []);
      if (next === undefined) return;
      if (next.length === 0) await kv.delete(k);
      else await kv.set(k, next);
    });
  const installationOf = (c: Connection | undefined) =>
    c?.credentials.type === 'APP' ? c.credentials.installation_id : undefined;

  return {
    async track(env, pck, cid) {
      const installationId = installationOf(await connections.get(env, pck, cid));
      if (installationId === undefined) return;
      await change(key(env, pck, installationId), (ids) => (ids.includes(cid) ? undefined : [...ids, cid]));
    },
    async find(env, pck, installationId) {
      const k = key(env, pck, installationId);
      const ids = (await kv.get(k)) ?? [];
      const found = await Promise.all(ids.map((cid) => connections.get(env, pck, cid)));
      const live = found.filter((c): c is Connection => installationOf(c) === installationId);
      if (live.length < ids.length) {
        const keep = new Set(live.map((c) => c.connection_id));
        await change(k, (current) => current.filter((cid) => keep.has(cid) || !ids.includes(cid)));
      }
      return live;
    },
  };
}
