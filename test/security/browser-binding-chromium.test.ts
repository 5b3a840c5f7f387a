import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import t from 'tap';
import { postClient } from '../oauth/fixtures/authorization-server.js';
import { browse } from '../oauth/fixtures/browser.js';
import { startOAuthPair } from '../oauth/fixtures/oauth-setup.js';

// Issue item 3 in a real browser: a full-page redirect (no popup, no opener) finishes in the
// starting browser; another browser given the same consent URL finishes nothing. The popup
// variant runs in test/oauth/frontend-sdk.test.ts with the example page and the SDK.

const chromiumPath = '/usr/bin/chromium';
const missing = !existsSync(chromiumPath);
if (missing && process.env.CI === 'true')
  t.fail(`${chromiumPath} is missing; under CI the browser test is mandatory (apt-get install -y chromium)`);
const skip = missing
  ? `${chromiumPath} is missing: skipping the browser test (apt-get install -y chromium to run it)`
  : false;

t.test(
  'full-page redirect in headless Chromium: the starting browser connects, another browser cannot',
  { skip },
  async (t) => {
    if (missing) return;
    const { gw, as } = await startOAuthPair(t);
    t.equal(
      (
        await gw.call('POST', '/integrations', {
          body: {
            unique_key: 'oidc',
            provider: 'local-oidc',
            credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] },
          },
        })
      ).status,
      201,
    );
    const link = async () =>
      (
        await gw.call('POST', '/connect/sessions', {
          body: { end_user: { id: 'eu-page' }, allowed_integrations: ['oidc'] },
        })
      ).json.data.connect_link as string;
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

    // The end user's own browser: the whole flow as top-level navigations, no opener.
    const own = await browser.newContext();
    const page = await own.newPage();
    await page.goto(await link());
    await page.waitForSelector('h1', { timeout: 20_000 });
    t.equal(await page.textContent('h1'), 'Connected');
    t.equal((await gw.call('GET', '/connections')).json.data.length, 1);

    // An attacker's consent URL opened in someone else's browser (its own cookie jar).
    const attacker = await browse(await link(), { stopBefore: (u) => u.href.startsWith(as.url) });
    const consentUrl = attacker.stoppedAt;
    t.match(consentUrl, /[?&]state=st_/, 'the attacker holds a consent URL with their state');
    const victim = await browser.newContext();
    const victimPage = await victim.newPage();
    await victimPage.goto(consentUrl as string);
    await victimPage.waitForSelector('h1', { timeout: 20_000 });
    t.equal(await victimPage.textContent('h1'), 'Started somewhere else');
    t.match(await victimPage.textContent('.lead'), /started in another browser/);
    t.equal((await gw.call('GET', '/connections')).json.data.length, 1, 'nothing was created for the attacker');
  },
);
