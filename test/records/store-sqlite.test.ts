import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { createRecordStore } from '../../lib/records/index.js';
import { many, page, readAll, refOf } from './contract.js';
import { runRecordStoreContract } from './contract-suite.js';

// A real file per subtest.
await runRecordStoreContract(t, 'sqlite', (t) => createSqliteStorage({ path: join(t.testdir(), 'records.db') }));

t.test('records and cursors survive a restart (close and reopen the file)', async (t) => {
  const path = join(t.testdir(), 'records.db');
  const ref = refOf();
  const first = createSqliteStorage({ path });
  const before = createRecordStore({ storage: first });
  await before.batchSave(ref, many(20));
  const { last } = await readAll(before, ref);
  await before.close();
  await first.close();

  const second = createSqliteStorage({ path });
  const after = createRecordStore({ storage: second });
  t.teardown(async () => {
    await after.close();
    await second.close();
  });
  t.equal((await readAll(after, ref)).records.length, 20);
  t.same(
    await after.batchSave(ref, [...many(1, 5, { changed: true }), ...many(1, 100)]),
    { added: 1, updated: 1, unchanged: 0 },
    'change detection works against what the previous process stored',
  );
  t.same(
    (await page(after, ref, { cursor: last })).records.map((r) => r.id),
    ['r000005', 'r000100'],
    'a cursor from before the restart resumes exactly, and new changes come after it',
  );
});
