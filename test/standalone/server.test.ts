import { statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { readConfig } from '../../adapters/standalone/config.js';
import { startStandalone } from '../../adapters/standalone/server.js';

async function start(_t: unknown, env: NodeJS.ProcessEnv) {
  const lines: string[] = [];
  const standalone = await startStandalone(
    readConfig({ SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent', ...env }),
    (line) => lines.push(line),
  );
  return { standalone, lines, stop: () => standalone.stop() };
}

const providers = (url: string, key: string) =>
  fetch(`${url}/providers/stripe`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

t.test(
  'dev keys are kept beside the SQLite store: the same key after a restart, printed as export lines',
  async (t) => {
    const dir = t.testdir();
    const env = { SERVICE_STORE_URL: `sqlite://${dir}/portico.db`, SERVICE_ENVIRONMENTS: 'dev,prod' };
    const first = await start(t, env);
    const keys = first.standalone.secretKeys;
    t.match(keys, { dev: /^sk_dev_/, prod: /^sk_prod_/ });
    t.not(keys.dev, keys.prod);
    t.equal(await providers(first.standalone.url, keys.dev as string), 200);
    t.equal(await providers(first.standalone.url, keys.prod as string), 200);
    t.equal(statSync(join(dir, 'secret-key.dev')).mode & 0o777, 0o600, 'the key file is private');
    const banner = first.lines.join('\n');
    const port = new URL(first.standalone.url).port;
    t.match(banner, `listening on http://localhost:${port}`, 'the banner names the host the links use');
    t.match(banner, `export SERVICE_BASE_URL=http://localhost:${port}`);
    t.match(banner, `export SERVICE_SECRET_KEY=${keys.dev}`);
    t.match(banner, `export SERVICE_SECRET_KEY=${keys.prod}`);
    t.match(banner, /generated the development key of environment "prod"/);
    await first.stop();

    const second = await start(t, env);
    t.teardown(second.stop);
    t.same(second.standalone.secretKeys, keys, 'the same keys after a restart');
    t.equal(await providers(second.standalone.url, keys.prod as string), 200);
    t.match(second.lines.join('\n'), /using the development key of environment "dev"/);
  },
);

t.test('a configured key is used and never printed; the banner names its variable', async (t) => {
  const s = await start(t, {
    SERVICE_STORE_URL: 'memory://',
    SERVICE_ENVIRONMENTS: 'dev,prod',
    SERVICE_SECRET_KEY_DEV: 'sk_conf_dev_0123456789',
    SERVICE_SECRET_KEY_PROD: 'sk_conf_prod_0123456789',
  });
  t.teardown(s.stop);
  t.equal(await providers(s.standalone.url, 'sk_conf_prod_0123456789'), 200);
  const banner = s.lines.join('\n');
  t.notMatch(banner, /sk_conf_/);
  t.match(banner, 'export SERVICE_SECRET_KEY="$SERVICE_SECRET_KEY_PROD"');
});

t.test('webhook URLs and payloads name the environment they belong to', async (t) => {
  const s = await start(t, {
    SERVICE_STORE_URL: 'memory://',
    SERVICE_ENVIRONMENTS: 'dev,prod',
    SERVICE_SECRET_KEY_DEV: 'sk_conf_dev_0123456789',
    SERVICE_SECRET_KEY_PROD: 'sk_conf_prod_0123456789',
  });
  t.teardown(s.stop);
  const created = await fetch(`${s.standalone.url}/integrations`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk_conf_prod_0123456789', 'content-type': 'application/json' },
    body: JSON.stringify({ unique_key: 'stripe', provider: 'stripe' }),
  });
  t.equal(created.status, 201);
  t.match(JSON.stringify(await created.json()), `/webhook/prod/stripe`);
});

t.test('SERVICE_METRICS_TOKEN: /metrics on the main port behind the token', async (t) => {
  const s = await start(t, {
    SERVICE_STORE_URL: 'memory://',
    SERVICE_SECRET_KEY: 'sk_conf_dev_0123456789',
    SERVICE_METRICS_TOKEN: 'mt_standalone_0123456789',
  });
  t.teardown(s.stop);
  t.equal((await fetch(`${s.standalone.url}/metrics`)).status, 401);
  const res = await fetch(`${s.standalone.url}/metrics`, {
    headers: { authorization: 'Bearer mt_standalone_0123456789' },
  });
  t.equal(res.status, 200);
  t.match(await res.text(), /# TYPE portico_proxy_calls_total counter/);
});

t.test('SERVICE_METRICS_PORT: /metrics on a listener of its own, nothing else there', async (t) => {
  const s = await start(t, {
    SERVICE_STORE_URL: 'memory://',
    SERVICE_SECRET_KEY: 'sk_conf_dev_0123456789',
    SERVICE_METRICS_PORT: '0',
  });
  t.teardown(s.stop);
  const url = s.standalone.metricsUrl as string;
  t.ok(url);
  const res = await fetch(`${url}/metrics`);
  t.equal(res.status, 200);
  t.match(await res.text(), /portico_webhook_backlog/);
  t.equal(
    (await fetch(`${url}/providers`, { headers: { authorization: 'Bearer sk_conf_dev_0123456789' } })).status,
    404,
    'the gateway is not reachable there',
  );
  t.equal(
    (await fetch(`${s.standalone.url}/metrics`, { headers: { authorization: 'Bearer sk_conf_dev_0123456789' } }))
      .status,
    404,
    'nor the metrics on the main port',
  );
});
