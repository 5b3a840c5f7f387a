import { existsSync } from 'node:fs';
import t from 'tap';
import { runPortico } from './harness.js';
import { cliFor, header, tempFolder } from './setup.js';

const legacyYaml = `integrations:
  github:
    syncs:
      issues:
        runs: every 30min
        output: Issue
    actions:
      create-issue:
        input: CreateIssue
        output: Issue
models:
  Issue:
    id: string
    title: string
    closed_at?: string
`;

t.test('help on every command, documented exit codes, usage errors exit 2', async (t) => {
  const cli = await cliFor(t);
  const dir = tempFolder(t);
  const run = (...args: string[]) => runPortico(cli, args, { cwd: dir });
  const [main, none, unknown, ...helps] = await Promise.all([
    run('--help'),
    run(),
    run('frobnicate'),
    ...['init', 'compile', 'dryrun', 'deploy'].map((c) => run(c, '--help')),
    run('help', 'deploy'),
  ]);
  t.equal(main?.code, 0);
  t.match(main?.stdout, /Commands:\n\s+init[\s\S]+compile[\s\S]+dryrun[\s\S]+deploy/);
  t.match(
    main?.stdout,
    /Exit codes:\n\s+0\s+done\n\s+1\s+the work failed[\s\S]*2\s+usage error[\s\S]*3\s+the gateway cannot be reached[\s\S]*4\s+a destructive deploy was not confirmed/,
  );
  t.equal(none?.code, 2, 'no command');
  t.match(none?.stderr, /Usage: portico <command>/);
  t.match(unknown, { code: 2, stderr: /Unknown command "frobnicate"/ });
  for (const [i, name] of ['init', 'compile', 'dryrun', 'deploy', 'deploy'].entries()) {
    t.match(
      helps[i],
      { code: 0, stdout: new RegExp(`^Usage: portico ${name}[\\s\\S]*--json[\\s\\S]*--help[\\s\\S]*Exit codes: 0`) },
      `${name} --help`,
    );
  }
  t.match(helps[3]?.stdout, /--allow-destructive/);
  t.match(helps[2]?.stdout, /--input <json\|@file>[\s\S]*--checkpoint[\s\S]*--save-responses/);
  t.match(await run('compile', '--dir', 'missing'), { code: 2, stderr: /scripts folder .*missing does not exist/ });
  t.match(await run('compile', '--bogus'), {
    code: 2,
    stderr: /Unknown option '--bogus'[\s\S]*portico compile --help/,
  });
  t.match(await run('init', '--integration', 'bad key!'), { code: 2, stderr: /is not a unique key/ });
});

t.test("init --integration X writes X's folder and says whose the examples are", async (t) => {
  const cli = await cliFor(t);
  const dir = tempFolder(t);
  const init = await runPortico(cli, ['init', '--integration', 'hubspot-crm'], { cwd: dir });
  t.equal(init.code, 0, init.stderr);
  t.match(
    init.stdout,
    /wrote hubspot-crm\/syncs\/repositories\.ts[\s\S]*integration "hubspot-crm"; the examples call the GitHub API/,
  );
  t.notMatch(init.stdout, /github-app/, 'no GitHub provider asked of a HubSpot integration');
  const { readFileSync } = await import('node:fs');
  const sync = readFileSync(`${dir}/hubspot-crm/syncs/repositories.ts`, 'utf8');
  t.match(sync, /^\/\/ Integration "hubspot-crm"[\s\S]*replace the endpoints and the model with hubspot-crm's/);
  t.notOk(existsSync(`${dir}/github`), 'nothing written for github');
});

t.test('the old YAML configuration is refused with the way to the current format (spec 9)', async (t) => {
  const cli = await cliFor(t);
  const dir = tempFolder(t, {
    'nango.yaml': legacyYaml,
    'github/syncs/ok.ts': `${header}export default createSync({ frequency: 'every hour', models: { A: z.object({ id: z.string() }) }, async exec() {} });\n`,
  });
  for (const command of [['compile'], ['deploy']]) {
    const run = await runPortico(cli, command, {
      cwd: dir,
      env: { SERVICE_BASE_URL: 'http://127.0.0.1:9', SERVICE_SECRET_KEY: 'sk_unused' },
    });
    t.equal(run.code, 1, `${command[0]}: ${run.stderr}`);
    t.match(
      run.stderr,
      /nango\.yaml: the YAML script configuration format is no longer supported \(deprecated 21 Jul 2025, removed 1 Dec 2025\)/,
    );
    t.match(run.stderr, /How to move:[\s\S]*createSync[\s\S]*createAction[\s\S]*zod 4 schema/);
    t.match(
      run.stderr,
      /sync github\.issues\s+→\s+github\/syncs\/issues\.ts: export default createSync\(\{ models: \{ Issue \}, frequency, exec \}\) — frequency: 'every 30min'/,
    );
    t.match(run.stderr, /action github\.create-issue\s+→\s+github\/actions\/create-issue\.ts/);
    t.match(
      run.stderr,
      /model Issue\s+→\s+const Issue = z\.object\(\{ id: z\.string\(\), title: z\.string\(\), closed_at: z\.string\(\)\.optional\(\) \}\);/,
    );
  }
  const json = await runPortico(cli, ['compile', '--json'], { cwd: dir });
  t.match(json, {
    code: 1,
    json: {
      ok: false,
      error: { code: 'unsupported_script_format', stage: 'legacy', problems: [{ file: 'nango.yaml' }] },
    },
  });
  const nested = tempFolder(t, { 'github/syncs/config.yml': 'integrations:\n  github: {}\n' });
  t.match(await runPortico(cli, ['compile'], { cwd: nested }), {
    code: 1,
    stderr: /github\/syncs\/config\.yml: the YAML script configuration format is no longer supported/,
  });
  // Other YAML (a compose file in a project root) is not the old format: the run goes on to the gateway.
  const project = tempFolder(t, {
    'docker-compose.yml': 'services:\n  gateway: {}\n',
    'github/syncs/ok.ts': `${header}export default createSync({ frequency: 'every hour', models: { A: z.object({ id: z.string() }) }, async exec() {} });\n`,
  });
  t.match(
    await runPortico(cli, ['dryrun', 'ok', 'c1'], {
      cwd: project,
      env: { SERVICE_BASE_URL: 'http://127.0.0.1:9', SERVICE_SECRET_KEY: 'sk_unused' },
    }),
    { code: 3, stderr: /Cannot reach the gateway/ },
  );
});

t.test('bundle and load errors name the file; an empty folder says what it expects', async (t) => {
  const cli = await cliFor(t);
  const dir = tempFolder(t, {
    'fake/syncs/missing.ts': `${header}import { helper } from './lib/helper';\nexport default createSync({ frequency: 'every hour', models: { A: z.object({ id: z.string() }) }, async exec() { helper(); } });\n`,
    'fake/syncs/hourly.ts': `${header}export default createSync({ frequency: 'hourly', models: { A: z.object({ id: z.string() }) }, async exec() {} });\n`,
    'fake/actions/plain.ts': 'export default { exec() {} };\n',
  });
  const env = { SERVICE_BASE_URL: 'http://127.0.0.1:9', SERVICE_SECRET_KEY: 'sk_unused' };
  // dryrun bundles without the type-check: bundle and load problems surface on their own.
  const [missing, hourly, plain, empty] = await Promise.all([
    runPortico(cli, ['dryrun', 'missing', 'c1'], { cwd: dir, env }),
    runPortico(cli, ['dryrun', 'hourly', 'c1', '--json'], { cwd: dir, env }),
    runPortico(cli, ['dryrun', 'plain', 'c1'], { cwd: dir, env }),
    runPortico(cli, ['compile'], { cwd: tempFolder(t) }),
  ]);
  t.match(missing, { code: 1, stderr: /fake\/syncs\/missing\.ts:3:24 - error: Could not resolve "\.\/lib\/helper"/ });
  t.match(hourly, {
    code: 1,
    json: {
      ok: false,
      error: {
        code: 'compile_load',
        problems: [{ file: 'fake/syncs/hourly.ts', message: /createSync: frequency "hourly" is not of the form/ }],
      },
    },
  });
  t.match(plain, {
    code: 1,
    stderr:
      /fake\/actions\/plain\.ts - error: the default export is not built with createSync, createAction or createOnEvent/,
  });
  t.match(empty, { code: 1, stderr: /No scripts in .*: expected <integration>\/syncs\/<name>\.ts/ });
});
