import type { IncomingHttpHeaders } from 'node:http';
import type { ProxyRequest, ProxyResponse } from '../proxy/index.js';
import type { RecordStore, StreamRef } from '../records/index.js';
import type { WebhookEventInput } from '../webhooks/index.js';
import type { HostRecords, ScriptHost } from './host.js';

export interface GatewayHostDeps {
  records: RecordStore;
  proxy: { request(input: ProxyRequest): Promise<ProxyResponse> };
  webhooks: { send(environment: string, event: WebhookEventInput): Promise<unknown> };
}

const flatten = (headers: IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
};

const ref = (t: StreamRef): StreamRef => ({
  environment: t.environment,
  providerConfigKey: t.providerConfigKey,
  connectionId: t.connectionId,
  model: t.model,
});

/** The records operations forward to the store, which reads and writes under the stream's lock. */
function createHostRecords(records: RecordStore): HostRecords {
  return {
    async batchSave(target, batch) {
      const result = await records.batchSave(ref(target), batch);
      return { added: result.added, updated: result.updated, deleted: 0 };
    },
    async batchUpdate(target, partials) {
      const result = await records.batchUpdate(ref(target), partials);
      return { added: result.added, updated: result.updated, deleted: 0 };
    },
    async batchDelete(target, ids) {
      return { added: 0, updated: 0, deleted: (await records.batchDelete(ref(target), ids)).deleted };
    },
    deleteNotSeenSince: (target, since) => records.deleteNotSeenSince(ref(target), since),
    latestCursorSince: (target, since) => records.latestCursorSince(ref(target), since),
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
