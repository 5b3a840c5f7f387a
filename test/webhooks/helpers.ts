import type { ServerResponse } from 'node:http';
import { fakeProvider, type Received } from '../helpers/http.js';
import type { TestGateway } from '../helpers/gateway.js';
import { waitFor } from '../helpers/wait.js';

/** A customer's webhook receiver on 127.0.0.1:0: records every request with its arrival time. */
export async function receiver(
  respond: (req: Received, res: ServerResponse, index: number) => void | Promise<void> = (_req, res) => {
    res.end('ok');
  },
) {
  const arrivals: number[] = [];
  let count = 0;
  const server = await fakeProvider(async (req, res) => {
    arrivals.push(Date.now());
    await respond(req, res, count++);
  });
  return {
    ...server,
    arrivals,
    /** The JSON bodies received. */
    payloads: () => server.received.map((r) => JSON.parse(r.body.toString('utf8')) as Record<string, any>),
  };
}

/** An API_KEY integration `stripe` to hang connections on. */
export async function withStripe(gw: TestGateway) {
  const res = await gw.call('POST', '/integrations', { body: { unique_key: 'stripe', provider: 'stripe' } });
  if (res.status !== 201) throw new Error(`integration: ${res.status} ${res.text}`);
}

export async function importConnection(
  gw: TestGateway,
  id: string,
  pck = 'stripe',
  credentials: unknown = { type: 'API_KEY', apiKey: 'sk_live_secret' },
) {
  const res = await gw.call('POST', '/connections', {
    body: { provider_config_key: pck, connection_id: id, credentials },
  });
  if (res.status >= 300) throw new Error(`import: ${res.status} ${res.text}`);
  return res;
}

/** Fast retries for tests; the spec's defaults are asserted in policy.test.ts. */
export const fastPolicy = { timeoutMs: 500, backoffMs: 50, backoffFactor: 2, jitter: 0 };

export { removeRedisKeys } from '../helpers/redis.js';

export { waitFor };
