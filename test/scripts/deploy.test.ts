import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { devKey, prodKey, testEncryptionKey } from '../helpers/gateway.js';
import { bundleScript, writeScript } from './fixtures.js';
import { json, scriptSetup } from './setup.js';

const echoSource = `export default createAction({ description: 'Echoes', input: z.object({ v: z.string() }), output: z.object({ v: z.string(), version: z.number() }), exec: async (s, input) => ({ v: input.v, version: 1 }) });`;
const echoBundle = bundleScript(echoSource);
const echoV2 = bundleScript(echoSource.replace('version: 1', 'version: 2'));
const syncBundle = bundleScript(
  `export default createSync({ frequency: 'every 30 minutes', models: { Doc: z.object({ id: z.string(), title: z.string() }) }, exec: async () => {} });`,
);

t.test('the CLI deploys compiled bundles: listed, run, replaced, scheduled; bad deploys change nothing', async (t) => {
  const s = await scriptSetup(t, { respond: (_req, res) => json(res, {}), scripts: { bundleDir: t.testdir({}) } });
  const deploy = (scripts: unknown) => s.gw.call('POST', '/scripts/deploy', { body: { scripts } });

  const first = await deploy([
    { integration: 'fake', name: 'echo', bundle: echoBundle },
    { integration: 'fake', name: 'docs', bundle: syncBundle },
  ]);
  t.equal(first.status, 200);
  t.match(first.json.data.deployed, [
    {
      name: 'echo',
      integration: 'fake',
      type: 'action',
      origin: 'deploy',
      description: 'Echoes',
      input: { type: 'object' },
    },
    {
      name: 'docs',
      integration: 'fake',
      type: 'sync',
      frequency: 'every 30 minutes',
      sync_type: 'full',
      models: { Doc: { type: 'object' } },
    },
  ]);
  t.same((await s.action('echo', { v: 'hi' })).json, { v: 'hi', version: 1 });
  const status = await s.gw.call('GET', '/sync/status?provider_config_key=fake&syncs=docs');
  t.match(
    status.json.data,
    [{ sync: 'docs', connection_id: 'c1', frequency: 'every 30 minutes', next_run_at: /^\d{4}-/ }],
    'the deployed sync is scheduled',
  );
  t.same((await s.gw.call('GET', '/scripts', { key: prodKey })).json.data, [], 'deploys belong to their environment');

  t.equal((await deploy([{ integration: 'fake', name: 'echo', bundle: echoV2 }])).status, 200);
  t.same((await s.action('echo', { v: 'hi' })).json, { v: 'hi', version: 2 }, 'a warm worker runs the new version');
  t.match(
    await s.gw.call('GET', '/sync/status?provider_config_key=fake&syncs=docs'),
    { status: 404, json: { error: { code: 'unknown_script' } } },
    'the sync left with the deploy that dropped it',
  );
  t.same(
    (await s.gw.call('GET', '/scripts')).json.data.map((e: any) => e.name),
    ['echo'],
  );

  const legacy = await s.gw.call('POST', '/scripts/deploy', {
    body: { yaml: 'integrations:\n  fake:\n    syncs: {}', scripts: [] },
  });
  t.equal(legacy.status, 400);
  t.match(legacy.json.error, { code: 'unsupported_script_format', message: /no longer supported.*createSync/ });

  const broken = await deploy([{ integration: 'fake', name: 'echo', bundle: 'export default { hello: "world" };' }]);
  t.equal(broken.status, 400);
  t.match(broken.json.error, {
    code: 'invalid_script',
    problems: [{ name: 'echo', message: /not built with createSync, createAction or createOnEvent/ }],
  });
  const syntax = await deploy([{ integration: 'fake', name: 'echo', bundle: 'export default createAction({' }]);
  t.match(syntax.json.error, { code: 'invalid_script' });
  t.same((await s.action('echo', { v: 'still' })).json, { v: 'still', version: 2 }, 'failed deploys changed nothing');
  t.match(
    await deploy([
      { integration: 'fake', name: 'echo', bundle: echoV2 },
      { integration: 'fake', name: 'echo', bundle: echoV2 },
    ]),
    { status: 400, json: { error: { field: 'scripts[1].name' } } },
  );
});

t.test('registration problems stop the gateway at start, every one listed', async (t) => {
  const dir = t.testdir({});
  const notAScript = writeScript(dir, 'plain.mjs', 'export default { exec() {} };');
  const tooOften = writeScript(
    dir,
    'often.mjs',
    `export default createSync({ frequency: 'every 10 seconds', models: { A: z.object({ id: z.string() }) }, exec: async () => {} });`,
  );
  const storage = createMemoryStorage();
  t.teardown(() => storage.close());
  await t.rejects(
    createGateway({
      environments: [{ name: 'dev', secretKey: devKey }],
      storage,
      encryptionKeys: testEncryptionKey,
      baseUrl: 'http://127.0.0.1:0',
      logger: createLogger({ level: 'silent' }),
      scripts: {
        modules: [
          { file: notAScript, integrations: ['fake'] },
          { file: tooOften, integrations: ['fake'] },
        ],
      },
    }),
    /plain\.mjs: the default export is not built with createSync[\s\S]*often\.mjs: frequency "every 10 seconds" is below the minimum of 1 minute/,
  );
  await t.rejects(
    createGateway({
      environments: [{ name: 'dev', secretKey: devKey, scriptLogLevel: 'loud' as 'info' }],
      storage,
      encryptionKeys: testEncryptionKey,
      baseUrl: 'http://127.0.0.1:0',
      logger: createLogger({ level: 'silent' }),
    }),
    /scriptLogLevel: "loud" must be one of debug, info, warn, error/,
  );
});
