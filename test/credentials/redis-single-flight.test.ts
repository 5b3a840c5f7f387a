import { createClient } from '@keyv/redis';
import t, { type Test } from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { createCatalog } from '../../lib/providers/index.js';
import { fakeProvider } from '../helpers/http.js';
import { appKeyPair } from '../helpers/keys.js';
import { redisUrl, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { fakeCodeHost } from './fake-code-host.js';
import { fakeTokenServer, harness, inMs, json, testProvider, type Harness } from './fixtures.js';

/** Three gateway instances, each with its own Redis client, on one prefix (one shared store). */
async function threeInstances(t: Test, label: string, providers: unknown[]): Promise<Harness[]> {
  const prefix = uniquePrefix(label);
  t.teardown(async () => {
    const raw = createClient({ url: redisUrl });
    await raw.connect();
    for await (const keys of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await raw.unlink(keys);
    await raw.close();
  });
  const instances: Harness[] = [];
  for (let i = 0; i < 3; i++) {
    const storage = createRedisStorage({ url: redisUrl, prefix });
    t.teardown(() => storage.close());
    instances.push(await harness(t, { storage, providers }));
  }
  return instances;
}

t.test('200 concurrent requests on an expired token across 3 instances make one token call', async (t) => {
  if (!(await requireRedis(t))) return;
  const tokens = await fakeTokenServer(t, async (_req, res) => {
    // Slow enough that every instance asks while the first refresh is under way.
    await new Promise((resolve) => setTimeout(resolve, 150));
    json(res, 200, { access_token: 'at-shared', refresh_token: 'rt-rotated', expires_in: 3600 });
  });
  const provider = testProvider('test-oauth', 'OAUTH2', 'https://api.example.com', { authorization_url: 'https://example.com/a', token_url: `${tokens.url}/token` });
  const instances = await threeInstances(t, 'refresh', [provider]);
  const [first] = instances as [Harness];
  await first.create('/integrations', { unique_key: 'crm', provider: 'test-oauth', credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' } });
  await first.create('/connections', { provider_config_key: 'crm', connection_id: 'c1', credentials: { type: 'OAUTH2', access_token: 'at-expired', refresh_token: 'rt-0', expires_at: inMs(-60_000) } });

  // Each instance reads the connection first, so each holds the expired token in its cache.
  const setups = await Promise.all(instances.map(async (h) => ({ resolver: h.resolverWith(), target: await h.target('crm', 'c1') })));
  t.ok(setups.every((s) => s.target.connection.credentials.type === 'OAUTH2' && s.target.connection.credentials.access_token === 'at-expired'));
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => {
    const { resolver, target } = setups[i % 3] as (typeof setups)[number];
    return resolver.resolve(target);
  }));

  t.equal(tokens.received.length, 1, 'exactly one call to the token endpoint');
  t.ok(results.every((m) => m.headers.Authorization === 'Bearer at-shared'), 'all 200 requests carry the new token');
  for (const [i, h] of instances.entries()) {
    const stored = await h.gw.call('GET', '/connections/c1?provider_config_key=crm');
    t.equal(stored.json.data.credentials.refresh_token, 'rt-rotated', `instance ${i + 1} reads the rotated refresh token`);
  }
});

t.test('3 instances on Redis mint one installation token between them', async (t) => {
  if (!(await requireRedis(t))) return;
  const keys = appKeyPair();
  const host = await fakeCodeHost(t, { appId: '7', publicKey: keys.publicKey, installations: ['55'] });
  host.state.delayMs = 100;
  const builtIn = createCatalog().get('github-app');
  const instances = await threeInstances(t, 'app', [{ ...builtIn, proxy: { ...builtIn?.proxy, base_url: host.url } }]);
  const [first] = instances as [Harness];
  await first.create('/integrations', { unique_key: 'app', provider: 'github-app', credentials: { type: 'APP', app_id: '7', app_link: 'https://github.com/apps/x', private_key: keys.privateKey } });
  await first.create('/connections', { provider_config_key: 'app', connection_id: 'org', credentials: { type: 'APP', installation_id: '55' } });
  const setups = await Promise.all(instances.map(async (h) => ({ resolver: h.resolverWith(), target: await h.target('app', 'org') })));
  const results = await Promise.all(Array.from({ length: 90 }, (_, i) => {
    const { resolver, target } = setups[i % 3] as (typeof setups)[number];
    return resolver.resolve(target);
  }));
  t.equal(host.mintCalls(), 1, 'one mint across the three instances');
  t.ok(results.every((m) => m.headers.Authorization === 'Bearer ghs_installation_1'));
});

t.test('through /proxy: 200 concurrent calls on an expired token across 3 instances, one token call', async (t) => {
  if (!(await requireRedis(t))) return;
  const tokens = await fakeTokenServer(t, async (_req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    json(res, 200, { access_token: 'at-proxy', expires_in: 3600 });
  });
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const provider = testProvider('test-oauth', 'OAUTH2', api.url, { authorization_url: 'https://example.com/a', token_url: `${tokens.url}/token` });
  const instances = await threeInstances(t, 'proxy', [provider]);
  const [first] = instances as [Harness];
  await first.create('/integrations', { unique_key: 'crm', provider: 'test-oauth', credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' } });
  await first.create('/connections', { provider_config_key: 'crm', connection_id: 'c1', credentials: { type: 'OAUTH2', access_token: 'at-expired', refresh_token: 'rt-0', expires_at: inMs(-60_000) } });

  const statuses = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
    const h = instances[i % 3] as Harness;
    return (await h.gw.call('GET', `/proxy/v1/items/${i}`, { headers: { 'provider-config-key': 'crm', 'connection-id': 'c1' } })).status;
  }));
  t.ok(statuses.every((s) => s === 200), 'every call succeeded');
  t.equal(tokens.received.length, 1, 'exactly one call to the token endpoint');
  t.equal(api.received.length, 200);
  t.ok(api.received.every((r) => r.headers.authorization === 'Bearer at-proxy'), 'the provider saw only the new token');
});
