import t from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { devKey, testEncryptionKey } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { redisUrl, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { postClient, type AuthorizationServer } from './fixtures/authorization-server.js';
import { browse, cookieOf, resultOf } from './fixtures/browser.js';
import { startOAuthPair } from './fixtures/oauth-setup.js';

t.test('two gateway processes sharing Redis: a state and a session are single-use across both', async (t) => {
  if (!(await requireRedis(t))) return;
  const storage = createRedisStorage({ url: redisUrl, prefix: uniquePrefix('oauth-single-use') });
  t.teardown(() => storage.close());
  const { gw: a, as } = await startOAuthPair(t, { gateway: { storage } });
  // A second instance behind the same public address (a load balancer would pick either).
  const b = await createGateway({
    environments: [{ name: 'dev', secretKey: devKey }],
    storage,
    encryptionKeys: testEncryptionKey,
    baseUrl: a.base,
    providers: (as as AuthorizationServer).providers,
    logger: createLogger({ level: 'silent' }),
  });
  const bServer = await listen(b.callback());
  t.teardown(async () => {
    await bServer.close();
    await b.close();
  });

  await a.call('POST', '/integrations', {
    body: {
      unique_key: 'oidc',
      provider: 'local-oidc',
      credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] },
    },
  });
  const link = (
    await a.call('POST', '/connect/sessions', { body: { end_user: { id: 'eu-1' }, allowed_integrations: ['oidc'] } })
  ).json.data.connect_link as string;
  const stopped = await browse(link, { stopBefore: (u) => u.pathname === '/oauth/callback' });
  const callback = new URL(stopped.stoppedAt as string);
  const onB = new URL(callback.pathname + callback.search, bServer.url);

  const raced = await Promise.all([
    fetch(callback, { headers: cookieOf(stopped.jar) }),
    fetch(onB, { headers: cookieOf(stopped.jar) }),
  ]);
  const bodies = await Promise.all(raced.map((r) => r.text()));
  t.same(raced.map((r) => r.status).sort(), [200, 409], 'exactly one instance accepts the state');
  t.same(bodies.map((b) => resultOf(b).message.ok ?? false).sort(), [false, true]);
  t.equal((await a.call('GET', '/connections')).json.data.length, 1);

  const replayedLink = new URL(link);
  const onBLink = new URL(replayedLink.pathname + replayedLink.search, bServer.url);
  const spent = await browse(onBLink.toString());
  t.equal(
    resultOf(spent.text).message.error.code,
    'invalid_connect_session',
    'the session spent on one instance is spent on the other',
  );
});
