import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, readConfig } from '../../adapters/standalone/config.js';
import { startStandalone } from '../../adapters/standalone/server.js';
import { writeScript } from './fixtures.js';
import { json, scriptSetup } from './setup.js';

const chatty = `export default createAction({
  input: z.object({ n: z.number() }), output: z.object({ ok: z.boolean() }),
  exec: async (service, input) => {
    await service.log('debug line ' + input.n, { level: 'debug' });
    await service.log('info line ' + input.n);
    await service.log('warn line ' + input.n, { level: 'warn' });
    await service.log('error line ' + input.n, { level: 'error' });
    return { ok: true };
  },
});`;

const levels = (data: { level: string }[]) => data.map((l) => l.level);

async function setup(t: import('tap').Test, scriptLogLevel?: 'debug' | 'info' | 'warn' | 'error') {
  const dir = t.testdir({});
  return scriptSetup(t, {
    respond: (_req, res) => json(res, {}),
    scripts: { modules: [{ file: writeScript(dir, 'chatty.mjs', chatty), integrations: ['fake'] }] },
    ...(scriptLogLevel ? { scriptLogLevel } : {}),
  });
}

t.test('by default only warn and error are stored; a run can lower the threshold (spec 8)', async (t) => {
  const s = await setup(t);
  t.equal((await s.action('chatty', { n: 1 })).status, 200);
  const stored = await s.gw.call('GET', '/logs?script=chatty');
  t.same(
    stored.json.data.map((l: any) => l.message),
    ['error line 1', 'warn line 1'],
    'debug and info are dropped, newest first',
  );
  t.match(stored.json.data[0], {
    script: 'chatty',
    type: 'action',
    connection_id: 'c1',
    provider_config_key: 'fake',
    level: 'error',
    run_id: /^[0-9a-f-]{36}$/,
  });

  t.equal((await s.action('chatty', { n: 2 }, {}, { log_level: 'debug' })).status, 200);
  const raised = await s.gw.call('GET', '/logs?script=chatty&limit=4');
  t.same(
    levels(raised.json.data),
    ['error', 'warn', 'info', 'debug'],
    'the per-run level keeps everything of that run',
  );
  t.equal(new Set(raised.json.data.map((l: any) => l.run_id)).size, 1);

  // Pagination: newest first, continued by cursor, filtered by run.
  const next = await s.gw.call('GET', `/logs?script=chatty&limit=4&cursor=${raised.json.next_cursor}`);
  t.same(
    next.json.data.map((l: any) => l.message),
    ['error line 1', 'warn line 1'],
  );
  t.equal(next.json.next_cursor, null);
  const oneRun = await s.gw.call('GET', `/logs?run_id=${stored.json.data[0].run_id}`);
  t.same(
    oneRun.json.data.map((l: any) => l.message),
    ['error line 1', 'warn line 1'],
  );
  t.same((await s.gw.call('GET', '/logs?connection_id=someone-else')).json.data, []);
  t.match(await s.gw.call('GET', '/logs?cursor=nonsense'), {
    status: 400,
    json: { error: { code: 'invalid_cursor' } },
  });
  t.match(await s.gw.call('GET', '/logs?level=debug'), { status: 400 }, 'unknown parameters are refused');
  t.same(
    (await s.gw.call('GET', '/logs', { key: 'sk_test_prod_0123456789abcdef' })).json.data,
    [],
    'logs stay in their environment',
  );
  t.match(await s.action('chatty', { n: 3 }, {}, { log_level: 'verbose' }), {
    status: 400,
    json: { error: { field: 'log_level' } },
  });
});

t.test('an environment level (Environment.scriptLogLevel) lowers the default', async (t) => {
  const s = await setup(t, 'info');
  await s.action('chatty', { n: 1 });
  t.same(levels((await s.gw.call('GET', '/logs')).json.data), ['error', 'warn', 'info']);
});

t.test(
  'SERVICE_LOGGER_LEVEL: refused unless debug, info, warn or error; applied by the standalone server',
  async (t) => {
    t.throws(() => readConfig({ SERVICE_LOGGER_LEVEL: 'verbose' }), ConfigError);
    const problems = (() => {
      try {
        readConfig({ SERVICE_LOGGER_LEVEL: 'off', SERVICE_SCRIPTS_DIR: '/nonexistent/portico-scripts' });
        return '';
      } catch (error) {
        return (error as ConfigError).problems.join('\n');
      }
    })();
    t.match(problems, /SERVICE_LOGGER_LEVEL: "off"/, 'both bad variables are listed at once');
    t.match(problems, /SERVICE_SCRIPTS_DIR/);
    const dir = t.testdir({});
    mkdirSync(join(dir, 'stripe', 'actions'), { recursive: true });
    writeScript(join(dir, 'stripe', 'actions'), 'chatty.mjs', chatty);

    const counts: Record<string, string[]> = {};
    for (const level of [undefined, 'info', 'debug'] as const) {
      const config = readConfig({
        PORT: '0',
        SERVICE_STORE_URL: 'memory://',
        SERVICE_SECRET_KEY: 'sk_standalone_0123456789',
        SERVICE_SCRIPTS_DIR: dir,
        ...(level ? { SERVICE_LOGGER_LEVEL: level } : {}),
      });
      t.equal(config.environments[0]?.scriptLogLevel, level);
      const server = await startStandalone({ ...config, logLevel: 'silent' }, () => {});
      try {
        const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
          fetch(server.url + path, {
            method,
            headers: {
              authorization: 'Bearer sk_standalone_0123456789',
              'content-type': 'application/json',
              ...headers,
            },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
        await call('POST', '/integrations', { unique_key: 'stripe', provider: 'stripe' });
        await call('POST', '/connections', {
          provider_config_key: 'stripe',
          connection_id: 'c1',
          credentials: { type: 'API_KEY', apiKey: 'sk_x' },
        });
        const res = await call(
          'POST',
          '/action/trigger',
          { action_name: 'chatty', input: { n: 1 } },
          { 'connection-id': 'c1', 'provider-config-key': 'stripe' },
        );
        t.same(res.json, { ok: true }, 'the script from SERVICE_SCRIPTS_DIR ran');
        counts[level ?? 'unset'] = levels((await call('GET', '/logs')).json.data);
      } finally {
        await server.stop();
      }
    }
    t.same(counts, {
      unset: ['error', 'warn'],
      info: ['error', 'warn', 'info'],
      debug: ['error', 'warn', 'info', 'debug'],
    });
  },
);

t.test('a scripts directory holding the removed YAML configuration is refused at start (spec 9)', async (t) => {
  const dir = t.testdir({ 'nango.yaml': 'integrations:\n  stripe:\n    syncs: {}\n' });
  writeFileSync(join(dir, 'README.md'), 'scripts');
  const config = readConfig({ PORT: '0', SERVICE_STORE_URL: 'memory://', SERVICE_SCRIPTS_DIR: dir });
  await t.rejects(
    startStandalone({ ...config, logLevel: 'silent' }, () => {}),
    /nango\.yaml: the YAML script configuration format is no longer supported.*createSync/s,
  );
});
