/**
 * A large SQLite store in a minute, for `connections-ab.ts --seed-a/--seed-b` (issue 17): takes a
 * store that one import through HTTP wrote (conn-0 of `connections-load.ts`, with the bench's
 * keys) and adds conn-1 … conn-(n-1) by SQL, the rows an import writes: the value, its four list
 * entries and five search words, and (for the newest 10,000, the webhooks' default retention) the
 * replay feed's event and the delivery record; the two sequences are set to n. The rows are
 * copies of conn-0's with the numbers changed, in import order; their pages come out fuller than
 * a store grown one import at a time.
 *
 *   node dist/bench/connections-seed.js <one-import.db> <n>
 *
 * Run it on a copy: it writes into the file it is given. Whatever layout the file has is kept
 * (a build opening it upgrades it on start).
 */
import { openSqliteDatabase } from '../adapters/storage/sqlite-driver.js';

const [path, count] = process.argv.slice(2);
const n = Number(count);
if (!path || !Number.isInteger(n) || n < 2) throw new Error('usage: connections-seed.js <one-import.db> <n>');

const retention = 10_000;
const [US, RS, SOH] = ['\u001f', '\u001e', '\u0001'];
const db = openSqliteDatabase(path);
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA cache_size = -262144');
const value = (namespace: string, key: string) =>
  db
    .prepare<[string, string], string>('SELECT value FROM portico_kv WHERE namespace = ? AND key = ?', 'first')
    .get(namespace, key);
const conn = value('connections', `dev${US}crm${RS}conn-0`);
const event = value('webhook-events', `dev${US}1`);
const delivery = value('webhook-deliveries', `dev${US}1`);
const newest = db
  .prepare<[string, string], number>(
    `SELECT ord FROM portico_index WHERE namespace = 'connections' AND list = ? AND id = ?`,
    'first',
  )
  .get(`dev${US}all`, `crm${RS}conn-0`);
if (!conn || !event || !delivery || !newest) throw new Error(`${path}: not a store with one bench import`);

const setValue = db.prepare<[string, string, string]>(
  'INSERT OR REPLACE INTO portico_kv (namespace, key, value, expires) VALUES (?, ?, ?, NULL)',
);
const setEntry = db.prepare<[string, string, string, number]>(
  'INSERT OR REPLACE INTO portico_index (namespace, list, id, ord) VALUES (?, ?, ?, ?)',
);
const add = db.transaction((from: number, to: number) => {
  for (let i = from; i < to; i++) {
    const id = `crm${RS}conn-${i}`;
    const user = `user-${i % 50_000}`;
    // Older than conn-0, in import order, 400 µs apart.
    const order = newest - (n - i) * 400;
    const text = conn
      .replaceAll('conn-0', `conn-${i}`)
      .replaceAll('person0', `person${i}`)
      .replaceAll('Person 0', `Person ${i}`)
      .replaceAll('user-0', user);
    setValue.run('connections', `dev${US}${id}`, text);
    if (i + 1 > n - retention) {
      setValue.run('webhook-events', `dev${US}${i + 1}`, event.replaceAll('conn-0', `conn-${i}`));
      setValue.run('webhook-deliveries', `dev${US}${i + 1}`, delivery);
    }
    for (const list of ['all', 'integration:crm', `end_user:${user}`, `integration:crm:end_user:${user}`])
      setEntry.run('connections', `dev${US}${list}`, id, order);
    for (const word of [String(i), `conn-${i}`, 'example.com', `person ${i}`, `person${i}@example.com`])
      setEntry.run('connections', `dev${US}search`, `${word}${SOH}${id}`, 0);
  }
});
const started = performance.now();
for (let i = 1; i < n; i += 10_000) add(i, Math.min(n, i + 10_000));
for (const sequence of ['webhook-event-sequence', 'webhook-sequence'])
  setValue.run(sequence, 'dev', JSON.stringify({ value: n }));
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
db.close();
console.log(`${path}: ${n} connections in ${((performance.now() - started) / 1000).toFixed(1)} s`);
