import type { Page } from 'playwright-core';
import t from 'tap';
import type { Test } from 'tap';
import { postClient } from '../oauth/fixtures/authorization-server.js';
import { startAuthorizationServer, type AuthorizationServer } from '../oauth/fixtures/authorization-server.js';
import { startConnectGateway, testProvider, type ConnectGateway } from '../oauth/fixtures/gateway.js';
import { checkPage, launchBrowser, missingChromium, skipWithoutChromium } from './fixtures/page-check.js';

if (missingChromium && process.env.CI === 'true')
  t.fail('/usr/bin/chromium is missing; under CI the browser test is mandatory (apt-get install -y chromium)');

const branding = { app_name: 'Northwind CRM', accent_color: '#0f766e' };
const endUser = { id: 'eu-ui', email: 'ada@example.com', display_name: 'Ada Lovelace' };
const organization = { id: 'org-ui', display_name: 'Analytical Engines' };

/** A gateway with an OAuth provider on a local authorization server and the built-in catalog's API key and basic entries. */
async function start(
  t: Test,
  options: { connectSessionTtlMs?: number } = {},
): Promise<{ gw: ConnectGateway; as: AuthorizationServer }> {
  let as: AuthorizationServer | undefined;
  const gw = await startConnectGateway(t, async (base) => {
    as = await startAuthorizationServer(t, { redirectUri: `${base}/oauth/callback` });
    const { logo_url: _unused, ...oidc } = as.providers[0] as Record<string, unknown>;
    return {
      ...options,
      providers: [
        { ...oidc, name: 'ui-asana', display_name: 'Asana', logo: 'asana' },
        testProvider('ui-zendesk', {
          display_name: 'Zendesk',
          logo: 'zendesk',
          logo_url: undefined,
          auth_mode: 'OAUTH2',
          connection_configuration: ['subdomain'],
          authorization_url: 'https://${connection_config.subdomain}.example.com/oauth/authorize',
          token_url: 'https://${connection_config.subdomain}.example.com/oauth/token',
          proxy: { base_url: 'https://${connection_config.subdomain}.example.com/api' },
        }),
      ],
    };
  });
  for (const body of [
    { unique_key: 'asana', provider: 'ui-asana', credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] } },
    { unique_key: 'brevo', provider: 'brevo' },
    { unique_key: 'freshdesk', provider: 'freshdesk' },
    {
      unique_key: 'zendesk',
      provider: 'ui-zendesk',
      credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: 'client-secret-123' },
    },
    { unique_key: 'asana-unset', provider: 'ui-asana', display_name: 'Asana (no client yet)' },
  ]) {
    const res = await gw.call('POST', '/integrations', { body });
    if (res.status !== 201) throw new Error(res.text);
  }
  return { gw, as: as as AuthorizationServer };
}

async function link(gw: ConnectGateway, body: Record<string, unknown>): Promise<string> {
  const res = await gw.call('POST', '/connect/sessions', {
    body: { end_user: endUser, organization, branding, origin: 'https://app.example.test', ...body },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.json.data.connect_link as string;
}

async function open(page: Page, url: string, status: number): Promise<void> {
  const res = await page.goto(url);
  t.equal(
    res?.status(),
    status,
    `${url.replace(/connect_session_token=[^&]+/, 'connect_session_token=…')} answers ${status}`,
  );
}

t.test(
  'every connect page, at 1280 and 360 px: visible, no sideways scroll, no serious axe-core finding',
  { skip: skipWithoutChromium },
  async (t) => {
    if (missingChromium) return;
    const { gw, as } = await start(t);
    const page = await (await launchBrowser(t)).newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (e) => scriptErrors.push(e.message));
    // Error statuses of the pages themselves are logged too; anything else (a CSP refusal) is a finding.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded'))
        scriptErrors.push(m.text());
    });

    await open(page, await link(gw, { allowed_integrations: ['asana', 'brevo', 'freshdesk'] }), 200);
    t.equal(await page.textContent('h1'), 'Choose what to connect');
    t.equal(await page.locator('.choice').count(), 3);
    await checkPage(t, page, 'chooser', ['.choice', '#portico-cancel', '.who']);

    await open(page, await link(gw, { allowed_integrations: ['brevo'] }), 200);
    t.equal(await page.textContent('h1'), 'Connect Brevo');
    t.equal(await page.textContent('.who'), 'Connecting for Ada Lovelace · Analytical Engines');
    t.equal(
      await page.getAttribute('a.help', 'href'),
      'https://developers.brevo.com/docs/getting-started',
      "the catalog's docs, for want of a help_url",
    );
    await checkPage(t, page, 'api-key', [
      'input[name=apiKey]',
      'label[for=f0]',
      'button[type=submit]',
      'a.help',
      '#portico-cancel',
      '.tile',
      'img.logo',
    ]);
    // Keyboard: the key field has focus, then the help link, Connect, Cancel; each shows a focus ring.
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'apiKey');
    for (const expected of ['help', 'btn primary', 'btn secondary']) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => ({
        cls: document.activeElement?.className,
        outline: getComputedStyle(document.activeElement as Element).outlineStyle,
      }));
      t.match(focused, { cls: expected, outline: 'solid' }, `Tab reaches ${expected} with a visible outline`);
    }

    // A refused submission: the same form, the error announced and tied to the field.
    await page.evaluate(() => document.querySelector('input[name=apiKey]')?.removeAttribute('required'));
    await page.click('button[type=submit]');
    await page.waitForSelector('.alert');
    t.equal(await page.textContent('.alert'), 'Not connected yetFill in every field.');
    await checkPage(t, page, 'api-key-error', ['.alert', 'input[aria-invalid=true]', 'button[type=submit]']);

    await open(
      page,
      await link(gw, {
        allowed_integrations: ['freshdesk'],
        integrations_config_defaults: { freshdesk: { connection_config: { subdomain: 'acme' } } },
      }),
      200,
    );
    await checkPage(t, page, 'basic', ['input[name=username]', 'input[name=password]', 'button[type=submit]']);

    // A setting the consent URL needs, then the hop to the provider (aborted: only 127.0.0.1 is reached).
    await open(page, await link(gw, { allowed_integrations: ['zendesk'] }), 200);
    await page.fill('input[name="connection_config.subdomain"]', 'acme');
    await page.click('button[type=submit]');
    await page.waitForSelector('.spinner');
    t.equal(await page.textContent('h1'), 'Continue to Zendesk');
    await checkPage(t, page, 'continue', ['a.btn.primary', '#portico-cancel']);

    // OAuth through the local authorization server: the success page names the provider, no ids.
    const oauthLink = await link(gw, { allowed_integrations: ['asana'] });
    await open(page, oauthLink, 200);
    t.equal(await page.textContent('h1'), 'Connected');
    t.equal(await page.textContent('.lead'), 'Your Asana account is now connected to Northwind CRM.');
    const shown = await page.evaluate(() => document.body.innerText);
    const [connection] = (await gw.call('GET', '/connections')).json.data;
    t.notMatch(shown, connection.connection_id, 'the connection id is not shown');
    t.notMatch(shown, /\basana\b/, 'nor the integration key');
    await checkPage(t, page, 'success', ['.icon']);

    await open(page, oauthLink, 401);
    t.equal(await page.textContent('h1'), 'This link was already used');
    await checkPage(t, page, 'link-used', ['.lead']);

    as.control.decision = 'deny';
    await open(page, await link(gw, { allowed_integrations: ['asana'] }), 403);
    t.equal(await page.textContent('h1'), 'Access not granted');
    await checkPage(t, page, 'denied', ['.lead']);

    // A misconfigured integration: a neutral page; the detail is in the log and the auth webhook.
    await open(page, await link(gw, { allowed_integrations: ['asana-unset'] }), 424);
    t.equal(await page.textContent('h1'), 'Connection not available');
    t.equal(
      await page.textContent('.lead'),
      "Connecting Asana isn't available right now. Please contact Northwind CRM for help.",
    );
    t.notMatch(await page.content(), /PATCH|client_id|\/integrations/, 'no configuration hint on the page');
    const failed = gw.events.filter((e) => e.type === 'connection.auth_attempt_failed').at(-1) as any;
    t.match(
      failed,
      { code: 'integration_credentials_missing', message: /PATCH \/integrations/ },
      'the customer gets the detail',
    );
    await checkPage(t, page, 'unavailable', ['.lead']);

    await open(page, `${gw.base}/oauth/connect?connect_session_token=cst_${'x'.repeat(43)}`, 401);
    t.equal(await page.textContent('h1'), 'This link is not valid');
    await checkPage(t, page, 'link-invalid', ['.lead']);

    t.same(scriptErrors, [], 'no script or CSP errors on any page');
  },
);

t.test('an expired link, with the default look (no branding)', { skip: skipWithoutChromium }, async (t) => {
  if (missingChromium) return;
  const { gw } = await start(t, { connectSessionTtlMs: 300 });
  const res = await gw.call('POST', '/connect/sessions', {
    body: { end_user: { id: 'eu-plain' }, allowed_integrations: ['brevo'] },
  });
  await new Promise((resolve) => setTimeout(resolve, 700));
  const page = await (await launchBrowser(t)).newPage();
  await open(page, res.json.data.connect_link, 401);
  t.equal(await page.textContent('h1'), 'This link has expired');
  t.equal(
    await page.textContent('.lead'),
    'Connect links are valid for a short time. Ask the application for a new one.',
  );
  await checkPage(t, page, 'link-expired', ['.lead']);
});
