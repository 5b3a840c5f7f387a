import t from 'tap';
import { writeScript } from './fixtures.js';
import { apiKey, json, scriptSetup, waitFor } from './setup.js';

/** A provider list API paged by cursor: `GET /api/items?limit=&cursor=` → `{ items, next }`. */
function cursorApi(items: { id: string; name: string }[]) {
  return (req: { url: string }, res: import('node:http').ServerResponse) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname !== '/api/items') return json(res, { error: 'not found' }, 404);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const page = items.slice(start, start + limit);
    json(res, { items: page, next: start + limit < items.length ? String(start + limit) : null });
  };
}

const itemsSync = `export default createSync({
  frequency: 'every hour',
  autoStart: false,
  models: { Item: z.object({ id: z.string(), name: z.string().min(1) }) },
  exec: async (service) => {
    for await (const page of service.paginate({ endpoint: '/items', params: { limit: 2 } })) {
      await service.batchSave(page.map((i) => ({ id: i.id, name: i.name })), 'Item');
    }
  },
});`;

const paginate = {
  paginate: {
    type: 'cursor',
    cursor_path_in_response: 'next',
    cursor_name_in_request: 'cursor',
    response_path: 'items',
    limit_name_in_request: 'limit',
  },
};

t.test(
  'a full sync pages through a cursor API, saves records, detects changes and deletions across runs',
  async (t) => {
    const dir = t.testdir({});
    const items = [
      { id: 'a', name: 'Alpha' },
      { id: 'b', name: 'Beta' },
      { id: 'c', name: 'Gamma' },
    ];
    const s = await scriptSetup(t, {
      respond: cursorApi(items),
      proxy: paginate,
      scripts: { modules: [{ file: writeScript(dir, 'items.mjs', itemsSync), integrations: ['fake'] }] },
    });

    const first = await s.syncOnce('items', { mode: 'full' });
    t.match(first, {
      sync: 'items',
      connection_id: 'c1',
      status: 'success',
      paused: true,
      next_run_at: null,
      latest_run: {
        status: 'success',
        mode: 'full',
        trigger: 'api',
        results: { Item: { added: 3, updated: 0, deleted: 0 } },
      },
    });
    t.same(
      s.provider.received.map((r) => r.url),
      ['/api/items?limit=2', '/api/items?limit=2&cursor=2'],
      'two pages, the second from the cursor',
    );
    t.ok(
      s.provider.received.every((r) => r.headers.authorization === `Bearer ${apiKey}`),
      "the connection's credentials were attached by the proxy",
    );

    const records = await s.gw.call('GET', '/records?model=Item', {
      headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
    });
    t.same(
      records.json.records.map((r: any) => [r.id, r.name, r._service_metadata.last_action]),
      [
        ['a', 'Alpha', 'ADDED'],
        ['b', 'Beta', 'ADDED'],
        ['c', 'Gamma', 'ADDED'],
      ],
    );

    // The provider changes: b renamed, c gone, d new.
    items.splice(0, items.length, { id: 'a', name: 'Alpha' }, { id: 'b', name: 'Beta 2' }, { id: 'd', name: 'Delta' });
    const second = await s.syncOnce('items', { mode: 'full' });
    t.match(
      second.latest_run.results,
      { Item: { added: 1, updated: 1, deleted: 1 } },
      'one added, one updated, one deleted',
    );
    const deleted = await s.gw.call('GET', '/records?model=Item&filter=deleted', {
      headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
    });
    t.same(
      deleted.json.records.map((r: any) => r.id),
      ['c'],
      'what the full run did not save is deleted',
    );
    t.ok(deleted.json.records[0]._service_metadata.deleted_at);
    const updated = await s.gw.call('GET', '/records?model=Item&filter=updated', {
      headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
    });
    t.same(
      updated.json.records.map((r: any) => [r.id, r.name]),
      [['b', 'Beta 2']],
    );

    const third = await s.syncOnce('items', { mode: 'full' });
    t.match(
      third.latest_run.results,
      { Item: { added: 0, updated: 0, deleted: 0 } },
      'an unchanged provider changes nothing',
    );

    // Webhooks: a sync event per run with its counts, and records announcements for runs that changed something.
    const hooks = await waitFor(() => {
      const all = s.webhooks();
      return all.filter((w) => w.type === 'sync').length >= 3 && all.filter((w) => w.type === 'records').length >= 2
        ? all
        : undefined;
    }, 'sync and records webhooks');
    const syncs = hooks.filter((w) => w.type === 'sync').sort((a, b) => a.started_at.localeCompare(b.started_at));
    t.match(
      syncs.map((w) => w.results),
      [
        { added: 3, updated: 0, deleted: 0 },
        { added: 1, updated: 1, deleted: 1 },
        { added: 0, updated: 0, deleted: 0 },
      ],
    );
    t.match(syncs[0], {
      connection_id: 'c1',
      provider_config_key: 'fake',
      sync_name: 'items',
      model: 'Item',
      success: true,
    });
    const announcements = hooks
      .filter((w) => w.type === 'records')
      .sort((a, b) => a.modified_after.localeCompare(b.modified_after));
    t.match(announcements, [
      { model: 'Item', count: 3, cursor: null },
      { model: 'Item', count: 3 },
    ]);
    const since = await s.gw.call('GET', `/records?model=Item&cursor=${encodeURIComponent(announcements[1]?.cursor)}`, {
      headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
    });
    t.same(
      since.json.records.map((r: any) => r.id).sort(),
      ['b', 'c', 'd'],
      'the announced cursor gives exactly the records the second run changed',
    );
    t.equal(announcements[0]?.latest_cursor, announcements[1]?.cursor, 'each announcement ends where the next begins');
    t.equal(
      announcements[1]?.latest_cursor,
      since.json.records.at(-1)._service_metadata.cursor,
      'and names the newest record it announces',
    );
  },
);

t.test('an incremental sync resumes from its checkpoint; a full trigger starts over', async (t) => {
  const dir = t.testdir({});
  const items = [
    { id: 'a', name: 'A', seq: 1 },
    { id: 'b', name: 'B', seq: 2 },
  ];
  const s = await scriptSetup(t, {
    respond: (req, res) => {
      const since = Number(new URL(req.url, 'http://x').searchParams.get('since') ?? 0);
      json(
        res,
        items.filter((i) => i.seq > since),
      );
    },
    scripts: {
      modules: [
        {
          file: writeScript(
            dir,
            'changes.mjs',
            `export default createSync({
          frequency: 'every 5 minutes', syncType: 'incremental', autoStart: false,
          models: { Item: z.object({ id: z.string(), name: z.string() }) },
          checkpoint: z.object({ since: z.number() }),
          exec: async (service) => {
            const checkpoint = await service.getCheckpoint();
            const { data } = await service.get({ endpoint: '/changes', params: checkpoint ? { since: checkpoint.since } : {} });
            await service.batchSave(data.map((i) => ({ id: i.id, name: i.name })), 'Item');
            if (data.length > 0) await service.saveCheckpoint({ since: Math.max(...data.map((i) => i.seq)) });
            await service.log('mode ' + service.mode + ', last sync ' + (service.lastSyncDate ? 'set' : 'none'), { level: 'warn' });
          },
        });`,
          ),
          integrations: ['fake'],
        },
      ],
    },
  });
  const first = await s.syncOnce('changes');
  t.match(first.latest_run, { status: 'success', mode: 'incremental', results: { Item: { added: 2 } } });
  items.push({ id: 'c', name: 'C', seq: 3 });
  const second = await s.syncOnce('changes');
  t.match(
    second.latest_run.results,
    { Item: { added: 1, updated: 0, deleted: 0 } },
    'only the change since the checkpoint',
  );
  t.same(
    s.provider.received.map((r) => r.url),
    ['/api/changes', '/api/changes?since=2'],
    'the second run asked from the checkpoint',
  );

  items.splice(1, 1);
  const full = await s.syncOnce('changes', { mode: 'full' });
  t.equal(s.provider.received.at(-1)?.url, '/api/changes', 'a full run starts without the checkpoint');
  t.match(
    full.latest_run,
    { mode: 'full', results: { Item: { added: 0, updated: 0, deleted: 1 } } },
    'and detects the deletion',
  );

  const logs = await s.gw.call('GET', '/logs?script=changes');
  t.same(
    logs.json.data.map((l: any) => l.message),
    ['mode full, last sync set', 'mode incremental, last sync set', 'mode incremental, last sync none'],
    'newest first',
  );
});

t.test("records that fail the model's schema fail the run, which is recorded and announced", async (t) => {
  const dir = t.testdir({});
  const s = await scriptSetup(t, {
    respond: (_req, res) =>
      json(res, [
        { id: 'a', name: 'ok' },
        { id: 'b', name: '' },
      ]),
    scripts: {
      modules: [
        {
          file: writeScript(
            dir,
            'strict.mjs',
            `export default createSync({
          frequency: 'every day', autoStart: false,
          models: { Item: z.object({ id: z.string(), name: z.string().min(1) }) },
          exec: async (service) => {
            const { data } = await service.get({ endpoint: '/items' });
            await service.batchSave(data, 'Item');
          },
        });`,
          ),
          integrations: ['fake'],
        },
      ],
    },
  });
  const status = await s.syncOnce('strict');
  t.match(status, {
    status: 'failed',
    latest_run: { status: 'failed', error: { code: 'invalid_record', message: /^Item: records\[1\]\.name: / } },
  });
  const records = await s.gw.call('GET', '/records?model=Item', {
    headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
  });
  t.same(records.json.records, [], 'nothing of the bad batch was saved');
  const logs = await s.gw.call('GET', '/logs?connection_id=c1');
  t.match(logs.json.data[0], {
    level: 'error',
    script: 'strict',
    type: 'sync',
    message: /invalid_record.*records\[1\]\.name/,
  });
  const failed = await waitFor(() => s.webhooks().find((w) => w.type === 'sync'), 'the failed sync webhook');
  t.match(failed, {
    success: false,
    sync_name: 'strict',
    model: 'Item',
    error: { code: 'invalid_record' },
    results: { added: 0, updated: 0, deleted: 0 },
  });
});
