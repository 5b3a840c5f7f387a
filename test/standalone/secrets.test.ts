import t from 'tap';
import { readConfig } from '../../adapters/standalone/config.js';
import { maskUrl, removeSecretVariables } from '../../adapters/standalone/secrets.js';
import { startStandalone } from '../../adapters/standalone/server.js';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';

const key = Buffer.alloc(32, 3).toString('base64');

t.test('the keys leave the process environment once read; the configuration keeps them', async (t) => {
  const env: NodeJS.ProcessEnv = {
    SERVICE_SECRET_KEY: 'sk_standalone_secret_0123456789',
    SERVICE_ENCRYPTION_KEY: key,
    SERVICE_STORE_URL: 'redis://:hunter2@127.0.0.1:6379',
    SERVICE_DEPLOY_KEY: 'dk_standalone_deploy_0123456789',
    SERVICE_DEPLOY_KEY_PROD: 'dk_standalone_prod_0123456789',
    SERVICE_DEPLOYS_DISABLED: 'prod, staging',
    SERVICE_WEBHOOK_SIGNING_KEY: 'whsk_standalone_0123456789',
    SERVICE_BASE_URL: 'http://localhost:3003',
    PATH: '/usr/bin',
  };
  const config = readConfig(env);
  t.same(removeSecretVariables(env).sort(), [
    'SERVICE_DEPLOY_KEY',
    'SERVICE_DEPLOY_KEY_PROD',
    'SERVICE_ENCRYPTION_KEY',
    'SERVICE_SECRET_KEY',
    'SERVICE_STORE_URL',
    'SERVICE_WEBHOOK_SIGNING_KEY',
  ]);
  t.same(Object.keys(env).sort(), ['PATH', 'SERVICE_BASE_URL', 'SERVICE_DEPLOYS_DISABLED']);
  t.equal(config.encryptionKey, key);
  t.equal(config.deployKey, 'dk_standalone_deploy_0123456789');
  t.same(config.deployKeys, { prod: 'dk_standalone_prod_0123456789' });
  t.same(config.deploysDisabled, ['prod', 'staging']);
  t.throws(() => readConfig({ SERVICE_DEPLOY_KEY: 'short' }), /SERVICE_DEPLOY_KEY: must be at least 16 characters/);
});

t.test('store URLs are printed without their password', async (t) => {
  t.equal(maskUrl('redis://:hunter2@127.0.0.1:6379/0'), 'redis://:***@127.0.0.1:6379/0');
  t.equal(maskUrl('rediss://admin:hunter2@cache.internal:6380'), 'rediss://admin:***@cache.internal:6380');
  t.equal(
    maskUrl('postgres://portico:hunter2@127.0.0.1:5432/portico'),
    'postgres://portico:***@127.0.0.1:5432/portico',
  );
  t.equal(maskUrl('redis://tokenonly@127.0.0.1:6379'), 'redis://***@127.0.0.1:6379');
  t.equal(maskUrl('sqlite://./data/portico.db'), 'sqlite://./data/portico.db');
  t.equal(maskUrl('redis://:hunter2@[bad'), 'redis://***');

  const lines: string[] = [];
  const dir = t.testdir();
  const standalone = await startStandalone(
    readConfig({
      PORT: '0',
      SERVICE_STORE_URL: `sqlite://${dir}/p.db`,
      SERVICE_SECRET_KEY: 'sk_standalone_secret_0123456789',
      SERVICE_ENCRYPTION_KEY: key,
      LOG_LEVEL: 'silent',
    }),
    (line) => lines.push(line),
  );
  t.teardown(() => standalone.stop());
  t.match(lines.join('\n'), /listening on http:\/\/localhost:\d+ \(interface 127\.0\.0\.1:\d+; store: sqlite:\/\//);
  t.notMatch(lines.join('\n'), key, 'the start-up lines hold no key');
  t.notMatch(lines.join('\n'), 'sk_standalone_secret', 'nor the configured secret key');
});

t.test('a standalone server on PostgreSQL: the banner masks the password, the store answers', async (t) => {
  if (!(await requirePostgres(t))) return;
  // Trust authentication takes any password: this one is only there to be masked.
  const url = new URL(postgresSchema(t, 'standalone').url);
  url.password = 'hunter2';
  const lines: string[] = [];
  const standalone = await startStandalone(
    readConfig({
      PORT: '0',
      SERVICE_STORE_URL: url.toString(),
      SERVICE_SECRET_KEY: 'sk_standalone_secret_0123456789',
      SERVICE_ENCRYPTION_KEY: key,
      LOG_LEVEL: 'silent',
    }),
    (line) => lines.push(line),
  );
  t.teardown(() => standalone.stop());
  const banner = lines.join('\n');
  t.match(banner, /store: postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:5432\/postgres\?schema=portico_test_standalone_/);
  t.notMatch(banner, /hunter2/);
  const port = /interface 127\.0\.0\.1:(\d+)/.exec(banner)?.[1];
  const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
  t.equal(ready.status, 200, await ready.text());
});
