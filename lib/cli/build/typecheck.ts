import { isAbsolute, relative, sep } from 'node:path';
import type TypeScript from 'typescript';
import type { Problem } from './discover.js';
import { ownAnchor, type ScriptApiFiles } from './package-files.js';

type Ts = typeof TypeScript;

/** The checks scripts get: strict, ES modules resolved the way the bundler resolves them. */
export function compilerOptions(ts: Ts): TypeScript.CompilerOptions {
  return {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    isolatedModules: true,
    allowJs: true,
    forceConsistentCasingInFileNames: true,
  };
}

const scriptApi = /^portico(\/scripts)?$/;

/**
 * Resolves as usual; what the scripts folder cannot resolve (a fresh folder without
 * node_modules) falls back to this package: `portico/scripts` to its script API, `zod` and
 * other packages to the copies installed with the CLI.
 */
function withFallback(
  ts: Ts,
  host: TypeScript.CompilerHost,
  api: ScriptApiFiles,
): NonNullable<TypeScript.CompilerHost['resolveModuleNameLiterals']> {
  const cache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (f) => host.getCanonicalFileName(f));
  const ownApi: TypeScript.ResolvedModuleFull = {
    resolvedFileName: api.types,
    extension: api.types.endsWith('.d.ts') ? ts.Extension.Dts : ts.Extension.Ts,
    isExternalLibraryImport: true,
  };
  return (literals, containingFile, _redirected, options) =>
    literals.map((literal) => {
      const name = literal.text;
      const found = ts.resolveModuleName(name, containingFile, options, host, cache);
      if (found.resolvedModule || name.startsWith('.') || isAbsolute(name)) return found;
      if (scriptApi.test(name)) return { resolvedModule: ownApi };
      return ts.resolveModuleName(name, ownAnchor(), options, host);
    });
}

const inside = (root: string, file: string) => {
  const rel = relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('node_modules');
};

/** Type-checks the scripts (and what they import from the folder); problems name file, line and column. */
export async function typeCheck(root: string, files: readonly string[], api: ScriptApiFiles): Promise<Problem[]> {
  const ts = (await import('typescript')).default;
  const options = compilerOptions(ts);
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = withFallback(ts, host, api);
  const program = ts.createProgram({ rootNames: [...files], options, host });
  const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  for (const source of program.getSourceFiles()) {
    // Only the folder's own files: libraries and the script API are not the author's to fix.
    if (!inside(root, source.fileName) || source.isDeclarationFile) continue;
    diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source));
  }
  return diagnostics
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return { file: '', code: `TS${d.code}`, message };
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return {
        file: relative(root, d.file.fileName).split(sep).join('/'),
        line: line + 1,
        column: character + 1,
        code: `TS${d.code}`,
        message,
      };
    });
}
