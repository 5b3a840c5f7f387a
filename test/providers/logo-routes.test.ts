import express from 'express';
import Koa from 'koa';
import mount from 'koa-mount';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import t, { type Test } from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { toExpress } from '../../adapters/express/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { devKey, startGateway, testEncryptionKey } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';

const simpleIconsPath = (slug: string) => {
  const file = createRequire(import.meta.url).resolve(`simple-icons/icons/${slug}.svg`);
  return /<path d="([^"]*)"/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
};

/** A customer's provider whose display name tries to break out of the SVG. */
const hostile = {
  name: 'acme-crm',
  display_name: '<script>alert(1)</script> & "Acme" CRM',
  auth_mode: 'API_KEY',
  proxy: { base_url: 'https://api.acme.example' },
};

t.test('a brand logo: public, the simple-icons mark on its colour, cached a week, safe to open', async (t) => {
  const gw = await startGateway(t);
  const res = await gw.call('GET', '/providers/github/logo.svg', { key: null });
  t.equal(res.status, 200, 'no key needed');
  t.equal(res.headers.get('content-type'), 'image/svg+xml');
  t.equal(res.headers.get('cache-control'), 'public, max-age=604800, immutable');
  t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  t.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
  t.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
  t.match(res.headers.get('etag'), /^"[\w-]{27}"$/);
  t.ok(res.text.includes(`d="${simpleIconsPath('github')}"`), 'the GitHub mark from simple-icons');
  t.match(res.text, /<rect [^>]*fill="#181717"/, "on GitHub's brand colour");
  t.match(res.text, /<title>GitHub<\/title>/);

  // As a browser revalidates (fetch would otherwise add `Cache-Control: no-cache`, which forbids a 304).
  const revalidate = { 'if-none-match': res.headers.get('etag') ?? '', 'cache-control': 'max-age=0' };
  const again = await gw.call('GET', '/providers/github/logo.svg', { key: null, headers: revalidate });
  t.equal(again.status, 304, 'revalidation with the ETag');
  t.equal(again.text, '');
  const head = await gw.call('HEAD', '/providers/github/logo.svg', { key: null });
  t.equal(head.status, 200);

  const variant = await gw.call('GET', '/providers/github-app/logo.svg', { key: null });
  t.ok(variant.text.includes(simpleIconsPath('github')), 'a variant names its brand with `logo`');
});

t.test('a brand simple-icons lacks gets a monogram; unknown providers are a JSON 404', async (t) => {
  const gw = await startGateway(t, { providers: [hostile] });
  const close = await gw.call('GET', '/providers/close/logo.svg', { key: null });
  t.equal(close.status, 200);
  t.match(close.text, /<text [^>]*>C<\/text>/, 'Close: its initial');
  t.notOk(close.text.includes('<path'), 'no borrowed brand mark');

  const kit = await gw.call('GET', '/providers/kit/logo.svg', { key: null });
  t.notOk(kit.text.includes(simpleIconsPath('kit')), 'logo: false keeps a same-named brand (kit.co) off Kit');
  t.match(kit.text, /<text [^>]*>K<\/text>/);

  const scout = await gw.call('GET', '/providers/help-scout/logo.svg', { key: null });
  t.match(scout.text, /<path /, 'Help Scout is in simple-icons as helpscout');

  const acme = await gw.call('GET', '/providers/acme-crm/logo.svg', { key: null });
  t.equal(acme.status, 200);
  t.notMatch(acme.text, /<script/i, 'the display name cannot inject markup');
  t.match(acme.text, /<title>&#60;script&#62;alert\(1\)&#60;\/script&#62; &#38; &#34;Acme&#34; CRM<\/title>/);
  t.match(acme.text, /<text [^>]*>SA<\/text>/, 'initials of the first two words');

  const missing = await gw.call('GET', '/providers/nope/logo.svg', { key: null });
  t.equal(missing.status, 404);
  t.equal(missing.json.error.code, 'unknown_provider');
});

t.test("logo_url in the catalog answers is the gateway's own route under its base URL", async (t) => {
  const gw = await startGateway(t, {
    baseUrl: 'https://gw.example.com/portico/',
    providers: [hostile, { ...hostile, name: 'own-logo', logo_url: 'https://cdn.acme.example/logo.svg' }],
  });
  const list = await gw.call('GET', '/providers');
  t.equal(list.status, 200);
  for (const p of list.json.data) {
    if (p.name === 'own-logo') continue;
    t.equal(p.logo_url, `https://gw.example.com/portico/providers/${p.name}/logo.svg`, `${p.name}`);
  }
  t.notOk(list.text.includes('cdn.portico.dev'), 'no placeholder CDN anywhere');
  const own = await gw.call('GET', '/providers/own-logo');
  t.equal(own.json.data.logo_url, 'https://cdn.acme.example/logo.svg', 'a custom entry may point at its own logo');
  const gh = await gw.call('GET', '/providers/github-app');
  t.same(
    Object.keys(gh.json.data).slice(0, 5),
    ['name', 'display_name', 'logo_url', 'categories', 'auth_mode'],
    'spec 2.1 order',
  );
  t.equal(gh.json.data.logo, undefined, 'the logo hint stays inside');
});

async function mountedGateway(t: Test, baseUrl: string) {
  const storage = createMemoryStorage();
  const gw = await createGateway({
    environments: [{ name: 'dev', secretKey: devKey }],
    storage,
    encryptionKeys: testEncryptionKey,
    baseUrl,
    logger: createLogger({ level: 'silent' }),
  });
  t.teardown(async () => {
    await gw.close();
    await storage.close();
  });
  return gw;
}

t.test('under koa-mount and in Express, logo_url points where the logo is served', async (t) => {
  const koaGw = await mountedGateway(t, 'http://127.0.0.1/portico');
  const koa = new Koa();
  koa.use(mount('/portico', koaGw.middleware));
  const koaServer = await listen(koa.callback());
  const expressGw = await mountedGateway(t, 'http://127.0.0.1/api/portico');
  const app = express();
  app.use('/api/portico', toExpress(expressGw));
  const expressServer = await listen(app);
  t.teardown(async () => {
    await koaServer.close();
    await expressServer.close();
  });

  for (const [server, prefix] of [
    [koaServer, '/portico'],
    [expressServer, '/api/portico'],
  ] as const) {
    const res = await fetch(`${server.url}${prefix}/providers/hubspot`, {
      headers: { authorization: `Bearer ${devKey}` },
    });
    const { logo_url: logoUrl } = (await res.json()).data as { logo_url: string };
    t.equal(logoUrl, `http://127.0.0.1${prefix}/providers/hubspot/logo.svg`);
    const logo = await fetch(`${server.url}${new URL(logoUrl).pathname}`);
    t.equal(logo.status, 200, `${prefix}: the logo answers at logo_url's path, without a key`);
    t.equal(logo.headers.get('content-type'), 'image/svg+xml');
    t.match(await logo.text(), /<title>HubSpot<\/title>/);
  }
});
