import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runModule } from '../helpers/child.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Starts the standalone server in a fresh process with `env`, answers one call, and reports which
 * of the libraries only some configurations use it has loaded (CommonJS packages, so each one
 * loaded is in the module cache).
 */
async function loadedBy(t: Test, env: Record<string, string>): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    import { readConfig } from './adapters/standalone/config.ts';
    import { startStandalone } from './adapters/standalone/server.ts';
    const standalone = await startStandalone(readConfig({ SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent', ...process.env }), () => {});
    const health = await fetch(standalone.url + '/health');
    const cached = Object.keys(createRequire(import.meta.url).cache);
    const libraries = ['bullmq', 'ioredis', '@redis/client', '@keyv/redis', 'pg', 'prom-client', 'yaml'].filter((name) =>
      cached.some((path) => path.includes('/node_modules/' + name + '/')),
    );
    await standalone.stop();
    console.log(JSON.stringify({ status: health.status, libraries }));
  `;
  const { stdout, stderr, code } = await runModule(script, {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  t.equal(code, 0, stderr);
  const report = JSON.parse(stdout.trim().split('\n').pop() as string) as { status: number; libraries: string[] };
  t.equal(report.status, 200, 'the server answered');
  return report.libraries;
}

t.test(
  'the standalone server on SQLite loads no queue, Redis, PostgreSQL, YAML or metrics library it does not use',
  async (t) => {
    const dir = t.testdir();
    t.same(await loadedBy(t, { SERVICE_STORE_URL: `sqlite://${join(dir, 'portico.db')}` }), []);
    t.same(
      await loadedBy(t, {
        SERVICE_STORE_URL: `sqlite://${join(dir, 'metrics.db')}`,
        SERVICE_METRICS_TOKEN: 'metrics-token-0123456789',
      }),
      ['prom-client'],
      'with metrics on, the metrics library and nothing else',
    );
  },
);
