import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { DeliveryAttempt, ScriptInfo, WebhookDelivery } from '../../lib/client/index.js';
import type { describeScript } from '../../lib/scripts/routes/index.js';
import type { AttemptRecord, DeliveryRecord } from '../../lib/webhooks/deliveries.js';

// Compile-time: the client's answer types have exactly the fields the gateway serves.
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
const scriptFields: Same<keyof ScriptInfo, keyof ReturnType<typeof describeScript>> = true;
const deliveryFields: Same<keyof WebhookDelivery, Exclude<keyof DeliveryRecord, 'environment' | 'seq'>> = true;
const attemptFields: Same<keyof DeliveryAttempt, keyof AttemptRecord> = true;
void scriptFields;
void deliveryFields;
void attemptFields;

t.test('the client bundles without any gateway code: request types come from the server as types only', async (t) => {
  const esbuild = await import('esbuild');
  const repo = fileURLToPath(new URL('../../', import.meta.url));
  const result = await esbuild.build({
    absWorkingDir: repo,
    entryPoints: ['lib/client/index.ts'],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  t.ok(inputs.length > 5);
  // The provider protocol's pure modules (pagination, the Link parser) are shared with the gateway.
  t.same(
    inputs.filter((file) => !file.startsWith('lib/client/') && !file.startsWith('lib/providers/protocol/')),
    [],
    'only lib/client files, the pure provider protocol (and Node built-ins)',
  );
  const protocolImports = Object.entries(result.metafile.inputs)
    .filter(([file]) => file.startsWith('lib/providers/protocol/'))
    .flatMap(([, input]) => input.imports.map((i) => i.path));
  t.same(
    protocolImports.filter((path) => !path.startsWith('lib/providers/protocol/')),
    [],
    'the protocol modules import nothing else, not even Node built-ins',
  );
});
