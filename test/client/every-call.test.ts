import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import {
  createPorticoClient,
  PorticoError,
  verifyWebhookSignature,
  type PorticoClient,
} from '../../lib/client/index.js';
import { devKey, startGateway } from '../helpers/gateway.js';
import { bundleScript } from '../scripts/fixtures.js';
import { fakeProvider, type Received } from '../helpers/http.js';

const apiKey = 'sk_fake_every_call_0042';

async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  // The deadline only stops a hang; nothing here asserts how long anything takes.
  for (const deadline = Date.now() + 30_000; ;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Records which client methods a test called. */
function recording(client: PorticoClient) {
  const called = new Set<string>();
  const wrapped = new Proxy(client, {
    get(target, key: string) {
      const value = (target as Record<string, unknown>)[key];
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        called.add(key);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    portico: wrapped,
    missing: () =>
      Object.keys(client).filter((k) => typeof (client as Record<string, unknown>)[k] === 'function' && !called.has(k)),
  };
}

t.test('every SDK call, against a real gateway', async (t) => {
  // One testdir per test: a second t.testdir() call would replace the first.
  const root = t.testdir({ scripts: {}, bundles: {} });
  const dir = join(root, 'scripts');
  const docs = join(dir, 'docs.mjs');
  writeFileSync(
    docs,
    bundleScript(`export default createSync({ frequency: 'every day', autoStart: false, models: { Doc: z.object({ id: z.string(), title: z.string() }) },
    exec: async (s) => { const { data } = await s.get({ endpoint: '/docs' }); await s.batchSave(data, 'Doc'); await s.log('saved docs', { level: 'warn' }); } });\n`),
  );
  const sum = join(dir, 'sum.mjs');
  writeFileSync(
    sum,
    bundleScript(
      `export default createAction({ input: z.object({ a: z.number(), b: z.number() }), output: z.object({ sum: z.number() }), exec: async (s, i) => ({ sum: i.a + i.b }) });\n`,
    ),
  );

  const provider = await fakeProvider((req: Received, res) => {
    res.setHeader('content-type', 'application/json');
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/api/docs') {
      res.end(
        JSON.stringify([
          { id: 'd1', title: 'One' },
          { id: 'd2', title: 'Two' },
          { id: 'd3', title: 'Three' },
        ]),
      );
    } else if (url.pathname === '/api/items') {
      const after = Number(url.searchParams.get('after') ?? 0);
      res.end(JSON.stringify({ items: [after + 1, after + 2], next: after < 2 ? String(after + 2) : null }));
    } else res.end(JSON.stringify({ method: req.method, path: url.pathname, body: req.body.toString() || null }));
  });
  t.teardown(() => provider.close());
  const hooks = await fakeProvider((_req, res) => {
    res.end('ok');
  });
  t.teardown(() => hooks.close());
  const gw = await startGateway(t, {
    providers: [
      {
        name: 'fake-api',
        display_name: 'Fake API',
        logo_url: 'https://example.com/l.svg',
        categories: ['test'],
        auth_mode: 'API_KEY',
        docs: 'https://example.com',
        proxy: {
          base_url: `${provider.url}/api`,
          paginate: {
            type: 'cursor',
            cursor_path_in_response: 'next',
            cursor_name_in_request: 'after',
            response_path: 'items',
          },
        },
      },
    ],
    scripts: {
      workers: 2,
      heapMb: 64,
      bundleDir: join(root, 'bundles'),
      modules: [
        { file: docs, integrations: ['fake'] },
        { file: sum, integrations: ['fake'] },
      ],
    },
  });
  const { portico, missing } = recording(createPorticoClient({ baseUrl: gw.url, secretKey: devKey }));
  const where = { providerConfigKey: 'fake', connectionId: 'c1' };

  // Catalog and integrations.
  t.ok((await portico.listProviders()).some((p) => p.name === 'fake-api'));
  t.equal((await portico.getProvider('fake-api')).proxy.base_url, `${provider.url}/api`);
  t.match(await portico.createIntegration({ unique_key: 'fake', provider: 'fake-api' }), {
    unique_key: 'fake',
    auth_mode: 'API_KEY',
  });
  await portico.createIntegration({ unique_key: 'spare', provider: 'fake-api', display_name: 'Spare' });
  t.same((await portico.listIntegrations()).map((i) => i.unique_key).sort(), ['fake', 'spare']);
  t.equal((await portico.updateIntegration('spare', { display_name: 'Renamed' })).display_name, 'Renamed');
  t.equal((await portico.getIntegration('spare')).display_name, 'Renamed');
  t.match(await portico.deleteIntegration('spare'), { unique_key: 'spare', deleted: true });
  t.match(await portico.getIntegration('spare').catch((e: unknown) => e), { code: 'unknown_integration', status: 404 });

  // Connections and metadata.
  t.match(
    await portico.importConnection({
      provider_config_key: 'fake',
      connection_id: 'c1',
      credentials: { type: 'API_KEY', apiKey },
    }),
    { created: true },
  );
  await portico.importConnection({
    provider_config_key: 'fake',
    connection_id: 'c2',
    credentials: { type: 'API_KEY', apiKey: 'k2' },
  });
  t.same(
    (await portico.listConnections({ providerConfigKey: 'fake' })).data.map((c) => c.connection_id),
    ['c1', 'c2'],
  );
  t.same((await portico.getConnection('fake', 'c1')).credentials, { type: 'API_KEY', apiKey });
  t.same((await portico.patchConnection('fake', 'c1', { end_user: { id: 'u1', email: 'u1@example.com' } })).end_user, {
    id: 'u1',
    email: 'u1@example.com',
  });
  t.same(await portico.setMetadata('fake', 'c1', { plan: 'pro' }), [
    { connection_id: 'c1', provider_config_key: 'fake', metadata: { plan: 'pro' } },
  ]);
  t.same((await portico.updateMetadata('fake', 'c1', { seats: 2 }))[0]?.metadata, { plan: 'pro', seats: 2 });

  // Connect sessions: the link opens the only allowed integration.
  const session = await portico.createConnectSession({
    end_user: { id: 'u9', email: 'u9@example.com' },
    allowed_integrations: ['fake'],
  });
  t.match(session, {
    token: /.{20,}/,
    connect_link: /\/oauth\/connect\?connect_session_token=/,
    expires_at: /^\d{4}-/,
    end_user: { id: 'u9' },
    allowed_integrations: ['fake'],
  });
  const link = new URL(session.connect_link);
  const opened = await fetch(`${gw.url}${link.pathname}${link.search}`, { redirect: 'manual' });
  t.equal(opened.status, 302);
  t.match(opened.headers.get('location'), /\/oauth\/connect\/fake\?connect_session_token=/);
  t.match(
    await portico
      .createConnectSession({ end_user: { id: 'u9' }, allowed_integrations: ['nope'] })
      .catch((e: unknown) => e),
    { code: 'unknown_integration' },
  );

  // Environment webhook settings and per-connection URLs.
  t.match(await portico.getEnvironment(), { name: 'dev', webhook_signing_key_source: /configured|generated/ });
  t.match(await portico.updateEnvironment({ webhook_url: hooks.url }), { webhook_url: hooks.url });
  const rotated = await portico.rotateWebhookSigningKey();
  const signingKey = rotated.webhook_signing_key;
  t.notMatch(
    (await portico.getEnvironment()).webhook_signing_key,
    signingKey,
    'only the rotation answer shows the whole key',
  );
  t.same(await portico.getConnectionWebhookUrl('fake', 'c2'), {
    connection_id: 'c2',
    provider_config_key: 'fake',
    webhook_url: null,
  });
  t.equal(
    (await portico.setConnectionWebhookUrl('fake', 'c2', { webhook_url: `${hooks.url}/c2` })).webhook_url,
    `${hooks.url}/c2`,
  );
  t.equal((await portico.getConnectionWebhookUrl('fake', 'c2')).webhook_url, `${hooks.url}/c2`);
  t.equal((await portico.deleteConnectionWebhookUrl('fake', 'c2')).webhook_url, null);

  // The proxy, every method, and pagination.
  for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
    const answer = await portico[method]<{ method: string; path: string; body: string | null }>({
      ...where,
      endpoint: `/things/${method}`,
      ...(method === 'get' || method === 'delete' ? {} : { data: { m: method } }),
    });
    t.match(answer.data, {
      method: method.toUpperCase(),
      path: `/api/things/${method}`,
      body: method === 'get' || method === 'delete' ? null : JSON.stringify({ m: method }),
    });
  }
  t.match((await portico.proxy({ ...where, method: 'POST', endpoint: '/raw', data: 'plain text' })).data, {
    body: 'plain text',
  });
  t.ok(
    provider.received
      .filter((r) => r.url.startsWith('/api/things') || r.url === '/api/raw')
      .every((r) => r.headers.authorization === `Bearer ${apiKey}`),
    'credentials attached by the gateway',
  );
  const pages: number[][] = [];
  for await (const page of portico.paginate<number>({ ...where, endpoint: '/items' })) pages.push(page);
  t.same(pages, [
    [1, 2],
    [3, 4],
  ]);

  // Scripts: syncs, records, actions, logs, deploys.
  t.match(await portico.listScripts('fake'), [
    { name: 'docs', type: 'sync', origin: 'options', hash: null },
    { name: 'sum', type: 'action' },
  ]);
  t.match(await portico.triggerSync({ ...where, syncs: ['docs'], mode: 'full' }), {
    queued: [{ sync: 'docs', connection_id: 'c1' }],
  });
  const status = await until(async () => {
    const [one] = await portico.syncStatus({ ...where, syncs: ['docs'] });
    return one?.latest_run?.status === 'success' ? one : undefined;
  }, 'the sync run');
  t.match(status.latest_run?.results, { Doc: { added: 3 } });
  t.same(
    (await portico.listRecords({ ...where, model: 'Doc' })).records.map((r) => r.id),
    ['d1', 'd2', 'd3'],
  );
  const recordPages: string[][] = [];
  for await (const page of portico.recordPages({ ...where, model: 'Doc', limit: 2 }))
    recordPages.push(page.records.map((r) => String(r.id)));
  t.same(recordPages, [['d1', 'd2'], ['d3']]);
  t.same(await portico.pauseSync({ ...where, syncs: ['docs'] }), [{ sync: 'docs', connection_id: 'c1' }]);
  t.same(await portico.startSync({ ...where, syncs: ['docs'] }), [{ sync: 'docs', connection_id: 'c1' }]);
  t.same(await portico.triggerAction({ ...where, actionName: 'sum', input: { a: 1, b: 2 } }), { sum: 3 });
  const queued = await portico.triggerActionAsync<{ a: number; b: number }, { sum: number }>({
    ...where,
    actionName: 'sum',
    input: { a: 20, b: 22 },
  });
  t.same(await queued.result({ intervalMs: 20 }), { sum: 42 });
  t.match(await portico.getActionResult(queued.id), { id: queued.id, status: 'succeeded', output: { sum: 42 } });
  t.same(await portico.waitForAction(queued.id, { intervalMs: 20 }), { sum: 42 });
  t.match((await portico.getScriptLogs({ script: 'docs' })).data, [{ level: 'warn', message: 'saved docs' }]);
  const logPages: unknown[][] = [];
  for await (const page of portico.scriptLogPages({ script: 'docs', limit: 1 })) logPages.push(page);
  t.ok(logPages.length >= 1 && logPages.every((p) => p.length <= 1));
  const echo = bundleScript(
    `export default createAction({ input: z.object({ v: z.string() }), output: z.object({ v: z.string() }), exec: async (s, i) => i });`,
  );
  t.match(await portico.deployScripts([{ integration: 'fake', name: 'echo', bundle: echo }]), [
    { name: 'echo', type: 'action', origin: 'deploy', hash: /^[0-9a-f]{64}$/ },
  ]);
  t.same(await portico.triggerAction({ ...where, actionName: 'echo', input: { v: 'deployed' } }), { v: 'deployed' });

  // Webhooks: the sync's webhook arrives signed; verifyWebhookSignature checks it; deliveries list it.
  const received = await until(
    async () => hooks.received.find((r) => JSON.parse(r.body.toString()).type === 'sync'),
    'the sync webhook',
  );
  t.equal(verifyWebhookSignature(received.body, received.headers, signingKey), true, 'a genuine webhook verifies');
  t.equal(
    verifyWebhookSignature(Buffer.concat([received.body, Buffer.from(' ')]), received.headers, signingKey),
    false,
    'a changed body does not',
  );
  t.equal(
    verifyWebhookSignature(received.body, received.headers, 'whsk_another_key_00000000'),
    false,
    'another key does not',
  );
  const deliveries = await until(async () => {
    const page = await portico.listWebhookDeliveries({ type: 'sync', state: 'delivered' });
    return page.data.length > 0 ? page : undefined;
  }, 'a delivered sync webhook');
  t.match(deliveries.data[0], {
    type: 'sync',
    state: 'delivered',
    connection_id: 'c1',
    target: 'primary',
    attempts: [{ attempt: 1, status: 200 }],
  });
  const all: string[] = [];
  for await (const page of portico.webhookDeliveryPages({ limit: 1 })) all.push(...page.map((d) => d.delivery_id));
  t.ok(all.length >= 1 && new Set(all).size === all.length, 'every delivery once');

  await portico.deleteConnection('fake', 'c2');
  t.match(await portico.getConnection('fake', 'c2').catch((e: unknown) => e), {
    code: 'unknown_connection',
    status: 404,
  });
  t.ok(PorticoError.is(await portico.listRecords({ ...where, model: 'Doc', limit: 5000 }).catch((e: unknown) => e)));

  t.same(missing(), [], 'every method of the client was called against the gateway');
});
