import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runPortico } from './harness.js';
import { cliFor, tempFolder } from './setup.js';

t.test('init scaffolds a folder that compiles; compile lists its bundles and names each type error', async (t) => {
  const cli = await cliFor(t);
  const dir = tempFolder(t);

  const init = await runPortico(cli, ['init', 'scripts', '--integration', 'gh'], { cwd: dir });
  t.equal(init.code, 0, init.stderr);
  t.match(init.stdout, /wrote gh\/syncs\/repositories\.ts\n\s+wrote gh\/actions\/create-issue\.ts/);
  const root = join(dir, 'scripts');
  t.match(
    readFileSync(join(root, 'gh/syncs/repositories.ts'), 'utf8'),
    /export default createSync\(\{[\s\S]*models: \{ Repository \}/,
  );
  t.match(
    readFileSync(join(root, 'gh/actions/create-issue.ts'), 'utf8'),
    /export default createAction\(\{[\s\S]*input: z\.object/,
  );
  t.notOk(
    existsSync(join(root, 'node_modules')),
    "nothing installed: compile must work with the CLI's own zod and script API",
  );
  const again = await runPortico(cli, ['init', 'scripts', '--integration', 'gh'], { cwd: dir });
  t.match(again.stdout, /kept\s+gh\/syncs\/repositories\.ts \(already there\)/, 'init keeps existing files');

  const compiled = await runPortico(cli, ['compile'], { cwd: root });
  t.equal(compiled.code, 0, compiled.stderr);
  t.match(
    compiled.stderr,
    /Type-checking 2 scripts…\n\s+types ok[\s\S]*Bundling 2 scripts…[\s\S]*\[2\/2\] loading/,
    'progress on stderr',
  );
  t.match(compiled.stdout, /Compiled 2 scripts into dist/);
  t.match(
    compiled.stdout,
    /gh\/actions\/create-issue\.ts\s+→\s+dist\/gh\/actions\/create-issue\.mjs\s+action \(\d+\.\d KB\)/,
  );
  t.match(
    compiled.stdout,
    /gh\/syncs\/repositories\.ts\s+→\s+dist\/gh\/syncs\/repositories\.mjs\s+sync, models Repository, every hour/,
  );
  const bundle = readFileSync(join(root, 'dist/gh/syncs/repositories.mjs'), 'utf8');
  t.notMatch(bundle, /^import .* from ["'](zod|portico)/m, 'zod and the script API are inside the bundle');
  const manifest = JSON.parse(readFileSync(join(root, 'dist/manifest.json'), 'utf8'));
  t.match(manifest.scripts, [
    {
      integration: 'gh',
      name: 'create-issue',
      type: 'action',
      file: 'gh/actions/create-issue.mjs',
      sha256: /^[0-9a-f]{64}$/,
    },
    {
      integration: 'gh',
      name: 'repositories',
      type: 'sync',
      manifest: { frequency: 'every hour', models: { Repository: { type: 'object' } } },
    },
  ]);

  writeFileSync(
    join(root, 'gh/syncs/broken.ts'),
    [
      "import { createSync } from 'portico/scripts';",
      "import { z } from 'zod';",
      'export default createSync({',
      "  frequency: 'every day',",
      '  models: { Item: z.object({ id: z.string() }) },',
      '  async exec(service) {',
      "    await service.batchSave([{ id: 42 }], 'Item');",
      "    const count: number = 'three';",
      '    void count;',
      '  },',
      '});',
      '',
    ].join('\n'),
  );
  const broken = await runPortico(cli, ['compile', '--json'], { cwd: root });
  t.equal(broken.code, 1);
  t.match(broken.json, { ok: false, error: { code: 'compile_types', stage: 'types' } });
  t.match(broken.json.error.problems, [
    {
      file: 'gh/syncs/broken.ts',
      line: 7,
      column: 32,
      code: 'TS2322',
      message: /Type 'number' is not assignable to type 'string'/,
    },
    {
      file: 'gh/syncs/broken.ts',
      line: 8,
      column: 11,
      code: 'TS2322',
      message: /Type 'string' is not assignable to type 'number'/,
    },
  ]);
  t.equal(broken.json.error.problems.length, 2);
  t.match(
    broken.json.error.message,
    /gh\/syncs\/broken\.ts:8:11 - error TS2322: Type 'string' is not assignable to type 'number'\./,
    'file:line:column in the message',
  );
});
