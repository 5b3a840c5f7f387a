import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseStorageUrl, storageFromUrl } from '../../adapters/storage/index.js';

t.test('accepted forms', async (t) => {
  t.same(parseStorageUrl('memory://'), { kind: 'memory' });
  t.same(parseStorageUrl('memory:'), { kind: 'memory' });
  t.same(parseStorageUrl(' MEMORY:// '), { kind: 'memory' }, 'scheme is case-insensitive, blanks trimmed');
  t.same(parseStorageUrl('sqlite://./data/portico.db'), { kind: 'sqlite', path: './data/portico.db' });
  t.same(parseStorageUrl('sqlite://data/portico.db'), { kind: 'sqlite', path: 'data/portico.db' });
  t.same(parseStorageUrl('sqlite:///abs/path.db'), { kind: 'sqlite', path: '/abs/path.db' });
  t.same(
    parseStorageUrl('sqlite://../up/Mixed Case.db'),
    { kind: 'sqlite', path: '../up/Mixed Case.db' },
    'path kept as written',
  );
  t.same(parseStorageUrl('redis://localhost:6379'), { kind: 'redis', url: 'redis://localhost:6379' });
  t.same(parseStorageUrl('rediss://user:pw@cache.example.com:6380/2'), {
    kind: 'redis',
    url: 'rediss://user:pw@cache.example.com:6380/2',
  });
  t.same(parseStorageUrl('postgres://db.example.com/portico'), {
    kind: 'postgres',
    url: 'postgres://db.example.com/portico',
  });
  t.same(parseStorageUrl('postgresql://u:pw@127.0.0.1:5432/portico?schema=gw_1'), {
    kind: 'postgres',
    url: 'postgresql://u:pw@127.0.0.1:5432/portico?schema=gw_1',
  });
  t.same(parseStorageUrl('postgres://db/portico?schema=gw_1&maintain_statistics=off'), {
    kind: 'postgres',
    url: 'postgres://db/portico?schema=gw_1&maintain_statistics=off',
  });
});

t.test('bad URLs throw a message naming the accepted forms', async (t) => {
  const bad = [
    '',
    'portico.db',
    'mysql://db.example.com/portico',
    'postgres://',
    'postgres://db/x?schema=Not-A-Name',
    'postgres://db/x?maintain_statistics=maybe',
    'memory://somewhere',
    'sqlite://',
    'sqlite:///',
    'sqlite:/one-slash.db',
    'redis://',
    'redis://[not-a-host',
  ];
  for (const url of bad) {
    t.throws(
      () => parseStorageUrl(url),
      { message: /Accepted forms: memory:\/\/, sqlite:\/\/.*redis:\/\/.*postgres:\/\// },
      JSON.stringify(url),
    );
  }
});

t.test('passwords do not leak into the error', async (t) => {
  let message = '';
  try {
    parseStorageUrl('postgres://admin:hunter2@db/x?schema=Bad;Name');
  } catch (error) {
    message = error instanceof Error ? error.message : String(error);
  }
  t.match(message, /Invalid storage URL "postgres:\/\/\*\*\*@db\/x\?schema=Bad;Name"/);
  t.notMatch(message, /hunter2/);
});

t.test('storageFromUrl builds the matching back end', async (t) => {
  const memory = storageFromUrl('memory://');
  t.equal(memory.kind, 'memory');
  await memory.close();

  const path = join(t.testdir(), 'made', 'by-url.db');
  const sqlite = storageFromUrl(`sqlite://${path}`);
  t.equal(sqlite.kind, 'sqlite');
  t.ok(existsSync(path));
  await sqlite.close();

  // Construction does not wait for Redis, so this holds whether or not one is running.
  const redis = storageFromUrl('redis://127.0.0.1:6379');
  t.equal(redis.kind, 'redis');
  t.equal(redis.shared, true);
  await redis.close();

  // Nor for PostgreSQL: the tables are created on first use.
  const postgres = storageFromUrl('postgres://postgres@127.0.0.1:5432/postgres');
  t.equal(postgres.kind, 'postgres');
  t.equal(postgres.shared, true);
  await postgres.close();

  t.throws(() => storageFromUrl('nope://'), /Invalid storage URL/);
});
