import t from 'tap';
import { settleHttpShapes } from '../../lib/runtime/index.js';

/**
 * The TCP handles open in this process: what the exchange makes (a listening server, its
 * client's and server's sockets). Other resources (the test runner's pipes and file reads) come
 * and go on their own.
 */
const tcpHandles = () =>
  process
    .getActiveResourcesInfo()
    .filter((r) => r === 'TCPServerWrap' || r === 'TCPSocketWrap')
    .sort();

t.test('the loopback exchange at start leaves no server, socket or client behind', async (t) => {
  const before = tcpHandles();
  const started = Date.now();
  await settleHttpShapes();
  t.ok(Date.now() - started < 2_500, 'done within its deadline');
  // Closed handles are released on the next turns of the loop.
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline && tcpHandles().length !== before.length)
    await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(tcpHandles(), before, 'no server or socket left open');
});
