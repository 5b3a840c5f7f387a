import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { apiKey, cliFor, cliGateway, header, json, tempFolder } from './setup.js';

const docsSync = `${header}
const Doc = z.object({ id: z.string(), title: z.string() });
export default createSync({
  frequency: 'every hour',
  models: { Doc },
  async exec(service) {
    await service.log('starting', { level: 'debug' });
    const metadata = await service.getMetadata();
    await service.log(\`team \${String(metadata.team)}\`, { level: 'info' });
    for await (const page of service.paginate<{ id: string; title: string }>({ endpoint: '/docs', params: { limit: 2 } })) {
      await service.batchSave(page, 'Doc');
    }
    await service.updateMetadata({ synced: true });
    await service.log('slow provider', { level: 'warn' });
    await service.log('one page was retried', { level: 'error' });
  },
});
`;

const eventsSync = `${header}
export default createSync({
  frequency: 'every hour',
  syncType: 'incremental',
  models: { Event: z.object({ id: z.string(), at: z.string() }) },
  checkpoint: z.object({ since: z.string() }),
  async exec(service) {
    const checkpoint = await service.getCheckpoint();
    const { data } = await service.get<{ id: string; at: string }[]>({ endpoint: '/events', params: { since: checkpoint?.since ?? '0' } });
    await service.batchSave(data, 'Event');
    await service.saveCheckpoint({ since: data.at(-1)?.at ?? checkpoint?.since ?? '0' });
  },
});
`;

const addNote = `${header}
export default createAction({
  input: z.object({ text: z.string().min(1) }),
  output: z.object({ id: z.string(), text: z.string() }),
  async exec(service, input) {
    await service.log(\`adding \${input.text}\`, { level: 'debug' });
    const { data } = await service.post<{ id: string; text: string }>({ endpoint: '/notes', data: { text: input.text } });
    return data;
  },
});
`;

t.test('dryrun runs scripts locally through the gateway proxy and saves nothing', async (t) => {
  const cli = await cliFor(t);
  const s = await cliGateway(t, cli, (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/api/docs' && !url.searchParams.has('cursor'))
      return json(res, {
        items: [
          { id: '1', title: 'One' },
          { id: '2', title: 'Two' },
        ],
        next: 'p2',
      });
    if (url.pathname === '/api/docs') return json(res, { items: [{ id: '3', title: 'Three' }], next: null });
    if (url.pathname === '/api/events')
      return json(res, [
        { id: 'e7', at: '7' },
        { id: 'e8', at: '8' },
      ]);
    if (url.pathname === '/api/notes')
      return json(res, { id: 'n1', ...(JSON.parse(req.body.toString()) as object) }, 201);
    return json(res, { message: 'not found' }, 404);
  });
  const ref = { environment: 'dev', providerConfigKey: 'fake', connectionId: 'c1', model: 'Doc' };
  await s.gw.gateway.records.batchSave(ref, [
    { id: '1', title: 'One' },
    { id: '2', title: 'Old two' },
    { id: '9', title: 'Gone' },
  ]);
  const before = (
    await s.gw.call('GET', '/records?model=Doc', { headers: { 'provider-config-key': 'fake', 'connection-id': 'c1' } })
  ).json;
  const boom = `${header}export default createSync({\n  frequency: 'every hour',\n  models: { A: z.object({ id: z.string() }) },\n  async exec() {\n    throw new Error('boom');\n  },\n});\n`;
  const dir = tempFolder(t, {
    'fake/syncs/docs.ts': docsSync,
    'fake/syncs/events.ts': eventsSync,
    'fake/actions/add-note.ts': addNote,
    'fake/syncs/boom.ts': boom,
  });

  t.test('a full sync: records, summary against stored records, every log level', async (t) => {
    const run = await s.portico(['dryrun', 'docs', 'c1'], dir);
    t.equal(run.code, 0, run.stderr);
    t.match(
      run.stdout,
      /Doc: 3 records\n\s+\{"id":"1","title":"One"\}\n\s+\{"id":"2","title":"Two"\}\n\s+\{"id":"3","title":"Three"\}/,
    );
    t.match(run.stdout, /deleted ids: 9/);
    t.match(run.stdout, /Doc: 1 added, 1 updated, 1 deleted, 1 unchanged/);
    t.match(run.stdout, /Metadata merge \(not saved\): \{"synced":true\}/);
    t.match(run.stdout, /succeeded .*3 proxied calls|succeeded .*2 proxied calls/);
    for (const [level, text] of [
      ['debug', 'starting'],
      ['info', 'team core'],
      ['warn', 'slow provider'],
      ['error', 'one page was retried'],
    ]) {
      t.match(run.stderr, new RegExp(`\\] ${level}\\s+${text}`), `${level} log shown`);
    }
    const calls = s.provider.received.filter((r) => r.url.startsWith('/api/docs'));
    t.same(
      calls.map((r) => r.url),
      ['/api/docs?limit=2', '/api/docs?limit=2&cursor=p2'],
      'the catalog pagination, through the proxy',
    );
    t.ok(
      calls.every((r) => r.headers.authorization === `Bearer ${apiKey}`),
      "the gateway attached the connection's key",
    );
    t.notMatch(run.stdout + run.stderr, apiKey, 'the credential never reaches the CLI output');

    const after = (
      await s.gw.call('GET', '/records?model=Doc', {
        headers: { 'provider-config-key': 'fake', 'connection-id': 'c1' },
      })
    ).json;
    t.same(after, before, 'records untouched');
    t.same(
      (await s.gw.call('GET', '/connections/c1?provider_config_key=fake')).json.data.metadata,
      { team: 'core' },
      'metadata untouched',
    );
    t.same((await s.gw.call('GET', '/logs')).json.data, [], 'no logs stored');
  });

  t.test('--json: one document with records, summary and logs', async (t) => {
    const run = await s.portico(['dryrun', 'fake/docs', 'c1', '--json'], dir);
    t.equal(run.code, 0, run.stderr);
    t.equal(run.stderr, '', 'no progress lines under --json');
    t.match(run.json, {
      ok: true,
      integration: 'fake',
      script: 'docs',
      connectionId: 'c1',
      type: 'sync',
      mode: 'full',
      summary: { Doc: { added: 1, updated: 1, deleted: 1, unchanged: 1 } },
      records: { Doc: { records: [{ id: '1' }, { id: '2', title: 'Two' }, { id: '3' }], deletedIds: ['9'] } },
      error: null,
    });
    t.same(
      run.json.logs.map((l: { level: string }) => l.level),
      ['debug', 'info', 'warn', 'error'],
    );
  });

  t.test('an incremental sync from --checkpoint, responses saved as fixtures', async (t) => {
    const run = await s.portico(['dryrun', 'events', 'c1', '--checkpoint', '{"since":"5"}', '--save-responses'], dir);
    t.equal(run.code, 0, run.stderr);
    t.match(s.provider.received.at(-1), { url: '/api/events?since=5' }, 'the script started from the given checkpoint');
    t.match(run.stdout, /Event: 2 added, 0 updated, 0 deleted/);
    t.match(run.stdout, /Checkpoint \(not saved\): \{"since":"8"\}/);
    const fixtures = join(dir, 'fake', 'fixtures', 'events');
    const files = readdirSync(fixtures);
    t.equal(files.length, 1);
    t.match(files[0], /^GET_events_[0-9a-f]{10}\.json$/);
    const saved = JSON.parse(readFileSync(join(fixtures, files[0] as string), 'utf8'));
    t.match(saved, {
      request: { method: 'GET', endpoint: '/events', params: { since: '5' } },
      response: { status: 200, data: [{ id: 'e7' }, { id: 'e8' }] },
    });
    t.notMatch(JSON.stringify(saved), apiKey);
    t.match(run.stdout, /Provider responses saved \(1\):\n\s+.*fake\/fixtures\/events\/GET_events_/);
    const stored = await s.gw.call('GET', '/records?model=Event', {
      headers: { 'provider-config-key': 'fake', 'connection-id': 'c1' },
    });
    t.same(stored.json.records, [], 'no Event record stored');
  });

  t.test('an action with --input: output, logs; a bad input fails naming the field', async (t) => {
    const run = await s.portico(['dryrun', 'add-note', 'c1', '--input', '{"text":"hello"}'], dir);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /Output \(\d+ bytes\):\n\{\n\s+"id": "n1",\n\s+"text": "hello"\n\}/);
    t.match(run.stderr, /\] debug\s+adding hello/);
    t.match(s.provider.received.at(-1), {
      method: 'POST',
      url: '/api/notes',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    t.same(JSON.parse(s.provider.received.at(-1)?.body.toString() ?? ''), { text: 'hello' });

    const bad = await s.portico(['dryrun', 'add-note', 'c1', '--input', '{}', '--json'], dir);
    t.equal(bad.code, 1);
    t.match(bad.json, { ok: false, type: 'action', error: { code: 'invalid_input', field: 'input.text' } });
  });

  t.test('a failing script: exit 1, the error and its line in the .ts source', async (t) => {
    const run = await s.portico(['dryrun', 'boom', 'c1'], dir);
    t.equal(run.code, 1);
    t.match(
      run.stdout,
      /Dry run of fake\/boom failed \(.*\): script_error: boom\n.*fake\/syncs\/boom\.ts:7:\d+[\s\S]*Nothing was saved\./,
    );
  });

  t.test('usage errors exit 2, gateway problems exit 3, an unknown connection exits 1', async (t) => {
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [['dryrun', 'docs'], {}, 2, /needs <script> <connection-id>/],
      [['dryrun', 'docs', 'c1', '--input', '{}'], {}, 2, /--input is for actions; fake\/docs is a sync/],
      [
        ['dryrun', 'docs', 'c1', '--checkpoint', '{"a":1}'],
        {},
        2,
        /--checkpoint is for incremental syncs; fake\/docs is a full sync/,
      ],
      [['dryrun', 'add-note', 'c1', '--input', '{oops'], {}, 2, /--input is not JSON/],
      [['dryrun', 'nope', 'c1'], {}, 2, /No script "nope".*fake\/add-note, fake\/boom, fake\/docs, fake\/events/],
      [['dryrun', 'docs', 'c1', '--bogus'], {}, 2, /Unknown option '--bogus'/],
      [['dryrun', 'docs', 'c1'], { SERVICE_SECRET_KEY: '' }, 2, /SERVICE_SECRET_KEY/],
      [
        ['dryrun', 'docs', 'c1'],
        { SERVICE_SECRET_KEY: 'sk_wrong_key_0123456789' },
        3,
        /refused the secret key \(unauthorized\)/,
      ],
      [
        ['dryrun', 'docs', 'c1', '--url', 'http://127.0.0.1:9'],
        {},
        3,
        /Cannot reach the gateway at http:\/\/127\.0\.0\.1:9/,
      ],
      [['dryrun', 'docs', 'c2'], {}, 1, /No connection "c2" under integration "fake"/],
    ];
    const runs = await Promise.all(cases.map(([args, env]) => s.portico(args, dir, env)));
    cases.forEach(([args, , code, stderr], i) => t.match(runs[i], { code, stderr }, args.join(' ')));
  });
});
