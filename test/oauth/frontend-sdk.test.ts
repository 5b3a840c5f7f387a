import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { chromium, type Page } from 'playwright-core';
import t from 'tap';
import ts from 'typescript';
import { createConnectPageHandler } from '../../examples/connect-page/handler.js';
import { devKey } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { postClient } from './fixtures/authorization-server.js';
import { testProvider } from './fixtures/gateway.js';
import { startOAuthPair } from './fixtures/oauth-setup.js';

const chromiumPath = '/usr/bin/chromium';
const sdkDir = new URL('../../lib/frontend/', import.meta.url);

/** The SDK as the browser gets it: each TypeScript file compiled to plain ESM (what `tsc` puts in dist/lib/frontend/). */
async function sdkFile(name: string): Promise<string | undefined> {
  const source = await readFile(new URL(name.replace(/\.js$/, '.ts'), sdkDir), 'utf8').catch(() => undefined);
  if (source === undefined) return undefined;
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

async function clickConnect(page: Page, integration: string) {
  await page.fill('#integration', integration);
  await page.evaluate(() => {
    (document.getElementById('result') as HTMLElement).textContent = '';
  });
  await page.click('button[type=submit]');
}

async function resultText(page: Page): Promise<string> {
  await page.waitForFunction(
    () => /^(connected|error)/.test(document.getElementById('result')?.textContent ?? ''),
    undefined,
    { timeout: 20_000 },
  );
  return (await page.textContent('#result')) ?? '';
}

// Debian's chromium package; no browser download. Without it the test skips, except under CI.
const missing = !existsSync(chromiumPath);
if (missing && process.env.CI === 'true')
  t.fail(`${chromiumPath} is missing; under CI the browser test is mandatory (apt-get install -y chromium)`);
const skip =
  missing && process.env.CI !== 'true'
    ? `${chromiumPath} is missing: skipping the browser test (apt-get install -y chromium to run it)`
    : false;

t.test(
  'the frontend SDK opens the connect link in a popup and resolves or rejects (headless Chromium)',
  { skip },
  async (t) => {
    if (missing) return;
    const keyed = testProvider('local-typed-key', {
      auth_mode: 'API_KEY',
      proxy: { base_url: 'https://api.example.com' },
    });
    const { gw, as } = await startOAuthPair(t, { prefix: '/portico', extraProviders: [keyed] });
    for (const body of [
      {
        unique_key: 'oidc',
        provider: 'local-oidc',
        credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] },
      },
      { unique_key: 'keyed', provider: 'local-typed-key' },
    ])
      t.equal((await gw.call('POST', '/integrations', { body })).status, 201);

    // The example customer page, served from its own origin.
    let handler: RequestListener = (_req, res) => res.end();
    const site = await listen((req, res) => handler(req, res));
    t.teardown(() => site.close());
    handler = createConnectPageHandler({
      gatewayUrl: gw.base,
      secretKey: devKey,
      pageOrigin: site.url,
      endUser: { id: 'eu-browser', email: 'b@example.com' },
      sdkFile,
    });

    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${site.url}/`);

    // OAuth: popup → gateway → authorization server → callback → message to this page.
    const popupOpened = page.waitForEvent('popup');
    await clickConnect(page, 'oidc');
    const popup = await popupOpened;
    const connected = await resultText(page);
    t.match(connected, /^connected: oidc [0-9a-f-]{36}$/, 'the promise resolved with the connection id');
    t.ok(popup.isClosed(), 'the popup was closed');
    const id = connected.split(' ').at(-1) as string;
    const stored = await gw.call('GET', `/connections/${id}?provider_config_key=oidc`);
    t.equal(stored.status, 200);
    t.equal(stored.json.data.end_user.id, 'eu-browser');

    // Denied consent: the promise rejects with the gateway's code.
    as.control.decision = 'deny';
    await clickConnect(page, 'oidc');
    t.match(await resultText(page), /^error: authorization_denied: /);

    // API key: the form in the popup, then the same message.
    const formPopupOpened = page.waitForEvent('popup');
    await clickConnect(page, 'keyed');
    const formPopup = await formPopupOpened;
    await formPopup.waitForSelector('input[name=apiKey]');
    await formPopup.fill('input[name=apiKey]', 'sk_typed_by_the_end_user');
    await formPopup.click('button[type=submit]');
    const keyedResult = await resultText(page);
    t.match(keyedResult, /^connected: keyed /);
    const keyedConnection = await gw.call(
      'GET',
      `/connections/${keyedResult.split(' ').at(-1)}?provider_config_key=keyed`,
    );
    t.same(keyedConnection.json.data.credentials, { type: 'API_KEY', apiKey: 'sk_typed_by_the_end_user' });

    // Cancel in the popup: the opener is told `cancelled` and the popup closes; nothing is stored.
    const cancelPopupOpened = page.waitForEvent('popup');
    await clickConnect(page, 'keyed');
    const cancelling = await cancelPopupOpened;
    await cancelling.waitForSelector('#portico-cancel');
    const cancelClosed = cancelling.waitForEvent('close', { timeout: 10_000 });
    await cancelling.click('#portico-cancel');
    t.match(await resultText(page), /^error: cancelled: The end user cancelled the connection\.$/);
    await cancelClosed;
    t.ok(cancelling.isClosed(), 'the popup closed');

    // Cancel on the chooser (the link allows every integration): the same message, before any choice.
    const chooserOpened = page.waitForEvent('popup');
    await page.evaluate(() => document.getElementById('integration')?.removeAttribute('required'));
    await clickConnect(page, '');
    const chooser = await chooserOpened;
    await chooser.waitForSelector('.choice');
    await chooser.click('#portico-cancel');
    t.match(await resultText(page), /^error: cancelled: /);

    // The end user closes the popup: the promise rejects instead of hanging.
    const closedPopupOpened = page.waitForEvent('popup');
    await clickConnect(page, 'keyed');
    const closing = await closedPopupOpened;
    await closing.waitForSelector('input[name=apiKey]');
    await closing.close();
    t.match(await resultText(page), /^error: window_closed: /);

    t.same(pageErrors, [], 'no script errors on the page');
    t.equal((await gw.call('GET', '/connections')).json.data.length, 2);
  },
);
