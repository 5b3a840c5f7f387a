import t from 'tap';
import { errorStatus } from '../../lib/errors.js';
import { contrast, defaultAccent, paletteOf } from '../../lib/connect/pages/colour.js';
import { failureKindOf } from '../../lib/connect/pages/end-user-message.js';
import { pickLocale } from '../../lib/connect/pages/text/index.js';
import { en } from '../../lib/connect/pages/text/en.js';
import { startConnectGateway, testProvider } from '../oauth/fixtures/gateway.js';

t.test('any accent gives readable text on it and a readable link colour on white', async (t) => {
  for (const accent of ['#ffff00', '#777', '#777777', '#000', '#fff', '#0f766e', '#ff5a5f', '#8ab4f8', '#a0a0a0']) {
    const p = paletteOf(accent);
    t.ok(
      contrast(p.accent, p.onAccent) >= 4.5,
      `${accent}: text on the accent ${contrast(p.accent, p.onAccent).toFixed(2)}:1`,
    );
    t.ok(
      contrast(p.ink, '#ffffff') >= 4.5,
      `${accent}: links and focus ring on white ${contrast(p.ink, '#ffffff').toFixed(2)}:1`,
    );
  }
  for (const bad of ['red', 'url(x)', '#12345', '#1234567', '#ggg', '#fff;background:url(x)', '', null, undefined]) {
    t.equal(paletteOf(bad).accent, defaultAccent, `${String(bad)} falls back to the default accent`);
  }
});

t.test("the language: the session's if shipped, else the browser's first shipped one, else English", async (t) => {
  t.equal(pickLocale('en', 'fr-FR'), 'en');
  t.equal(pickLocale('xx', 'fr-FR,en;q=0.8'), 'en');
  t.equal(pickLocale(null, undefined), 'en');
});

t.test('every connect error code reads as an end-user sentence, never its developer message', async (t) => {
  const kinds = new Set(Object.keys(en.failure));
  for (const code of Object.keys(errorStatus)) {
    t.ok(kinds.has(failureKindOf({ code: code as keyof typeof errorStatus, details: undefined })), code);
  }
  t.equal(failureKindOf({ code: 'integration_credentials_missing', details: undefined }), 'unavailable');
  t.equal(failureKindOf({ code: 'invalid_connect_session', details: { link: 'expired' } }), 'link_expired');
  t.equal(failureKindOf({ code: 'invalid_connect_session', details: { link: 'used' } }), 'link_used');
  t.equal(failureKindOf({ code: 'invalid_connect_session', details: undefined }), 'link_invalid');
  t.equal(
    failureKindOf({ code: 'script_crashed', details: undefined }),
    'server',
    'an unexpected code reads as our failure',
  );
});

t.test('POST /connect/sessions: branding and locale are validated strictly, and the pages use them', async (t) => {
  const gw = await startConnectGateway(t, {
    providers: [testProvider('local-key', { auth_mode: 'API_KEY', proxy: { base_url: 'https://api.example.com' } })],
  });
  await gw.call('POST', '/integrations', { body: { unique_key: 'key', provider: 'local-key' } });
  const create = (body: Record<string, unknown>) =>
    gw.call('POST', '/connect/sessions', { body: { end_user: { id: 'eu' }, allowed_integrations: ['key'], ...body } });
  for (const [branding, field] of [
    [{ accent_color: 'red' }, 'branding.accent_color'],
    [{ accent_color: '#fff;x:y' }, 'branding.accent_color'],
    [{ app_name: '' }, 'branding.app_name'],
    [{ app_name: 'x'.repeat(81) }, 'branding.app_name'],
    [{ logo: 'https://evil.example/x.svg' }, 'branding'],
  ] as const) {
    const res = await create({ branding });
    t.equal(res.status, 400, JSON.stringify(branding));
    t.match(res.json.error, { code: 'invalid_body', message: new RegExp(field.replace('.', '\\.')) });
  }
  t.equal((await create({ locale: 'xx' })).status, 400);

  const ok = await create({ branding: { app_name: 'Acme Books', accent_color: '#FF0' }, locale: 'en' });
  t.equal(ok.status, 201, ok.text);
  const page = await fetch(ok.json.data.connect_link);
  const html = await page.text();
  t.match(html, ':root{--accent:#ff0;--on-accent:#000000;', 'a light accent gets black text');
  t.match(html, 'Acme Books will use these details');
  t.match(html, '<html lang="en" dir="ltr">');
  t.match(
    page.headers.get('content-security-policy'),
    /style-src 'sha256-[^']+' 'sha256-[^']+';/,
    'both stylesheets by hash, nothing inline otherwise',
  );
});

t.test("the gateway's connectBranding is the default; a session's branding overrides it field by field", async (t) => {
  const gw = await startConnectGateway(t, {
    connectBranding: { app_name: 'Default App', accent_color: '#123456' },
    providers: [testProvider('local-key', { auth_mode: 'API_KEY', proxy: { base_url: 'https://api.example.com' } })],
  });
  await gw.call('POST', '/integrations', { body: { unique_key: 'key', provider: 'local-key' } });
  const pageFor = async (body: Record<string, unknown>) => {
    const res = await gw.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'eu' }, allowed_integrations: ['key'], ...body },
    });
    return (await fetch(res.json.data.connect_link)).text();
  };
  const plain = await pageFor({});
  t.match(plain, 'Default App will use these details');
  t.match(plain, '--accent:#123456;');
  const overridden = await pageFor({ branding: { accent_color: '#0f766e' } });
  t.match(overridden, 'Default App will use these details', 'the name still comes from the gateway');
  t.match(overridden, '--accent:#0f766e;');
});

t.test('an integration carries its own branding: session > integration > gateway option > default', async (t) => {
  const providers = [
    testProvider('local-key', { auth_mode: 'API_KEY', proxy: { base_url: 'https://api.example.com' } }),
  ];
  const gw = await startConnectGateway(t, {
    connectBranding: { app_name: 'Gateway App', accent_color: '#123456' },
    providers,
  });
  const created = await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'branded',
      provider: 'local-key',
      branding: { app_name: ' Ledger Sync ', accent_color: '#0F766E' },
    },
  });
  t.equal(created.status, 201, created.text);
  t.same(created.json.data.branding, { app_name: 'Ledger Sync', accent_color: '#0F766E' }, 'shown on the integration');
  const plain = await gw.call('POST', '/integrations', { body: { unique_key: 'plain', provider: 'local-key' } });
  t.equal(plain.json.data.branding, null, 'null when unset');

  // The form page a fresh session's link opens: its app name and its accent.
  const look = async (key: string, session: Record<string, unknown> = {}, gateway = gw) => {
    const res = await gateway.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'eu' }, allowed_integrations: [key], ...session },
    });
    const html = await (await fetch(res.json.data.connect_link)).text();
    return {
      app: /([^>]*) will use these details/.exec(html)?.[1],
      accent: /--accent:(#[0-9a-f]+);/.exec(html)?.[1],
    };
  };
  t.same(await look('branded'), { app: 'Ledger Sync', accent: '#0f766e' }, "the integration's over the gateway's");
  // A refusal before the session is spent (here: the link opened twice) wears the integration's brand too.
  const once = await gw.call('POST', '/connect/sessions', {
    body: { end_user: { id: 'eu' }, allowed_integrations: ['branded'] },
  });
  await (await fetch(once.json.data.connect_link)).text();
  const used = await fetch(once.json.data.connect_link);
  const usedPage = await used.text();
  t.equal(used.status, 401);
  t.match(usedPage, 'Each connect link works once. Ask Ledger Sync for a new one.');
  t.match(usedPage, '--accent:#0f766e;');
  const direct = String(once.json.data.connect_link).replace('/oauth/connect?', '/oauth/connect/branded?');
  const usedDirect = await (await fetch(direct)).text();
  t.match(usedDirect, 'Ask Ledger Sync for a new one.', 'the integration-level link too');
  t.match(usedDirect, '--accent:#0f766e;');
  // The API's description lists the field on both bodies.
  const doc = (await gw.call('GET', '/openapi.json')).json;
  const bodyOf = (method: 'post' | 'patch', path: string) =>
    JSON.stringify(doc.paths[path][method].requestBody.content['application/json'].schema);
  t.match(bodyOf('post', '/integrations'), /"branding".*"accent_color"/);
  t.match(bodyOf('patch', '/integrations/{uniqueKey}'), /"branding".*"accent_color"/);
  t.same(
    await look('branded', { branding: { accent_color: '#ff0' } }),
    { app: 'Ledger Sync', accent: '#ff0' },
    "the session's accent over the integration's; the name still the integration's",
  );
  t.same(
    await look('branded', { branding: { app_name: 'Session App' } }),
    { app: 'Session App', accent: '#0f766e' },
    "the session's name over the integration's",
  );
  t.same(await look('plain'), { app: 'Gateway App', accent: '#123456' }, "no integration branding: the gateway's");
  const bare = await startConnectGateway(t, { providers });
  await bare.call('POST', '/integrations', {
    body: { unique_key: 'half', provider: 'local-key', branding: { app_name: 'Half Brand' } },
  });
  t.same(
    await look('half', {}, bare),
    { app: 'Half Brand', accent: '#2b59c3' },
    'neither gateway option nor integration accent: the default accent',
  );
  await bare.call('POST', '/integrations', { body: { unique_key: 'none', provider: 'local-key' } });
  t.same(await look('none', {}, bare), { app: 'The application', accent: '#2b59c3' }, 'nothing set: the defaults');

  // Bad values: 400 naming the field, and nothing created or changed.
  const before = (await gw.call('GET', '/integrations/branded')).json.data;
  for (const [branding, field] of [
    [{ accent_color: 'red' }, 'branding.accent_color'],
    [{ accent_color: '#fff;background:url(x)' }, 'branding.accent_color'],
    [{ app_name: '  ' }, 'branding.app_name'],
    [{ app_name: 'x'.repeat(81) }, 'branding.app_name'],
    [{ logo_url: 'https://evil.example/x.svg' }, 'branding'],
    ['Acme', 'branding'],
  ] as const) {
    const made = await gw.call('POST', '/integrations', {
      body: { unique_key: 'refused', provider: 'local-key', branding },
    });
    t.equal(made.status, 400, `create ${JSON.stringify(branding)}`);
    t.match(made.json.error, { code: 'invalid_body', message: new RegExp(field.replace('.', '\\.')) });
    const patched = await gw.call('PATCH', '/integrations/branded', { body: { branding } });
    t.equal(patched.status, 400, `update ${JSON.stringify(branding)}`);
    t.match(patched.json.error, { code: 'invalid_body', message: new RegExp(field.replace('.', '\\.')) });
  }
  t.equal((await gw.call('GET', '/integrations/refused')).status, 404, 'no integration was created');
  t.same((await gw.call('GET', '/integrations/branded')).json.data, before, 'the integration is unchanged');
  t.same(await look('branded'), { app: 'Ledger Sync', accent: '#0f766e' }, 'and so are its pages');

  // PATCH replaces the branding as a whole; null removes it.
  const patched = await gw.call('PATCH', '/integrations/branded', { body: { branding: { accent_color: '#b42318' } } });
  t.same(patched.json.data.branding, { accent_color: '#b42318' });
  t.same(await look('branded'), { app: 'Gateway App', accent: '#b42318' });
  const removed = await gw.call('PATCH', '/integrations/branded', { body: { branding: null } });
  t.equal(removed.json.data.branding, null);
  t.same(await look('branded'), { app: 'Gateway App', accent: '#123456' });
});
