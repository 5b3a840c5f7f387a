import t from 'tap';
import { createPorticoClient, PorticoError, type Connection, type ConnectionSummary } from '../../lib/client/index.js';
import { publicConnection } from '../../lib/connections/index.js';
import { devKey, startGateway } from '../helpers/gateway.js';

// Compile-time: the client's connection types have exactly the fields the gateway serves.
type Served<WithCredentials extends boolean> =
  keyof ReturnType<typeof publicConnection> | (WithCredentials extends true ? 'credentials' : 'auth_mode');
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
const fullFields: Same<keyof Connection, Exclude<Served<true>, 'auth_mode'>> = true;
const summaryFields: Same<keyof ConnectionSummary, Exclude<Served<false>, 'credentials'>> = true;
void fullFields;
void summaryFields;

t.test('catalog, integrations and connections through the client', async (t) => {
  const gw = await startGateway(t);
  const portico = createPorticoClient({ baseUrl: gw.url, secretKey: devKey });

  const providers = await portico.listProviders();
  t.ok(providers.length >= 65, 'the catalog');
  const github = await portico.getProvider('github-app');
  t.equal(github.auth_mode, 'APP');
  t.equal(github.proxy.base_url, 'https://api.github.com');

  const integration = await portico.createIntegration({ unique_key: 'stripe', provider: 'stripe' });
  t.equal(integration.unique_key, 'stripe');
  t.same(
    (await portico.listIntegrations()).map((i) => i.unique_key),
    ['stripe'],
  );

  const imported = await portico.importConnection({
    provider_config_key: 'stripe',
    connection_id: 'acme',
    credentials: { type: 'API_KEY', apiKey: 'sk_live_1' },
    end_user: { id: 'u1', email: 'a@example.com' },
  });
  t.equal(imported.created, true);
  t.equal(imported.connection.auth_mode, 'API_KEY');
  t.equal(
    (imported.connection as unknown as { credentials?: unknown }).credentials,
    undefined,
    'no credentials in the import answer',
  );
  const again = await portico.importConnection({
    provider_config_key: 'stripe',
    connection_id: 'acme',
    credentials: { type: 'API_KEY', apiKey: 'sk_live_2' },
  });
  t.equal(again.created, false, 'the same id overrides');

  const connection = await portico.getConnection('stripe', 'acme');
  t.same(connection.credentials, { type: 'API_KEY', apiKey: 'sk_live_2' });
  t.same(connection.end_user, { id: 'u1', email: 'a@example.com' });

  await portico.importConnection({
    provider_config_key: 'stripe',
    connection_id: 'beta',
    credentials: { type: 'API_KEY', apiKey: 'k' },
  });
  const page1 = await portico.listConnections({ providerConfigKey: 'stripe', limit: 1 });
  t.equal(page1.data.length, 1);
  t.type(page1.next_cursor, 'string');
  const page2 = await portico.listConnections({
    providerConfigKey: 'stripe',
    limit: 1,
    cursor: page1.next_cursor as string,
  });
  t.equal(page2.next_cursor, null);
  t.not(page2.data[0]?.connection_id, page1.data[0]?.connection_id);

  const patched = await portico.patchConnection('stripe', 'acme', { end_user: { id: 'u1', email: 'new@example.com' } });
  t.equal(patched.end_user?.email, 'new@example.com');

  t.same(await portico.setMetadata('stripe', 'acme', { plan: 'pro', seats: 3 }), [
    { connection_id: 'acme', provider_config_key: 'stripe', metadata: { plan: 'pro', seats: 3 } },
  ]);
  const merged = await portico.updateMetadata('stripe', ['acme', 'beta'], { region: 'eu' });
  t.same(
    merged.map((m) => m.metadata),
    [{ plan: 'pro', seats: 3, region: 'eu' }, { region: 'eu' }],
  );

  await portico.deleteConnection('stripe', 'beta');
  t.same(
    (await portico.listConnections()).data.map((c) => c.connection_id),
    ['acme'],
  );
});

t.test('errors carry the API code and status, and are recognised across copies', async (t) => {
  const gw = await startGateway(t);
  const portico = createPorticoClient({ baseUrl: gw.url, secretKey: devKey });

  const missing = await portico.getProvider('nope').catch((e: unknown) => e);
  t.ok(missing instanceof PorticoError);
  t.ok(PorticoError.is(missing));
  t.equal((missing as PorticoError).code, 'unknown_provider');
  t.equal((missing as PorticoError).status, 404);

  const invalid = await portico
    .importConnection({ provider_config_key: 'nope', credentials: { type: 'API_KEY', apiKey: '' } })
    .catch((e: unknown) => e);
  t.equal((invalid as PorticoError).code, 'invalid_body');
  t.equal((invalid as PorticoError).details.field, 'credentials.apiKey', 'the field is named');

  const wrongKey = createPorticoClient({ baseUrl: gw.url, secretKey: 'sk_wrong_0123456789abcdef' });
  const unauthorized = await wrongKey.listConnections().catch((e: unknown) => e);
  t.equal((unauthorized as PorticoError).code, 'unauthorized');
  t.equal((unauthorized as PorticoError).status, 401);

  const nowhere = createPorticoClient({ baseUrl: 'http://127.0.0.1:1', secretKey: devKey });
  const network = await nowhere.listProviders().catch((e: unknown) => e);
  t.equal((network as PorticoError).code, 'network_error');
  t.equal((network as PorticoError).status, 0);

  // A second installed copy of the package: a different module instance, a different class.
  const secondCopy = '../../lib/client/errors.js?second-copy';
  const copy = (await import(secondCopy)) as typeof import('../../lib/client/errors.js');
  t.not(copy.PorticoError, PorticoError, 'really another class');
  const foreign = new copy.PorticoError({ code: 'x', status: 400, message: 'm' });
  t.notOk(foreign instanceof PorticoError, 'instanceof fails across copies');
  t.ok(PorticoError.is(foreign), 'PorticoError.is() still recognises it');
  t.notOk(PorticoError.is(new Error('plain')));

  t.throws(() => createPorticoClient({ baseUrl: '', secretKey: devKey }), /baseUrl is required/);
});
