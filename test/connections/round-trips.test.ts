import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { createMemoryStorage, createPostgresStorage } from '../../adapters/storage/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { startGateway } from '../helpers/gateway.js';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';
import { redisStorageFor } from '../helpers/redis.js';
import { roundTripStore } from '../helpers/round-trip-store.js';

/**
 * Round trips each call waits for, at most, once the webhook history is full (as it is after its
 * first `retention` events). Builds before took more. Session 17's released the connection's lock
 * before answering, and on a shared store took the event's and the delivery's numbers one after
 * the other. Session 18's (an import 11 here, on all three stores; a change 4) looked the
 * connection's own webhook URL up before taking the numbers rather than with them, read the
 * connection once the lock was taken rather than right behind the attempt, and dropped the event
 * and the delivery that left the history after storing the new ones rather than beside them.
 * Session 19's (Redis: 7 and 3) sent a connection's index entries, its value and the removal of
 * the entries it left one after the other, and the event's feed entry before its delivery records
 * (PostgreSQL: 8 and 4).
 */
const cases: Array<{ name: string; open: (t: Test) => Promise<Storage | undefined>; import: number; change: number }> =
  [
    {
      name: 'memory',
      open: async (t) => {
        const storage = createMemoryStorage();
        t.teardown(() => storage.close());
        return storage;
      },
      import: 7,
      change: 3,
    },
    // Writes in one script (`writeListed`): a connection's value with its index entries, where memory
    // takes two or three round trips; the event's feed entry with its delivery records, where memory takes two.
    { name: 'Redis', open: (t) => redisStorageFor(t, 'round-trips'), import: 5, change: 2 },
    {
      // A pool: the connection is read once its lock is taken (no `ordersReads`), one round trip more.
      // Its writes in one statement each (`writeListed`), as Redis's are in one script.
      name: 'PostgreSQL',
      open: async (t) => {
        if (!(await requirePostgres(t))) return undefined;
        const storage = createPostgresStorage({ url: postgresSchema(t, 'round-trips').url });
        t.teardown(() => storage.close());
        return storage;
      },
      import: 6,
      change: 3,
    },
  ];

for (const c of cases)
  t.test(
    `an import and a change of one connection wait for as few store round trips as they need (${c.name})`,
    async (t) => {
      const base = await c.open(t);
      if (!base) return;
      const store = roundTripStore(base);
      // Answered at once while the gateway starts and is set up.
      let pumping = true;
      const pump = (async () => {
        while (pumping) {
          await store.round();
          await sleep(1);
        }
      })();
      // Stopped however the test ends: a start that fails must not leave it answering rounds for good.
      t.teardown(() => {
        pumping = false;
      });
      // A history of one: every event drops the one before it, as every event does once the
      // history holds its `retention` (10,000 by default). Every command here waits for a round
      // the test answers, behind a real store on a machine CI loads: what is counted is rounds,
      // not time, so the store deadline (1.5 s by default) is set out of the way (CI on a loaded
      // machine once saw a PostgreSQL command of the gateway's start miss it).
      const gw = await startGateway(t, { storage: store.storage, webhooks: { retention: 1 }, storeTimeoutMs: 30_000 });
      await gw.call('POST', '/integrations', { body: { unique_key: 'stripe', provider: 'stripe' } });
      await gw.call('POST', '/connections', {
        body: {
          provider_config_key: 'stripe',
          connection_id: 'warm',
          credentials: { type: 'API_KEY', apiKey: 'sk_0' },
        },
      });
      pumping = false;
      await pump;

      /**
       * Sends a call and answers the store's commands a round at a time until the call is answered.
       * A round waits for the store underneath to answer, so a slow real store adds none. A lock's
       * release sent without waiting for it (as a write's is) is answered only if the call is still
       * unanswered a second later: on a loaded machine the answer may take longer than a round's
       * wait to cross the socket, and its release is not a round the caller waited for.
       */
      const roundsOf = async (send: () => Promise<{ status: number; text: string }>) => {
        let answer: { status: number; text: string } | undefined;
        const sent = send().then((a) => (answer = a));
        const answeredWithin = (ms: number) => Promise.race([sent.then(() => true), sleep(ms).then(() => false)]);
        let rounds = 0;
        while (!answer) {
          // Long enough for the gateway to send whatever it sends before it waits for an answer.
          await sleep(15);
          if (answer) break;
          const waitedFor =
            store.pendingBesidesReleases() > 0 || (store.pending() > 0 && !(await answeredWithin(1_000)));
          if (waitedFor) {
            await store.round();
            rounds++;
          }
        }
        await sent;
        return { rounds, ...answer };
      };

      const imported = await roundsOf(() =>
        gw.call('POST', '/connections', {
          body: {
            provider_config_key: 'stripe',
            connection_id: 'c-1',
            credentials: { type: 'API_KEY', apiKey: 'sk_1' },
          },
        }),
      );
      t.equal(imported.status, 201, imported.text);
      t.ok(imported.rounds <= c.import, `an import: ${imported.rounds} round trips`);

      const patched = await roundsOf(() =>
        gw.call('PATCH', '/connections/c-1?provider_config_key=stripe', { body: { end_user: { id: 'eu-1' } } }),
      );
      t.equal(patched.status, 200, patched.text);
      t.ok(patched.rounds <= c.change, `a change: ${patched.rounds} round trips`);
    },
  );
