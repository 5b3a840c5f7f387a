import t from 'tap';
import { settleHttpShapes } from '../../lib/runtime/index.js';

/** What keeps the process alive, timers aside (tap's own come and go). */
const resources = () =>
  process
    .getActiveResourcesInfo()
    .filter((r) => r !== 'Timeout')
    .sort();

t.test('the loopback exchange at start leaves no server, socket or client behind', async (t) => {
  const before = resources();
  const started = Date.now();
  await settleHttpShapes();
  t.ok(Date.now() - started < 2_500, 'done within its deadline');
  // Closed handles are released on the next turns of the loop.
  const deadline = Date.now() + 2_000;
  while (Date.now() < deadline && resources().length > before.length)
    await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(resources(), before, 'the same handles as before');
});
