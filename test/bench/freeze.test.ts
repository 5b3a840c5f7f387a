import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { createFreezer } from '../../bench/proxy/freeze.js';
import { moduleUrl } from '../helpers/child.js';

/** A process's scheduler state from /proc (`T`: stopped by a signal; `S`/`R`: sleeping or running); `gone` once reaped. */
const stateOf = (pid: number): string => {
  try {
    // `pid (comm) S …`: the state follows the command's closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return 'gone';
  }
};

/** Waits (at most 5 s) until `pid`'s state satisfies `ok`: a signal takes effect asynchronously. */
async function settle(pid: number, ok: (state: string) => boolean): Promise<string> {
  const deadline = Date.now() + 5000;
  let state = stateOf(pid);
  while (!ok(state) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    state = stateOf(pid);
  }
  return state;
}
const stopped = (pid: number) => settle(pid, (s) => s === 'T');
const running = (pid: number) => settle(pid, (s) => s !== 'T');

/** An idle Node process, as a bench target is between its turns. */
function idle(t: Test): ChildProcess & { pid: number } {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.teardown(() => {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
  return child as ChildProcess & { pid: number };
}

t.test('only the process whose turn it is runs; the others wait, stopped, for theirs', async (t) => {
  const [a, b, c] = [idle(t), idle(t), idle(t)];
  const freezer = createFreezer([a, undefined, b, c], true);
  freezer.runOnly(a);
  t.not(await running(a.pid), 'T', 'the one whose turn it is runs');
  t.equal(await stopped(b.pid), 'T');
  t.equal(await stopped(c.pid), 'T');
  freezer.runOnly(b);
  t.equal(await stopped(a.pid), 'T', 'its turn over, it is stopped');
  t.not(await running(b.pid), 'T', 'the next one is continued');
  t.equal(stateOf(c.pid), 'T');
  freezer.runOnly(undefined);
  t.equal(await stopped(b.pid), 'T', 'a turn of no process of the set (the direct calls) stops them all');
  freezer.thawAll();
  for (const child of [a, b, c]) t.not(await running(child.pid), 'T', 'every one runs again');
  // A process stopped by the freezer is told to end only once continued: it acts on the signal.
  freezer.runOnly(a);
  freezer.thawAll();
  b.kill('SIGTERM');
  await once(b, 'exit');
  t.equal(await settle(b.pid, (s) => s === 'gone'), 'gone');
});

t.test('a process that has exited is not signalled: its pid may be another process now', async (t) => {
  const [a, b] = [idle(t), idle(t)];
  const freezer = createFreezer([a, b], true);
  a.kill('SIGKILL');
  await once(a, 'exit');
  // Node drops the handle when it reaps the child; a signal after that goes nowhere.
  t.equal(a.kill('SIGSTOP'), false);
  freezer.runOnly(undefined);
  t.equal(await stopped(b.pid), 'T', 'the one still running is stopped');
  freezer.runOnly(a);
  t.equal(stateOf(b.pid), 'T');
  freezer.thawAll();
  t.not(await running(b.pid), 'T');
});

t.test('--freeze off stops nothing', async (t) => {
  const [a, b] = [idle(t), idle(t)];
  const freezer = createFreezer([a, b], false);
  freezer.runOnly(a);
  freezer.runOnly(undefined);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.not(stateOf(a.pid), 'T');
  t.not(stateOf(b.pid), 'T');
});

t.test('an interrupted harness continues the processes it stopped, which then end', async (t) => {
  // The harness: one child, stopped by its freezer; it prints the child's pid and waits.
  const source = `
    import { spawn } from 'node:child_process';
    import { createFreezer } from ${moduleUrl('../../bench/proxy/freeze.ts', import.meta.url)};
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
    createFreezer([child], true).runOnly(undefined);
    console.log(child.pid);
    setInterval(() => {}, 1000);`;
  const harness = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => harness.kill('SIGKILL'));
  const [chunk] = (await once(harness.stdout, 'data')) as [Buffer];
  const pid = Number(String(chunk).trim());
  t.teardown(() => {
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended
    }
  });
  t.equal(await stopped(pid), 'T', 'the harness stopped its child');
  harness.kill('SIGINT');
  const [code] = (await once(harness, 'exit')) as [number | null];
  t.equal(code, 130, 'the harness ends as interrupted');
  t.not(await running(pid), 'T', 'its child was continued on the way out');
  process.kill(pid, 'SIGTERM');
  const end = await settle(pid, (s) => s === 'gone' || s === 'Z');
  t.ok(end === 'gone' || end === 'Z', `and ends when told to (state ${end})`);
});
