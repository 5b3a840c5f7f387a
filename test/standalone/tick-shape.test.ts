import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runModule } from '../helpers/child.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/**
 * In a fresh process (with `setup` run first): the CPU time of `process.nextTick` in
 * nanoseconds, the least of eight bursts once its callers are optimized, before and after a
 * quiet spell in which full collections run with no tick object alive (what V8's memory reducer
 * does to a server left idle), and that the second is not well above the first. CPU time rather
 * than wall time, and the least of several bursts, so that other work on the machine slows
 * neither side. Without the held tick object, Nodes 20, 22 and 24 measured 3 to 5 times the
 * cost after.
 */
async function expectSteadyNextTick(t: Test, setup: string, env: Record<string, string> = {}): Promise<void> {
  const script = `
    ${setup}
    const noop = () => {};
    const burst = (n) => new Promise((resolve) => {
      let left = n;
      const step = () => {
        for (let i = 0; i < 100; i++) process.nextTick(noop);
        if ((left -= 100) > 0) setImmediate(step); else setImmediate(resolve);
      };
      step();
    });
    const cost = async () => {
      let least = Infinity;
      for (let round = 0; round < 8; round++) {
        const started = process.cpuUsage();
        await burst(100_000);
        const spent = process.cpuUsage(started);
        least = Math.min(least, ((spent.user + spent.system) * 1000) / 100_000);
      }
      return least;
    };
    await burst(1_000_000);
    const before = await cost();
    for (let i = 0; i < 4; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // As before: long enough for the callers to be optimized (again, after the collections).
    await burst(1_000_000);
    const after = await cost();
    console.log(JSON.stringify({ before, after }));
    process.exit(0);
  `;
  const { stdout, stderr, code } = await runModule(script, {
    cwd: repo,
    nodeOptions: ['--expose-gc'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  t.equal(code, 0, stderr);
  const costs = JSON.parse(stdout.trim().split('\n').pop() as string) as { before: number; after: number };
  t.ok(
    costs.after < costs.before * 1.8,
    `a nextTick costs ${costs.after.toFixed(0)} ns after the quiet spell, ${costs.before.toFixed(0)} ns before`,
  );
}

t.test('the standalone server keeps nextTick as fast after a quiet spell as before it', async (t) => {
  const dir = t.testdir();
  await expectSteadyNextTick(
    t,
    `
    import { readConfig } from './adapters/standalone/config.ts';
    import { startStandalone } from './adapters/standalone/server.ts';
    const standalone = await startStandalone(readConfig({ SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent', ...process.env }), () => {});
    const health = await fetch(standalone.url + '/health');
    if (health.status !== 200) throw new Error('the server did not answer');
    `,
    { SERVICE_STORE_URL: `sqlite://${join(dir, 'portico.db')}` },
  );
});

t.test('keepTickShape is exported for an application that embeds the gateway, and does the same', async (t) => {
  await expectSteadyNextTick(t, `import { keepTickShape } from './lib/index.ts'; keepTickShape(); keepTickShape();`);
});
