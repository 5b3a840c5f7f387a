import t from 'tap';
import { writeScript } from './fixtures.js';
import { scriptSetup, waitFor } from './setup.js';

t.test('a proxied call still in flight when its run times out is cancelled at the provider', async (t) => {
  const dir = t.testdir({});
  let cancelled = false;
  let answered = false;
  const s = await scriptSetup(t, {
    // The provider never answers; it only notices when the gateway gives up on the request.
    respond: (_req, res) => {
      res.on('close', () => {
        if (!res.writableEnded) cancelled = true;
      });
      setTimeout(() => {
        answered = true;
        res.end('{}');
      }, 60_000).unref();
    },
    scripts: {
      actionTimeoutMs: 2_000,
      modules: [
        {
          file: writeScript(
            dir,
            'hang.mjs',
            `export default createAction({ input: z.object({}), output: z.object({}), exec: async (s) => { await s.get({ endpoint: '/slow' }); return {}; } });`,
          ),
          integrations: ['fake'],
        },
      ],
    },
  });
  const run = await s.action('hang', {});
  t.match(run.json, { error: { code: 'script_timeout' } });
  await waitFor(() => cancelled, 'the provider to see the request cancelled', 15_000);
  t.notOk(answered, 'cancelled long before the provider would have answered');
});
