import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/**
 * The gateway as plain JavaScript in `outDir`, for tests that run the standalone server as a real
 * child process. Each file is transpiled on its own (no type check: `tsc` is the type check), so
 * this works from a clean clone without `npm run build`. `outDir` must be inside the project so
 * Node finds `node_modules` and `"type": "module"` above it.
 */
export function buildStandalone(outDir: string): string {
  for (const folder of ['lib', 'adapters']) {
    for (const file of sources(join(root, folder))) {
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        fileName: file,
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      const target = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outputText);
    }
  }
  cpSync(join(root, 'lib/providers/catalog'), join(outDir, 'lib/providers/catalog'), { recursive: true });
  return join(outDir, 'adapters/standalone/main.js');
}
