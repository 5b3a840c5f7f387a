import { createConnection } from 'node:net';
import type { Test } from 'tap';

/** True when something accepts a TCP connection at `url`'s host and port (within 1 s). */
export function answers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || defaultPort) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Tests that need a real service run when it answers; without it they skip with a reason,
 * except under CI=true where a missing service fails the test.
 */
export async function requireService(t: Test, name: string, url: string, up: boolean): Promise<boolean> {
  if (up) return true;
  if (process.env.CI === 'true') {
    t.fail(`${name} does not answer at ${url}; under CI the ${name}-backed tests are mandatory`);
    return false;
  }
  t.plan(0, `${name} does not answer at ${url}: skipped (start ${name} to run this test)`);
  return false;
}
