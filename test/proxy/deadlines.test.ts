import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createDeadlines, type Expiring } from '../../lib/proxy/deadlines.js';

const entry = (name: string, expired: string[]): Expiring => ({
  expire: () => expired.push(name),
  deadlinePrev: undefined,
  deadlineNext: undefined,
  deadlineAt: 0,
});

t.test('deadlines expire in the order they were set, cleared ones never', async (t) => {
  const expired: string[] = [];
  const deadlines = createDeadlines(40);
  t.teardown(() => deadlines.close());
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => entry(name, expired)) as [
    Expiring,
    Expiring,
    Expiring,
    Expiring,
  ];
  for (const e of [a, b, c, d]) deadlines.set(e);
  deadlines.clear(b);
  deadlines.clear(d);
  deadlines.clear(d);
  await sleep(120);
  t.same(expired, ['a', 'c'], 'the cleared ones (middle and last) did not fire; clearing twice is harmless');
  t.equal(a.deadlineNext, undefined, 'an expired entry keeps no link to the others');
  t.equal(c.deadlinePrev, undefined);
});

t.test('a deadline fires no sooner than the timeout, and setting again restarts it', async (t) => {
  const expired: string[] = [];
  const deadlines = createDeadlines(200);
  t.teardown(() => deadlines.close());
  const a = entry('a', expired);
  const started = performance.now();
  deadlines.set(a);
  await sleep(120);
  deadlines.set(a);
  await sleep(150);
  t.same(expired, [], 'set again at 120 ms: not expired at 270 ms');
  while (expired.length === 0 && performance.now() - started < 2_000) await sleep(10);
  t.same(expired, ['a'], 'expired once');
  t.ok(performance.now() - started >= 320, 'not before 120 + 200 ms');
});

t.test('close drops every pending deadline', async (t) => {
  const expired: string[] = [];
  const deadlines = createDeadlines(30);
  for (const name of ['a', 'b', 'c']) deadlines.set(entry(name, expired));
  deadlines.close();
  await sleep(100);
  t.same(expired, []);
});
