import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createEventLog } from '../../lib/webhooks/event-log.js';
import { createDeliverySequence } from '../../lib/webhooks/sequence.js';

const event = (label: string, createdAt = new Date()) => ({
  delivery_id: label,
  type: 'auth' as const,
  connection_id: 'c1',
  provider_config_key: 'stripe',
  body: JSON.stringify({ label }),
  created_at: createdAt.toISOString(),
});

t.test('the feed stops before a number reserved but not yet stored, so no reader skips it', async (t) => {
  const storage = createMemoryStorage();
  t.teardown(() => storage.close());
  const sequence = createDeliverySequence(storage, 'test-event');
  const log = createEventLog(storage, sequence, { retention: 100 });
  await log.append('dev', event('one'));
  await sequence.next('dev', 1); // number 2: an event being accepted right now
  await log.append('dev', event('three'));
  const page = await log.after('dev', 0, 10);
  t.same(
    page.events.map((e) => e.delivery_id),
    ['one'],
  );
  t.match(page, { next_after: 1, has_more: true }, 'the reader asks again from 1, and will get 2 once stored');
});

t.test('a number lost with a crash is skipped once a later event is older than the grace', async (t) => {
  const storage = createMemoryStorage();
  t.teardown(() => storage.close());
  const sequence = createDeliverySequence(storage, 'test-event');
  const log = createEventLog(storage, sequence, { retention: 100 });
  await sequence.next('dev', 1); // number 1: its process died before storing it
  await log.append('dev', event('two', new Date(Date.now() - 60_000)));
  const page = await log.after('dev', 0, 10);
  t.same(
    page.events.map((e) => e.delivery_id),
    ['two'],
  );
  t.match(page, { next_after: 2, has_more: false });
});

t.test('only the newest `retention` events are kept; a reader further behind resumes at the oldest kept', async (t) => {
  const storage = createMemoryStorage();
  t.teardown(() => storage.close());
  const log = createEventLog(storage, createDeliverySequence(storage, 'test-event'), { retention: 3 });
  for (const label of ['a', 'b', 'c', 'd', 'e']) await log.append('dev', event(label));
  t.equal(await log.get('dev', 1), undefined, 'the oldest are deleted');
  const page = await log.after('dev', 0, 10);
  t.same(
    page.events.map((e) => [e.seq, e.delivery_id]),
    [
      [3, 'c'],
      [4, 'd'],
      [5, 'e'],
    ],
  );
  t.match(page, { next_after: 5, has_more: false });
});
