import t, { type Test } from 'tap';
import { createCatalog } from '../../lib/providers/index.js';
import { fakeProvider } from '../helpers/http.js';
import { appKeyPair } from '../helpers/keys.js';
import { sharedStores, type SharedStore } from '../helpers/shared-stores.js';
import { fakeCodeHost } from './fake-code-host.js';
import { fakeTokenServer, harness, inMs, json, testProvider, type Harness } from './fixtures.js';

/** Three gateway instances, each with its own connections, on one shared store. */
async function threeInstances(t: Test, store: SharedStore, label: string, providers: unknown[]): Promise<Harness[]> {
  const open = store.place(t, label);
  const instances: Harness[] = [];
  for (let i = 0; i < 3; i++) {
    const storage = open();
    t.teardown(() => storage.close());
    instances.push(await harness(t, { storage, providers }));
  }
  return instances;
}

// The same proofs on every store several instances can share.
for (const store of sharedStores) {
  t.test(
    `${store.name}: 200 concurrent requests on an expired token across 3 instances make one token call`,
    async (t) => {
      if (!(await store.require(t))) return;
      const tokens = await fakeTokenServer(t, async (_req, res) => {
        // Slow enough that every instance asks while the first refresh is under way.
        await new Promise((resolve) => setTimeout(resolve, 150));
        json(res, 200, { access_token: 'at-shared', refresh_token: 'rt-rotated', expires_in: 3600 });
      });
      const provider = testProvider('test-oauth', 'OAUTH2', 'https://api.example.com', {
        authorization_url: 'https://example.com/a',
        token_url: `${tokens.url}/token`,
      });
      const instances = await threeInstances(t, store, 'refresh', [provider]);
      const [first] = instances as [Harness];
      await first.create('/integrations', {
        unique_key: 'crm',
        provider: 'test-oauth',
        credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' },
      });
      await first.create('/connections', {
        provider_config_key: 'crm',
        connection_id: 'c1',
        credentials: { type: 'OAUTH2', access_token: 'at-expired', refresh_token: 'rt-0', expires_at: inMs(-60_000) },
      });

      // Each instance reads the connection first, so each holds the expired token in its cache.
      const setups = await Promise.all(
        instances.map(async (h) => ({ resolver: h.resolverWith(), target: await h.target('crm', 'c1') })),
      );
      t.ok(
        setups.every(
          (s) =>
            s.target.connection.credentials.type === 'OAUTH2' &&
            s.target.connection.credentials.access_token === 'at-expired',
        ),
      );
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => {
          const { resolver, target } = setups[i % 3] as (typeof setups)[number];
          return resolver.resolve(target);
        }),
      );

      t.equal(tokens.received.length, 1, 'exactly one call to the token endpoint');
      t.ok(
        results.every((m) => m.headers.Authorization === 'Bearer at-shared'),
        'all 200 requests carry the new token',
      );
      for (const [i, h] of instances.entries()) {
        const stored = await h.gw.call('GET', '/connections/c1?provider_config_key=crm');
        t.equal(
          stored.json.data.credentials.refresh_token,
          'rt-rotated',
          `instance ${i + 1} reads the rotated refresh token`,
        );
      }
    },
  );

  t.test(`${store.name}: 3 instances mint one installation token between them`, async (t) => {
    if (!(await store.require(t))) return;
    const keys = appKeyPair();
    const host = await fakeCodeHost(t, { appId: '7', publicKey: keys.publicKey, installations: ['55'] });
    host.state.delayMs = 100;
    const builtIn = createCatalog().get('github-app');
    const instances = await threeInstances(t, store, 'app', [
      { ...builtIn, proxy: { ...builtIn?.proxy, base_url: host.url } },
    ]);
    const [first] = instances as [Harness];
    await first.create('/integrations', {
      unique_key: 'app',
      provider: 'github-app',
      credentials: { type: 'APP', app_id: '7', app_link: 'https://github.com/apps/x', private_key: keys.privateKey },
    });
    await first.create('/connections', {
      provider_config_key: 'app',
      connection_id: 'org',
      credentials: { type: 'APP', installation_id: '55' },
    });
    const setups = await Promise.all(
      instances.map(async (h) => ({ resolver: h.resolverWith(), target: await h.target('app', 'org') })),
    );
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) => {
        const { resolver, target } = setups[i % 3] as (typeof setups)[number];
        return resolver.resolve(target);
      }),
    );
    t.equal(host.mintCalls(), 1, 'one mint across the three instances');
    t.ok(results.every((m) => m.headers.Authorization === 'Bearer ghs_installation_1'));
  });

  t.test(
    `${store.name}: through /proxy, 200 concurrent calls on an expired token across 3 instances, one token call`,
    async (t) => {
      if (!(await store.require(t))) return;
      const tokens = await fakeTokenServer(t, async (_req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        json(res, 200, { access_token: 'at-proxy', expires_in: 3600 });
      });
      const api = await fakeProvider();
      t.teardown(() => api.close());
      const provider = testProvider('test-oauth', 'OAUTH2', api.url, {
        authorization_url: 'https://example.com/a',
        token_url: `${tokens.url}/token`,
      });
      const instances = await threeInstances(t, store, 'proxy', [provider]);
      const [first] = instances as [Harness];
      await first.create('/integrations', {
        unique_key: 'crm',
        provider: 'test-oauth',
        credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' },
      });
      await first.create('/connections', {
        provider_config_key: 'crm',
        connection_id: 'c1',
        credentials: { type: 'OAUTH2', access_token: 'at-expired', refresh_token: 'rt-0', expires_at: inMs(-60_000) },
      });

      const statuses = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const h = instances[i % 3] as Harness;
          return (
            await h.gw.call('GET', `/proxy/v1/items/${i}`, {
              headers: { 'provider-config-key': 'crm', 'connection-id': 'c1' },
            })
          ).status;
        }),
      );
      t.ok(
        statuses.every((s) => s === 200),
        'every call succeeded',
      );
      t.equal(tokens.received.length, 1, 'exactly one call to the token endpoint');
      t.equal(api.received.length, 200);
      t.ok(
        api.received.every((r) => r.headers.authorization === 'Bearer at-proxy'),
        'the provider saw only the new token',
      );
    },
  );
}
