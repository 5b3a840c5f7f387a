import { join, relative, sep } from 'node:path';
import type { Message, Plugin } from 'esbuild';
import type { Problem, ScriptSource } from './discover.js';
import { fallbackNodeModules, type ScriptApiFiles } from './package-files.js';

export interface Bundle {
  source: ScriptSource;
  /** Where it goes: `<out>/<integration>/[folder/]<name>.mjs`. */
  outFile: string;
  code: string;
}

export type BundleOutcome = { ok: true; bundles: Bundle[] } | { ok: false; problems: Problem[] };

/** `portico` and `portico/scripts` in a script mean the script API only, never the gateway. */
function scriptApiPlugin(api: ScriptApiFiles): Plugin {
  return {
    name: 'portico-script-api',
    setup(build) {
      build.onResolve({ filter: /^portico(\/scripts)?$/ }, () => ({ path: api.runtime }));
    },
  };
}

// A deployed bundle is one file in the gateway's bundle folder: CommonJS dependencies inside it
// that require Node built-ins need a `require`.
const banner =
  "import { createRequire as __porticoCreateRequire } from 'node:module';\nconst require = __porticoCreateRequire(import.meta.url);";

const outName = (s: ScriptSource) => [s.integration, s.folder, s.name].filter(Boolean).join('/');

function toProblem(root: string, message: Message): Problem {
  const at = message.location;
  if (!at) return { file: '', message: message.text };
  return {
    file: relative(root, join(root, at.file)).split(sep).join('/'),
    line: at.line,
    column: at.column + 1,
    message: message.text,
  };
}

/**
 * Bundles each script into one self-contained ES module (zod and the script API inside), as the
 * gateway loads it: nothing is left to resolve from the folder it is deployed to.
 */
export async function bundleScripts(
  root: string,
  outDir: string,
  sources: readonly ScriptSource[],
  api: ScriptApiFiles,
  options: { sourcemap?: boolean } = {},
): Promise<BundleOutcome> {
  const esbuild = await import('esbuild');
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: sources.map((s) => ({ in: s.file, out: outName(s) })),
      outdir: outDir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      sourcemap: options.sourcemap ? 'inline' : false,
      banner: { js: banner },
      nodePaths: [fallbackNodeModules()],
      plugins: [scriptApiPlugin(api)],
    });
    const byOut = new Map(result.outputFiles.map((f) => [f.path, f.text]));
    return {
      ok: true,
      bundles: sources.map((source) => {
        const outFile = join(outDir, `${outName(source)}.mjs`);
        const code = byOut.get(outFile);
        if (code === undefined) throw new Error(`esbuild produced no output for ${source.relative}`);
        return { source, outFile, code };
      }),
    };
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors;
    if (!Array.isArray(messages)) throw error;
    return { ok: false, problems: messages.map((m) => toProblem(root, m)) };
  }
}
