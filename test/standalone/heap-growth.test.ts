import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runModule } from '../helpers/child.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The growth factor V8 applied at each full collection after `marker`, read from its own trace
 * (`--trace-gc-verbose`): the factor in brackets at the end of a `[HeapController] Limit:` line
 * (Nodes 20 and 22), or the `[HeapController] factor <f> based on` line before it (Node 24).
 */
function limitFactors(trace: string, marker: string): number[] {
  const factors: number[] = [];
  let latest: number | undefined;
  for (const line of trace.slice(trace.indexOf(marker)).split('\n')) {
    const chosen = /\[HeapController\] factor (\d+(?:\.\d+)?) based on/.exec(line);
    if (chosen) latest = Number(chosen[1]);
    if (!line.includes('[HeapController] Limit:')) continue;
    const bracketed = /\((\d+(?:\.\d+)?)\)\s*$/.exec(line);
    const factor = bracketed ? Number(bracketed[1]) : latest;
    if (factor !== undefined) factors.push(factor);
  }
  return factors;
}

/**
 * What a proxy streaming bodies does to V8: external memory (the bodies' buffers) comes and goes
 * by the megabyte while the old generation allocates next to nothing; then a full collection
 * sets the next limit. Left to itself, V8 picks its factor from how fast the collector marks
 * against how fast the old generation grows (Node 20 measured 1.1–1.4 under 1 MiB bodies), and
 * the buffers in flight cross that limit within a few calls (lib/runtime/heap-growth.ts). The
 * collection is asked for (`gc()`), so that there is one however busy the machine is.
 */
const churn = `
  console.log('CHURN STARTS');
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 16; i++) Buffer.alloc(1024 * 1024);
    await new Promise((resolve) => setImmediate(resolve));
  }
  globalThis.gc();
  console.log('CHURN ENDS');
  process.exit(0);
`;

async function factorsUnderChurn(t: Test, setup: string, env: Record<string, string> = {}): Promise<number[]> {
  const { stdout, stderr, code } = await runModule(`${setup}\n${churn}`, {
    cwd: repo,
    nodeOptions: ['--expose-gc', '--trace-gc-verbose'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  t.equal(code, 0, stderr);
  t.ok(stdout.includes('CHURN ENDS'), 'the buffers came and went, then a full collection ran');
  return limitFactors(stdout.slice(0, stdout.indexOf('CHURN ENDS')), 'CHURN STARTS');
}

t.test(
  'the standalone server sets V8 growing its heap by SERVICE_HEAP_GROWING_PERCENT past each full collection',
  async (t) => {
    // 250 (3.5 times the survivors) rather than the default 300 (4 times), which is also V8's own
    // largest factor: a factor V8 can pick by itself would not show whose choice it was.
    const dir = t.testdir();
    const factors = await factorsUnderChurn(
      t,
      `
    import { readConfig } from './adapters/standalone/config.ts';
    import { startStandalone } from './adapters/standalone/server.ts';
    await startStandalone(readConfig({ SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent', ...process.env }), () => {});
    `,
      { SERVICE_STORE_URL: `sqlite://${join(dir, 'portico.db')}`, SERVICE_HEAP_GROWING_PERCENT: '250' },
    );
    t.ok(factors.length >= 1, 'V8 reported the limits it set');
    t.ok(
      factors.every((factor) => factor === 3.5),
      `the factor at each full collection: ${factors.join(', ')} (3.5 wanted)`,
    );
  },
);

t.test('steadyHeapGrowth is exported for an application that embeds the gateway, and takes a percentage', async (t) => {
  const factors = await factorsUnderChurn(
    t,
    `import { steadyHeapGrowth } from './lib/index.ts'; steadyHeapGrowth(150);`,
  );
  t.ok(factors.length >= 1, 'V8 reported the limits it set');
  t.ok(
    factors.every((factor) => factor === 2.5),
    `the factor at each full collection: ${factors.join(', ')} (2.5 wanted)`,
  );
});
