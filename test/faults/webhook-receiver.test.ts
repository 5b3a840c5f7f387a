import { once } from 'node:events';
import t from 'tap';
import { createWebhookPoster } from '../../lib/webhooks/attempt.js';
import { listen } from '../helpers/http.js';

t.test('a webhook receiver that stalls mid-body does not keep the connection past the deadline', async (t) => {
  const closed: Promise<unknown>[] = [];
  const receiver = await listen((req, res) => {
    closed.push(once(req.socket, 'close'));
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('accepted, and then nothing more');
  });
  t.teardown(() => receiver.close());
  const poster = createWebhookPoster({ timeoutMs: 500 });
  t.teardown(() => poster.close());
  const attempted = await poster.post(`${receiver.url}/hook`, Buffer.from('{}'), {}, new AbortController().signal);
  t.same(attempted.result, { kind: 'response', status: 200, retryAfterMs: undefined }, 'the status is the answer');
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    (closed[0] as Promise<unknown>).then(() => 'closed'),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve('still open'), 10_000);
    }),
  ]);
  clearTimeout(timer);
  t.equal(outcome, 'closed', 'the gateway dropped the stalled connection');
});
