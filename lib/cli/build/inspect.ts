import { pathToFileURL } from 'node:url';
import { loadScript, manifestOf, type AnyScript, type ScriptManifest } from '../../scripts/local.js';

export type Inspection = { ok: true; script: AnyScript; manifest: ScriptManifest } | { ok: false; message: string };

/**
 * Imports a bundle the way a gateway worker does and reads what it declares: a default export
 * not built with createSync/createAction/createOnEvent, or one they refuse, fails here rather
 * than at deploy time.
 */
export async function inspectBundle(file: string, version: string): Promise<Inspection> {
  try {
    const script = await loadScript(`${pathToFileURL(file).href}?v=${version}`);
    return { ok: true, script, manifest: manifestOf(script) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
