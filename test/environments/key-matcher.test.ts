import t from 'tap';
import { createKeyMatcher } from '../../lib/environments/index.js';

t.test('a presented key matches its own environment and nothing else', async (t) => {
  const environments = [
    { name: 'dev', secretKey: 'sk_dev_0123456789abcdef0123456789abcdef' },
    { name: 'prod', secretKey: 'sk_prod_0123456789abcdef0123456789abcdef' },
    { name: 'staging', secretKey: 'sk_stg_ünïcødé_0123456789' },
  ];
  const matcher = createKeyMatcher(environments);
  for (const env of environments) t.equal(matcher.match(env.secretKey)?.name, env.name, `${env.name}'s key`);
  const dev = environments[0]?.secretKey as string;
  const refused: [string, string][] = [
    ['one character changed, same length', `${dev.slice(0, -1)}0`],
    ['a prefix of the key', dev.slice(0, 10)],
    ['the key and more', `${dev}0`],
    ['the empty string', ''],
    ["another environment's key with one change", 'sk_prod_0123456789abcdef0123456789abcdeF'],
    ['the same characters, another encoding length', 'sk_stg_unicode_0123456789'],
  ];
  for (const [what, key] of refused) t.equal(matcher.match(key), undefined, what);
});

t.test('with no environments nothing matches', async (t) => {
  t.equal(createKeyMatcher([]).match('sk_anything'), undefined);
});
