import type tap from 'tap';
import type { DeliveryJob, DeliveryQueue, JobOutcome } from '../../lib/webhooks/index.js';
import { waitFor } from './helpers.js';

export type Tap = Parameters<Parameters<typeof tap.test>[0]>[0];

export interface QueueBackend {
  /** A new queue over the same jobs (as a restarted process would see them). Closed at teardown. */
  open(): Promise<DeliveryQueue>;
}

let counter = 0;
export const job = (label: string): DeliveryJob => {
  const seq = ++counter;
  return {
    id: `dev.${seq}`, environment: 'dev', seq, delivery_id: `d-${label}`, type: 'sync', connection_id: 'c1',
    provider_config_key: 'stripe', target: 'primary', url: 'http://127.0.0.1:9/', body: JSON.stringify({ label, text: 'é✓' }), created_at: new Date().toISOString(),
  };
};

interface Call { label: string; attempt: number; at: number }

/** A handler that records calls and answers from a script per label. */
function recorder(script: (label: string, attempt: number, signal: AbortSignal) => Promise<JobOutcome> | JobOutcome = () => ({ kind: 'done' })) {
  const calls: Call[] = [];
  return {
    calls,
    handler: async (j: DeliveryJob, attempt: number, signal: AbortSignal) => {
      const label = (JSON.parse(j.body) as { label: string }).label;
      calls.push({ label, attempt, at: Date.now() });
      return script(label, attempt, signal);
    },
  };
}

/** The behaviour every delivery queue must have, run against the outbox and BullMQ alike. */
export async function runQueueContract(t: Tap, name: string, shared: boolean, makeBackend: (t: Tap) => Promise<QueueBackend>) {
  await t.test(`${name}: delivery queue contract`, async (t) => {
    t.test('a job reaches the handler intact, attempt 1, once', async (t) => {
      const backend = await makeBackend(t);
      const queue = await backend.open();
      const seen: DeliveryJob[] = [];
      await queue.start(async (j, attempt) => { seen.push({ ...j, seq: attempt }); return { kind: 'done' }; });
      const sent = job('intact');
      await queue.enqueue([sent]);
      await waitFor(() => seen.length === 1, 'the job', 10_000);
      t.same(seen[0], { ...sent, seq: 1 }, 'every field as enqueued, first attempt');
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.equal(seen.length, 1, 'a done job is not run again');
    });

    t.test('retry: the next attempt comes after the delay asked, numbered', async (t) => {
      const backend = await makeBackend(t);
      const queue = await backend.open();
      const { calls, handler } = recorder((_label, attempt) => (attempt < 3 ? { kind: 'retry', delayMs: 200 } : { kind: 'done' }));
      await queue.start(handler);
      await queue.enqueue([job('retry')]);
      await waitFor(() => calls.length === 3, 'three attempts', 10_000);
      t.same(calls.map((c) => c.attempt), [1, 2, 3]);
      t.ok((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0) >= 190, 'waited for the delay');
      t.ok((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0) >= 190, 'again');
    });

    t.test('a handler that throws is tried again later', async (t) => {
      const backend = await makeBackend(t);
      const queue = await backend.open();
      const { calls, handler } = recorder((_label, attempt) => {
        if (attempt === 1) throw new Error('storage unreachable');
        return { kind: 'done' };
      });
      await queue.start(handler);
      await queue.enqueue([job('throws')]);
      await waitFor(() => calls.length === 2, 'the second try', 10_000);
      t.same(calls.map((c) => c.attempt), [1, 2]);
    });

    t.test('enqueued jobs outlive the process that accepted them', async (t) => {
      const backend = await makeBackend(t);
      const first = await backend.open();
      await first.enqueue([job('kept-1'), job('kept-2')]);
      await first.close(); // never worked on: as if the process died right after accepting
      const second = await backend.open();
      const { calls, handler } = recorder();
      await second.start(handler);
      await waitFor(() => calls.length === 2, 'both jobs after the restart', 15_000);
      t.same(calls.map((c) => c.label).sort(), ['kept-1', 'kept-2']);
      t.ok(calls.every((c) => c.attempt === 1));
    });

    t.test('an attempt cut by shutdown is not counted and runs again after restart', async (t) => {
      const backend = await makeBackend(t);
      const first = await backend.open();
      let started = false;
      await first.start(async (_j, _attempt, signal) => {
        started = true;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return { kind: 'abandoned' };
      });
      await first.enqueue([job('cut')]);
      await waitFor(() => started, 'the attempt to start', 10_000);
      await first.close();
      const second = await backend.open();
      const { calls, handler } = recorder();
      await second.start(handler);
      await waitFor(() => calls.length === 1, 'the job after restart', 15_000);
      t.same(calls.map((c) => [c.label, c.attempt]), [['cut', 1]]);
    });

    t.test('with several processes on one backend, each job runs in one of them', { skip: !shared && 'this back end serves one process' }, async (t) => {
      const backend = await makeBackend(t);
      const queues = [await backend.open(), await backend.open(), await backend.open()];
      const { calls, handler } = recorder();
      for (const queue of queues) await queue.start(handler);
      const jobs = Array.from({ length: 60 }, (_, i) => job(`many-${i}`));
      for (let i = 0; i < jobs.length; i += 10) await queues[(i / 10) % 3]!.enqueue(jobs.slice(i, i + 10));
      await waitFor(() => calls.length >= 60, 'all jobs', 20_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.equal(calls.length, 60, 'no job twice');
      t.equal(new Set(calls.map((c) => c.label)).size, 60);
    });
  });
}
