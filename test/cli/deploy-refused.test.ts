import t from 'tap';
import { createPorticoClient } from '../../lib/client/index.js';
import { devKey } from '../helpers/gateway.js';
import { cliFor, cliGateway, header, json, tempFolder } from './setup.js';

t.test('a bundle the gateway refuses: every problem listed, exit 1, nothing deployed', async (t) => {
  const cli = await cliFor(t);
  const s = await cliGateway(t, cli, (_req, res) => json(res, {}), {
    scripts: { workers: 2, heapMb: 64, bundleDir: tempFolder(t) },
  });
  // createSync accepts seconds (an operator may allow them); this gateway keeps its 1 minute minimum.
  const dir = tempFolder(t, {
    'fake/syncs/fast.ts': `${header}export default createSync({ frequency: 'every 10 seconds', models: { A: z.object({ id: z.string() }) }, async exec() {} });\n`,
  });
  const run = await s.portico(['deploy'], dir);
  t.equal(run.code, 1, run.stderr);
  t.match(run.stdout, /\+ fake\/fast\s+sync, added/);
  t.match(
    run.stderr,
    /The gateway refused the deploy; nothing changed:\n\s+fake\/fast: frequency "every 10 seconds" is below the minimum of 1 minute/,
  );
  t.same(await createPorticoClient({ baseUrl: s.gw.url, secretKey: devKey }).listScripts(), []);
});
