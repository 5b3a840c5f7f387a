import t from 'tap';
import { readConfig } from '../../adapters/standalone/config.js';
import { startStandalone } from '../../adapters/standalone/server.js';
import { proxySetup } from './helpers.js';

t.test('starting a gateway and proxying calls prints no deprecation warning (Node 20, 22 and 24)', async (t) => {
  const warnings: string[] = [];
  const onWarning = (warning: Error & { code?: string }) =>
    warnings.push(`${warning.name} ${warning.code ?? ''}: ${warning.message}`);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));

  const standalone = await startStandalone(
    readConfig({ SERVICE_PORT: '0', SERVICE_STORE_URL: 'memory://', SERVICE_LOG_LEVEL: 'silent' }),
    () => {},
  );
  t.teardown(() => standalone.stop());
  const s = await proxySetup(t);
  t.equal((await s.proxy('GET', '/v1/x')).status, 200);
  t.equal(
    (await s.proxy('POST', '/v1/x', { body: '{"a":1}', headers: { 'content-type': 'application/json' } })).status,
    200,
  );
  // Warnings are emitted on a later tick.
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(
    warnings.filter((w) => /Deprecation/.test(w)),
    [],
    `no deprecation on Node ${process.version}`,
  );
});
