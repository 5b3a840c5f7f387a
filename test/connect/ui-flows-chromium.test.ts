import type { Page } from 'playwright-core';
import t from 'tap';
import type { Test } from 'tap';
import { appClient, appId, startFakeCodeHost } from '../oauth/fixtures/fake-code-host.js';
import { startConnectGateway, type ConnectGateway } from '../oauth/fixtures/gateway.js';
import { adminClient, startIdentityPlatform, type IdentityPlatform } from '../security/fixtures/identity-platform.js';
import { checkPage, launchBrowser, missingChromium, skipWithoutChromium } from './fixtures/page-check.js';

// The two flows that leave for the provider straight from the connect link, walked in headless
// Chromium against the same local providers as their security tests: an organization's admin
// consent (a real OpenID provider issuing the tenant in its ID token) and a code-hosting app's
// installation (the fake code host, with user authorization proving the installation is the
// end user's). Each page after the provider wears the integration's branding (the session sets none).

if (missingChromium && process.env.CI === 'true')
  t.fail('/usr/bin/chromium is missing; under CI the browser test is mandatory (apt-get install -y chromium)');

const integrationBrand = { app_name: 'Ledger Sync', accent_color: '#7c3aed' };
const endUser = { id: 'eu-flows', email: 'grace@example.com', display_name: 'Grace Hopper' };
const organization = { id: 'org-flows', display_name: 'Cobol Works' };

async function link(gw: ConnectGateway, key: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await gw.call('POST', '/connect/sessions', {
    body: {
      end_user: endUser,
      organization,
      allowed_integrations: [key],
      origin: 'https://app.example.test',
      ...extra,
    },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.json.data.connect_link as string;
}

/** Opens the link and follows the provider's redirects to the page the end user lands on. */
async function walk(t: Test, page: Page, url: string, status: number, heading: string): Promise<void> {
  const res = await page.goto(url);
  t.equal(res?.status(), status, `lands on a ${status} page`);
  t.equal(await page.textContent('h1'), heading);
}

/** The red warning mark of a failed attempt. */
const redMarks = (page: Page) => page.locator('.icon [stroke="#b42318"], .icon [fill="#b42318"]').count();

/** What tells the end user whose app this is: the tile's initial and the accent the page is drawn in. */
async function brandOf(page: Page): Promise<{ tile: string | null; accent: string }> {
  return {
    tile: (await page.locator('.tile').count()) > 0 ? await page.textContent('.tile') : null,
    accent: await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()),
  };
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded'))
      errors.push(m.text());
  });
  return errors;
}

const connectionCount = async (gw: ConnectGateway) => ((await gw.call('GET', '/connections')).json.data as []).length;

t.test(
  'admin consent in Chromium: granted, declined, and an organization that cannot be proven',
  { skip: skipWithoutChromium },
  async (t) => {
    if (missingChromium) return;
    let platform: IdentityPlatform | undefined;
    const gw = await startConnectGateway(t, async (base) => {
      platform = await startIdentityPlatform(t, { redirectUri: `${base}/oauth/callback` });
      return { providers: [{ ...platform.provider, display_name: 'Microsoft Entra ID' }] };
    });
    const idp = platform as IdentityPlatform;
    const created = await gw.call('POST', '/integrations', {
      body: {
        unique_key: 'directory',
        provider: 'local-directory-admin',
        credentials: { type: 'OAUTH2_CC', ...adminClient },
        branding: integrationBrand,
      },
    });
    t.equal(created.status, 201, created.text);
    const page = await (await launchBrowser(t)).newPage();
    const errors = watchErrors(page);

    // Signed in as an administrator, consent granted: the tenant proven by the ID token.
    await walk(t, page, await link(gw, 'directory'), 200, 'Connected');
    t.equal(
      await page.textContent('.lead'),
      "Your organization's Microsoft Entra ID is now connected to Ledger Sync. The consent applies to everyone in the organization.",
      'the page says the whole organization is connected, not a personal account',
    );
    t.equal(await page.textContent('.who'), 'Connecting for Grace Hopper · Cobol Works');
    t.same(await brandOf(page), { tile: 'L', accent: '#7c3aed' }, "the integration's brand after the provider");
    t.notMatch(
      await page.evaluate(() => document.body.innerText),
      /tenant-aaaa|directory/,
      'no tenant id or key shown',
    );
    t.same(idp.tokenRequests.at(-1), { tenant: 'tenant-aaaa', grant_type: 'client_credentials' });
    t.equal(await connectionCount(gw), 1);
    await checkPage(t, page, 'admin-consent-success', ['.tile', 'img.logo', '.icon', '.who']);

    // The administrator declines, at the sign-in and at a pinned tenant's consent page alike.
    idp.control.decision = 'deny';
    await walk(t, page, await link(gw, 'directory'), 403, 'Access not granted');
    t.equal(
      await page.textContent('.lead'),
      'Access to Microsoft Entra ID was not granted, so nothing was connected. Start again from the application.',
    );
    t.same(await brandOf(page), { tile: 'L', accent: '#7c3aed' });
    await checkPage(t, page, 'admin-consent-denied', ['.lead', '.tile', 'img.logo']);
    await walk(t, page, await link(gw, 'directory', { tenant: 'tenant-pinned' }), 403, 'Access not granted');
    t.match(gw.events.at(-1), { type: 'connection.auth_attempt_failed', code: 'authorization_denied' });
    idp.control.decision = 'grant';

    // An ID token signed by someone else proves no organization: nothing is stored.
    idp.control.forgeIdToken = 'tenant-victim';
    await walk(t, page, await link(gw, 'directory'), 403, 'Could not confirm the organization');
    t.equal(
      await page.textContent('.lead'),
      'The organization you approved for could not be confirmed; nothing was stored. Start again from the application.',
    );
    await checkPage(t, page, 'admin-consent-unproven', ['.lead', '.tile']);
    t.equal(await connectionCount(gw), 1, 'neither failure stored a connection');
    t.same(errors, [], 'no script or CSP error on any page');
  },
);

t.test(
  "app installation in Chromium: installed, an installation not in the user's list, awaiting approval",
  { skip: skipWithoutChromium },
  async (t) => {
    if (missingChromium) return;
    let host: Awaited<ReturnType<typeof startFakeCodeHost>> | undefined;
    const gw = await startConnectGateway(t, async (base) => {
      host = await startFakeCodeHost(t, { setupUrl: `${base}/oauth/app-setup`, callbackUrl: `${base}/oauth/callback` });
      return { providers: host.providers.map((p) => ({ ...p, display_name: 'GitHub', logo: 'github' })) };
    });
    const code = host as Awaited<ReturnType<typeof startFakeCodeHost>>;
    const created = await gw.call('POST', '/integrations', {
      body: {
        unique_key: 'repos',
        provider: 'local-app-user',
        credentials: { type: 'APP', app_id: appId, app_link: code.appLink, private_key: code.privateKey, ...appClient },
      },
    });
    t.equal(created.status, 201, created.text);
    const branded = await gw.call('PATCH', '/integrations/repos', { body: { branding: integrationBrand } });
    t.same(branded.json.data.branding, integrationBrand);
    const page = await (await launchBrowser(t)).newPage();
    const errors = watchErrors(page);

    // Installed, then the installer's own authorization shows installation 42 is theirs.
    await walk(t, page, await link(gw, 'repos'), 200, 'Connected');
    t.equal(await page.textContent('.lead'), 'Your GitHub account is now connected to Ledger Sync.');
    t.same(await brandOf(page), { tile: 'L', accent: '#7c3aed' });
    t.notMatch(await page.evaluate(() => document.body.innerText), /\b42\b|repos/, 'no installation id or key shown');
    t.ok(
      code.seen.some((s) => s.path === '/user/installations' && s.bearer === 'ghu_usertoken'),
      "checked against the user's list",
    );
    t.equal(await connectionCount(gw), 1);
    await checkPage(t, page, 'app-install-success', ['.tile', 'img.logo', '.icon', '.who']);

    // The installation the setup URL names is not one the installer can access.
    code.control.userInstallations = ['99'];
    await walk(t, page, await link(gw, 'repos'), 403, 'Could not confirm the installation');
    t.equal(
      await page.textContent('.lead'),
      'This GitHub installation could not be confirmed as one you can access; nothing was stored. Start again from the application.',
    );
    t.same(await brandOf(page), { tile: 'L', accent: '#7c3aed' });
    t.match(gw.events.at(-1), { type: 'connection.auth_attempt_failed', code: 'installation_not_verified' });
    t.ok((await redMarks(page)) > 0, 'a failure shows the red mark');
    await checkPage(t, page, 'app-install-not-verified', ['.lead', '.tile', 'img.logo']);

    // A member without rights only requests the installation: an owner has to approve it first.
    code.control.userInstallations = ['42'];
    code.control.setupAction = 'request';
    await walk(t, page, await link(gw, 'repos'), 403, 'Waiting for approval');
    t.equal(
      await page.textContent('.lead'),
      'The installation waits for an owner of the GitHub organization to approve it. Connect again once it is approved.',
    );
    t.equal(await redMarks(page), 0, 'waiting for an owner is not shown as a failure');
    await checkPage(t, page, 'app-install-pending', ['.lead', '.tile', '.icon']);
    t.equal(await connectionCount(gw), 1, 'neither failure stored a connection');
    t.same(errors, [], 'no script or CSP error on any page');
  },
);
