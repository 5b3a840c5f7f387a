import t from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { devKey } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';
import { browse as browseFresh, formStateOf, resultOf } from '../oauth/fixtures/browser.js';
import { startConnectGateway, testProvider } from '../oauth/fixtures/gateway.js';
import { startTcpCutterFor } from './tcp-cutter.js';

/** The gateway's answers must come well within 2 s; the slack is for a loaded test machine. */
const answerBound = 3_000;

// One browser: a flow is finished by the browser that started it (its cookie).
const jar = new Map<string, string>();
const browse: typeof browseFresh = (start, options = {}) => browseFresh(start, { jar, ...options });

t.test(
  'connecting an end user with the store cut: 503 store_unavailable fast, nothing half created, the flow finishes after',
  async (t) => {
    if (!(await requireRedis(t))) return;
    const cutter = await startTcpCutterFor(redisUrl);
    const prefix = uniquePrefix('faults-connect');
    const storage = createRedisStorage({ url: cutter.url, prefix });
    t.teardown(async () => {
      await storage.close();
      await cutter.close();
      await removeRedisKeys(prefix);
    });
    // The provider's API: the key is verified at /me before a connection is created.
    const api = await fakeProvider((req, res) => {
      res.statusCode = req.headers['x-api-key'] === 'good-key' ? 200 : 401;
      res.end('{}');
    });
    t.teardown(() => api.close());
    const gw = await startConnectGateway(t, {
      storage,
      providers: [
        testProvider('local-key', {
          auth_mode: 'API_KEY',
          proxy: {
            base_url: api.url,
            credentials: [{ in: 'header', name: 'X-Api-Key', value: '${apiKey}' }],
            verification_endpoint: '/me',
          },
        }),
      ],
    });
    t.equal(
      (await gw.call('POST', '/integrations', { body: { unique_key: 'key', provider: 'local-key' } })).status,
      201,
    );
    const createSession = () =>
      gw.call('POST', '/connect/sessions', {
        body: { end_user: { id: 'eu-1' }, allowed_integrations: ['key'], origin: 'https://app.example.test' },
      });
    const ready = () =>
      waitFor(
        async () => (await gw.call('GET', '/health/ready', { key: null })).status === 200,
        'readiness after the restore',
      );

    cutter.cut();
    let started = performance.now();
    const refused = await fetch(`${gw.base}/connect/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${devKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ end_user: { id: 'eu-1' }, allowed_integrations: ['key'] }),
    });
    let ms = Math.round(performance.now() - started);
    t.equal(refused.status, 503, 'connect session creation: 503');
    t.equal((await refused.json()).error?.code, 'store_unavailable');
    t.ok(Number(refused.headers.get('retry-after')) > 0, 'with Retry-After');
    t.ok(ms < answerBound, `in ${ms} ms`);
    cutter.restore();
    await ready();

    const session = await createSession();
    t.equal(session.status, 201, 'a session once the store is back');
    const page = await browse(session.json.data.connect_link);
    t.equal(page.status, 200, 'the end user gets the form');
    const state = formStateOf(page.text);

    // The end user submits a good key while the store is away: the key is verified with the
    // provider, but the connection cannot be written.
    cutter.cut();
    started = performance.now();
    const submitted = await browse(`${gw.base}/oauth/connect/key`, {
      method: 'POST',
      form: { state, apiKey: 'good-key' },
    });
    ms = Math.round(performance.now() - started);
    t.equal(submitted.status, 503, 'the form submit: 503');
    t.ok(ms < answerBound, `in ${ms} ms`);
    t.match(submitted.text, /nothing was stored\. Please try again\./, 'the page tells the end user to try again');
    t.match(submitted.text, /"error":\{"code":"store_unavailable"/, 'the opener is told the code');
    t.notMatch(submitted.text, /redis|socket|ECONN|no answer within/i, 'no internals on the page');
    t.notOk(
      gw.events.some((e) => e.type === 'connection.created'),
      'no connection announced',
    );
    cutter.restore();
    await ready();

    const listed = await gw.call('GET', '/connections?provider_config_key=key');
    t.equal(listed.status, 200);
    t.same(listed.json.data, [], 'no connection, half created or whole, after the restore');
    // The same form (its state was not spent by the failed write) finishes the flow once.
    const accepted = await browse(`${gw.base}/oauth/connect/key`, {
      method: 'POST',
      form: { state, apiKey: 'good-key' },
    });
    const { message } = resultOf(accepted.text);
    t.equal(message.ok, true, 'the end user can finish the flow after the restore');
    const after = await gw.call('GET', '/connections?provider_config_key=key');
    t.equal(after.json.data.length, 1, 'exactly one connection');
    t.equal(gw.events.filter((e) => e.type === 'connection.created').length, 1, 'announced once');
  },
);
