import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { createLogStore, type RunSummary } from '../../lib/scripts/logs/log-store.js';

const run = (i: number, connection: string, script: string): RunSummary => ({
  run_id: `run-${i}`,
  type: 'sync',
  script,
  provider_config_key: 'p',
  connection_id: connection,
  started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
});
const line = (message: string) => ({ level: 'warn' as const, message, created_at: '2026-01-01T00:00:00.000Z' });

t.test('runs listed by start time, filtered through their own lists, the oldest dropped beyond maxRuns', async (t) => {
  const storage = createSqliteStorage({ path: join(t.testdir(), 'logs.db') });
  t.teardown(() => storage.close());
  const store = createLogStore(storage, { maxRuns: 5 });
  // Written out of start order: the index orders them.
  for (const i of [3, 1, 2, 4, 6, 5, 7])
    await store.write('dev', run(i, i % 2 ? 'odd' : 'even', i < 5 ? 'early' : 'late'), [line(`a${i}`), line(`b${i}`)]);
  await store.write('dev', run(8, 'odd', 'late'), []);

  const all = await store.query('dev', {}, { limit: 100 });
  t.ok(all.ok);
  if (!all.ok) return;
  t.same(
    all.data.map((l) => l.message),
    ['b7', 'a7', 'b6', 'a6', 'b5', 'a5', 'b4', 'a4', 'b3', 'a3'],
    'newest run first, its newest line first; runs 1 and 2 dropped; a run with no lines is not listed',
  );
  const odd = await store.query('dev', { connectionId: 'odd' }, { limit: 100 });
  t.same(odd.ok && odd.data.map((l) => l.run_id), ['run-7', 'run-7', 'run-5', 'run-5', 'run-3', 'run-3']);
  const both = await store.query('dev', { connectionId: 'even', script: 'late' }, { limit: 100 });
  t.same(both.ok && both.data.map((l) => l.message), ['b6', 'a6']);
  const one = await store.query('dev', { runId: 'run-4' }, { limit: 100 });
  t.same(one.ok && one.data.map((l) => l.message), ['b4', 'a4']);
  t.same(
    await store.query('dev', { runId: 'run-1' }, { limit: 100 }),
    { ok: true, data: [], next_cursor: null },
    'a dropped run has no logs',
  );

  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await store.query('dev', {}, { limit: 3, ...(cursor ? { cursor } : {}) });
    if (!page.ok) return t.fail('a cursor this store issued');
    seen.push(...page.data.map((l) => l.message));
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  t.same(
    seen,
    all.data.map((l) => l.message),
    'pages of 3 walk the same lines',
  );
  t.same(await store.query('dev', {}, { limit: 3, cursor: 'nonsense' }), { ok: false, reason: 'invalid_cursor' });
  t.same(await store.query('prod', {}, { limit: 3 }), { ok: true, data: [], next_cursor: null }, 'environments apart');
});
