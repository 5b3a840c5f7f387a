import type { Connection } from '../connections/index.js';
import type { Logger } from '../http/logger.js';
import type { Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';

/** What a post-connection hook receives once the new connection is stored. */
export interface PostConnectionContext {
  environment: string;
  /** The stored connection, credentials opened. */
  connection: Connection;
  integration: Integration;
  provider: Provider;
  logger: Logger;
  /** Merges keys into the connection's metadata (e.g. an account id the hook looked up). */
  mergeMetadata(metadata: Record<string, unknown>): Promise<void>;
}

export type PostConnectionHook = (context: PostConnectionContext) => void | Promise<void>;

export interface HookRegistry {
  get(name: string): PostConnectionHook | undefined;
  names(): string[];
}

/**
 * Named hooks for the catalog's `post_connection_script`. The script registry of a later
 * issue replaces this; until then the gateway options add hooks by name.
 */
export function createHookRegistry(hooks: Record<string, PostConnectionHook> = {}): HookRegistry {
  const byName = new Map(Object.entries(hooks));
  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
  };
}
