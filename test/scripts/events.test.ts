import t from 'tap';
import { createHookRegistry } from '../../lib/connect/index.js';
import { createScriptHooks } from '../../lib/scripts/index.js';
import { writeScript } from './fixtures.js';
import { json, scriptSetup, waitFor } from './setup.js';

t.test(
  'post-connection scripts run when a connection is created; catalog names resolve through the registry first',
  async (t) => {
    const dir = t.testdir({});
    const onEvent = (name: string, integration: string, body: string) => ({
      file: writeScript(
        dir,
        `${name}.mjs`,
        `export default createOnEvent({ event: 'post-connection-creation', exec: async (service) => { ${body} } });`,
      ),
      integrations: [integration],
    });
    const s = await scriptSetup(t, {
      respond: (req, res) => json(res, { account: req.url === '/api/me' ? 'acct-42' : 'other' }),
      // The catalog names `stamp` as the provider's post_connection_script: the authorization flow runs it.
      provider: { post_connection_script: 'stamp' },
      scripts: {
        modules: [
          onEvent(
            'tag-account',
            'fake',
            `const { data } = await service.get({ endpoint: '/me' }); await service.updateMetadata({ account: data.account });`,
          ),
          onEvent(
            'stamp',
            'fake',
            `await service.updateMetadata({ stamped: true }); await service.log('stamped', { level: 'warn' });`,
          ),
          onEvent('elsewhere', 'other-integration', `await service.updateMetadata({ elsewhere: true });`),
        ],
      },
    });
    const metadata = await waitFor(async () => {
      const c = await s.gw.call('GET', '/connections/c1?provider_config_key=fake');
      return c.json.data.metadata.account ? c.json.data.metadata : undefined;
    }, 'the post-connection script');
    t.same(
      metadata,
      { account: 'acct-42' },
      "the integration's post-connection script read the provider and set metadata; no other ran",
    );
    t.same(
      (await s.gw.call('GET', '/logs?script=stamp')).json.data,
      [],
      'the catalog-named script is left to the authorization flow',
    );

    // The hook registry the authorization flow uses: a registered script of the catalog's name runs on a worker…
    const builtinCalls: string[] = [];
    const hooks = createScriptHooks(
      createHookRegistry({
        stamp: async () => {
          builtinCalls.push('stamp');
        },
        'builtin-only': async () => {
          builtinCalls.push('builtin-only');
        },
      }),
      () => s.gw.gateway.scripts,
    );
    const context = {
      environment: 'dev',
      connection: await s.gw.gateway.connections.require('dev', 'fake', 'c1'),
      integration: await s.gw.gateway.integrations.require('dev', 'fake'),
      provider: s.gw.gateway.catalog.get('fake-api')!,
      logger: s.gw.gateway.logger,
      mergeMetadata: async () => {},
    };
    await hooks.get('stamp')?.(context);
    t.match((await s.gw.call('GET', '/connections/c1?provider_config_key=fake')).json.data.metadata, {
      account: 'acct-42',
      stamped: true,
    });
    t.match((await s.gw.call('GET', '/logs?script=stamp')).json.data, [
      { message: 'stamped', type: 'on-event', connection_id: 'c1' },
    ]);
    t.same(builtinCalls, [], '…shadowing the built-in hook of the same name');
    // …otherwise the built-in hook runs, and an unknown name only warns.
    await hooks.get('builtin-only')?.(context);
    t.same(builtinCalls, ['builtin-only']);
    await hooks.get('nothing-at-all')?.(context);
    t.same(builtinCalls, ['builtin-only']);
  },
);
