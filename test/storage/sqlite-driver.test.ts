import { join } from 'node:path';
import t from 'tap';
import { runModule } from '../helpers/child.js';
import { chooseSqliteDriver, type DriverProbes } from '../../adapters/storage/sqlite-driver.js';
import { nodeSqliteAvailable } from '../../adapters/storage/sqlite-node.js';

const probes = (nodeSqlite: boolean, betterSqlite: true | Error): DriverProbes => ({
  nodeSqlite: () => nodeSqlite,
  betterSqlite: () => betterSqlite,
});
const notBuilt = new Error('Could not locate the bindings file');

t.test('auto: node:sqlite from Node 24.19 on, where better-sqlite3 12 would abort the process', async (t) => {
  for (const version of ['24.19.0', '24.21.0', '25.2.1', '26.0.0'])
    t.equal(chooseSqliteDriver(version, probes(true, true)), 'node:sqlite', version);
});

t.test('auto: better-sqlite3 before Node 24.19, node:sqlite only when the addon does not load', async (t) => {
  for (const version of ['20.20.2', '22.23.3', '24.18.1']) {
    t.equal(chooseSqliteDriver(version, probes(version >= '22', true)), 'better-sqlite3', version);
  }
  t.equal(chooseSqliteDriver('22.23.3', probes(true, notBuilt)), 'node:sqlite');
  t.throws(
    () => chooseSqliteDriver('20.20.2', probes(false, notBuilt)),
    /No SQLite driver on Node 20\.20\.2.*bindings/,
  );
});

t.test(
  'a store on node:sqlite starts without an ExperimentalWarning, and other warnings still print',
  { skip: nodeSqliteAvailable() ? false : `no node:sqlite on Node ${process.versions.node}` },
  async (t) => {
    const storage = new URL('../../adapters/storage/index.js', import.meta.url).href;
    const { stdout, stderr } = await runModule(`
      import { createSqliteStorage } from ${JSON.stringify(storage)};
      const storage = createSqliteStorage({ path: ${JSON.stringify(join(t.testdir(), 'p.db'))}, driver: 'node:sqlite' });
      await storage.keyv('ns').set('a', 'kept');
      console.log(await storage.keyv('ns').get('a'));
      await storage.close();
      process.emitWarning('a warning of the application', 'ExperimentalWarning');
    `);
    t.equal(stdout.trim(), 'kept');
    t.notMatch(stderr, /SQLite is an experimental feature/);
    t.match(stderr, /ExperimentalWarning: a warning of the application/, 'warnings are not silenced');
  },
);
