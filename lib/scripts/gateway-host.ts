import type { IncomingHttpHeaders } from 'node:http';
import type { ProxyRequest, ProxyResponse } from '../proxy/index.js';
import type { RecordStore } from '../records/index.js';
import type { WebhookEventInput } from '../webhooks/index.js';
import type { HostRecords, RecordsTarget, ScriptHost } from './host.js';

export interface GatewayHostDeps {
  records: RecordStore;
  proxy: { request(input: ProxyRequest): Promise<ProxyResponse> };
  webhooks: { send(environment: string, event: WebhookEventInput): Promise<unknown> };
}

const flatten = (headers: IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
};

const ref = (t: RecordsTarget) => ({ environment: t.environment, providerConfigKey: t.providerConfigKey, connectionId: t.connectionId, model: t.model });
const idsPerRead = 100;

function createHostRecords(records: RecordStore): HostRecords {
  return {
    async save(target, batch) {
      const result = await records.saveBatch(ref(target), batch);
      return { added: result.added, updated: result.updated };
    },
    async update(target, partials) {
      let updated = 0;
      for (let i = 0; i < partials.length; i += idsPerRead) {
        const slice = partials.slice(i, i + idsPerRead);
        const found = await records.list(ref(target), { ids: slice.map((p) => p.id as string | number), limit: idsPerRead });
        if (!found.ok) throw new Error(`batchUpdate: ${found.reason}`);
        const current = new Map(found.page.records.filter((r) => r._service_metadata.deleted_at === null).map((r) => [String(r.id), r]));
        const merged = slice.flatMap((p) => {
          const existing = current.get(String(p.id));
          if (!existing) return [];
          const { _service_metadata: _meta, ...data } = existing;
          return [{ ...data, ...p }];
        });
        if (merged.length > 0) updated += (await records.saveBatch(ref(target), merged)).updated;
      }
      return { updated };
    },
    async delete(target, ids) {
      return { deleted: (await records.deleteBatch(ref(target), ids)).deleted };
    },
    deleteNotSeenSince: (target, since) => records.deleteNotSeenSince(ref(target), since),
    async latestCursorSince(target, since) {
      let cursor: string | undefined;
      let latest: string | null = null;
      for (;;) {
        const page = await records.list(ref(target), { modifiedAfter: since, limit: 1000, ...(cursor ? { cursor } : {}) });
        if (!page.ok) return latest;
        latest = page.page.records.at(-1)?._service_metadata.cursor ?? latest;
        if (!page.page.next_cursor) return latest;
        cursor = page.page.next_cursor;
      }
    },
  };
}

/** The real services behind the scripts' port: the proxy's programmatic API, the records store, webhooks. */
export function createGatewayHost(deps: GatewayHostDeps): ScriptHost {
  return {
    async proxyRequest(request) {
      const response = await deps.proxy.request({
        environment: request.environment,
        providerConfigKey: request.providerConfigKey,
        connectionId: request.connectionId,
        method: request.method,
        path: request.path,
        query: request.query,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        retries: request.retries,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      return { status: response.status, headers: flatten(response.headers), data: response.body };
    },
    records: createHostRecords(deps.records),
    async emit(environment, event) {
      await deps.webhooks.send(environment, event);
    },
  };
}
