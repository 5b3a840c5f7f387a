import t from 'tap';
import { devKey, prodKey, startGateway } from '../helpers/gateway.js';
import { fastPolicy, importConnection, receiver, waitFor, withStripe } from './helpers.js';

async function setup(t: Parameters<Parameters<typeof import('tap').test>[0]>[0]) {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: hook.url },
      { name: 'prod', secretKey: prodKey },
    ],
    webhooks: fastPolicy,
  });
  await withStripe(gw);
  return { gw, hook };
}

const common = { environment: 'dev', provider_config_key: 'stripe', provider: 'stripe' };

t.test('auth events: creation, override, refresh failure and recovery, deletion', async (t) => {
  const { gw, hook } = await setup(t);
  await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'stripe',
      connection_id: 'c1',
      credentials: { type: 'API_KEY', apiKey: 'k1' },
      end_user: { id: 'eu-1', email: 'a@example.com' },
    },
  });
  await importConnection(gw, 'c1');
  await gw.gateway.connections.markAuthProblem('dev', 'stripe', 'c1', {
    code: 'refresh_revoked',
    message: 'The provider revoked the grant.',
  });
  await gw.gateway.connections.updateCredentials('dev', 'stripe', 'c1', { type: 'API_KEY', apiKey: 'k2' });
  await gw.call('DELETE', '/connections/c1?provider_config_key=stripe');
  await waitFor(() => hook.received.length === 5, 'five auth events', 10_000);
  const got = hook.payloads();
  const expected = [
    {
      ...common,
      type: 'auth',
      connection_id: 'c1',
      operation: 'creation',
      success: true,
      auth_mode: 'API_KEY',
      source: 'import',
      end_user: { id: 'eu-1', email: 'a@example.com' },
    },
    { ...common, type: 'auth', connection_id: 'c1', operation: 'override', success: true, source: 'import' },
    {
      ...common,
      type: 'auth',
      connection_id: 'c1',
      operation: 'refresh',
      success: false,
      error: { code: 'refresh_revoked', message: 'The provider revoked the grant.' },
    },
    { ...common, type: 'auth', connection_id: 'c1', operation: 'refresh', success: true },
    { ...common, type: 'auth', connection_id: 'c1', operation: 'deletion', success: true },
  ];
  for (const want of expected) {
    t.match(
      got.find((p) => p.operation === want.operation && p.success === want.success),
      want,
      `${want.operation} ${want.success ? 'ok' : 'failed'}`,
    );
  }
  t.equal(new Set(got.map((p) => p.delivery_id)).size, 5, 'a delivery id each');
  t.notMatch(hook.received.map((r) => r.body.toString()).join(''), /k1|k2/, 'no credential in any payload');
});

t.test('gateway.webhooks.send: sync, records and action events for later features', async (t) => {
  const { gw, hook } = await setup(t);
  await importConnection(gw, 'c1');
  await waitFor(() => hook.received.length === 1, 'the expected deliveries', 10_000);
  hook.received.length = 0;
  const { send } = gw.gateway.webhooks;
  const sync = await send('dev', {
    type: 'sync',
    connection_id: 'c1',
    provider_config_key: 'stripe',
    sync_name: 'invoices',
    model: 'Invoice',
    variant: 'eu',
    success: true,
    results: { added: 3, updated: 2, deleted: 1 },
    started_at: '2026-02-01T10:00:00.000Z',
    finished_at: '2026-02-01T10:00:05.000Z',
  });
  await send('dev', {
    type: 'sync',
    connection_id: 'c1',
    provider_config_key: 'stripe',
    sync_name: 'invoices',
    model: 'Invoice',
    success: false,
    results: { added: 0, updated: 0, deleted: 0 },
    started_at: '2026-02-01T11:00:00.000Z',
    finished_at: '2026-02-01T11:00:01.000Z',
    error: { code: 'script_failed', message: 'fetch() answered 500' },
  });
  await send('dev', {
    type: 'records',
    connection_id: 'c1',
    provider_config_key: 'stripe',
    model: 'Invoice',
    count: 6,
    cursor: 'MjAyNi0wMi0wMQ==',
    modified_after: '2026-02-01T10:00:00.000Z',
  });
  await send('dev', {
    type: 'action',
    connection_id: 'c1',
    provider_config_key: 'stripe',
    action_name: 'create-invoice',
    action_id: 'act_1',
    success: true,
    output: { id: 'in_1' },
  });
  t.match(sync, { delivery_id: /^[0-9a-f-]{36}$/, queued: 1 });
  await waitFor(() => hook.received.length === 4, 'four events', 10_000);
  const got = hook.payloads();
  const find = (predicate: (p: Record<string, any>) => boolean) => got.find(predicate);
  t.match(
    find((p) => p.type === 'sync' && p.success),
    {
      ...common,
      delivery_id: sync.delivery_id,
      connection_id: 'c1',
      sync_name: 'invoices',
      model: 'Invoice',
      variant: 'eu',
      results: { added: 3, updated: 2, deleted: 1 },
    },
  );
  t.match(
    find((p) => p.type === 'sync' && !p.success),
    { error: { code: 'script_failed' } },
  );
  t.match(
    find((p) => p.type === 'records'),
    { ...common, model: 'Invoice', count: 6, cursor: 'MjAyNi0wMi0wMQ==', modified_after: '2026-02-01T10:00:00.000Z' },
  );
  t.match(
    find((p) => p.type === 'action'),
    { ...common, action_name: 'create-invoice', action_id: 'act_1', success: true, output: { id: 'in_1' } },
  );
  t.ok(
    got.every((p) => typeof p.created_at === 'string' && p.environment === 'dev'),
    'every payload says when and where',
  );
  await t.rejects(
    send('staging', {
      type: 'records',
      connection_id: 'c1',
      provider_config_key: 'stripe',
      model: 'X',
      count: 1,
      cursor: null,
      modified_after: '2026-01-01T00:00:00Z',
    }),
    /no environment named "staging"/,
  );
});

t.test('a failed end-user authorization becomes an auth webhook with success false', async (t) => {
  const { gw, hook } = await setup(t);
  await gw.gateway.events.publish({
    type: 'connection.auth_attempt_failed',
    environment: 'dev',
    provider_config_key: 'stripe',
    provider: 'stripe',
    connection_id: null,
    end_user: { id: 'eu-9', email: 'z@example.com' },
    operation: 'oauth',
    code: 'access_denied',
    message: 'The end user denied consent.',
    provider_error: { error: 'access_denied', description: 'User said no' },
  });
  await waitFor(() => hook.received.length === 1, 'one auth event', 10_000);
  t.match(hook.payloads()[0], {
    ...common,
    type: 'auth',
    connection_id: null,
    operation: 'creation',
    success: false,
    source: 'oauth',
    end_user: { id: 'eu-9' },
    error: { code: 'access_denied', provider_error: { error: 'access_denied' } },
  });
});
