import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { runRecordStoreContract } from './contract-suite.js';

await runRecordStoreContract(t, 'memory', () => createMemoryStorage());
