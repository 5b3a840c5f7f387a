import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createMemoryCoordinator } from '../../adapters/storage/memory-coordinator.js';
import { keepRenewed, waitForLock, type Lease } from '../../lib/coordination/index.js';

t.test('a holder too late to renew (its process stalled) hears that the lock is lost, once', async (t) => {
  const coordinator = createMemoryCoordinator();
  const lease = (await coordinator.tryLock('stalled', 150)) as Lease;
  const lost: string[] = [];
  keepRenewed(lease, 150, (reason) => lost.push(reason));
  // The event loop stalls past the ttl: no renewal runs, and another holder takes the lock.
  const until = Date.now() + 250;
  while (Date.now() < until);
  const other = await coordinator.tryLock('stalled', 5000);
  t.ok(other, 'someone else took the lapsed lock');
  await sleep(200);
  t.same(lost, ['the lock expired before it was renewed']);
  await sleep(200);
  t.equal(lost.length, 1, 'reported once, and renewing stopped');
  t.equal(await coordinator.tryLock('stalled', 5000), null, 'the new holder keeps it');
});

t.test('a renewal the store refuses is reported as lost, with its error', async (t) => {
  let renewals = 0;
  const lease: Lease = {
    release: async () => {},
    renew: async () => {
      renewals++;
      throw new Error('store unreachable');
    },
  };
  const lost: string[] = [];
  keepRenewed(lease, 90, (reason) => lost.push(reason));
  await sleep(300);
  t.equal(renewals, 1, 'no renewing after the failure');
  t.same(lost, ['the lock could not be renewed: store unreachable']);
});

t.test('renewing does not keep a process alive', async (t) => {
  const coordinator = createMemoryCoordinator();
  const lease = (await coordinator.tryLock('idle', 60_000)) as Lease;
  const stop = keepRenewed(lease, 60_000, () => {});
  t.teardown(stop);
  const handles = (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo();
  t.notOk(handles.includes('Timeout'), 'its timer is unref’d');
});

t.test('a release that fails fails withLock, unless it was to happen in the background', async (t) => {
  const lease = (): Lease => ({
    renew: async () => true,
    release: async () => Promise.reject(new Error('the store went away')),
  });
  const work = async () => 'done';
  await t.rejects(
    waitForLock(async () => lease(), 'k', work),
    { message: 'the store went away' },
  );
  t.equal(await waitForLock(async () => lease(), 'k', work, { releaseInBackground: true }), 'done');
  await t.rejects(
    waitForLock(
      async () => lease(),
      'k',
      async () => Promise.reject(new Error('fn failed')),
      { releaseInBackground: true },
    ),
    { message: 'fn failed' },
    'the work’s own error, not the release’s',
  );
});

t.test("withLock's read: behind the first attempt where reads are ordered, after the lock elsewhere", async (t) => {
  const lease: Lease = { renew: async () => true, release: async () => {} };
  const steps: string[] = [];
  /** Held by someone else at the first attempt, free at the second. */
  const takenSecondTime = () => {
    let attempts = 0;
    return (): Promise<Lease | null> => {
      const n = ++attempts;
      steps.push(`attempt ${n}`);
      return new Promise((resolve) =>
        setImmediate(() => {
          steps.push(`answer ${n}`);
          resolve(n === 1 ? null : lease);
        }),
      );
    };
  };
  let reads = 0;
  const read = async () => {
    const n = ++reads;
    steps.push(`read ${n}`);
    // The read behind the attempt that found the lock held fails: that must not matter.
    if (n === 1) throw new Error('the store blinked');
    return `value ${n}`;
  };

  const ordered = await waitForLock(takenSecondTime(), 'k', async (seen) => seen, { read }, true);
  t.equal(ordered, 'value 2', 'the read made once the lock was taken, not the dropped one');
  t.same(steps, ['attempt 1', 'read 1', 'answer 1', 'attempt 2', 'answer 2', 'read 2']);

  steps.length = 0;
  reads = 0;
  const free = async () => {
    steps.push('attempt');
    await new Promise((resolve) => setImmediate(resolve));
    steps.push('answer');
    return lease;
  };
  t.equal(
    await waitForLock(free, 'k', async (seen) => seen, { read: async () => (steps.push('read'), 'v') }, true),
    'v',
  );
  t.same(steps, ['attempt', 'read', 'answer'], 'a free lock: the read went out before the answer came');

  steps.length = 0;
  t.equal(await waitForLock(free, 'k', async (seen) => seen, { read: async () => (steps.push('read'), 'v') }), 'v');
  t.same(steps, ['attempt', 'answer', 'read'], 'reads not ordered: sent once the lock is held');
});
