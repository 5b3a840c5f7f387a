import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { grantToken } from '../../lib/connect/provider-answer.js';
import { oauthTokenRequest as refreshRequest } from '../../lib/credentials/oauth-client.js';
import type { CredentialTarget } from '../../lib/credentials/index.js';
import { GatewayError } from '../../lib/errors.js';
import type { Provider } from '../../lib/providers/index.js';
import {
  basicClientAuthorization,
  callTokenEndpoint,
  formEncode,
  readTokenAnswer,
} from '../../lib/providers/protocol/index.js';

/*
 * The code exchange and the refresh had two token clients: one form-encoded the client id and
 * secret for HTTP basic with URLSearchParams, the other with encodeURIComponent (which leaves
 * `!'()~` alone), and only one of them took 408 as "try later".
 */

const decodeBasic = (header: string) => Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('latin1');

t.test('client id and secret are form-encoded before HTTP basic (RFC 6749 2.3.1)', async (t) => {
  const table: [raw: string, encoded: string][] = [
    ['plain-Secret_1.2', 'plain-Secret_1.2'],
    ['a~b', 'a%7Eb'],
    ["it's!(x)", 'it%27s%21%28x%29'],
    ['a*b', 'a*b'],
    ['a b', 'a+b'],
    ['a+b', 'a%2Bb'],
    ['id:with:colons', 'id%3Awith%3Acolons'],
    ['a/b=c&d', 'a%2Fb%3Dc%26d'],
    ['%41', '%2541'],
    ['é', '%C3%A9'],
  ];
  for (const [raw, encoded] of table) {
    t.equal(formEncode(raw), encoded, JSON.stringify(raw));
    t.equal(
      decodeBasic(basicClientAuthorization({ client_id: raw, client_secret: raw })),
      `${encoded}:${encoded}`,
      `basic header for ${JSON.stringify(raw)}`,
    );
  }
});

t.test('one error mapping for every answer', async (t) => {
  const table: [status: number, body: string, expected: Record<string, unknown>][] = [
    [200, '{"access_token":"at"}', { ok: true, status: 200, body: { access_token: 'at' } }],
    [200, 'access_token=at&token_type=bearer', { ok: true, body: { access_token: 'at', token_type: 'bearer' } }],
    [
      200,
      '{"error":"invalid_grant","error_description":"gone"}',
      { ok: false, reason: 'refused', error: 'invalid_grant', description: 'gone' },
    ],
    [400, '{"error":"invalid_grant"}', { ok: false, reason: 'refused', status: 400, error: 'invalid_grant' }],
    [401, 'nope', { ok: false, reason: 'refused', status: 401, error: 'http_401' }],
    [403, '{"message":"forbidden"}', { ok: false, reason: 'refused', status: 403, description: 'forbidden' }],
    [404, '', { ok: false, reason: 'refused', status: 404 }],
    [408, '{"error":"timeout"}', { ok: false, reason: 'unavailable', status: 408 }],
    [429, '{"error":"slow_down"}', { ok: false, reason: 'unavailable', status: 429 }],
    [500, '{"error":"server_error"}', { ok: false, reason: 'unavailable', status: 500 }],
    [503, '', { ok: false, reason: 'unavailable', status: 503 }],
    [200, 'not json', { ok: false, reason: 'unavailable', status: 200 }],
    [200, '[1,2]', { ok: false, reason: 'unavailable', status: 200 }],
  ];
  for (const [status, body, expected] of table)
    t.match(readTokenAnswer(status, body), expected, `${status} ${body || '(empty)'}`);
  t.equal(
    (
      readTokenAnswer(400, JSON.stringify({ error: 'x', error_description: 'd'.repeat(1000) })) as {
        description: string;
      }
    ).description.length,
    300,
    'the description is clipped',
  );
});

/** A token endpoint on 127.0.0.1 that remembers what it got and answers `status`. */
async function tokenServer(t: Test, status: number) {
  const got: { authorization: string | undefined; form: URLSearchParams }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', () => {
      got.push({ authorization: req.headers.authorization, form: new URLSearchParams(text) });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"access_token":"at","expires_in":3600}' : '{"error":"request_timeout"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, got };
}

const client = { client_id: 'app~1', client_secret: "s3cr~t!'()" };
const providerAt = (url: string, auth: 'basic' | 'body') =>
  ({
    name: 'p',
    auth_mode: 'OAUTH2',
    token_url: url,
    token_request_auth: auth,
    proxy: { base_url: 'https://api.example.com' },
  }) as unknown as Provider;
const targetOf = (provider: Provider) =>
  ({
    environment: 'dev',
    provider,
    connection: { connection_id: 'c1', connection_config: {} },
    integration: { unique_key: 'crm', credentials: { type: 'OAUTH2', ...client, scopes: [] } },
  }) as unknown as CredentialTarget;

for (const auth of ['basic', 'body'] as const) {
  t.test(`code exchange and refresh send the client the same way (${auth})`, async (t) => {
    const server = await tokenServer(t, 200);
    const provider = providerAt(server.url, auth);
    await grantToken({ fetch, callbackUrl: 'https://gw.example/cb' }, provider, server.url, client, {
      grant_type: 'authorization_code',
      code: 'c',
    });
    const refreshed = await callTokenEndpoint(
      fetch,
      refreshRequest(targetOf(provider), { grant_type: 'refresh_token', refresh_token: 'r' }, 5000),
    );
    t.equal(refreshed.ok, true);
    const [exchange, refresh] = server.got;
    t.equal(exchange?.authorization, refresh?.authorization, 'same Authorization header');
    if (auth === 'basic') {
      t.equal(decodeBasic(exchange?.authorization ?? ''), 'app%7E1:s3cr%7Et%21%27%28%29');
      t.equal(exchange?.form.get('client_secret'), null, 'no secret in the body');
    } else {
      t.equal(exchange?.authorization, undefined);
      t.equal(exchange?.form.get('client_secret'), client.client_secret);
      t.equal(refresh?.form.get('client_secret'), client.client_secret);
    }
  });
}

t.test('a 408 is "try later" at the code exchange and at the refresh', async (t) => {
  const server = await tokenServer(t, 408);
  const provider = providerAt(server.url, 'body');
  const refreshed = await callTokenEndpoint(
    fetch,
    refreshRequest(targetOf(provider), { grant_type: 'refresh_token', refresh_token: 'r' }, 5000),
  );
  t.match(refreshed, { ok: false, reason: 'unavailable', status: 408 });
  const exchange = await grantToken({ fetch, callbackUrl: 'https://gw.example/cb' }, provider, server.url, client, {
    grant_type: 'authorization_code',
    code: 'c',
  }).catch((error: unknown) => error);
  t.ok(GatewayError.is(exchange));
  t.match(
    (exchange as GatewayError).message,
    /token exchange with the provider failed: the token endpoint answered 408\. Start again/,
    'not reported as the provider refusing the grant',
  );
});
