import t from 'tap';
import { createHookRegistry } from '../../lib/oauth/index.js';
import { createScriptHooks } from '../../lib/scripts/index.js';
import { writeScript } from './fixtures.js';
import { json, scriptSetup, waitFor } from './setup.js';

t.test('post-connection scripts run when a connection is created; catalog names resolve through the registry first', async (t) => {
  const dir = t.testdir({});
  const s = await scriptSetup(t, {
    respond: (req, res) => json(res, { account: req.url === '/api/me' ? 'acct-42' : 'other' }),
    scripts: {
      modules: [
        { file: writeScript(dir, 'tag-account.mjs', `export default createOnEvent({
          event: 'post-connection-creation',
          metadata: z.object({ account: z.string() }),
          exec: async (service) => { const { data } = await service.get({ endpoint: '/me' }); await service.updateMetadata({ account: data.account }); },
        });`), integrations: ['fake'] },
        { file: writeScript(dir, 'fetch-region.mjs', `export default createOnEvent({
          event: 'post-connection-creation',
          exec: async (service) => { await service.updateMetadata({ region: 'eu' }); await service.log('region set', { level: 'warn' }); },
        });`), integrations: ['other-integration'] },
      ],
    },
  });
  const tagged = await waitFor(async () => {
    const c = await s.gw.call('GET', '/connections/c1?provider_config_key=fake');
    return c.json.data.metadata.account ? c.json.data.metadata : undefined;
  }, 'the post-connection script');
  t.same(tagged, { account: 'acct-42' }, 'the script read the provider and set metadata; the other integration\'s script did not run');

  // The authorization flow's hook registry: a registered script of the catalog's name wins, then built-in hooks.
  const builtinCalls: string[] = [];
  const hooks = createScriptHooks(createHookRegistry({ 'fetch-region': async () => { builtinCalls.push('shadowed'); }, 'builtin-only': async () => { builtinCalls.push('builtin-only'); } }), () => s.gw.gateway.scripts);
  const connection = await s.gw.gateway.connections.require('dev', 'fake', 'c1');
  const context = (environment: string) => ({
    environment, connection, integration: await_(s.gw.gateway.integrations.require('dev', 'fake')), provider: s.gw.gateway.catalog.get('fake-api')!,
    logger: s.gw.gateway.logger, mergeMetadata: async () => {},
  });
  const integration = await s.gw.gateway.integrations.require('dev', 'fake');
  const ctx = { ...context('dev'), integration };
  await hooks.get('builtin-only')?.(ctx);
  t.same(builtinCalls, ['builtin-only'], 'no script of that name: the built-in hook runs');
  await hooks.get('tag-account')?.(ctx);
  const logs = await s.gw.call('GET', '/logs?script=tag-account');
  t.same(logs.json.data, [], 'the registered script ran (it logs nothing at warn)');
  t.same(builtinCalls, ['builtin-only']);
  await t.rejects(Promise.resolve(hooks.get('nothing-at-all')?.(ctx)).then(() => { throw new Error('resolved'); }), /resolved/, 'an unknown name only warns');
});

// A placeholder that keeps the context builder synchronous; the real integration is set after.
function await_<T>(_promise: Promise<T>): T {
  _promise.catch(() => {});
  return undefined as T;
}
