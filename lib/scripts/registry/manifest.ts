import { z } from 'zod';
import type { ScriptManifest } from '../runtime/protocol.js';

const text = z.string().max(10_000);
const manifestSchema = z
  .object({
    type: z.enum(['sync', 'action', 'on-event']),
    description: text.nullable(),
    version: z.string().max(200).nullable(),
    frequency: z.string().max(200).optional(),
    syncType: z.enum(['full', 'incremental']).optional(),
    autoStart: z.boolean().optional(),
    detectDeletes: z.boolean().optional(),
    models: z.record(z.string().max(200), z.unknown()).optional(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    event: z.string().max(200).optional(),
  })
  .strict();

/**
 * A manifest as a script process reported it. That process runs untrusted code, so its answer
 * is checked like any request body; a sync must name its frequency and models.
 */
export function parseManifest(value: unknown): ScriptManifest | undefined {
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const manifest = parsed.data as ScriptManifest;
  if (manifest.type === 'sync' && (manifest.frequency === undefined || manifest.models === undefined)) return undefined;
  if (manifest.type === 'on-event' && manifest.event === undefined) return undefined;
  return manifest;
}
