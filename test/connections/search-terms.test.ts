import t from 'tap';
import type { StoredConnection } from '../../lib/connections/index.js';
import { indexedLength, matchKey, searchKeys, searchTerm } from '../../lib/connections/search.js';

const connection = (connection_id: string, end_user: StoredConnection['end_user']): StoredConnection => ({
  connection_id,
  provider_config_key: 'crm',
  provider: 'stripe',
  credentials: 'sealed',
  connection_config: {},
  metadata: {},
  end_user,
  auth_problem: null,
  created_at: '',
  updated_at: '',
});

t.test('the keys a connection is found by', async (t) => {
  const c = connection('Ada-1', { id: 'u', email: 'ada@x.io', display_name: 'Ada\u0007Byron' });
  const keys = searchKeys(c).filter((k) => k.list === 'search');
  t.same(
    keys.map((k) => k.key).sort(),
    ['1', 'ada-1', 'ada@x.io', 'ada byron', 'byron', 'x.io'].sort(),
    "each word start once, folded, a control character as a space; not the email's top-level domain",
  );
  t.equal(keys.length, searchKeys(c).length, 'all in the one search list');
  const many = connection('c', { id: 'u', display_name: Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ') });
  t.equal(searchKeys(many).length, 11, 'at most ten word starts a field (and the id)');
});

t.test('terms longer than the index keeps are checked in full', async (t) => {
  const long = 'x'.repeat(indexedLength + 10);
  const c = connection('c', { id: 'u', display_name: `${long}yz` });
  t.equal(matchKey(c, `${long}y`), long.slice(0, indexedLength), 'found at its (truncated) key');
  t.equal(matchKey(c, `${long}q`), undefined, 'a difference past the key still counts');
  t.equal(searchTerm('  @@Ada '), 'ada ', 'leading punctuation dropped, folded');
  t.equal(searchTerm('@@'), undefined);
});
