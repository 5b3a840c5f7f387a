import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createPorticoClient } from '../../lib/client/index.js';
import { devKey } from '../helpers/gateway.js';
import type { BuiltCli } from './harness.js';
import { cliFor, cliGateway, header, json, tempFolder } from './setup.js';

const docsSync = `${header}
export default createSync({
  frequency: 'every hour',
  autoStart: false,
  models: { Doc: z.object({ id: z.string(), title: z.string() }) },
  async exec(service) {
    const { data } = await service.get<{ items: { id: string; title: string }[] }>({ endpoint: '/docs' });
    await service.batchSave(data.items, 'Doc');
  },
});
`;
const addNote = (version: number) => `${header}
export default createAction({
  input: z.object({ text: z.string() }),
  output: z.object({ text: z.string(), version: z.number() }),
  async exec(_service, input) {
    return { text: input.text, version: ${version} };
  },
});
`;
const ping = `${header}export default createAction({ input: z.object({}), output: z.literal('pong'), async exec() { return 'pong' as const; } });\n`;

/** `portico deploy` at a terminal (a pseudo-terminal from util-linux script), answering `answer`. */
function deployAtTerminal(
  cli: BuiltCli,
  cwd: string,
  env: Record<string, string>,
  answer: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `${process.execPath} ${cli.main} deploy`, '/dev/null'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'dumb', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let answered = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!answered && output.includes('[y/N]')) {
        answered = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

t.test(
  'deploy uploads compiled scripts, shows the changes, asks before destructive ones; the gateway runs them',
  async (t) => {
    const cli = await cliFor(t);
    const s = await cliGateway(
      t,
      cli,
      (req, res) =>
        req.url === '/api/docs' ? json(res, { items: [{ id: 'd1', title: 'First' }] }) : json(res, {}, 404),
      {
        scripts: { workers: 2, heapMb: 64, bundleDir: tempFolder(t) },
      },
    );
    const dir = tempFolder(t, {
      'fake/syncs/docs.ts': docsSync,
      'fake/actions/add-note.ts': addNote(1),
      'fake/actions/ping.ts': ping,
    });
    const portico = createPorticoClient({ baseUrl: s.gw.url, secretKey: devKey });

    const first = await s.portico(['deploy'], dir);
    t.equal(first.code, 0, first.stderr);
    t.match(
      first.stdout,
      /\+ fake\/add-note\s+action, added\n\s+\+ fake\/docs\s+sync, added\n\s+\+ fake\/ping\s+action, added/,
    );
    t.match(first.stdout, /Deployed 3 scripts to http:\/\/127\.0\.0\.1:\d+/);
    t.match(
      first.stderr,
      /Bundling 3 scripts…[\s\S]*Type-checking 3 scripts…[\s\S]*Uploading 3 scripts \(\d+\.\d KB\)/,
    );

    // What was deployed runs on the gateway: a sync triggered through the SDK stores records, an action answers.
    t.match(
      await portico.triggerSync({ providerConfigKey: 'fake', syncs: ['docs'], connectionId: 'c1', mode: 'full' }),
      { queued: [{ sync: 'docs', connection_id: 'c1' }] },
    );
    for (let i = 0; i < 400; i++) {
      const [status] = await portico.syncStatus({ providerConfigKey: 'fake', syncs: ['docs'], connectionId: 'c1' });
      if (status?.latest_run?.status === 'success') break;
      if (status?.latest_run?.status === 'failed') t.fail(JSON.stringify(status.latest_run.error));
      await sleep(50);
    }
    t.match((await portico.listRecords({ providerConfigKey: 'fake', connectionId: 'c1', model: 'Doc' })).records, [
      { id: 'd1', title: 'First' },
    ]);
    t.same(
      await portico.triggerAction({
        providerConfigKey: 'fake',
        connectionId: 'c1',
        actionName: 'add-note',
        input: { text: 'hi' },
      }),
      { text: 'hi', version: 1 },
    );

    // Dropping the sync is destructive: refused without a terminal or the flag; nothing changes.
    rmSync(join(dir, 'fake/syncs/docs.ts'));
    writeFileSync(join(dir, 'fake/actions/add-note.ts'), addNote(2));
    const refused = await s.portico(['deploy'], dir);
    t.equal(refused.code, 4, refused.stderr);
    t.match(
      refused.stdout,
      /~ fake\/add-note\s+action, changed\n\s+- fake\/docs\s+sync, removed — DESTRUCTIVE: sync removed[\s\S]*\n\s+= fake\/ping\s+action, unchanged/,
    );
    t.match(
      refused.stderr,
      /Not deployed: the deploy is destructive \(fake\/docs: sync removed.*\)\. Pass --allow-destructive to deploy anyway\. Nothing changed\./,
    );
    t.notMatch(refused.stderr, /Type-checking|Uploading/, 'stopped before the type-check and the upload');
    t.same(
      (await portico.listScripts('fake')).map((e) => e.name).sort(),
      ['add-note', 'docs', 'ping'],
      'the gateway is unchanged',
    );

    const atTerminal = await deployAtTerminal(
      cli,
      dir,
      { SERVICE_BASE_URL: s.gw.url, SERVICE_SECRET_KEY: devKey },
      'n',
    );
    t.equal(atTerminal.code, 4, atTerminal.output);
    t.match(
      atTerminal.output,
      /This deploy is destructive \(fake\/docs: sync removed.*\)\. Deploy anyway\? \[y\/N\]/,
      'asked at a terminal',
    );
    t.match(atTerminal.output, /Not deployed[\s\S]*Nothing changed/);
    t.same(
      await portico.triggerAction({
        providerConfigKey: 'fake',
        connectionId: 'c1',
        actionName: 'add-note',
        input: { text: 'hi' },
      }),
      { text: 'hi', version: 1 },
      'still the first version',
    );

    const allowed = await s.portico(['deploy', '--allow-destructive', '--json'], dir);
    t.equal(allowed.code, 0, allowed.stderr);
    t.match(allowed.json, {
      ok: true,
      deployed: true,
      changes: [
        { integration: 'fake', name: 'add-note', type: 'action', change: 'changed', destructive: null },
        { integration: 'fake', name: 'docs', type: 'sync', change: 'removed', destructive: /sync removed/ },
        { integration: 'fake', name: 'ping', type: 'action', change: 'unchanged', destructive: null },
      ],
    });
    t.same(
      await portico.triggerAction({
        providerConfigKey: 'fake',
        connectionId: 'c1',
        actionName: 'add-note',
        input: { text: 'hi' },
      }),
      { text: 'hi', version: 2 },
      'the new version runs',
    );
    t.same((await portico.listScripts('fake')).map((e) => e.name).sort(), ['add-note', 'ping']);
    t.match(
      await portico.syncStatus({ providerConfigKey: 'fake', syncs: ['docs'] }).catch((e: unknown) => e),
      { code: 'unknown_script' },
      'the removed sync is gone',
    );
    t.notOk(existsSync(join(dir, 'dist/fake/syncs/docs.mjs')), 'its stale bundle is removed from dist');
    t.ok(existsSync(join(dir, 'dist/fake/actions/add-note.mjs')));

    // The gateway and key as flags instead of SERVICE_BASE_URL / SERVICE_SECRET_KEY.
    const again = await s.portico(['deploy', '--url', s.gw.url, '--secret-key', devKey], dir, {
      SERVICE_BASE_URL: '',
      SERVICE_SECRET_KEY: '',
    });
    t.equal(again.code, 0, again.stderr);
    t.match(
      again.stdout,
      /= fake\/add-note\s+action, unchanged\n\s+= fake\/ping\s+action, unchanged\nNothing to deploy: every script is up to date\./,
    );
    t.notMatch(again.stderr, /Type-checking|Uploading/, 'nothing compiled twice, nothing uploaded');
  },
);
