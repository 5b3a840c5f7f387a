import t from 'tap';
import { readdirSync } from 'node:fs';
import {
  builtInCatalogDir,
  CatalogError,
  createCatalog,
  parseProviders,
  readCatalogDir,
} from '../../lib/providers/catalog.js';
import { authModes, type Provider } from '../../lib/providers/schema.js';
import { problemsOf } from '../helpers/catalog-problems.js';

const providers = readCatalogDir();
const byName = new Map(providers.map((p) => [p.name, p]));
const get = (name: string): Provider => {
  const p = byName.get(name);
  if (!p) throw new Error(`provider ${name} missing from the catalog`);
  return p;
};

/** A minimal valid entry to mutate in the negative tests. */
const valid = {
  name: 'example-oauth',
  display_name: 'Example',
  categories: ['productivity'],
  auth_mode: 'OAUTH2',
  authorization_url: 'https://example.com/oauth/authorize',
  token_url: 'https://example.com/oauth/token',
  proxy: { base_url: 'https://api.example.com' },
  docs: 'https://example.com/docs',
};

t.test('the built-in catalog folder loads without a CatalogError', (t) => {
  t.doesNotThrow(() => readCatalogDir());
  const files = readdirSync(builtInCatalogDir).filter((f) => f.endsWith('.json'));
  t.equal(providers.length, files.length, 'one provider per file');
  t.end();
});

t.test('the catalog is large and covers every credential-bearing auth mode', (t) => {
  t.ok(providers.length >= 65, `at least 65 providers (has ${providers.length})`);
  for (const mode of ['OAUTH2', 'OAUTH2_CC', 'API_KEY', 'BASIC', 'APP'] as const) {
    t.ok(
      providers.some((p) => p.auth_mode === mode),
      `${mode} occurs`,
    );
  }
  for (const p of providers) t.ok(authModes.includes(p.auth_mode), `${p.name} has a known auth mode`);
  t.end();
});

t.test('provider names are unique and match their files', (t) => {
  const names = providers.map((p) => p.name);
  t.equal(new Set(names).size, names.length, 'no duplicate names');
  const files = readdirSync(builtInCatalogDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  t.same(files, names.map((n) => `${n}.json`).sort());
  t.end();
});

t.test('entries are internally consistent', (t) => {
  for (const p of providers) {
    t.equal(p.logo_url, undefined, `${p.name}: logo_url is derived, not written`);
    if (p.auth_mode === 'OAUTH2') t.ok(p.authorization_url && p.token_url, `${p.name} has OAuth URLs`);
    if (p.auth_mode === 'OAUTH2_CC') t.ok(p.token_url, `${p.name} has a token URL`);
    for (const key of Object.keys(p.connection_config_defaults ?? {})) {
      t.ok(p.connection_configuration?.includes(key), `${p.name} default ${key} is a declared config key`);
    }
  }
  t.end();
});

t.test('microsoft: tenant placeholder, common default, Graph link pagination', (t) => {
  const ms = get('microsoft');
  t.equal(ms.auth_mode, 'OAUTH2');
  t.equal(ms.authorization_url, 'https://login.microsoftonline.com/${connection_config.tenant}/oauth2/v2.0/authorize');
  t.equal(ms.token_url, 'https://login.microsoftonline.com/${connection_config.tenant}/oauth2/v2.0/token');
  t.same(ms.connection_configuration, ['tenant']);
  t.same(ms.connection_config_defaults, { tenant: 'common' });
  t.equal(ms.proxy.base_url, 'https://graph.microsoft.com');
  t.same(ms.proxy.paginate, {
    type: 'link',
    link_path_in_response_body: '@odata.nextLink',
    response_path: 'value',
    limit_name_in_request: '$top',
  });
  t.equal(ms.pkce, true);
  t.ok(ms.default_scopes?.includes('offline_access'));
  t.match(ms.notes, /admin/i);
  t.match(ms.notes, /\.default/);
  t.match(ms.notes, /secret/i);
  t.end();
});

t.test('github-app is an APP on api.github.com; github is its OAuth sibling', (t) => {
  const app = get('github-app');
  t.equal(app.auth_mode, 'APP');
  t.equal(app.proxy.base_url, 'https://api.github.com');
  t.equal(app.installation_url, '${app_link}/installations/new');
  t.equal(app.token_url, undefined);
  t.equal(app.webhook_routing_script, 'github-app-route');
  t.same(app.proxy.headers, { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' });
  t.same(app.proxy.paginate, { type: 'link', link_rel_in_response_header: 'next', limit_name_in_request: 'per_page' });
  t.same(app.proxy.retry_after_headers, ['x-ratelimit-reset', 'retry-after']);

  const gh = get('github');
  t.equal(gh.auth_mode, 'OAUTH2');
  t.equal(gh.authorization_url, 'https://github.com/login/oauth/authorize');
  t.equal(gh.token_url, 'https://github.com/login/oauth/access_token');
  t.equal(gh.proxy.base_url, 'https://api.github.com');
  t.end();
});

t.test('a few provider-specific facts', (t) => {
  t.equal(get('slack').scope_separator, ',');
  t.equal(get('notion').token_request_auth, 'basic');
  t.match(get('notion').proxy.paginate, { type: 'cursor', cursor_in: 'body', cursor_name_in_request: 'start_cursor' });
  t.same(get('google').authorization_params, { access_type: 'offline', prompt: 'consent' });
  t.same(get('anthropic').proxy.credentials, [{ in: 'header', name: 'x-api-key', value: '${apiKey}' }]);
  t.equal(get('openai').proxy.verification_endpoint, '/v1/models');
  t.equal(get('stripe').proxy.verification_endpoint, '/v1/balance');
  t.ok(get('zendesk').connection_configuration?.includes('subdomain'));
  t.end();
});

t.test('parseProviders rejects invalid entries and lists every problem', (t) => {
  const { token_url: _dropped, ...noTokenUrl } = valid;
  const problems = problemsOf(() => parseProviders([noTokenUrl], 'test'));
  t.ok(
    problems.some(
      (m) => m.includes('example-oauth') && m.includes('OAUTH2 providers need authorization_url and token_url'),
    ),
    problems.join('\n'),
  );

  const missingPlaceholder = {
    ...valid,
    name: 'example-sub',
    proxy: { base_url: 'https://${connection_config.subdomain}.example.com' },
  };
  const unknownField = { ...valid, name: 'example-extra', refresh_url: 'https://example.com/refresh' };
  const both = problemsOf(() => parseProviders([valid, missingPlaceholder, unknownField], 'test'));
  t.ok(
    both.some(
      (m) =>
        m.includes('example-sub') &&
        m.includes('placeholder connection_config.subdomain is not in connection_configuration'),
    ),
    both.join('\n'),
  );
  t.ok(
    both.some((m) => m.includes('example-extra')),
    'unknown fields are rejected (strict schema)',
  );
  t.notOk(
    both.some((m) => m.includes('test example-oauth:')),
    'the valid entry raises no problem',
  );

  const err = t.throws(() => parseProviders([{ ...valid, auth_mode: 'OAUTH2_CC', token_url: undefined }], 'test'));
  t.type(err, CatalogError);
  t.match((err as Error).message, /OAUTH2_CC providers need token_url/);
  t.end();
});

t.test('a custom entry needs only what the proxy needs; cosmetic fields default', (t) => {
  const [minimal] = parseProviders(
    [{ name: 'acme', auth_mode: 'API_KEY', proxy: { base_url: 'https://api.acme.example' } }],
    'test',
  );
  t.equal(minimal?.display_name, 'acme');
  t.same(minimal?.categories, ['other']);
  t.equal(minimal?.docs, undefined);
  const problems = problemsOf(() =>
    parseProviders(
      [
        valid,
        { name: 'oauth-min', auth_mode: 'OAUTH2', proxy: { base_url: 'https://api.x.example' } },
        { auth_mode: 'API_KEY' },
      ],
      'providers.yaml',
    ),
  );
  t.ok(
    problems.some(
      (m) => m.startsWith('providers.yaml entry #2 "oauth-min": ') && m.includes('authorization_url and token_url'),
    ),
    problems.join('\n'),
  );
  t.ok(
    problems.some((m) => m.startsWith('providers.yaml entry #3: name:')),
    'an entry without a name is named by its position',
  );
  t.ok(problems.some((m) => m.startsWith('providers.yaml entry #3: proxy:')));
  t.notOk(
    problems.some((m) => m.includes('#1')),
    'the valid entry raises no problem',
  );
  t.end();
});

t.test('createCatalog overrides a built-in entry by name and adds new ones', (t) => {
  const base = readCatalogDir();
  const original = base.find((p) => p.name === 'slack');
  t.ok(original);
  const override = {
    ...original,
    display_name: 'Slack (self-hosted proxy)',
    proxy: { base_url: 'https://slack-proxy.internal.example/api' },
  };
  const extra = { ...valid, name: 'zz-custom' };
  const catalog = createCatalog([override, extra], base);

  t.equal(catalog.get('slack')?.display_name, 'Slack (self-hosted proxy)');
  t.equal(catalog.get('slack')?.proxy.base_url, 'https://slack-proxy.internal.example/api');
  t.equal(catalog.get('zz-custom')?.name, 'zz-custom');
  t.equal(catalog.list().length, base.length + 1, 'override replaces, it does not duplicate');
  t.equal(catalog.list().filter((p) => p.name === 'slack').length, 1);
  const names = catalog.list().map((p) => p.name);
  t.same(
    names,
    [...names].sort((a, b) => a.localeCompare(b)),
    'list is sorted by name',
  );
  t.equal(catalog.get('github-app')?.auth_mode, 'APP', 'untouched entries remain');

  t.throws(() => createCatalog([{ ...valid, name: 'Bad Name' }], base), CatalogError);
  t.end();
});

t.test('createCatalog defaults to the built-in folder', (t) => {
  const catalog = createCatalog();
  t.equal(catalog.list().length, providers.length);
  t.equal(catalog.get('microsoft')?.connection_config_defaults?.tenant, 'common');
  t.end();
});
