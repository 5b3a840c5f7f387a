import t from 'tap';
import { createRecordStore } from '../../lib/records/index.js';
import { sharedStores } from '../helpers/shared-stores.js';
import { many, page, readAll, refOf } from './contract.js';

// The same proof on every store several gateway processes can share.
for (const store of sharedStores) {
  t.test(`two gateway processes on one ${store.name}: writes exclude each other, reads see both`, async (t) => {
    if (!(await store.require(t))) return;
    const open = store.place(t, 'records-shared');
    const storages = [open(), open()];
    const stores = storages.map((storage) => createRecordStore({ storage }));
    t.teardown(async () => {
      for (const store of stores) await store.close();
      for (const storage of storages) await storage.close();
    });
    const ref = refOf({ connectionId: 'two-processes' });
    // Concurrent batches from both: sequence numbers must never collide.
    await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % 2]!.batchSave(ref, many(50, i * 50))));
    const { records } = await readAll(stores[0]!, ref, { limit: 77 });
    t.equal(records.length, 500, 'every record of both processes, once');
    t.equal(new Set(records.map((r) => r._service_metadata.cursor)).size, 500, 'distinct cursors');
    t.equal((await page(stores[1]!, ref, { ids: ['r000499'] })).records.length, 1);
  });
}
