import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { integrationKey } from '../build/discover.js';
import type { Command } from '../command.js';
import { exitCodes, usageError } from '../exit.js';
import { exampleAction, exampleHeader, exampleSync, gitignore, packageJson, tsconfig } from '../scaffold/templates.js';
import { packageVersion } from '../version.js';

const zodVersion = () => {
  try {
    return (
      JSON.parse(readFileSync(createRequire(import.meta.url).resolve('zod/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '4.0.0';
  }
};

export const initCommand: Command = {
  name: 'init',
  summary: 'Scaffold a scripts folder: one example sync and one example action, ready to compile.',
  args: '[folder]',
  options: {
    integration: {
      type: 'string',
      value: '<key>',
      description: 'the integration (unique key) the examples belong to (default: github)',
    },
  },
  details: `
Writes into [folder] (default: the current folder), keeping any file that already exists:
  <integration>/syncs/repositories.ts      a sync (createSync): pages through a list, saves records
  <integration>/actions/create-issue.ts    an action (createAction): validated input in, output out
  tsconfig.json, package.json, .gitignore  for editors (portico compile needs none of them)

The examples call a GitHub App's API; the folder name is the integration's unique key.

Exit codes: 0 written, 2 usage error.`,
  async run({ io, reporter, values, positionals }) {
    const integration = typeof values.integration === 'string' ? values.integration : 'github';
    if (!integrationKey.test(integration))
      throw usageError(`--integration "${integration}" is not a unique key (1-100 letters, digits, "_", "-" or ".").`);
    const root = resolve(io.cwd, positionals[0] ?? '.');
    const files: [string, string][] = [
      [join(integration, 'syncs', 'repositories.ts'), exampleHeader(integration) + exampleSync],
      [join(integration, 'actions', 'create-issue.ts'), exampleHeader(integration) + exampleAction],
      ['tsconfig.json', tsconfig],
      ['package.json', packageJson(packageVersion(), zodVersion())],
      ['.gitignore', gitignore],
    ];
    const written: string[] = [];
    const kept: string[] = [];
    for (const [name, content] of files) {
      const file = join(root, name);
      const shown = name.split(sep).join('/');
      if (existsSync(file)) {
        kept.push(shown);
        continue;
      }
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      written.push(shown);
    }
    const where = relative(io.cwd, root) || '.';
    reporter.text(`Scripts folder ${where}:`);
    for (const f of written) reporter.text(`  wrote ${f}`);
    for (const f of kept) reporter.text(`  kept  ${f} (already there)`);
    reporter.text(
      [
        '',
        'Next:',
        ...(where === '.' ? [] : [`  cd ${where}`]),
        '  portico compile                                    type-check and bundle',
        `  portico dryrun repositories <connection-id>        run the sync against a gateway, saving nothing`,
        `  portico dryrun create-issue <connection-id> --input '{"repository":"owner/name","title":"Hi"}'`,
        '  portico deploy                                     upload to the gateway',
        /github/i.test(integration)
          ? `(The gateway needs an integration "${integration}" on provider github-app; set SERVICE_BASE_URL and SERVICE_SECRET_KEY.)`
          : `(The gateway needs an integration "${integration}"; the examples call the GitHub API, so point them at ${integration}'s. Set SERVICE_BASE_URL and SERVICE_SECRET_KEY.)`,
      ].join('\n'),
    );
    reporter.result({ ok: true, folder: root, integration, written, kept });
    return exitCodes.ok;
  },
};
