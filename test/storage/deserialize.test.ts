import { defaultDeserialize, defaultSerialize } from '@keyv/serialize';
import t from 'tap';
import { deserialize } from '../../adapters/storage/deserialize.js';
import { serialize } from '../../adapters/storage/serialize.js';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { join } from 'node:path';

const samples: unknown[] = [
  { value: { a: 1, s: 'plain', nested: [1, 'two', { x: null }] }, expires: null },
  { value: ':starts with a colon', expires: 5 },
  { value: { ':key': ':value', list: [':a', 'b:', '::c'], empty: '' }, expires: null },
  { value: { text: 'inside ,": and {": and [": and :": stays' }, expires: null },
  { value: { buf: Buffer.from('bytes ✓') }, expires: null },
  { value: [':first', { '': ':v' }], expires: null },
  { value: 'sk_live_x:y', expires: null },
  ':top level',
  'top level',
  42,
];

t.test("reads every value exactly as Keyv's own deserializer does", async (t) => {
  for (const sample of samples) {
    const text = defaultSerialize(sample);
    t.same(deserialize(text), defaultDeserialize(text), text);
  }
});

t.test("writes every value exactly as Keyv's own serializer does", async (t) => {
  const more: unknown[] = [
    { value: { at: new Date(0), skipped: undefined, list: [1, undefined, 'x'], nested: { ok: true } }, expires: 9 },
    { value: { bufs: [Buffer.from([0, 1, 2])], text: 'a":b', key: { ':k': 1 } }, expires: null },
    { value: { 'a,': 'comma-ended key', quote: '\\":' }, expires: null },
  ];
  for (const sample of [...samples, ...more])
    t.equal(serialize(sample), defaultSerialize(sample), String(serialize(sample)));
});

t.test('a stored value with colon-led strings and a Buffer comes back intact through the SQLite store', async (t) => {
  const storage = createSqliteStorage({ path: join(t.testdir(), 'p.db') });
  t.teardown(() => storage.close());
  const kv = storage.keyv<unknown>('ns');
  const value = { id: ':odd', tags: [':a', 'b'], blob: Buffer.from([0, 1, 2]), note: 'x,":y' };
  await kv.set('k', value);
  t.same(await kv.get('k'), value);
  const [many] = await kv.get(['k']);
  t.same(many, value);
});
