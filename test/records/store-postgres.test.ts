import t from 'tap';
import { createPostgresStorage } from '../../adapters/storage/index.js';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';
import { runRecordStoreContract } from './contract-suite.js';

// One schema per subtest, so subtests share no data (the suite expects a fresh store each time).
if (await requirePostgres(t)) {
  await runRecordStoreContract(t, 'postgres', (t) => createPostgresStorage({ url: postgresSchema(t, 'records').url }));
}
