import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

// Building with declarations and installing from the registry cache take a while on a busy machine.
t.setTimeout(300_000);

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

const consumerKoa = `
import { randomBytes } from 'node:crypto';
import Koa from 'koa';
import mount from 'koa-mount';
import { createGateway, createLogger } from 'portico';
import { createMemoryStorage } from 'portico/storage';

const storage = createMemoryStorage();
const gateway = await createGateway({
  environments: [{ name: 'dev', secretKey: 'sk_consumer_koa_0123456789' }],
  storage, encryptionKeys: randomBytes(32).toString('base64'), baseUrl: 'http://localhost/portico', logger: createLogger({ level: 'silent' }),
});
const app = new Koa();
app.use(mount('/portico', gateway.middleware));
app.use((ctx) => { ctx.body = { app: 'koa' }; });
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = 'http://127.0.0.1:' + server.address().port;
const res = await fetch(base + '/portico/providers/slack', { headers: { authorization: 'Bearer sk_consumer_koa_0123456789' } });
const own = await (await fetch(base + '/')).json();
console.log(JSON.stringify({ status: res.status, provider: (await res.json()).data.name, own }));
server.close();
await gateway.close();
await storage.close();
`;

const consumerExpress = `
import { randomBytes } from 'node:crypto';
import express from 'express';
import { createGateway, createLogger } from 'portico';
import { toExpress } from 'portico/express';
import { createMemoryStorage } from 'portico/storage';

const storage = createMemoryStorage();
const gateway = await createGateway({
  environments: [{ name: 'dev', secretKey: 'sk_consumer_express_0123456789' }],
  storage, encryptionKeys: randomBytes(32).toString('base64'), baseUrl: 'http://localhost/api/portico', logger: createLogger({ level: 'silent' }),
});
const app = express();
app.use('/api/portico', toExpress(gateway));
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = 'http://127.0.0.1:' + server.address().port;
const res = await fetch(base + '/api/portico/providers/slack', { headers: { authorization: 'Bearer sk_consumer_express_0123456789' } });
console.log(JSON.stringify({ status: res.status, provider: (await res.json()).data.name }));
server.close();
await gateway.close();
await storage.close();
`;

t.test('the packed package installs into another project: Koa and Express mounts and the CLI work there', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'portico-pack-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  // A staging copy built the way `npm run build` builds (not the repository's dist/, which may be stale or being rebuilt).
  const stage = join(work, 'stage');
  await run(process.execPath, [
    join(repo, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(repo, 'tsconfig.build.json'),
    '--outDir',
    join(stage, 'dist'),
  ]);
  cpSync(join(repo, 'lib/providers/catalog'), join(stage, 'dist/lib/providers/catalog'), { recursive: true });
  for (const file of ['package.json', 'README.md']) cpSync(join(repo, file), join(stage, file));

  const packed = JSON.parse(
    (await run(npm, ['pack', '--json', '--pack-destination', work], { cwd: stage, env: quiet })).stdout,
  ) as { filename: string; files: { path: string }[] }[];
  const files = packed[0]?.files.map((f) => f.path) ?? [];
  t.ok(files.includes('dist/lib/index.js') && files.includes('dist/lib/index.d.ts'), 'code and types');
  t.ok(files.includes('dist/lib/cli/main.js') && files.includes('dist/adapters/standalone/main.js'), 'both bins');
  t.ok(files.includes('dist/lib/providers/catalog/github.json'), 'the catalog');
  const unexpected = files.filter(
    (f) => !/^(package\.json|README\.md|LICENSE|dist\/(lib|adapters)\/.+\.(js|d\.ts|json|html|css|svg))$/.test(f),
  );
  t.same(
    unexpected,
    [],
    'nothing but dist/lib, dist/adapters, package.json and README.md (no tests, bench, examples or sources)',
  );

  const project = join(work, 'consumer');
  cpSync(join(repo, 'test/package/consumer'), project, { recursive: true });
  writeFileSync(join(project, 'koa.mjs'), consumerKoa);
  writeFileSync(join(project, 'express.mjs'), consumerExpress);
  const tarball = join(work, packed[0]?.filename ?? '');
  // Offline-friendly: versions the repository installed come from npm's cache. No install
  // scripts: the mounts use the memory store, so better-sqlite3's native addon is not needed.
  await run(
    npm,
    [
      'install',
      tarball,
      'koa@^3',
      'koa-mount@^4',
      'express@^5',
      '--prefer-offline',
      '--ignore-scripts',
      '--no-package-lock',
    ],
    { cwd: project, env: quiet, timeout: 180_000 },
  );

  const koa = JSON.parse((await run(process.execPath, ['koa.mjs'], { cwd: project, timeout: 60_000 })).stdout);
  t.same(
    koa,
    { status: 200, provider: 'slack', own: { app: 'koa' } },
    "Koa: Portico under /portico, the app's own route beside it",
  );
  const expressApp = JSON.parse(
    (await run(process.execPath, ['express.mjs'], { cwd: project, timeout: 60_000 })).stdout,
  );
  t.same(expressApp, { status: 200, provider: 'slack' }, 'Express: Portico under /api/portico');

  const help = await run(npm, ['exec', '--offline', '--', 'portico', '--help'], {
    cwd: project,
    env: quiet,
    timeout: 60_000,
  });
  t.match(help.stdout, /^Usage: portico <command>[\s\S]*init[\s\S]*deploy/, 'npx portico works in the project');
  const version = JSON.parse(readFileSync(join(project, 'node_modules/portico/package.json'), 'utf8')).version;
  t.equal(version, JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version);
});
