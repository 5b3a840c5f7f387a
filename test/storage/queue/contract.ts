import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { ClaimedJob, JobOutcome, QueueOptions, WorkQueue } from '../../../lib/queue/index.js';
import { waitFor } from '../../helpers/wait.js';

export interface Payload {
  label: string;
}

export interface QueueBackend {
  /** A new handle (one more worker) on the queue, in the current process's view of the store. Closed at teardown. */
  open(options?: QueueOptions): Promise<WorkQueue<Payload>>;
  /** As if the process restarted: every handle closed, the store reopened. */
  restart(): Promise<void>;
  /** argv for `worker-process.ts` (kind, where, prefix); absent when the store lives in this process only. */
  processArgs?: string[];
}

interface Call {
  id: string;
  label: string;
  attempt: number;
  slot: number | null;
  at: number;
}

/** A handler that records calls and answers from `script`. */
function recorder(
  script: (job: ClaimedJob<Payload>, signal: AbortSignal) => Promise<JobOutcome | void> | JobOutcome | void = () =>
    undefined,
) {
  const calls: Call[] = [];
  return {
    calls,
    handler: async (job: ClaimedJob<Payload>, signal: AbortSignal) => {
      calls.push({ id: job.id, label: job.data.label, attempt: job.attempt, slot: job.scheduledAt, at: Date.now() });
      return script(job, signal);
    },
  };
}

const one = { concurrency: 1 };
const four = { concurrency: 4 };
let counter = 0;
const job = (label: string, delayMs?: number) => ({
  id: `job-${++counter}-${label}`,
  data: { label },
  ...(delayMs ? { delayMs } : {}),
});

/** What every work queue must do, run against each storage back end's own. */
export async function runWorkQueueContract(t: Test, name: string, makeBackend: (t: Test) => Promise<QueueBackend>) {
  await t.test(`${name}: work queue contract`, async (t) => {
    t.test('a job reaches the handler intact, attempt 1, once', async (t) => {
      const queue = await (await makeBackend(t)).open();
      const seen: ClaimedJob<Payload>[] = [];
      await queue.start(async (j) => {
        seen.push(j);
      }, four);
      await queue.enqueue([{ id: 'intact', data: { label: 'é✓ intact' } }]);
      await waitFor(() => seen.length === 1, 'the job', 10_000);
      t.same(seen[0], { id: 'intact', data: { label: 'é✓ intact' }, attempt: 1, scheduledAt: null });
      await sleep(300);
      t.equal(seen.length, 1, 'a done job is not run again');
    });

    t.test('an id already known is dropped; with keepDoneMs, also after it finished', async (t) => {
      const queue = await (await makeBackend(t)).open({ keepDoneMs: 60_000 });
      const { calls, handler } = recorder();
      await queue.enqueue([
        { id: 'same', data: { label: 'first' } },
        { id: 'same', data: { label: 'second' } },
      ]);
      await queue.enqueue([{ id: 'same', data: { label: 'third' } }]);
      await queue.start(handler, four);
      await waitFor(() => calls.length === 1, 'the job', 10_000);
      await queue.enqueue([{ id: 'same', data: { label: 'after done' } }]);
      await sleep(500);
      t.same(
        calls.map((c) => c.label),
        ['first'],
      );
    });

    t.test('a delayed job waits for its delay', async (t) => {
      const queue = await (await makeBackend(t)).open();
      const { calls, handler } = recorder();
      await queue.start(handler, four);
      const enqueued = Date.now();
      await queue.enqueue([job('later', 700), job('now')]);
      await waitFor(() => calls.length === 2, 'both jobs', 10_000);
      t.same(
        calls.map((c) => c.label),
        ['now', 'later'],
      );
      t.ok((calls[1]?.at ?? 0) - enqueued >= 650, 'not before its delay');
    });

    t.test('retry: the next attempt comes after the delay asked, numbered', async (t) => {
      const queue = await (await makeBackend(t)).open();
      const { calls, handler } = recorder((j) => (j.attempt < 3 ? { kind: 'retry', delayMs: 200 } : { kind: 'done' }));
      await queue.start(handler, four);
      await queue.enqueue([job('retry')]);
      await waitFor(() => calls.length === 3, 'three attempts', 10_000);
      t.same(
        calls.map((c) => c.attempt),
        [1, 2, 3],
      );
      t.ok((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0) >= 190, 'waited for the delay');
      t.ok((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0) >= 190, 'again');
    });

    t.test('a handler that throws is tried again; out of attempts, the job is a dead letter', async (t) => {
      const queue = await (await makeBackend(t)).open({ maxAttempts: 3, errorDelayMs: 100 });
      const { calls, handler } = recorder((j) => {
        if (j.data.label === 'recovers' && j.attempt === 2) return;
        throw new Error('storage unreachable');
      });
      await queue.start(handler, four);
      await queue.enqueue([job('recovers'), job('hopeless')]);
      await waitFor(
        async () => calls.length === 5 && (await queue.counts()).dead === 1,
        'two attempts and three',
        15_000,
      );
      t.same(
        calls.filter((c) => c.label === 'recovers').map((c) => c.attempt),
        [1, 2],
      );
      t.same(
        calls.filter((c) => c.label === 'hopeless').map((c) => c.attempt),
        [1, 2, 3],
      );
      t.same(
        await queue.counts(),
        { waiting: 0, delayed: 0, active: 0, dead: 1 },
        'the dead letter is counted, nothing else left',
      );
    });

    t.test('counts: waiting, delayed and active jobs', async (t) => {
      const queue = await (await makeBackend(t)).open();
      await queue.enqueue([job('w1'), job('w2'), job('d1', 60_000)]);
      t.same(await queue.counts(), { waiting: 2, delayed: 1, active: 0, dead: 0 });
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await queue.start(() => held, one);
      await waitFor(async () => (await queue.counts()).active === 1, 'one job active', 10_000);
      t.same(await queue.counts(), { waiting: 1, delayed: 1, active: 1, dead: 0 });
      release();
    });

    t.test('enqueued jobs outlive the process that accepted them', async (t) => {
      const backend = await makeBackend(t);
      const first = await backend.open();
      await first.enqueue([job('kept-1'), job('kept-2')]);
      await backend.restart(); // never worked on: as if the process died right after accepting
      const second = await backend.open();
      const { calls, handler } = recorder();
      await second.start(handler, four);
      await waitFor(() => calls.length === 2, 'both jobs after the restart', 15_000);
      t.same(calls.map((c) => c.label).sort(), ['kept-1', 'kept-2']);
      t.ok(calls.every((c) => c.attempt === 1));
    });

    t.test('an attempt cut by shutdown is not counted and runs again after restart', async (t) => {
      const backend = await makeBackend(t);
      const first = await backend.open();
      let started = false;
      await first.start(async (_j, signal) => {
        started = true;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return { kind: 'abandoned' };
      }, one);
      await first.enqueue([job('cut')]);
      await waitFor(() => started, 'the attempt to start', 10_000);
      await backend.restart();
      const second = await backend.open();
      const { calls, handler } = recorder();
      await second.start(handler, one);
      await waitFor(() => calls.length === 1, 'the job after restart', 15_000);
      t.same(
        calls.map((c) => [c.label, c.attempt]),
        [['cut', 1]],
      );
    });

    t.test('three workers racing: each job runs once', async (t) => {
      const backend = await makeBackend(t);
      const remember = { keepDoneMs: 60_000 };
      const queues = [await backend.open(remember), await backend.open(remember), await backend.open(remember)];
      const { calls, handler } = recorder(() => sleep(Math.random() * 10).then(() => undefined));
      // Enqueued before any worker starts: all three find all sixty waiting and race for each.
      const jobs = Array.from({ length: 60 }, (_, i) => job(`many-${i}`));
      await Promise.all(queues.map((queue, q) => queue.enqueue(jobs.filter((_, i) => i % 3 === q))));
      await Promise.all(queues.map((queue) => queue.start(handler, four)));
      // The same jobs offered again through another worker (finished ids are remembered): still once each.
      await queues[1]!.enqueue(jobs.slice(0, 10));
      await waitFor(() => calls.length >= 60, 'all jobs', 20_000);
      await sleep(500);
      t.equal(calls.length, 60, 'no job twice');
      t.equal(new Set(calls.map((c) => c.label)).size, 60);
    });

    t.test('a repeatable schedule fires once per slot across three workers', async (t) => {
      const backend = await makeBackend(t);
      const queues = [await backend.open(), await backend.open(), await backend.open()];
      const { calls, handler } = recorder();
      for (const queue of queues) {
        await queue.schedule('tick', 500, { label: 'tick' });
        await queue.start(handler, four);
      }
      const next = await queues[0]!.nextRun('tick');
      t.ok(next !== null && next > Date.now() - 1_000 && next <= Date.now() + 1_000, 'the next slot is known');
      await waitFor(() => calls.length >= 5, 'five slots', 20_000);
      await Promise.all(queues.map((q) => q.unschedule('tick')));
      await sleep(1_200);
      const slots = calls.map((c) => c.slot as number);
      t.equal(new Set(slots).size, slots.length, 'no slot ran twice');
      const sorted = [...slots].sort((a, b) => a - b);
      t.ok(
        sorted.slice(1).every((s, i) => (s - sorted[i]!) % 500 === 0),
        'slots are whole periods apart',
      );
      t.equal(await queues[2]!.nextRun('tick'), null, 'unscheduled');
      const count = calls.length;
      await sleep(1_200);
      t.equal(calls.length, count, 'no more runs once unscheduled');
    });

    t.test('slots missed while no worker ran fire once when one is back', async (t) => {
      const backend = await makeBackend(t);
      const first = await backend.open();
      await first.schedule('missed', 400, { label: 'missed' });
      await backend.restart();
      await sleep(1_500); // three or four slots pass with nobody running
      const back = Date.now();
      const second = await backend.open();
      const { calls, handler } = recorder();
      await second.start(handler, one);
      await waitFor(() => calls.length >= 1, 'the missed slot', 10_000);
      await second.unschedule('missed');
      await sleep(300);
      // The catch-up run may carry the newest slot when a slot boundary passed while the worker
      // started (a slower back end's start); what must hold is one run, not one per missed slot.
      const late = calls.filter((c) => (c.slot as number) < back);
      t.ok(late.length <= 1, `at most one run for the missed slots (${late.length})`);
      const firstSlot = calls[0]!.slot as number;
      t.equal(calls.filter((c) => (c.slot as number) <= firstSlot).length, 1, 'one run for all the missed slots');
      t.ok(firstSlot < Date.now(), 'the catch-up run is for a slot already due');
    });

    if (!(await makeBackend(t)).processArgs) return;
    t.test(
      'a worker killed (SIGKILL) mid-job: the job runs again after the visibility timeout, once to completion',
      async (t) => {
        const backend = await makeBackend(t);
        const visibility = 1_500;
        const script = fileURLToPath(new URL('./worker-process.ts', import.meta.url));
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', script, ...(backend.processArgs as string[]), 'killed-job', String(visibility)],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let output = '';
        child.stdout.on('data', (chunk) => {
          output += String(chunk);
        });
        child.stderr.on('data', (chunk) => {
          output += String(chunk);
        });
        t.teardown(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        });
        await waitFor(
          () => {
            if (child.exitCode !== null) throw new Error(`the worker exited: ${output}`);
            return output.includes('started killed-job 1');
          },
          'the worker process to start the job',
          30_000,
        );
        await sleep(visibility / 2); // at least one renewal of the claim happened
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
        const killedAt = Date.now();
        await backend.restart();
        const queue = await backend.open({ visibilityTimeoutMs: visibility });
        const { calls, handler } = recorder();
        await queue.start(handler, one);
        await waitFor(() => calls.length >= 1, 'the job to run again', 30_000);
        t.same(
          calls.map((c) => [c.id, c.attempt]),
          [['killed-job', 1]],
          'the same attempt again: a crash is not counted',
        );
        t.ok((calls[0]?.at ?? 0) - killedAt >= visibility / 3, "not before the dead worker's claim lapsed");
        await sleep(visibility * 2);
        t.equal(calls.length, 1, 'run to completion once');
        t.same(await queue.counts(), { waiting: 0, delayed: 0, active: 0, dead: 0 });
      },
    );
  });
}
