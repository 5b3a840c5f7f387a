import type { Test } from 'tap';
import t from 'tap';
import type { GatewayOptions } from '../../lib/gateway.js';
import { devKey, prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { sharedStores } from '../helpers/shared-stores.js';
import { writeScript } from './fixtures.js';
import { json, providerEntry, waitFor } from './setup.js';

const ticker = `export default createSync({
  frequency: 'every 1 second',
  models: { Tick: z.object({ id: z.string() }) },
  exec: async (service) => { await service.get({ endpoint: '/tick', params: { run: service.runId } }); },
});`;

/** Scheduled runs as their logs show them: run id and schedule slot. */
async function scheduledRuns(gw: TestGateway) {
  const logs = (await gw.call('GET', '/logs?script=ticker&limit=1000')).json.data as {
    run_id: string;
    message: string;
  }[];
  return logs
    .flatMap((l) => {
      const slot = /trigger schedule, .*slot (\S+)$/.exec(l.message)?.[1];
      return slot ? [{ run: l.run_id, slot: Date.parse(slot) }] : [];
    })
    .sort((a, b) => a.slot - b.slot);
}

async function start(t: Test, file: string, providerUrl: string, extra: Partial<GatewayOptions>) {
  return startGateway(t, {
    providers: [providerEntry(`${providerUrl}/api`)],
    environments: [
      { name: 'dev', secretKey: devKey, scriptLogLevel: 'info' },
      { name: 'prod', secretKey: prodKey },
    ],
    scripts: { workers: 2, heapMb: 96, minimumFrequency: 1_000, modules: [{ file, integrations: ['fake'] }] },
    ...extra,
  });
}

async function connect(gw: TestGateway) {
  await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'k' } },
  });
}

// The same proof on every store several instances can share.
for (const store of sharedStores)
  t.test(`three gateways on one ${store.name}: each scheduled slot runs once`, async (t) => {
    if (!(await store.require(t))) return;
    const provider = await fakeProvider((_req, res) => json(res, { ok: true }));
    t.teardown(() => provider.close());
    const file = writeScript(t.testdir({}), 'ticker.mjs', ticker);
    const open = store.place(t, 'scripts-schedule');
    const storages = [0, 1, 2].map(() => open());
    // Registered before the gateways' own teardowns, so the storages close after the gateways
    // (teardowns run last registered first), and close even when a gateway fails to start.
    t.teardown(async () => {
      for (const storage of storages) await storage.close();
    });
    const gateways: TestGateway[] = [];
    for (const storage of storages) gateways.push(await start(t, file, provider.url, { storage, cacheTtlMs: 200 }));
    await connect(gateways[0] as TestGateway);

    const runs = await waitFor(async () => {
      const found = await scheduledRuns(gateways[2] as TestGateway);
      return found.length >= 6 ? found : undefined;
    }, 'six scheduled runs');
    const slots = runs.map((r) => r.slot);
    t.equal(new Set(slots).size, slots.length, 'no slot ran twice');
    for (let i = 1; i < slots.length; i++) {
      const gap = (slots[i] as number) - (slots[i - 1] as number);
      t.ok(gap >= 1_000 && gap % 1_000 === 0, `runs are whole periods apart (${gap} ms), not one per gateway`);
    }
    const requested = provider.received.map((r) => new URL(r.url, 'http://x').searchParams.get('run'));
    for (const run of runs)
      t.equal(requested.filter((id) => id === run.run).length, 1, `scheduled run ${run.run} called the provider once`);
  });

t.test('one gateway on memory storage schedules through the store outbox', async (t) => {
  const provider = await fakeProvider((_req, res) => json(res, { ok: true }));
  t.teardown(() => provider.close());
  const gw = await start(t, writeScript(t.testdir({}), 'ticker.mjs', ticker), provider.url, {});
  await connect(gw);
  const runs = await waitFor(async () => {
    const found = await scheduledRuns(gw);
    return found.length >= 3 ? found : undefined;
  }, 'three scheduled runs');
  for (let i = 1; i < runs.length; i++)
    t.ok((runs[i]?.slot as number) - (runs[i - 1]?.slot as number) >= 1_000, 'one run per period');
  const status = await gw.call('GET', '/sync/status?provider_config_key=fake&syncs=ticker');
  t.match(status.json.data, [
    { sync: 'ticker', connection_id: 'c1', frequency: 'every 1 second', paused: false, next_run_at: /^\d{4}-/ },
  ]);

  // Paused: scheduled runs stop; started again: they resume.
  t.equal(
    (await gw.call('POST', '/sync/pause', { body: { provider_config_key: 'fake', syncs: ['ticker'] } })).status,
    200,
  );
  const paused = (await gw.call('GET', '/sync/status?provider_config_key=fake&syncs=ticker&connection_id=c1')).json
    .data[0];
  t.match(paused, { paused: true, next_run_at: null });
  await waitFor(
    async () =>
      (await gw.call('GET', '/sync/status?provider_config_key=fake&syncs=ticker&connection_id=c1')).json.data[0]
        .status !== 'running',
    'the run in progress to end',
  );
  const countAtPause = provider.received.length;
  const before = (await scheduledRuns(gw)).length;
  // Three more periods pass with no scheduled run (the schedule itself keeps ticking).
  const slotAtPause = Date.now();
  await waitFor(() => Date.now() - slotAtPause > 3_000, 'three periods');
  t.equal((await scheduledRuns(gw)).length, before, 'no scheduled run while paused');
  t.equal(provider.received.length, countAtPause);
  await gw.call('POST', '/sync/start', {
    body: { provider_config_key: 'fake', syncs: ['ticker'], connection_id: 'c1' },
  });
  await waitFor(async () => (await scheduledRuns(gw)).length > before, 'a scheduled run after start');
  t.pass('scheduled runs resumed');
});
