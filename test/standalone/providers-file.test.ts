import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readProvidersFile } from '../../adapters/standalone/providers-file.js';
import { startGateway } from '../helpers/gateway.js';
import { problemsOf } from '../helpers/catalog-problems.js';

const dir = mkdtempSync(join(tmpdir(), 'portico-providers-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
t.test('the minimal example of docs/providers.md loads and is served with defaults', async (t) => {
  const path = write(
    'providers.yaml',
    [
      '- name: acme-crm',
      '  auth_mode: API_KEY',
      '  proxy:',
      '    base_url: https://api.acme.example/v2',
      '- name: acme-oauth',
      '  auth_mode: OAUTH2',
      '  authorization_url: https://acme.example/oauth/authorize',
      '  token_url: https://acme.example/oauth/token',
      '  proxy:',
      '    base_url: https://api.acme.example',
    ].join('\n'),
  );
  const entries = readProvidersFile(path);
  const gw = await startGateway(t, { providers: entries, baseUrl: 'https://gw.example.com' });
  const res = await gw.call('GET', '/providers/acme-crm');
  t.equal(res.status, 200);
  t.same(res.json.data, {
    name: 'acme-crm',
    display_name: 'acme-crm',
    logo_url: 'https://gw.example.com/providers/acme-crm/logo.svg',
    categories: ['other'],
    auth_mode: 'API_KEY',
    proxy: { base_url: 'https://api.acme.example/v2' },
  });
  const logo = await gw.call('GET', '/providers/acme-crm/logo.svg', { key: null });
  t.match(logo.text, /<text [^>]*>AC<\/text>/, 'a monogram from the name');
  t.equal((await gw.call('GET', '/providers/acme-oauth')).json.data.auth_mode, 'OAUTH2');
});

t.test('every problem names the file and the entry', async (t) => {
  const path = write(
    'bad.json',
    JSON.stringify([
      { name: 'ok', auth_mode: 'NONE', proxy: { base_url: 'https://api.ok.example' } },
      {
        name: 'half-oauth',
        auth_mode: 'OAUTH2',
        token_url: 'https://x.example/token',
        proxy: { base_url: 'https://api.x.example' },
      },
      { name: 'Bad Name', auth_mode: 'API_KEY', proxy: { base_url: 'ftp://files.example' } },
    ]),
  );
  const problems = problemsOf(() => readProvidersFile(path));
  t.ok(
    problems.some(
      (m) => m.startsWith(`SERVICE_PROVIDERS_FILE ${path} entry #2 "half-oauth": `) && /authorization_url/.test(m),
    ),
    problems.join('\n'),
  );
  t.ok(
    problems.some((m) => m.startsWith(`SERVICE_PROVIDERS_FILE ${path} entry #3 "Bad Name": name:`)),
    problems.join('\n'),
  );
  t.ok(
    problems.some((m) => m.startsWith(`SERVICE_PROVIDERS_FILE ${path} entry #3 "Bad Name": proxy.base_url:`)),
    problems.join('\n'),
  );
  t.notOk(problems.some((m) => m.includes('"ok"')));

  const broken = write('broken.json', '[{"name": ');
  const [parse] = problemsOf(() => readProvidersFile(broken));
  t.match(parse, `SERVICE_PROVIDERS_FILE ${broken}: `, 'a syntax error names the file');
  const object = write('object.yaml', 'name: acme\n');
  t.same(
    problemsOf(() => readProvidersFile(object)),
    [`SERVICE_PROVIDERS_FILE ${object}: expected an array of provider entries`],
  );
  const absent = join(dir, 'absent.yaml');
  t.match(problemsOf(() => readProvidersFile(absent))[0], `SERVICE_PROVIDERS_FILE ${absent}: ENOENT`);
});
