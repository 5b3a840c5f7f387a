import t from 'tap';
import { prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';

async function withIntegrations(gw: TestGateway) {
  await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'gh',
      provider: 'github',
      credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret-1234567' },
    },
  });
  await gw.call('POST', '/integrations', { body: { unique_key: 'stripe', provider: 'stripe' } });
}

const oauthCredentials = {
  type: 'OAUTH2',
  access_token: 'gho_access',
  refresh_token: 'ghr_refresh',
  expires_at: '2030-01-01T00:00:00Z',
};

t.test('import, get, list, patch end user, delete', async (t) => {
  const gw = await startGateway(t);
  await withIntegrations(gw);
  const created = await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'gh',
      connection_id: 'user-1',
      credentials: oauthCredentials,
      end_user: { id: 'eu-1', email: 'a@example.com' },
      metadata: { team: 'a' },
    },
  });
  t.equal(created.status, 201);
  t.equal(created.json.data.connection_id, 'user-1');
  t.equal(created.json.data.credentials, undefined, 'no credentials in the import answer');
  t.notMatch(created.text, 'gho_access');

  const overridden = await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'gh',
      connection_id: 'user-1',
      credentials: { ...oauthCredentials, access_token: 'gho_new' },
    },
  });
  t.equal(overridden.status, 200, 'importing the same id overrides');
  t.same(overridden.json.data.end_user, { id: 'eu-1', email: 'a@example.com' }, 'fields not given are kept');

  const fetched = await gw.call('GET', '/connections/user-1?provider_config_key=gh');
  t.equal(fetched.status, 200);
  t.equal(fetched.json.data.credentials.access_token, 'gho_new', 'the secret-key holder reads credentials');
  const byHeader = await gw.call('GET', '/connections/user-1', { headers: { 'provider-config-key': 'gh' } });
  t.equal(byHeader.status, 200);

  await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'stripe',
      connection_id: 'user-2',
      credentials: { type: 'API_KEY', apiKey: 'sk_live_x' },
      end_user: { id: 'eu-1', email: 'a@example.com' },
    },
  });
  const generated = await gw.call('POST', '/connections', {
    body: { provider_config_key: 'stripe', credentials: { type: 'API_KEY', apiKey: 'sk_live_y' } },
  });
  t.match(generated.json.data.connection_id, /^[0-9a-f-]{36}$/, 'an id is generated when none is given');

  const all = await gw.call('GET', '/connections');
  t.equal(all.json.data.length, 3);
  t.equal(all.json.next_cursor, null);
  const onlyGh = await gw.call('GET', '/connections?provider_config_key=gh');
  t.same(
    onlyGh.json.data.map((c: { connection_id: string }) => c.connection_id),
    ['user-1'],
  );
  const byUser = await gw.call('GET', '/connections?end_user_id=eu-1');
  t.equal(byUser.json.data.length, 2);
  const page1 = await gw.call('GET', '/connections?limit=2');
  t.equal(page1.json.data.length, 2);
  const page2 = await gw.call('GET', `/connections?limit=2&cursor=${page1.json.next_cursor}`);
  t.equal(page2.json.data.length, 1);
  t.equal(page2.json.next_cursor, null);
  t.equal((await gw.call('GET', '/connections?cursor=garbage')).status, 400);
  t.equal((await gw.call('GET', '/connections?limit=0')).status, 400);
  t.equal((await gw.call('GET', '/connections?colour=red')).status, 400, 'unknown parameters are refused');

  // Spec 2.4: each connection keeps its own copy of the end user.
  const patched = await gw.call('PATCH', '/connections/user-1?provider_config_key=gh', {
    body: { end_user: { id: 'eu-1', email: 'new@example.com' } },
  });
  t.equal(patched.status, 200);
  t.equal(patched.json.data.end_user.email, 'new@example.com');
  const other = await gw.call('GET', '/connections/user-2?provider_config_key=stripe');
  t.equal(other.json.data.end_user.email, 'a@example.com', 'the other connection of the same end user is untouched');

  const removed = await gw.call('DELETE', '/connections/user-1?provider_config_key=gh');
  t.equal(removed.status, 200);
  t.equal((await gw.call('GET', '/connections/user-1?provider_config_key=gh')).json.error.code, 'unknown_connection');
});

t.test('metadata: replace and merge on one or several connections (spec 4.6)', async (t) => {
  const gw = await startGateway(t);
  await withIntegrations(gw);
  for (const id of ['a', 'b']) {
    await gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'stripe',
        connection_id: id,
        credentials: { type: 'API_KEY', apiKey: 'k' },
        metadata: { keep: true },
      },
    });
  }
  const merged = await gw.call('PATCH', '/connections/metadata', {
    body: { provider_config_key: 'stripe', connection_id: ['a', 'b'], metadata: { plan: 'pro' } },
  });
  t.equal(merged.status, 200);
  t.same(
    merged.json.data.map((c: { metadata: unknown }) => c.metadata),
    [
      { keep: true, plan: 'pro' },
      { keep: true, plan: 'pro' },
    ],
  );
  const replaced = await gw.call('POST', '/connections/metadata', {
    body: { provider_config_key: 'stripe', connection_id: 'a', metadata: { only: 1 } },
  });
  t.same(replaced.json.data[0].metadata, { only: 1 });
  const missing = await gw.call('POST', '/connections/metadata', {
    body: { provider_config_key: 'stripe', connection_id: ['b', 'zzz'], metadata: { x: 1 } },
  });
  t.equal(missing.status, 404);
  t.same(
    (await gw.call('GET', '/connections/b?provider_config_key=stripe')).json.data.metadata,
    { keep: true, plan: 'pro' },
    'a failed batch changed nothing',
  );
});

t.test('credential shapes are validated per auth mode', async (t) => {
  const gw = await startGateway(t);
  await withIntegrations(gw);
  const cases: [string, unknown, string][] = [
    ['gh', { type: 'OAUTH2' }, 'credentials.access_token'],
    ['gh', { type: 'OAUTH2', access_token: 'x', expires_at: 'tomorrow' }, 'credentials.expires_at'],
    ['stripe', { type: 'API_KEY', api_key: 'x' }, 'credentials.apiKey'],
    ['stripe', { type: 'BASIC', username: 'u', password: 'p' }, 'credentials.type'],
    ['gh', { type: 'APP', installation_id: 'abc' }, 'credentials.installation_id'],
    ['gh', { type: 'MAGIC' }, 'credentials.type'],
  ];
  for (const [pck, credentials, field] of cases) {
    const res = await gw.call('POST', '/connections', {
      body: { provider_config_key: pck, connection_id: 'c', credentials },
    });
    t.equal(res.status, 400, JSON.stringify(credentials));
    t.equal(res.json.error.field, field, `names ${field}`);
  }
  const unknown = await gw.call('POST', '/connections', {
    body: { provider_config_key: 'nope', credentials: { type: 'API_KEY', apiKey: 'k' } },
  });
  t.equal(unknown.status, 404);
  t.equal(unknown.json.error.code, 'unknown_integration');
  const noKey = await gw.call('GET', '/connections/c');
  t.equal(noKey.json.error.code, 'missing_provider_config_key');
  t.same((await gw.call('GET', '/connections')).json.data, [], 'nothing was stored');
});

t.test('connections of one environment are invisible to another', async (t) => {
  const gw = await startGateway(t);
  await withIntegrations(gw);
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'stripe', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'k' } },
  });
  t.same((await gw.call('GET', '/connections', { key: prodKey })).json.data, []);
  t.equal((await gw.call('GET', '/connections/c1?provider_config_key=stripe', { key: prodKey })).status, 404);
  t.equal((await gw.call('DELETE', '/connections/c1?provider_config_key=stripe', { key: prodKey })).status, 404);
  t.equal(
    (await gw.call('GET', '/connections/c1?provider_config_key=stripe')).status,
    200,
    'still there for its own environment',
  );
});

t.test('deleting an integration deletes its connections', async (t) => {
  const gw = await startGateway(t);
  await withIntegrations(gw);
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'stripe', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'k' } },
  });
  const res = await gw.call('DELETE', '/integrations/stripe');
  t.equal(res.json.data.deleted_connections, 1);
  t.same((await gw.call('GET', '/connections')).json.data, []);
});
