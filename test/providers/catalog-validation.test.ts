import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  builtInCatalogDir,
  createBrandIcons,
  createLogos,
  readCatalogDir,
  type Provider,
} from '../../lib/providers/index.js';
import { updateReadme } from './readme-region.js';

/**
 * The rules every built-in entry keeps, beyond what the loader accepts from a customer's file:
 * run over the whole folder, so an entry added by anyone is checked the same way.
 */
const files = readdirSync(builtInCatalogDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const raw = new Map(
  files.map((f) => [f, JSON.parse(readFileSync(join(builtInCatalogDir, f), 'utf8')) as Record<string, unknown>]),
);
const providers = readCatalogDir();
const icons = createBrandIcons();
const logos = createLogos(icons);

const placeholder = /\$\{([^}]*)\}/g;
const https = (value: string) => /^https:\/\/[^/\s]+/.test(value) && !/\s/.test(value);

/** Every URL-bearing field of an entry, with its path for the message. */
function urlsOf(p: Provider): [string, string][] {
  const urls: [string, string | undefined][] = [
    ['proxy.base_url', p.proxy.base_url],
    ['authorization_url', p.authorization_url],
    ['token_url', p.token_url],
    ['admin_consent_url', p.admin_consent_url],
    ['docs', p.docs],
    ['user_authorization.authorization_url', p.user_authorization?.authorization_url],
    ['user_authorization.token_url', p.user_authorization?.token_url],
  ];
  return urls.filter((u): u is [string, string] => u[1] !== undefined);
}

t.test('every file holds one valid entry named like the file, names unique', (t) => {
  t.equal(providers.length, files.length);
  const names = providers.map((p) => p.name);
  t.equal(new Set(names).size, names.length, 'no duplicate names');
  t.same(
    names.map((n) => `${n}.json`),
    files,
  );
  const displayNames = providers.map((p) => p.display_name.toLowerCase());
  const twice = displayNames.filter((n, i) => displayNames.indexOf(n) !== i);
  t.same(twice, [], 'no two entries show the same display name');
  t.end();
});

t.test('the cosmetic fields a custom entry may omit are written out in the built-in catalog', (t) => {
  for (const [file, entry] of raw) {
    for (const field of ['display_name', 'categories', 'docs'])
      t.ok(entry[field] !== undefined, `${file}: ${field} is present`);
    t.equal(entry.logo_url, undefined, `${file}: no logo_url (the gateway derives it from its base URL)`);
  }
  for (const p of providers) {
    for (const c of p.categories)
      t.match(c, /^[a-z0-9]+(-[a-z0-9]+)*$/, `${p.name}: category "${c}" is lower-case kebab`);
    t.equal(p.display_name.trim(), p.display_name, `${p.name}: display_name has no outer spaces`);
  }
  t.end();
});

t.test('every URL is https, and docs cites a page', (t) => {
  for (const p of providers) {
    for (const [field, value] of urlsOf(p)) t.ok(https(value), `${p.name}: ${field} is https (${value})`);
    t.ok(p.docs, `${p.name}: docs is set`);
    if (p.installation_url && !p.installation_url.startsWith('${app_link}'))
      t.ok(https(p.installation_url), `${p.name}: installation_url is https`);
  }
  t.end();
});

t.test("every placeholder is a declared connection setting or the auth mode's own variable", (t) => {
  for (const p of providers) {
    const declared = new Set(p.connection_configuration ?? []);
    const templated: [string, string][] = [
      ...urlsOf(p),
      ...Object.entries(p.proxy.headers ?? {}).map(([k, v]): [string, string] => [`proxy.headers.${k}`, v]),
      ...Object.entries(p.proxy.query ?? {}).map(([k, v]): [string, string] => [`proxy.query.${k}`, v]),
      ...Object.entries(p.token_params ?? {}).map(([k, v]): [string, string] => [`token_params.${k}`, v]),
      ...Object.entries(p.authorization_params ?? {}).map(([k, v]): [string, string] => [
        `authorization_params.${k}`,
        v,
      ]),
      ['proxy.verification_endpoint', p.proxy.verification_endpoint ?? ''],
    ];
    for (const [field, value] of templated) {
      for (const [, name = ''] of value.matchAll(placeholder)) {
        const config = /^connection_config\.([a-zA-Z0-9_]+)$/.exec(name)?.[1];
        t.ok(
          config && declared.has(config),
          `${p.name}: \${${name}} in ${field} is a declared connection_configuration name`,
        );
      }
    }
    for (const key of Object.keys(p.connection_config_defaults ?? {}))
      t.ok(declared.has(key), `${p.name}: default ${key} is declared`);
    for (const key of Object.keys(p.token_response_config ?? {}))
      t.ok(declared.has(key), `${p.name}: token_response_config ${key} is declared`);
    const used = new Set(
      templated.flatMap(([, v]) => [...v.matchAll(/\$\{connection_config\.([a-zA-Z0-9_]+)\}/g)].map((m) => m[1])),
    );
    for (const name of declared)
      t.ok(
        used.has(name) ||
          p.connection_config_defaults?.[name] !== undefined ||
          p.token_response_config?.[name] ||
          p.notes?.includes(name),
        `${p.name}: ${name} is used somewhere or explained in notes`,
      );
  }
  t.end();
});

t.test('auth modes carry what they need', (t) => {
  for (const p of providers) {
    if (p.auth_mode === 'OAUTH2') t.ok(p.authorization_url && p.token_url, `${p.name}: OAuth URLs`);
    if (p.auth_mode === 'OAUTH2_CC') t.ok(p.token_url, `${p.name}: token URL`);
    if (p.auth_mode !== 'OAUTH2' && p.auth_mode !== 'OAUTH2_CC' && p.auth_mode !== 'APP') {
      t.notOk(
        p.authorization_url || p.token_url || p.scope_separator || p.default_scopes,
        `${p.name}: no OAuth fields on ${p.auth_mode}`,
      );
    }
    if (p.scope_separator !== undefined)
      t.ok(
        [' ', ',', '+'].includes(p.scope_separator),
        `${p.name}: scope separator ${JSON.stringify(p.scope_separator)}`,
      );
  }
  t.end();
});

t.test('every logo resolves: an explicit simple-icons slug exists, anything else is a brand or a monogram', (t) => {
  for (const p of providers) {
    if (p.logo) t.ok(icons.get(p.logo), `${p.name}: simple-icons has "${p.logo}"`);
    const logo = logos.get(p);
    t.match(logo.svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*><title>[^<]*<\/title>/, `${p.name}: an SVG`);
    t.notMatch(logo.svg, /<script|on\w+=|href=/i, `${p.name}: nothing active in the SVG`);
  }
  t.end();
});

t.test("the README's provider count and table are generated from this folder", (t) => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  t.equal(updateReadme(readme, providers), readme, 'README is stale: run `npm run catalog:readme`');
  t.end();
});
