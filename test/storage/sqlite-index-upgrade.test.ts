import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { openSqliteDatabase, usableSqliteDrivers, type SqliteDriver } from '../../adapters/storage/sqlite-driver.js';
import { startGateway } from '../helpers/gateway.js';

/**
 * `fixtures/sqlite-index-972c857.sql` is `sqlite3 portico.db .dump` of a store written by the
 * standalone server built from 972c857 (the layout before keyed entries left the order index):
 * integrations `crm` and `billing`, conn-0 … conn-11 with end users, conn-5 deleted, conn-2's end
 * user changed to Ada Lovelace. Its order index, `portico_index_order`, holds every entry.
 */
const dump = readFileSync(join(import.meta.dirname, 'fixtures/sqlite-index-972c857.sql'), 'utf8');
const encryptionKey = Buffer.alloc(32, 7).toString('base64');
const written = ['conn-0', 'conn-1', 'conn-2', 'conn-3', 'conn-4', 'conn-6', 'conn-7', 'conn-8', 'conn-9', 'conn-10'];
const everyOne = [...written, 'conn-11'];

const ids = (body: { data: { connection_id: string }[] }) => body.data.map((c) => c.connection_id);

function restore(path: string, driver: SqliteDriver) {
  const db = openSqliteDatabase(path, { driver });
  db.exec(dump);
  db.close();
}

function indexes(path: string, driver: SqliteDriver, table = 'portico_index'): Record<string, string> {
  const db = openSqliteDatabase(path, { driver, readonly: true });
  try {
    const rows = db
      .prepare<[string], { name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
      )
      .all(table);
    return Object.fromEntries(rows.map((r) => [r.name, r.sql]));
  } finally {
    db.close();
  }
}

for (const driver of usableSqliteDrivers()) {
  t.test(
    `a store written before the partial order index opens, lists and searches after the upgrade (${driver})`,
    async (t) => {
      const path = join(t.testdir(), 'portico.db');
      restore(path, driver);
      t.same(Object.keys(indexes(path, driver)), ['portico_index_order'], 'the fixture has the old index');
      t.same(Object.keys(indexes(path, driver, 'portico_kv')), [], 'and none on expiry');

      const storage = createSqliteStorage({ path, driver });
      t.teardown(() => storage.close());
      const after = indexes(path, driver);
      t.same(Object.keys(after), ['portico_index_ordered'], 'the old index is gone, the new one in its place');
      t.match(after.portico_index_ordered, /WHERE ord <> 0$/, 'keyed entries (order 0) are left out of it');
      t.same(
        Object.keys(indexes(path, driver, 'portico_kv')),
        ['portico_kv_expires'],
        'rows with a TTL get their index',
      );

      const gw = await startGateway(t, { storage, encryptionKeys: encryptionKey });
      const all = await gw.call('GET', '/connections');
      t.equal(all.status, 200);
      t.same(ids(all.json), everyOne, 'every connection, in the order written, the deleted one absent');
      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await gw.call('GET', `/connections?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        pages.push(...ids(page.json));
        cursor = page.json.next_cursor as string | null;
      } while (cursor);
      t.same(pages, everyOne, 'pages of 4 walk every connection once');

      t.same(ids((await gw.call('GET', '/connections?search=ada')).json), ['conn-2'], 'search by the new name');
      t.same(ids((await gw.call('GET', '/connections?search=person 2')).json), [], 'the old name is gone');
      t.same(
        ids((await gw.call('GET', '/connections?search=person1')).json).sort(),
        ['conn-1', 'conn-10', 'conn-11'],
        'search by an email start',
      );
      t.same(ids((await gw.call('GET', '/connections?search=conn-1')).json).sort(), ['conn-1', 'conn-10', 'conn-11']);
      const searchPage = await gw.call('GET', '/connections?search=person&limit=3');
      t.equal(searchPage.json.data.length, 3, 'a page of a search');
      const rest = await gw.call('GET', `/connections?search=person&limit=20&cursor=${searchPage.json.next_cursor}`);
      t.same(
        [...ids(searchPage.json), ...ids(rest.json)].sort(),
        everyOne.filter((id) => id !== 'conn-2').sort(),
        'and its next page: every connection named Person once',
      );
      t.same(ids((await gw.call('GET', '/connections?end_user_id=user-1')).json), ['conn-1', 'conn-6', 'conn-11']);
      t.same(
        ids((await gw.call('GET', '/connections?end_user_id=user-1&provider_config_key=crm')).json),
        ['conn-1', 'conn-6'],
        'an end user within an integration',
      );
      t.same(
        ids((await gw.call('GET', '/connections?search=person&provider_config_key=billing')).json).sort(),
        ['conn-11', 'conn-3', 'conn-7'],
        'a search within an integration',
      );
      const one = await gw.call('GET', '/connections/conn-4?provider_config_key=crm');
      t.equal(one.json.data.credentials.apiKey, 'sk_live_4', 'credentials open with the same key');

      const created = await gw.call('POST', '/connections', {
        body: {
          provider_config_key: 'crm',
          connection_id: 'new',
          credentials: { type: 'API_KEY', apiKey: 'sk_new' },
          end_user: { id: 'user-1', email: 'grace@hopper.org', display_name: 'Grace Hopper' },
        },
      });
      t.equal(created.status, 201);
      t.same(ids((await gw.call('GET', '/connections')).json).at(-1), 'new', 'a new connection lists last');
      t.same(ids((await gw.call('GET', '/connections?search=hopper')).json), ['new'], 'and is found by search');
      t.same(ids((await gw.call('GET', '/connections?end_user_id=user-1')).json), [
        'conn-1',
        'conn-6',
        'conn-11',
        'new',
      ]);
      const removed = await gw.call('DELETE', '/connections/conn-1?provider_config_key=crm');
      t.ok(removed.status < 300, 'an upgraded connection deletes');
      t.same(ids((await gw.call('GET', '/connections?search=person1')).json).sort(), ['conn-10', 'conn-11']);
      t.same(ids((await gw.call('GET', '/connections?end_user_id=user-1')).json), ['conn-6', 'conn-11', 'new']);
    },
  );

  t.test(`opening an upgraded store again changes nothing (${driver})`, async (t) => {
    const path = join(t.testdir(), 'portico.db');
    restore(path, driver);
    await createSqliteStorage({ path, driver }).close();
    const upgraded = indexes(path, driver);
    const storage = createSqliteStorage({ path, driver });
    t.teardown(() => storage.close());
    t.same(indexes(path, driver), upgraded, 'the same index, not built again');
    const gw = await startGateway(t, { storage, encryptionKeys: encryptionKey });
    t.same(ids((await gw.call('GET', '/connections')).json), everyOne);
    t.same(ids((await gw.call('GET', '/connections?search=ada')).json), ['conn-2']);
  });
}
