import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t, { type Test } from 'tap';
import { createLogger } from '../../lib/http/logger.js';
import { startWorker } from '../../lib/worker-thread.js';
import { devKey, startGateway } from '../helpers/gateway.js';
import { apiKey, providerEntry } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface ProviderState {
  aborted: number;
  open: number;
  connections: number;
}

/** The provider and the callers live on a worker thread (abort-worker.ts). */
async function farEnds(t: Test) {
  const worker = startWorker(new URL('./abort-worker.ts', import.meta.url));
  t.teardown(async () => {
    worker.postMessage({ type: 'close' });
    await once(worker, 'exit');
  });
  const ask = async <T>(message: unknown, answer: string): Promise<T> => {
    worker.postMessage(message);
    for (;;) {
      const [reply] = (await once(worker, 'message')) as [{ type: string } & T];
      if (reply.type === answer) return reply;
    }
  };
  const [hello] = (await once(worker, 'message')) as [{ url: string }];
  return {
    providerUrl: hello.url,
    run: (order: { port: number; from: number; count: number; parallel: number }) =>
      ask({ type: 'run', order: { ...order, secretKey: devKey } }, 'ran'),
    state: () => ask<ProviderState>({ type: 'state' }, 'state'),
  };
}

/** Waits (bounded) for the provider to see what the gateway did: events decide, not timing. */
async function settle(check: () => Promise<boolean> | boolean, rounds = 400) {
  for (let i = 0; i < rounds; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

t.test(
  '10,000 calls abandoned mid-request or mid-response abort their provider requests, leaking nothing',
  async (t) => {
    const ends = await farEnds(t);
    // No request log: 10,000 log lines would only measure the logger.
    const gw = await startGateway(t, {
      providers: [providerEntry('fake-api', ends.providerUrl)],
      logger: createLogger({ level: 'silent' }),
    });
    await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
    await gw.call('POST', '/connections', {
      body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } },
    });
    const port = Number(new URL(gw.url).port);

    await ends.run({ port, from: 0, count: 600, parallel: 64 });
    t.ok(await settle(async () => (await ends.state()).aborted === 600), 'warm-up calls aborted upstream');
    gc();
    const heapBefore = process.memoryUsage().heapUsed;

    await ends.run({ port, from: 600, count: 10_000, parallel: 192 });
    t.ok(
      await settle(async () => (await ends.state()).aborted === 10_600),
      'every one of the 10,000 abandoned calls aborted its provider request',
    );
    const after = await ends.state();
    t.equal(after.aborted - 600, 10_000);
    t.ok(await settle(async () => (await ends.state()).open === 0), 'no provider request is left open');
    t.ok(await settle(() => gw.gateway.proxy.sockets().active === 0), 'the gateway holds no provider socket in use');
    t.ok(
      await settle(async () => (await ends.state()).connections === 0),
      'the provider has no connection from the gateway left',
    );

    gc();
    const grown = process.memoryUsage().heapUsed - heapBefore;
    t.ok(
      grown < 24 * 1024 * 1024,
      `heap after GC grew by ${(grown / 1024 / 1024).toFixed(1)} MiB over 10,000 calls (bound 24 MiB)`,
    );
  },
);
