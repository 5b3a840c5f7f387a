import t from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { runRecordStoreContract } from './contract-suite.js';

// One prefix per run; each storage gets its own sub-prefix, so subtests share no data.
// Two instances on one shared store: store-shared.test.ts.
const prefix = uniquePrefix('records');
let storages = 0;
const freshPrefix = () => `${prefix}${storages++}:`;

if (await requireRedis(t)) {
  t.teardown(removeKeys);
  await runRecordStoreContract(t, 'redis', () => createRedisStorage({ url: redisUrl, prefix: freshPrefix() }));
}

function removeKeys() {
  return removeRedisKeys(prefix);
}
