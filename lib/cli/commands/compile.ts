import { relative } from 'node:path';
import { compileScripts } from '../build/compile.js';
import { compiledJson, compiledLines, compileFailure } from '../build/report.js';
import { dirOption, type Command } from '../command.js';
import { exitCodes } from '../exit.js';
import { elapsed } from '../io.js';
import { projectPaths } from './paths.js';

export const compileCommand: Command = {
  name: 'compile',
  summary: 'Type-check (TypeScript) and bundle (esbuild) every script of the scripts folder.',
  args: '',
  options: {
    dir: dirOption,
    out: { type: 'string', value: '<folder>', description: 'where bundles go (default: <dir>/dist)' },
  },
  details: `
Scripts are found as <integration>/syncs/<name>.ts, <integration>/actions/<name>.ts,
<integration>/on-events/<name>.ts (or .mts, .js, .mjs; files starting with "_" are helpers).
Each one becomes one self-contained ES module, <out>/<integration>/<folder>/<name>.mjs, with
zod and the script API inside; <out>/manifest.json lists them. The output folder can be
deployed (portico deploy) or served directly (SERVICE_SCRIPTS_DIR=<out>).

Errors name the file, line and column: "path:line:column - error TS2322: …". A YAML script
configuration file (the format removed on 1 Dec 2025) is refused with the way to move.

Exit codes: 0 compiled, 1 type/bundle/load errors or the old format, 2 usage error.`,
  async run({ io, reporter, ...context }) {
    const { root, outDir } = projectPaths({ io, reporter, ...context });
    const started = performance.now();
    const outcome = await compileScripts({
      root,
      outDir,
      typecheck: true,
      manifest: true,
      progress: reporter.progress,
    });
    if (!outcome.ok) throw compileFailure(outcome);
    reporter.text(
      `Compiled ${outcome.scripts.length} script${outcome.scripts.length === 1 ? '' : 's'} into ${relative(io.cwd, outDir) || '.'} (${elapsed(started)}):`,
    );
    reporter.text(compiledLines(io.cwd, outcome.scripts).join('\n'));
    reporter.result({ ok: true, out: outDir, scripts: outcome.scripts.map((s) => compiledJson(io.cwd, s)) });
    return exitCodes.ok;
  },
};
