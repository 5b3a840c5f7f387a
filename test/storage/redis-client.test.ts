import { createServer, type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createRedisClient } from '../../adapters/storage/redis-client.js';
import { startTcpCutterFor } from '../faults/tcp-cutter.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';

/** How long a command may wait to be sent here: short, so the tests are quick. */
const waitMs = 300;
/** Slack for a loaded test machine: a command must fail by `waitMs` plus this. */
const slackMs = 1_500;

const settled = async (work: Promise<unknown>) => {
  const started = performance.now();
  const outcome = await work.then(
    () => 'answered',
    (error: Error) => error.message,
  );
  return { outcome, ms: performance.now() - started };
};

/** The client's timers for commands waiting to be sent: node-redis arms one `AbortSignal.timeout` per such command. */
function countWaitTimers(t: Test): () => number {
  const original = AbortSignal.timeout;
  let armed = 0;
  AbortSignal.timeout = (ms: number) => {
    armed++;
    return original.call(AbortSignal, ms);
  };
  t.teardown(() => {
    AbortSignal.timeout = original;
  });
  return () => armed;
}

t.test(
  'Redis client: the offline queue is bounded while Redis is away, and costs nothing while it is up',
  async (t) => {
    if (!(await requireRedis(t))) return;
    const cutter = await startTcpCutterFor(redisUrl);
    t.teardown(() => cutter.close());
    const client = createRedisClient({ url: cutter.through(redisUrl), commandTimeoutMs: waitMs, onError: () => {} });
    t.teardown(() => client.destroy());
    const armed = countWaitTimers(t);
    await client.connect();

    const before = armed();
    for (let i = 0; i < 200; i++) await client.ping();
    t.equal(armed() - before, 0, 'commands on a ready connection arm no timer');

    // A command queued in the same turn as the cut: it may not have been written yet.
    const inFlight = client.ping();
    cutter.cut();
    const cutShort = await settled(inFlight);
    t.not(cutShort.outcome, 'answered', 'the command cut short fails');
    t.ok(cutShort.ms < waitMs + slackMs, `and within the bound (${Math.round(cutShort.ms)} ms)`);

    // Sent while Redis is away: waits in the offline queue, then fails once it has waited the bound.
    const away = await settled(client.ping());
    t.match(away.outcome, /Waited to write command for more than 300ms/, 'a command sent while Redis is away fails');
    t.ok(away.ms >= waitMs - 50, `not before the bound (${Math.round(away.ms)} ms)`);
    t.ok(away.ms < waitMs + slackMs, 'nor long after it');

    cutter.restore();
    await new Promise<void>((resolve) => (client.isReady ? resolve() : client.once('ready', () => resolve())));
    const again = armed();
    for (let i = 0; i < 200; i++) await client.ping();
    t.equal(armed() - again, 0, 'after the reconnect, commands arm no timer again');
    t.equal(await client.ping(), 'PONG', 'the client works after the outage');
  },
);

t.test(
  'Redis client: a batch queued before the connection is ready is written whole, however long the writing takes',
  async (t) => {
    if (!(await requireRedis(t))) return;
    // A client that loses its batch also loses its connection's first commands: fail, not hang.
    t.setTimeout(60_000);
    // 20,000 commands of 1 KiB through 10 MB/s: about 2 s of writing, six times the offline bound.
    const cutter = await startTcpCutterFor(redisUrl);
    t.teardown(() => cutter.close());
    cutter.throttleSends(10 * 1024 * 1024);
    const client = createRedisClient({ url: cutter.through(redisUrl), commandTimeoutMs: waitMs, onError: () => {} });
    t.teardown(() => client.destroy());
    const prefix = uniquePrefix('batch');
    t.teardown(() => removeRedisKeys(prefix));
    const connected = client.connect();
    const value = 'v'.repeat(1024);
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: 20_000 }, (_, i) =>
        client.set(`${prefix}${i}`, value).then(
          (answer) => answer,
          (error: Error) => error.message,
        ),
      ),
    );
    await connected;
    const ms = performance.now() - started;
    const failed = outcomes.filter((outcome) => outcome !== 'OK');
    t.ok(ms > waitMs * 2, `the writing took longer than the offline bound (${Math.round(ms)} ms)`);
    t.same(failed.slice(0, 3), [], `every command was written and answered (${failed.length} failed)`);
    t.equal(await client.get(`${prefix}19999`), value, 'the last one is in Redis');
  },
);

t.test('Redis client: started while nothing listens, a command fails within the offline bound', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const client = createRedisClient({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: waitMs, onError: () => {} });
  t.teardown(() => client.destroy());
  client.connect().catch(() => {});
  const refused = await settled(client.ping());
  t.match(refused.outcome, /Waited to write command for more than 300ms/, 'the command fails with the bound');
  t.ok(refused.ms < waitMs + slackMs, `within the bound (${Math.round(refused.ms)} ms)`);
});
