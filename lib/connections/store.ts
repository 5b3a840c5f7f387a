import type { Cipher } from '../crypto/index.js';
import { createCollection, type Collection, type Storage } from '../storage/index.js';
import type { StoredConnection } from './connection.js';

export { storedId } from './connection.js';
import type { ConnectionCredentials } from './credentials.js';
import { connectionLists } from './listing.js';
import { searchKeys } from './search.js';

/** The collection's name: its Keyv namespace and index namespace. */
export const connectionsCollection = 'connections';

/** Where connections are kept, per environment, with the lists and search keys each is in. */
export function createConnectionStore(storage: Storage, cipher: Cipher): Collection<StoredConnection> {
  return createCollection<StoredConnection>(storage, connectionsCollection, {
    lists: connectionLists,
    keys: searchKeys,
    // 1: search lists and end users within an integration.
    listsVersion: 1,
    // The older layout kept no auth mode in clear: read it once from the credentials.
    upgrade: (s) => (s.auth_mode ? s : { ...s, auth_mode: cipher.open<ConnectionCredentials>(s.credentials).type }),
  });
}
