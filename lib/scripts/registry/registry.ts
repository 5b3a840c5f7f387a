import { pathToFileURL } from 'node:url';
import { createReadCache } from '../../storage/index.js';
import { parseFrequency } from '../define/frequency.js';
import type { WorkerPool } from '../runtime/pool.js';
import type { ScriptManifest } from '../runtime/protocol.js';
import type { BundleStore, DeployedScript, Deployment } from './bundles.js';
import { readScriptsDirectory } from './directory.js';
import { parseManifest } from './manifest.js';

/** A script enabled for one integration. */
export interface ScriptEntry {
  name: string;
  /** The integration (unique key) it is enabled for. */
  integration: string;
  /** Null: every environment (registered through options or the scripts directory). */
  environment: string | null;
  /** The module a worker imports. */
  file: string;
  manifest: ScriptManifest;
  origin: 'options' | 'directory' | 'deploy';
  hash: string | null;
  deployed_at: string | null;
}

/** Embedded registration: a compiled module (path or file URL), enabled for the integrations named. */
export interface ScriptModule {
  file: string | URL;
  integrations: string[];
  /** Default: the file's base name. */
  name?: string;
}

export interface DeployInput {
  integration: string;
  name: string;
  bundle: string;
}

export type DeployResult =
  | { ok: true; previous: ScriptEntry[]; current: ScriptEntry[] }
  | { ok: false; problems: { integration: string; name: string; message: string }[] };

export interface ScriptRegistry {
  get(environment: string, integration: string, name: string): Promise<ScriptEntry | undefined>;
  /** Every script of the environment (deployed ones override registered ones of the same integration and name). */
  list(environment: string, integration?: string): Promise<ScriptEntry[]>;
  /** Replaces the environment's deployed scripts; nothing changes unless every bundle loads. */
  deploy(environment: string, scripts: readonly DeployInput[]): Promise<DeployResult>;
}

export interface RegistryDeps {
  pool: WorkerPool;
  bundles: BundleStore;
  minimumFrequencyMs: number;
  /** How long another process's deploy may go unseen (shared storage). */
  cacheTtlMs: number;
  inspectTimeoutMs?: number;
}

export const scriptName = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * Loads the module in a script process (never in the gateway) and checks what it declares. A
 * deploy's bundle is loaded in a process of the deploying environment's.
 */
async function inspect(
  deps: RegistryDeps,
  file: string,
  environment?: string,
): Promise<{ ok: true; manifest: ScriptManifest } | { ok: false; message: string }> {
  const task = environment === undefined ? { type: 'inspect' as const } : { type: 'inspect' as const, environment };
  const outcome = await deps.pool.run(
    file,
    task,
    { onCall: async () => null, onLog: () => {} },
    deps.inspectTimeoutMs ?? 30_000,
  );
  if (!outcome.ok) return { ok: false, message: outcome.error.message };
  // The script's process said so: believed only in the shape a manifest has.
  const manifest = parseManifest(outcome.value);
  if (!manifest) return { ok: false, message: 'the script runtime answered something that is not a script manifest' };
  if (manifest.type === 'sync') {
    const frequency = parseFrequency(manifest.frequency ?? '', deps.minimumFrequencyMs);
    if (!frequency.ok) return { ok: false, message: frequency.reason };
  }
  return { ok: true, manifest };
}

const baseName = (file: string) => (file.split('/').pop() ?? file).replace(/\.(c|m)?js$/, '');

export async function createScriptRegistry(
  deps: RegistryDeps,
  registered: { modules?: readonly ScriptModule[]; dir?: string | undefined },
): Promise<ScriptRegistry> {
  const wanted = [
    ...(registered.modules ?? []).flatMap((m) => {
      const file =
        m.file instanceof URL ? m.file.href : m.file.startsWith('file:') ? m.file : pathToFileURL(m.file).href;
      return m.integrations.map((integration) => ({
        integration,
        name: m.name ?? baseName(file),
        file,
        origin: 'options' as const,
      }));
    }),
    ...(registered.dir
      ? readScriptsDirectory(registered.dir).map((s) => ({ ...s, origin: 'directory' as const }))
      : []),
  ];
  const problems: string[] = [];
  const fixed: ScriptEntry[] = [];
  for (const w of wanted) {
    if (!scriptName.test(w.name)) problems.push(`${w.file}: script name "${w.name}" must match ${scriptName}`);
    else if (fixed.some((e) => e.integration === w.integration && e.name === w.name))
      problems.push(`${w.file}: a script "${w.name}" is already registered for integration "${w.integration}"`);
    const result = await inspect(deps, w.file);
    if (!result.ok) problems.push(`${w.file}: ${result.message}`);
    else fixed.push({ ...w, environment: null, manifest: result.manifest, hash: null, deployed_at: null });
  }
  if (problems.length > 0) throw new Error(`scripts could not be registered:\n  ${problems.join('\n  ')}`);

  const deployedCache = createReadCache<ScriptEntry[]>({ ttlMs: deps.cacheTtlMs });
  const toEntries = async (env: string, deployment: Deployment | undefined): Promise<ScriptEntry[]> =>
    Promise.all(
      (deployment?.scripts ?? []).map(async (s: DeployedScript) => ({
        name: s.name,
        integration: s.integration,
        environment: env,
        file: await deps.bundles.fileFor(s.hash),
        manifest: s.manifest,
        origin: 'deploy' as const,
        hash: s.hash,
        deployed_at: deployment?.deployed_at ?? null,
      })),
    );
  const deployed = async (env: string) =>
    (await deployedCache.load(env, async () => toEntries(env, await deps.bundles.deployment(env)))) ?? [];

  const registry: ScriptRegistry = {
    async get(env, integration, name) {
      return (await registry.list(env, integration)).find((e) => e.name === name);
    },
    async list(env, integration) {
      const own = await deployed(env);
      const taken = new Set(own.map((e) => `${e.integration}\u001f${e.name}`));
      return [...fixed.filter((e) => !taken.has(`${e.integration}\u001f${e.name}`)), ...own].filter(
        (e) => integration === undefined || e.integration === integration,
      );
    },
    async deploy(env, scripts) {
      const failures: { integration: string; name: string; message: string }[] = [];
      const next: DeployedScript[] = [];
      for (const s of scripts) {
        const hash = await deps.bundles.putSource(s.bundle);
        const result = await inspect(deps, await deps.bundles.fileFor(hash), env);
        if (!result.ok) failures.push({ integration: s.integration, name: s.name, message: result.message });
        else next.push({ integration: s.integration, name: s.name, hash, manifest: result.manifest });
      }
      if (failures.length > 0) return { ok: false, problems: failures };
      const previous = await deployed(env);
      const deployment: Deployment = { deployed_at: new Date().toISOString(), scripts: next };
      await deps.bundles.setDeployment(env, deployment);
      deployedCache.delete(env);
      return { ok: true, previous, current: await toEntries(env, deployment) };
    },
  };
  return registry;
}
