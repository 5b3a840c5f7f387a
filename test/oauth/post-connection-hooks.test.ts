import t from 'tap';
import type { PostConnectionContext } from '../../lib/connect/index.js';
import { browse as browseFresh, formStateOf, resultOf } from './fixtures/browser.js';
import { startConnectGateway, testProvider, type ConnectGateway } from './fixtures/gateway.js';

// One browser for the file: a flow is finished by the browser that started it (its cookie).
const jar = new Map<string, string>();
const browse: typeof browseFresh = (start, options = {}) => browseFresh(start, { jar, ...options });

const keyProvider = (name: string, script: string) =>
  testProvider(name, {
    auth_mode: 'API_KEY',
    post_connection_script: script,
    proxy: { base_url: 'https://api.example.com' },
  });

async function connectWithKey(gw: ConnectGateway, key: string, apiKey: string) {
  const link = (
    await gw.call('POST', '/connect/sessions', { body: { end_user: { id: 'eu-1' }, allowed_integrations: [key] } })
  ).json.data.connect_link;
  const form = await browse(link);
  const done = await browse(`${gw.base}/oauth/connect/${key}`, {
    method: 'POST',
    form: { state: formStateOf(form.text), apiKey },
  });
  return resultOf(done.text).message;
}

t.test("the provider's post-connection script runs as a named hook after the connection is stored", async (t) => {
  const seen: PostConnectionContext[] = [];
  const gw = await startConnectGateway(t, {
    providers: [
      keyProvider('hooked', 'lookup-account'),
      keyProvider('unhooked', 'not-registered'),
      keyProvider('failing', 'explodes'),
    ],
    postConnectionHooks: {
      'lookup-account': async (context) => {
        seen.push(context);
        if (context.connection.credentials.type !== 'API_KEY') throw new Error('unexpected credentials');
        await context.mergeMetadata({ account_id: `acct-for-${context.connection.credentials.apiKey.slice(-4)}` });
      },
      explodes: () => {
        throw new Error('boom');
      },
    },
  });
  for (const [key, provider] of [
    ['hooked', 'hooked'],
    ['unhooked', 'unhooked'],
    ['failing', 'failing'],
  ]) {
    await gw.call('POST', '/integrations', { body: { unique_key: key, provider } });
  }

  const hooked = await connectWithKey(gw, 'hooked', 'sk_secret_value_1234');
  t.equal(hooked.ok, true);
  t.equal(seen.length, 1);
  t.match(seen[0], {
    environment: 'dev',
    provider: { name: 'hooked' },
    integration: { unique_key: 'hooked' },
    connection: { connection_id: hooked.connection_id },
  });
  const stored = (await gw.call('GET', `/connections/${hooked.connection_id}?provider_config_key=hooked`)).json.data;
  t.same(stored.metadata, { account_id: 'acct-for-1234' }, 'what the hook found is on the connection');

  const unhooked = await connectWithKey(gw, 'unhooked', 'sk_secret_value_5678');
  t.equal(unhooked.ok, true, 'a missing hook does not fail the connection');
  const logged = (message: string, field: string, value: string) =>
    gw.logs.some((l) => {
      const line = JSON.parse(l) as Record<string, unknown>;
      return line.level === 'warn' && String(line.msg).startsWith(message) && line[field] === value;
    });
  t.ok(
    logged('post-connection script not registered', 'script', 'not-registered'),
    'a missing hook is logged as a warning',
  );

  const failing = await connectWithKey(gw, 'failing', 'sk_secret_value_9012');
  t.equal(failing.ok, true, 'a failing hook does not undo the connection');
  t.ok((await gw.call('GET', `/connections/${failing.connection_id}?provider_config_key=failing`)).status === 200);
  t.ok(logged('post-connection script failed', 'error', 'boom'), 'a failing hook is logged as a warning');

  t.notOk(
    gw.logs.some((l) => l.includes('sk_secret_value')),
    'no credential reaches the logs',
  );
});
