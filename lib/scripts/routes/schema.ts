import { z } from 'zod';
import { logLevels } from '../../http/logger.js';

const providerConfigKey = z.string().min(1).max(100);
const connectionId = z.string().min(1).max(255);
const syncName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'must be 1-100 letters, digits, "_", "-" or "."');
const logLevel = z.enum(logLevels);

const syncSelection = {
  provider_config_key: providerConfigKey,
  /** Sync names; empty: every sync of the integration. */
  syncs: z.array(syncName).max(100).optional(),
  connection_id: connectionId.optional(),
};

export const triggerSyncSchema = z
  .object({
    ...syncSelection,
    /** `incremental` (default) resumes from the checkpoint; `full` refetches everything and detects deletions. */
    mode: z.enum(['incremental', 'full']).default('incremental'),
    /** Stores this run's logs from this level up (default: the environment's level, else warn). */
    log_level: logLevel.optional(),
  })
  .strict();

export const syncSelectionSchema = z.object(syncSelection).strict();

/** `syncs` as a comma-separated list in the query string. */
export const syncStatusQuery = z
  .object({
    provider_config_key: providerConfigKey,
    syncs: z
      .string()
      .optional()
      .transform((s) =>
        s && s !== '*'
          ? s
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean)
          : [],
      ),
    connection_id: connectionId.optional(),
  })
  .strict();

export const triggerActionSchema = z
  .object({
    action_name: syncName,
    input: z.unknown().optional(),
    log_level: logLevel.optional(),
  })
  .strict();

export const logsQuery = z
  .object({
    connection_id: connectionId.optional(),
    script: syncName.optional(),
    run_id: z.string().min(1).max(100).optional(),
    cursor: z.string().max(1000).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();

/** Keys of the removed YAML-era deploy payload (spec 9): refused with a migration message. */
export const legacyDeployKeys = ['yaml', 'config', 'flows', 'flowConfigs', 'flow_configs', 'nango_yaml'] as const;

export const deploySchema = z
  .object({
    scripts: z
      .array(
        z
          .object({
            integration: providerConfigKey,
            name: syncName,
            /** One self-contained ES module (the CLI's compiled bundle); its default export is createSync/createAction/createOnEvent. */
            bundle: z
              .string()
              .min(1)
              .max(10 * 1024 * 1024),
          })
          .strict(),
      )
      .max(500),
  })
  .strict();
