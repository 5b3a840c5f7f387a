import type { EncryptionKey } from './crypto/index.js';
import type { Environment } from './environments/index.js';
import type { Logger } from './http/logger.js';
import type { Storage } from './storage/index.js';

/** Everything `createGateway` needs; nothing is read from the process environment. */
export interface GatewayOptions {
  /** At least one; each with its own secret key. */
  environments: Environment[];
  /** Where connections, integrations and records live (see `adapters/storage`). */
  storage: Storage;
  /** AES-256-GCM keys; the first seals, all open (rotation). A base64 string is one key with id `k1`. */
  encryptionKeys: EncryptionKey[] | string;
  /**
   * The public address of the gateway including any mount prefix, e.g. `https://api.example.com/portico`.
   * Callback, setup and webhook URLs are built from it.
   */
  baseUrl: string;
  /** Extra or overriding catalog entries, in the shape of spec 2.1. */
  providers?: unknown[];
  logger?: Logger;
  /** How long a cached integration/connection may be stale when the storage is shared. Default 5 s. */
  cacheTtlMs?: number;
  /** Largest JSON body a route accepts. Default 1 MiB. */
  bodyLimit?: number;
}
