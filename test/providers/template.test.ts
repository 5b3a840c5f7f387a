import t from 'tap';
import { mergeConnectionConfig } from '../../lib/connect/connection-config.js';
import { createSessionSchema } from '../../lib/connect/sessions/session.js';
import { fillTemplate as connectFill } from '../../lib/connect/connection-config.js';
import { GatewayError } from '../../lib/errors.js';
import { fillConnectionTemplate, type Provider } from '../../lib/providers/index.js';
import { fillTemplate, isSafeConfigValue } from '../../lib/providers/protocol/index.js';
import { createBaseResolver } from '../../lib/proxy/provider-base.js';
import type { Connection } from '../../lib/connections/index.js';

/*
 * The connect flow, the token refresh and the proxy used to fill `${connection_config.X}` with
 * different rules: the connect flow took `a..b` and a trailing dot, which the proxy refused on
 * every later call. Every filler must now give the same answer for the same value.
 */
const provider = {
  name: 'tenant-api',
  auth_mode: 'API_KEY',
  connection_configuration: ['tenant'],
  proxy: { base_url: 'https://${connection_config.tenant}.example.com/v1' },
} as unknown as Provider;

const cases: [value: string, safe: boolean][] = [
  ['acme', true],
  ['acme-eu_1~x', true],
  ['a.b', true],
  ['a.b.c', true],
  ['a'.repeat(255), true],
  ['a..b', false],
  ['acme.', false],
  ['.acme', false],
  ['.', false],
  ['..', false],
  ['a'.repeat(256), false],
  ['a/b', false],
  ['a@b', false],
  ['a:1', false],
  ['a?x', false],
  ['a#x', false],
  ['a%2e', false],
  ['a b', false],
];

const connection = (tenant: string) =>
  ({ connection_id: 'c1', connection_config: { tenant } }) as unknown as Connection;
const outcome = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (GatewayError.is(error)) return error.code;
    throw error;
  }
};

for (const [value, safe] of cases) {
  const label = JSON.stringify(value.length > 20 ? `${value.slice(0, 8)}…(${value.length})` : value);
  t.test(`${label} is ${safe ? 'accepted' : 'refused'} by every filler`, async (t) => {
    const expected = safe ? 'ok' : 'invalid_connection_config';
    t.equal(isSafeConfigValue(value), safe, 'the rule');
    t.equal(fillTemplate('https://${connection_config.tenant}.example.com', () => value).ok, safe, 'the pure fill');
    const session = createSessionSchema.safeParse({
      end_user: { id: 'u1' },
      integrations_config_defaults: { crm: { connection_config: { tenant: value } } },
    });
    t.equal(session.success, safe, 'connect: a value in the session request');
    t.equal(
      outcome(() => mergeConnectionConfig(provider, {}, { tenant: value })),
      expected,
      'connect: a value typed by the end user',
    );
    t.equal(
      outcome(() => mergeConnectionConfig(provider, { tenant: value }, {})),
      expected,
      'connect: a value set in the session',
    );
    t.equal(
      outcome(() => connectFill(provider.proxy.base_url, { tenant: value })),
      expected,
      'connect: filling a URL',
    );
    t.equal(
      outcome(() => fillConnectionTemplate(provider.proxy.base_url, connection(value), provider)),
      expected,
      'token refresh and app tokens',
    );
    t.equal(
      outcome(() => createBaseResolver()(provider, connection(value))),
      expected,
      'proxy base URL',
    );
  });
}

t.test('a missing or empty value is named, never filled with nothing', async (t) => {
  t.same(
    fillTemplate('x/${connection_config.a}/${connection_config.b}', (n) => (n === 'a' ? 'ok' : undefined)),
    { ok: false, name: 'b', problem: 'missing' },
  );
  t.same(
    fillTemplate('x/${connection_config.a}', () => ''),
    { ok: false, name: 'a', problem: 'missing' },
  );
  t.equal(
    outcome(() => fillConnectionTemplate(provider.proxy.base_url, connection(''), provider)),
    'missing_connection_config',
  );
  t.equal(
    outcome(() =>
      createBaseResolver()(provider, { connection_id: 'c1', connection_config: {} } as unknown as Connection),
    ),
    'missing_connection_config',
  );
});

t.test('catalog defaults fill what the connection lacks, under the same rules', async (t) => {
  const withDefault = { ...provider, connection_config_defaults: { tenant: 'acme' } } as Provider;
  const bare = { connection_id: 'c1', connection_config: {} } as unknown as Connection;
  t.equal(fillConnectionTemplate(withDefault.proxy.base_url, bare, withDefault), 'https://acme.example.com/v1');
  const badDefault = { ...provider, connection_config_defaults: { tenant: 'acme.' } } as Provider;
  t.equal(
    outcome(() => fillConnectionTemplate(badDefault.proxy.base_url, bare, badDefault)),
    'invalid_connection_config',
  );
});

t.test('a template without placeholders comes back as it is', async (t) => {
  t.same(
    fillTemplate('https://api.example.com', () => {
      throw new Error('not called');
    }),
    { ok: true, value: 'https://api.example.com' },
  );
});
