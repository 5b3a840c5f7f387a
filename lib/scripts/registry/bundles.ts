import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Storage } from '../../storage/index.js';
import type { ScriptManifest } from '../runtime/protocol.js';

/** One deployed script, as the environment's deployment lists it. */
export interface DeployedScript {
  integration: string;
  name: string;
  /** sha256 of the bundle: its storage key and its file name. */
  hash: string;
  manifest: ScriptManifest;
}

export interface Deployment {
  deployed_at: string;
  scripts: DeployedScript[];
}

export interface BundleStore {
  deployment(environment: string): Promise<Deployment | undefined>;
  setDeployment(environment: string, deployment: Deployment): Promise<void>;
  /** Keeps the source (every instance and every restart can load it) and returns its hash. */
  putSource(source: string): Promise<string>;
  /** A file URL a worker can import: the bundle written once into the bundle directory. */
  fileFor(hash: string): Promise<string>;
}

export const hashOf = (source: string) => createHash('sha256').update(source).digest('hex');

/**
 * Deployed bundles live in the storage (so every gateway process, and the next start, has
 * them) and are written to `dir` as `<sha256>.mjs` for workers to import. A new version is a
 * new file name, so a warm worker never runs a stale copy from its module cache.
 */
export function createBundleStore(storage: Storage, dir: string): BundleStore {
  const deployments = storage.keyv<Deployment>('script-deployments');
  const sources = storage.keyv<string>('script-bundles');
  // Files this process wrote or checked: anything else in the directory is verified before use.
  const verified = new Set<string>();
  const matches = (file: string, hash: string) => {
    try {
      return hashOf(readFileSync(file, 'utf8')) === hash;
    } catch {
      return false;
    }
  };
  return {
    async deployment(env) {
      return (await deployments.get(env)) ?? undefined;
    },
    async setDeployment(env, deployment) {
      await deployments.set(env, deployment);
    },
    async putSource(source) {
      const hash = hashOf(source);
      await sources.set(hash, source);
      return hash;
    },
    async fileFor(hash) {
      const file = join(dir, `${hash}.mjs`);
      if (!verified.has(hash) && !matches(file, hash)) {
        const source = await sources.get(hash);
        if (source === undefined || source === null)
          throw new Error(`deployed bundle ${hash} is missing from the storage`);
        if (hashOf(source) !== hash) throw new Error(`deployed bundle ${hash} does not match its hash`);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        // Write then rename: a worker never imports a half-written file.
        const temp = join(dir, `.${hash}.${randomUUID()}.tmp`);
        writeFileSync(temp, source);
        renameSync(temp, file);
      }
      verified.add(hash);
      return pathToFileURL(file).href;
    },
  };
}
