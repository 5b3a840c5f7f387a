import type { HookRegistry, PostConnectionHook } from '../connect/index.js';
import type { ScriptEntry } from './registry/registry.js';

/** What the hook adapter needs from the scripts feature, once it exists. */
export interface NamedScriptRunner {
  registry: { get(environment: string, integration: string, name: string): Promise<ScriptEntry | undefined> };
  runOnEvent(
    entry: ScriptEntry,
    target: { environment: string; providerConfigKey: string; connectionId: string },
  ): Promise<{ ok: boolean; runId: string }>;
}

/**
 * The catalog's `post_connection_script` names resolved through the script registry: a script
 * registered (or deployed) under that name for the connection's integration runs on a worker;
 * otherwise the built-in, in-process hook of that name (gateway option `postConnectionHooks`).
 * `scripts()` is read at call time, so the authorization routes can be built before the scripts.
 */
export function createScriptHooks(builtins: HookRegistry, scripts: () => NamedScriptRunner | undefined): HookRegistry {
  return {
    get(name) {
      const builtin = builtins.get(name);
      const hook: PostConnectionHook = async (context) => {
        const runner = scripts();
        const { connection } = context;
        const entry = runner
          ? await runner.registry.get(context.environment, connection.provider_config_key, name)
          : undefined;
        if (runner && entry?.manifest.type === 'on-event') {
          const outcome = await runner.runOnEvent(entry, {
            environment: context.environment,
            providerConfigKey: connection.provider_config_key,
            connectionId: connection.connection_id,
          });
          if (!outcome.ok)
            throw new Error(`script "${name}" failed (run ${outcome.runId}; see GET /logs?run_id=${outcome.runId})`);
          return;
        }
        if (builtin) return builtin(context);
        context.logger.warn('post-connection script not registered; connection kept without it', {
          environment: context.environment,
          provider_config_key: connection.provider_config_key,
          connection_id: connection.connection_id,
          script: name,
        });
      };
      return hook;
    },
    names: () => builtins.names(),
  };
}
