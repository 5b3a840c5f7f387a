import t from 'tap';
import type { Test } from 'tap';
import { browse, cookieOf, resultOf } from '../oauth/fixtures/browser.js';
import { startCodeHostGateway } from '../oauth/fixtures/code-host-gateway.js';
import type { ConnectGateway } from '../oauth/fixtures/gateway.js';

// Attacker tests for issue item 2: an installation is proven to belong to the person installing it.

const start = (t: Test) => startCodeHostGateway(t, { app: 'user-authorization', bare: 'bare', trusting: 'opt-out' });

const link = async (gw: ConnectGateway, key: string) =>
  (
    await gw.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'eu-attacker' }, allowed_integrations: [key] },
    })
  ).json.data.connect_link as string;
const connections = async (gw: ConnectGateway) =>
  (await gw.call('GET', '/connections')).json.data as { credentials: unknown }[];

t.test("a setup redirect naming someone else's installation creates nothing", async (t) => {
  const { gw, host } = await start(t);
  // The attacker's own flow and cookie; they skip the installation page and name installation 77.
  const stopped = await browse(await link(gw, 'app'), { stopBefore: (u) => u.href.startsWith(host.appLink) });
  const state = new URL(stopped.stoppedAt as string).searchParams.get('state') as string;
  const forged = await browse(`${gw.base}/oauth/app-setup?installation_id=77&setup_action=install&state=${state}`, {
    jar: stopped.jar,
  });
  t.ok(
    forged.hops.some((h) => h.location?.startsWith(`${host.url}/login/oauth/authorize`)),
    'the installer must authorize the app first',
  );
  t.equal(resultOf(forged.text).message.error.code, 'installation_not_verified');
  t.same(await connections(gw), [], 'no connection on the foreign installation');
  t.notOk(
    host.seen.some((s) => s.path === '/app/installations/77'),
    'the app-level check alone is never the proof',
  );

  // The same trick at the callback, with a code the attacker holds for themselves.
  const during = await browse(await link(gw, 'app'), { stopBefore: (u) => u.href.startsWith(host.appLink) });
  const duringState = new URL(during.stoppedAt as string).searchParams.get('state') as string;
  const res = await fetch(
    `${gw.base}/oauth/callback?code=code-own&installation_id=77&setup_action=install&state=${duringState}`,
    { headers: cookieOf(during.jar) },
  );
  t.equal(resultOf(await res.text()).message.error.code, 'installation_not_verified');
  t.same(await connections(gw), []);
});

t.test("without the app's client credentials an install does not start; the explicit opt-out is visible", async (t) => {
  const { gw, host } = await start(t);
  const bare = await browse(await link(gw, 'bare'));
  t.equal(bare.status, 424);
  t.notOk(bare.hops.some((h) => h.location?.startsWith(host.appLink)));
  t.equal(resultOf(bare.text).message.error.code, 'integration_credentials_missing');

  const trusting = (await gw.call('GET', '/integrations/trusting')).json.data;
  t.equal(trusting.credentials.insecure_trust_setup_url_installation_id, true, 'the opt-out shows on the integration');
  host.control.installationId = '77';
  const taken = await browse(await link(gw, 'trusting'));
  t.equal(
    resultOf(taken.text).message.ok,
    true,
    'with the opt-out, an installation of the app is taken as the setup URL says',
  );
  t.ok(
    gw.logs.some((l) => l.includes('without user authorization')),
    'and each such install is logged as a warning',
  );
});
