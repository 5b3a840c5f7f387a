#!/usr/bin/env node
// `npm start`: builds only when a source file is newer than the last build, says so when it
// does, then runs the standalone server. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = join(root, 'dist/adapters/standalone/main.js');

/** The newest modification time under the build's inputs (tsconfig.build.json's `include`, the catalog, the configs). */
function newestSource() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const input of ['lib', 'adapters', 'bench', 'examples', 'tsconfig.json', 'tsconfig.build.json', 'package.json'])
    visit(join(root, input));
  return newest;
}

const stale = !existsSync(built) || newestSource() > statSync(built).mtimeMs;
if (stale) {
  console.log(
    existsSync(built)
      ? 'Sources changed since the last build: building (npm run build)…'
      : 'No build yet: building (npm run build)…',
  );
  const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import(built);
