import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `check` gives a value (not undefined/false) and returns it. The deadline only
 * stops a hang, it asserts nothing about time; `what` names the wait in the timeout error.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
