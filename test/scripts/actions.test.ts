import type { Test } from 'tap';
import t from 'tap';
import { writeScript } from './fixtures.js';
import { json, scriptSetup, waitFor, type ScriptSetup } from './setup.js';

const mb = 1024 * 1024;

async function setup(t: Test): Promise<ScriptSetup> {
  const dir = t.testdir({});
  const file = (name: string, body: string) => ({
    file: writeScript(dir, `${name}.mjs`, body),
    integrations: ['fake'],
  });
  return scriptSetup(t, {
    respond: async (req, res) => {
      if (req.method === 'POST' && req.url === '/api/issues')
        return json(res, { id: 'iss-1', ...JSON.parse(req.body.toString('utf8')) }, 201);
      json(res, { error: 'nope' }, 404);
    },
    scripts: {
      actionTimeoutMs: 20_000,
      modules: [
        file(
          'create-issue',
          `export default createAction({
          input: z.object({ title: z.string().min(1), labels: z.array(z.string()).default([]) }),
          output: z.object({ id: z.string(), title: z.string() }),
          exec: async (service, input) => {
            const { data } = await service.post({ endpoint: '/issues', data: { title: input.title, labels: input.labels } });
            return { id: data.id, title: data.title };
          },
        });`,
        ),
        file(
          'big',
          `export default createAction({
          input: z.object({ bytes: z.number().int() }), output: z.object({ blob: z.string() }),
          exec: async (service, input) => ({ blob: 'x'.repeat(input.bytes) }),
        });`,
        ),
        file(
          'refuse',
          `export default createAction({
          input: z.object({}), output: z.object({}),
          exec: async () => { throw new ActionError({ reason: 'quota_exceeded', retry_in: 60 }, 'The provider quota is used up.'); },
        });`,
        ),
        file(
          'missing',
          `export default createAction({
          input: z.object({}), output: z.object({ id: z.string() }),
          exec: async (service) => { await service.get({ endpoint: '/nothing-here' }); return { id: 'never' }; },
        });`,
        ),
      ],
    },
  });
}

t.test('sync mode answers the output; the provider got the call with credentials', async (t) => {
  const s = await setup(t);
  const res = await s.action('create-issue', { title: 'Broken build' });
  t.equal(res.status, 200);
  t.same(res.json, { id: 'iss-1', title: 'Broken build' });
  t.match(res.headers.get('x-run-id'), /^[0-9a-f-]{36}$/);
  const sent = s.provider.received.find((r) => r.method === 'POST');
  t.same(
    JSON.parse(String(sent?.body)),
    { title: 'Broken build', labels: [] },
    "the schema's default was applied before exec",
  );
  t.match(sent?.headers.authorization, /^Bearer sk_fake/);
});

t.test('input that fails the schema is a 400 naming the field, and nothing reaches the provider', async (t) => {
  const s = await setup(t);
  const res = await s.action('create-issue', { title: 'x', labels: [1] });
  t.equal(res.status, 400);
  t.match(res.json.error, { code: 'invalid_action_input', field: 'input.labels[0]', message: /^input\.labels\[0\]: / });
  const missing = await s.action('create-issue', undefined);
  t.match(missing.json.error, { code: 'invalid_action_input', field: 'input' });
  t.equal(s.provider.received.length, 0);
  const unknown = await s.action('no-such-action', {});
  t.match(unknown, { status: 404, json: { error: { code: 'unknown_script' } } });
  const noHeader = await s.gw.call('POST', '/action/trigger', {
    headers: { 'provider-config-key': 'fake' },
    body: { action_name: 'create-issue', input: {} },
  });
  t.match(noHeader, { status: 400, json: { error: { code: 'missing_connection_id' } } });
  const otherConnection = await s.action('create-issue', { title: 'x' }, { 'connection-id': 'nobody' });
  t.match(otherConnection, { status: 404, json: { error: { code: 'unknown_connection' } } });
});

t.test('async mode: 202 with an id and a status URL, the result under GET /action/:id, and a webhook', async (t) => {
  const s = await setup(t);
  const res = await s.action('create-issue', { title: 'Later' }, { 'x-async': 'true' });
  t.equal(res.status, 202);
  t.match(res.json, { id: /^[0-9a-f-]{36}$/, status_url: `http://127.0.0.1:0/action/${res.json.id}` });
  t.equal(res.headers.get('location'), res.json.status_url);
  const done = await waitFor(async () => {
    const r = await s.gw.call('GET', `/action/${res.json.id}`);
    return r.json.data.status === 'succeeded' ? r : undefined;
  }, 'the async action');
  t.match(done.json.data, {
    id: res.json.id,
    action_name: 'create-issue',
    connection_id: 'c1',
    provider_config_key: 'fake',
    status: 'succeeded',
    output: { id: 'iss-1', title: 'Later' },
    error: null,
  });
  const hook = await waitFor(() => s.webhooks().find((w) => w.type === 'action'), 'the action webhook');
  t.match(hook, {
    type: 'action',
    action_id: res.json.id,
    action_name: 'create-issue',
    connection_id: 'c1',
    success: true,
    output: { id: 'iss-1' },
  });
  t.match(await s.gw.call('GET', '/action/not-an-id'), {
    status: 404,
    json: { error: { code: 'unknown_action_run' } },
  });
  const asProd = await s.gw.call('GET', `/action/${res.json.id}`, { key: 'sk_test_prod_0123456789abcdef' });
  t.equal(asProd.status, 404, 'another environment does not see the result');
});

t.test('an output over 2 MB is an error with its own code, never a truncated answer (spec 7, 8)', async (t) => {
  const s = await setup(t);
  const under = await s.action('big', { bytes: 2 * mb - 100 });
  t.equal(under.status, 200);
  t.equal(under.json.blob.length, 2 * mb - 100, 'just under the limit passes whole');
  const over = await s.action('big', { bytes: 2 * mb });
  t.equal(over.status, 502, 'a bad-gateway answer with its own code, not a 500');
  t.match(over.json.error, { code: 'action_output_too_large', message: /2097163 bytes; the limit is 2097152 bytes/ });
  t.ok(over.text.length < 2000, 'no part of the output is sent');
  const queued = await s.action('big', { bytes: 3 * mb }, { 'x-async': 'true' });
  const failed = await waitFor(async () => {
    const r = await s.gw.call('GET', `/action/${queued.json.id}`);
    return r.json.data.status === 'failed' ? r : undefined;
  }, 'the async failure');
  t.match(failed.json.data, { status: 'failed', output: null, error: { code: 'action_output_too_large' } });
  const logs = await s.gw.call('GET', `/logs?run_id=${queued.json.id}`);
  t.match(logs.json.data, [{ level: 'error', script: 'big', type: 'action', message: /action_output_too_large/ }]);
});

t.test('a typed ActionError reaches the caller with its payload; a provider error fails the action', async (t) => {
  const s = await setup(t);
  const refused = await s.action('refuse', {});
  t.equal(refused.status, 500);
  t.match(refused.json.error, {
    code: 'action_failed',
    message: 'The provider quota is used up.',
    payload: { reason: 'quota_exceeded', retry_in: 60 },
  });
  const missing = await s.action('missing', {});
  t.match(missing.json.error, { code: 'action_failed', message: /provider answered 404 to \/nothing-here/ });
});
