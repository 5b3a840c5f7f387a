import t from 'tap';
import { devKey, prodKey } from '../helpers/gateway.js';
import { proxySetup } from '../proxy/helpers.js';
import { importConnection, receiver, waitFor, withStripe } from '../webhooks/helpers.js';
import { startGateway } from '../helpers/gateway.js';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { createCachedReading } from '../../lib/telemetry/cached-reading.js';
import { redisStorageWithClient, redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';

const metricsToken = 'mt_test_0123456789abcdef';

async function scrape(url: string, token: string | null = metricsToken) {
  const res = await fetch(`${url}/metrics`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The value of one sample line, e.g. `portico_proxy_calls_total{...}`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

t.test(
  'GET /metrics: proxy calls by integration, provider and status, with latency; never a connection id',
  async (t) => {
    const s = await proxySetup(t, {
      gateway: { metrics: { token: metricsToken } },
      respond: (req, res) => {
        res.statusCode = req.url.includes('missing') ? 404 : 200;
        res.end('{}');
      },
    });
    t.equal((await s.proxy('GET', '/v1/ok')).status, 200);
    t.equal((await s.proxy('GET', '/v1/ok')).status, 200);
    t.equal((await s.proxy('GET', '/v1/missing')).status, 404);

    const got = await scrape(s.gw.url);
    t.equal(got.status, 200);
    t.match(got.type, /^text\/plain; version=0\.0\.4/);
    const calls = (status: string) =>
      sample(got.text, 'portico_proxy_calls_total', {
        environment: 'dev',
        integration: 'fake',
        provider: 'fake-api',
        status,
      });
    // The call's end is counted when the caller's response closes: it may trail the answer a little.
    await waitFor(
      async () => sample((await scrape(s.gw.url)).text, 'portico_proxy_calls_total', { status: '404' }) === 1,
      'the 404 counted',
    );
    const again = (await scrape(s.gw.url)).text;
    t.equal(
      sample(again, 'portico_proxy_calls_total', { integration: 'fake', provider: 'fake-api', status: '200' }),
      2,
    );
    t.equal(
      sample(again, 'portico_proxy_call_duration_seconds_count', { integration: 'fake', provider: 'fake-api' }),
      3,
    );
    t.equal(sample(again, 'portico_proxy_upstream_duration_seconds_count', { provider: 'fake-api' }), 3);
    t.ok(calls('200') === undefined || calls('200')! >= 1, 'first scrape read the counter');
    t.match(again, /process_cpu_seconds_total/, 'process metrics in the same registry');
    t.notMatch(again, /c1|sk_fake/, 'no connection id, no credential');
  },
);

t.test('GET /metrics needs its own token: none, a wrong one and a secret key are refused', async (t) => {
  const s = await proxySetup(t, { gateway: { metrics: { token: metricsToken } } });
  for (const token of [null, 'mt_wrong_0123456789abcdef', devKey]) {
    const got = await scrape(s.gw.url, token);
    t.equal(got.status, 401, `token ${token}`);
    t.equal(JSON.parse(got.text).error.code, 'unauthorized');
  }
});

t.test('without metrics options there is no /metrics route and nothing listens', async (t) => {
  const { proxyChannels } = await import('../../lib/proxy/index.js');
  const s = await proxySetup(t);
  t.equal((await scrape(s.gw.url)).status, 401, 'behind the secret key like any unknown route');
  t.equal((await s.gw.call('GET', '/metrics')).status, 404);
  t.equal(s.gw.gateway.metrics, undefined);
  t.notOk(proxyChannels.callEnd.hasSubscribers, 'no subscriber: no event is built');
});

t.test('integration labels are capped: later keys count as "other"', async (t) => {
  const s = await proxySetup(t, { gateway: { metrics: { token: metricsToken, maxIntegrations: 1 } } });
  t.equal(
    (await s.gw.call('POST', '/integrations', { body: { unique_key: 'second', provider: 'fake-api' } })).status,
    201,
  );
  t.equal(
    (
      await s.gw.call('POST', '/connections', {
        body: { provider_config_key: 'second', connection_id: 'c2', credentials: { type: 'API_KEY', apiKey: 'k' } },
      })
    ).status,
    201,
  );
  await s.proxy('GET', '/v1/a');
  await s.proxy('GET', '/v1/b', { headers: { 'provider-config-key': 'second', 'connection-id': 'c2' } });
  const text = await waitFor(async () => {
    const got = (await scrape(s.gw.url)).text;
    return sample(got, 'portico_proxy_calls_total', { integration: 'other' }) === 1 && got;
  }, 'the second integration counted as other');
  t.equal(sample(text, 'portico_proxy_calls_total', { integration: 'fake' }), 1);
  t.notMatch(text, /integration="second"/);
});

t.test('records written, webhook attempts and backlog', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: hook.url },
      { name: 'prod', secretKey: prodKey },
    ],
    webhooks: { timeoutMs: 5_000, retries: 0 },
    metrics: { token: metricsToken, processMetrics: false },
  });
  await withStripe(gw);
  await importConnection(gw, 'c1');
  const ref = { environment: 'dev', providerConfigKey: 'stripe', connectionId: 'c1', model: 'Invoice' };
  await gw.gateway.records.batchSave(ref, [{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
  await gw.gateway.records.batchSave(ref, [{ id: 'a', v: 2 }, { id: 'b' }]);
  await gw.gateway.records.batchDelete(ref, ['c']);
  await waitFor(() => hook.received.length >= 1, 'the auth webhook delivered');
  const text = await waitFor(async () => {
    const got = (await scrape(gw.url)).text;
    return sample(got, 'portico_webhook_attempts_total', { outcome: 'delivered' }) === hook.received.length && got;
  }, 'the attempt counted');
  t.equal(sample(text, 'portico_records_written_total', { integration: 'stripe', operation: 'added' }), 3);
  t.equal(sample(text, 'portico_records_written_total', { integration: 'stripe', operation: 'updated' }), 1);
  t.equal(sample(text, 'portico_records_written_total', { integration: 'stripe', operation: 'deleted' }), 1);
  t.equal(sample(text, 'portico_webhook_enqueued_total', { environment: 'dev' }), hook.received.length);
  t.match(text, /\nportico_webhook_backlog 0\n/);
  t.notMatch(text, /process_cpu_seconds_total/, 'process metrics off');
});

t.test('the webhook backlog is read from the shared work queue: every instance on the store reports it', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('metrics-backlog');
  let up = false;
  const hook = await receiver((_req, res) => {
    res.statusCode = up ? 200 : 503;
    res.end();
  });
  const storages = [createRedisStorage({ url: redisUrl, prefix }), createRedisStorage({ url: redisUrl, prefix })];
  t.teardown(async () => {
    for (const storage of storages) await storage.close();
    await hook.close();
    await removeRedisKeys(prefix);
  });
  const [a, b] = await Promise.all(
    storages.map((storage) =>
      startGateway(t, {
        storage,
        environments: [{ name: 'dev', secretKey: devKey, webhookUrl: hook.url }],
        webhooks: { timeoutMs: 1_000, backoffMs: 300, backoffFactor: 1, jitter: 0, retries: 100 },
        metrics: { token: metricsToken, processMetrics: false, backlogMaxAgeMs: 100 },
      }),
    ),
  );
  await withStripe(a!);
  for (const id of ['c1', 'c2', 'c3']) await importConnection(a!, id);
  const backlog = async (gw: typeof a) =>
    Number(/\nportico_webhook_backlog (\d+)\n/.exec((await scrape(gw!.url)).text)?.[1]);
  await waitFor(async () => (await backlog(b)) === 3, 'instance b to report the 3 deliveries instance a queued');
  t.equal(await backlog(a), 3, 'instance a reports the same');
  up = true;
  await waitFor(
    async () => (await backlog(a)) === 0 && (await backlog(b)) === 0,
    'the backlog to drain on both',
    20_000,
  );
  t.pass('drained: 0 on both');
});

t.test(
  'a backlog reading costs at most one read per max age, shared by concurrent scrapes, and never waits long',
  async (t) => {
    let reads = 0;
    let hang = false;
    const reading = createCachedReading(
      async () => {
        reads += 1;
        if (hang) await new Promise(() => {});
        return reads;
      },
      { maxAgeMs: 200, timeoutMs: 100 },
    );
    t.same(
      await Promise.all(Array.from({ length: 20 }, () => reading())),
      Array(20).fill(1),
      '20 concurrent scrapes: one read',
    );
    t.equal(await reading(), 1, 'a fresh reading is served as is');
    t.equal(reads, 1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    hang = true;
    const started = Date.now();
    t.equal(await reading(), 1, 'a read that does not answer: the last value');
    t.ok(Date.now() - started < 1_000, 'after the read deadline');
  },
);

t.test('store errors are counted by back end and namespace, a connection written with its lists too', async (t) => {
  const opened = await redisStorageWithClient(t, 'metrics-store-errors');
  if (!opened) return;
  const { storage, raw, prefix } = opened;
  const gw = await startGateway(t, { storage, metrics: { token: metricsToken, processMetrics: false } });
  await withStripe(gw);
  // The environment's list of every connection is not a sorted set: the connection's write is refused.
  await raw.set(`${prefix}idx:connections:dev\u001fall`, 'not a list');
  const res = await gw.call('POST', '/connections', {
    body: { provider_config_key: 'stripe', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'sk_1' } },
  });
  t.equal(res.status, 503, res.text);
  t.equal(res.json.error.code, 'store_unavailable');
  t.notMatch(res.text, /WRONGTYPE/, 'the store’s own words stay inside');
  const text = (await scrape(gw.url)).text;
  t.equal(sample(text, 'portico_store_errors_total', { kind: 'redis', namespace: 'connections' }), 1);
});
