import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { gatewayTarget } from '../../lib/cli/gateway.js';
import { createReporter } from '../../lib/cli/io.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { devKey, prodKey, testEncryptionKey } from '../helpers/gateway.js';
import { bundleScript } from './fixtures.js';
import { json, scriptSetup } from './setup.js';

const deployKey = 'dk_ci_deploys_only_0123456789';
const echo = bundleScript(
  `export default createAction({ input: z.object({}), output: z.object({}), exec: async () => ({}) });`,
);

t.test(
  'a deploy key deploys and does nothing else; the secret key no longer deploys; prod can refuse deploys',
  async (t) => {
    const s = await scriptSetup(t, {
      respond: (_req, res) => json(res, {}),
      scripts: {},
      gateway: {
        environments: [
          { name: 'dev', secretKey: devKey, deployKey },
          { name: 'prod', secretKey: prodKey, deploysDisabled: true },
        ],
      },
    });
    const deploy = (key: string) =>
      s.gw.call('POST', '/scripts/deploy', {
        key,
        body: { scripts: [{ integration: 'fake', name: 'echo', bundle: echo }] },
      });

    t.match(
      await deploy(devKey),
      { status: 403, json: { error: { code: 'forbidden', message: /deploy key only/ } } },
      'the secret key does not deploy',
    );
    t.same((await s.gw.call('GET', '/scripts')).json.data, [], '…and deployed nothing');
    t.match(await deploy(deployKey), { status: 200, json: { data: { deployed: [{ name: 'echo' }] } } });
    for (const [method, path] of [
      ['GET', '/scripts'],
      ['GET', '/connections'],
      ['GET', '/proxy/ping'],
    ]) {
      const res = await s.gw.call(method as string, path as string, {
        key: deployKey,
        headers: { 'provider-config-key': 'fake', 'connection-id': 'c1' },
      });
      t.match(
        res,
        { status: 401, json: { error: { code: 'unauthorized', message: /deploy key only deploys/ } } },
        `${method} ${path} refuses the deploy key`,
      );
    }
    t.match(
      await deploy(prodKey),
      { status: 403, json: { error: { code: 'deploys_disabled' } } },
      'prod refuses every deploy',
    );
    t.match(await deploy('dk_not_a_key_0123456789abc'), { status: 401 });
  },
);

t.test('deploy keys are checked at start: long enough, shared with no other key', async (t) => {
  const storage = createMemoryStorage();
  t.teardown(() => storage.close());
  const start = (environments: Parameters<typeof createGateway>[0]['environments']) =>
    createGateway({
      environments,
      storage,
      encryptionKeys: testEncryptionKey,
      baseUrl: 'http://127.0.0.1:0',
      logger: createLogger({ level: 'silent' }),
    });
  await t.rejects(
    start([{ name: 'dev', secretKey: devKey, deployKey: 'short' }]),
    /deploy key must be at least 16 characters/,
  );
  await t.rejects(
    start([
      { name: 'dev', secretKey: devKey, deployKey: prodKey },
      { name: 'prod', secretKey: prodKey },
    ]),
    /secret key is shared|deploy key must differ/,
  );
});

t.test('the CLI deploys with SERVICE_DEPLOY_KEY, else the secret key', async (t) => {
  const context = (env: Record<string, string>) => ({
    io: { cwd: '.', env, stdout: () => {}, stderr: () => {}, stdin: process.stdin, interactive: false },
    reporter: createReporter(
      { cwd: '.', env, stdout: () => {}, stderr: () => {}, stdin: process.stdin, interactive: false },
      true,
    ),
    values: { url: 'http://127.0.0.1:9' },
    positionals: [],
  });
  const keyOf = async (env: Record<string, string>, purpose: 'deploy' | 'api') => {
    let sent = '';
    const original = globalThis.fetch;
    globalThis.fetch = (async (_url: unknown, init: { headers: Record<string, string> }) => {
      sent = new Headers(init.headers).get('authorization') ?? '';
      return new Response('{"data":[]}', { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    try {
      await gatewayTarget(context(env), purpose).client.listScripts();
    } finally {
      globalThis.fetch = original;
    }
    return sent;
  };
  t.equal(await keyOf({ SERVICE_DEPLOY_KEY: deployKey, SERVICE_SECRET_KEY: devKey }, 'deploy'), `Bearer ${deployKey}`);
  t.equal(
    await keyOf({ SERVICE_DEPLOY_KEY: deployKey, SERVICE_SECRET_KEY: devKey }, 'api'),
    `Bearer ${devKey}`,
    'other commands keep the secret key',
  );
  t.equal(await keyOf({ SERVICE_SECRET_KEY: devKey }, 'deploy'), `Bearer ${devKey}`);
});
