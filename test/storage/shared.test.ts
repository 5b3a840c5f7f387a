import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { sharedStores } from '../helpers/shared-stores.js';

// Several gateway processes on one store: the same proof on every store they can share.
for (const store of sharedStores) {
  t.test(
    `${store.name}: two storages on two connections share data, exclude each other, and a crashed holder's lock expires`,
    async (t) => {
      if (!(await store.require(t))) return;
      // This is how several gateway processes coordinate through one shared store.
      const open = store.place(t, 'cross');
      const one = open();
      const two = open();
      t.teardown(async () => {
        await one.close();
        await two.close();
      });
      await one.keyv('shared').set('k', { from: 'one' });
      t.same(await two.keyv('shared').get('k'), { from: 'one' });

      const lease = await one.coordinator.tryLock('cross', 5000);
      t.ok(lease);
      t.equal(await two.coordinator.tryLock('cross', 5000), null, 'held by the other process');
      await lease?.release();
      const taken = await two.coordinator.tryLock('cross', 5000);
      t.ok(taken, 'free once released');
      await taken?.release();

      // A holder that never releases (killed): its lease runs out and another takes the lock.
      t.ok(await one.coordinator.tryLock('crashed', 300));
      t.equal(await two.coordinator.tryLock('crashed', 5000), null);
      await sleep(400);
      t.ok(await two.coordinator.tryLock('crashed', 5000), 'taken over after the lease expired');

      let counter = 0;
      let inside = 0;
      let maxInside = 0;
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? one : two).coordinator.withLock(
            'cross-mutex',
            async () => {
              maxInside = Math.max(maxInside, ++inside);
              const seen = counter;
              await sleep(1);
              counter = seen + 1;
              inside--;
            },
            { waitMs: 30_000 },
          ),
        ),
      );
      t.equal(counter, 50);
      t.equal(maxInside, 1);

      const counts = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? one : two).coordinator.increment('cross-count')),
      );
      t.equal(Math.max(...counts), 100, 'increments from both add up');
    },
  );
}
