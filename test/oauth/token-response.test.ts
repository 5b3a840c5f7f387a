import type { ServerResponse } from 'node:http';
import t from 'tap';
import type { Test } from 'tap';
import { listen, readBody } from '../helpers/http.js';
import { browse, resultOf } from './fixtures/browser.js';
import { startConnectGateway, testProvider, type ConnectGateway } from './fixtures/gateway.js';

type TokenAnswer = (form: Record<string, string>, res: ServerResponse) => void;

/** A bare OAuth server whose token answers the test writes, to exercise what providers really send. */
async function start(t: Test) {
  const control: { answer: TokenAnswer } = { answer: (_form, res) => res.end('{}') };
  const forms: Record<string, string>[] = [];
  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', 'the-code');
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.statusCode = 302;
      res.setHeader('location', back.toString());
      return res.end();
    }
    if (url.pathname === '/token') {
      const form = Object.fromEntries(new URLSearchParams((await readBody(req)).toString()));
      forms.push(form);
      return control.answer(form, res);
    }
    res.statusCode = 404;
    res.end();
  });
  t.teardown(() => server.close());
  const gw = await startConnectGateway(t, {
    providers: [
      testProvider('fake-crm', {
        auth_mode: 'OAUTH2',
        authorization_url: `${server.url}/authorize`,
        token_url: `${server.url}/token`,
        connection_configuration: ['instance_host'],
        token_response_config: { instance_host: { from: 'instance_url', part: 'host' } },
        proxy: { base_url: 'https://${connection_config.instance_host}' },
      }),
    ],
  });
  await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'crm',
      provider: 'fake-crm',
      credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: 'client-secret-123' },
    },
  });
  return { gw, control, forms, url: server.url };
}

const json =
  (body: unknown, status = 200): TokenAnswer =>
  (_form, res) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  };

async function attempt(gw: ConnectGateway) {
  const link = (
    await gw.call('POST', '/connect/sessions', { body: { end_user: { id: 'eu-1' }, allowed_integrations: ['crm'] } })
  ).json.data.connect_link;
  const { message } = resultOf((await browse(link)).text);
  if (message.ok) return message;
  // The end user reads a neutral sentence; the provider's words go to the customer's webhook.
  const reported = gw.events.filter((e) => e.type === 'connection.auth_attempt_failed').at(-1) as
    { code: string; message: string } | undefined;
  return {
    ...message,
    error: {
      code: message.error.code,
      message: reported && reported.code === message.error.code ? reported.message : '(not reported)',
    },
  };
}

t.test('token-response fields become connection config (the instance host API calls go to)', async (t) => {
  const { gw, control, forms } = await start(t);
  control.answer = json({
    access_token: '00Dxx!AQ',
    refresh_token: '5Aep',
    instance_url: 'https://acme.my.salesforce.com',
    id: 'https://login.salesforce.com/id/00D/005',
    token_type: 'Bearer',
    issued_at: '1700000000000',
  });
  const message = await attempt(gw);
  t.equal(message.ok, true, JSON.stringify(message));
  const c = (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=crm`)).json.data;
  t.same(c.connection_config, { instance_host: 'acme.my.salesforce.com' });
  t.match(c.credentials, {
    type: 'OAUTH2',
    access_token: '00Dxx!AQ',
    refresh_token: '5Aep',
    raw: { instance_url: 'https://acme.my.salesforce.com', issued_at: '1700000000000' },
  });
  t.notOk('access_token' in c.credentials.raw, 'tokens are not duplicated in raw');
  t.match(forms[0], {
    grant_type: 'authorization_code',
    code: 'the-code',
    client_id: 'cid',
    client_secret: 'client-secret-123',
    redirect_uri: `${gw.base}/oauth/callback`,
  });

  // An instance URL that would send API calls to another port or over plain HTTP is refused.
  control.answer = json({ access_token: 'x', instance_url: 'https://acme.my.salesforce.com:8443' });
  t.match((await attempt(gw)).error, { code: 'token_exchange_failed', message: /unusable host/ });
  control.answer = json({ access_token: 'x', instance_url: 'http://acme.my.salesforce.com' });
  t.match((await attempt(gw)).error, { code: 'token_exchange_failed', message: /not an https URL/ });
  t.equal((await gw.call('GET', '/connections')).json.data.length, 1);
});

t.test(
  'what token endpoints really answer: form encoding, 200 with an error, no token, a redirect, silence',
  async (t) => {
    const { gw, control, url } = await start(t);
    control.answer = (_form, res) => {
      res.setHeader('content-type', 'application/x-www-form-urlencoded');
      res.end('access_token=gho_form&token_type=bearer&scope=repo');
    };
    const form = await attempt(gw);
    t.equal(form.ok, true, 'a form-encoded answer is read');
    t.match(
      (await gw.call('GET', `/connections/${form.connection_id}?provider_config_key=crm`)).json.data.credentials,
      { access_token: 'gho_form', scope: 'repo' },
    );

    control.answer = json({
      error: 'bad_verification_code',
      error_description: 'The code passed is incorrect or expired.',
    });
    t.match((await attempt(gw)).error, {
      code: 'token_exchange_failed',
      message: /\(bad_verification_code\): The code passed is incorrect or expired\./,
    });
    control.answer = json({ token_type: 'bearer' });
    t.match((await attempt(gw)).error, { code: 'token_exchange_failed', message: /without an access_token/ });
    control.answer = (_form, res) => {
      res.statusCode = 307;
      res.setHeader('location', `${url}/elsewhere`);
      res.end();
    };
    t.match(
      (await attempt(gw)).error,
      { code: 'token_exchange_failed', message: /could not be reached/ },
      'a redirect is not followed with the client secret',
    );
    control.answer = json({ error: 'temporarily_unavailable' }, 503);
    t.match((await attempt(gw)).error, { code: 'token_exchange_failed', message: /answered 503/ });
    t.equal((await gw.call('GET', '/connections')).json.data.length, 1);
  },
);
