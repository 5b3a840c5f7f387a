import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileScripts } from '../build/compile.js';
import { discoverScripts, type ScriptSource } from '../build/discover.js';
import { inspectBundle } from '../build/inspect.js';
import { legacyRefusal } from '../build/legacy.js';
import { compileFailure } from '../build/report.js';
import { dirOption, gatewayOptions, type Command, type CommandContext } from '../command.js';
import { CliError, exitCodes, usageError } from '../exit.js';
import { gatewayTarget } from '../gateway.js';
import { loadDryRunTarget } from '../dryrun/context.js';
import { createFixtureRecorder } from '../dryrun/fixtures.js';
import { dryRunJson, dryRunText, logLine } from '../dryrun/report.js';
import { runDryRun } from '../dryrun/run.js';
import { jsonArgument } from './json-arg.js';
import { projectPaths } from './paths.js';

/** `<name>` or `<integration>/<name>` (or `--integration`): exactly one script of the folder. */
function findScript(root: string, outDir: string, wanted: string, integration: string | undefined): ScriptSource {
  const found = discoverScripts(root, [outDir]);
  if (!found.ok) throw new CliError(exitCodes.failed, 'unsupported_script_format', legacyRefusal(root, found.legacy));
  const slash = wanted.indexOf('/');
  const [key, name] = slash > 0 ? [wanted.slice(0, slash), wanted.slice(slash + 1)] : [integration, wanted];
  const matches = found.scripts.filter((s) => s.name === name && (key === undefined || s.integration === key));
  if (matches.length === 1) return matches[0] as ScriptSource;
  const known = found.scripts.map((s) => `${s.integration}/${s.name}`).join(', ') || 'none';
  if (matches.length === 0)
    throw usageError(
      `No script "${wanted}"${integration ? ` for integration "${integration}"` : ''} in ${root} (scripts: ${known}).`,
    );
  throw usageError(
    `"${name}" exists for several integrations (${matches.map((s) => `${s.integration}/${s.name}`).join(', ')}): name one, e.g. portico dryrun ${matches[0]?.integration}/${name} …`,
  );
}

function checkpointArgument(context: CommandContext): Record<string, unknown> | null {
  const value = jsonArgument(context.values.checkpoint, 'checkpoint', context.io.cwd);
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw usageError('--checkpoint must be a JSON object, e.g. \'{"since":"2026-01-01T00:00:00Z"}\'.');
  return value as Record<string, unknown>;
}

export const dryrunCommand: Command = {
  name: 'dryrun',
  summary: 'Run a sync or an action locally against a gateway: calls go through its proxy, nothing is saved.',
  args: '<script> <connection-id>',
  options: {
    dir: dirOption,
    integration: {
      type: 'string',
      value: '<key>',
      description: 'the integration, when several have a script of that name (or write <key>/<script>)',
    },
    input: { type: 'string', value: '<json|@file>', description: 'actions: the input, as JSON text or @file.json' },
    checkpoint: {
      type: 'string',
      value: '<json|@file>',
      description: 'incremental syncs: start from this checkpoint (what getCheckpoint answers)',
    },
    'save-responses': {
      type: 'boolean',
      description: 'write each provider response to <dir>/<integration>/fixtures/<script>/ as a test fixture',
    },
    ...gatewayOptions,
  },
  details: `
The script is bundled from its source and run in this process. Its proxied calls go through the
gateway's /proxy route with Provider-Config-Key and Connection-Id: the connection's credentials
never leave the gateway. Nothing is saved: records, checkpoints and metadata writes are shown,
not stored; added/updated/deleted are counted against the records the gateway holds (a full
sync also counts what its deletion detection would mark deleted). Logs of every level (debug
included) stream to stderr as the script writes them.

Examples:
  portico dryrun repositories acme-org
  portico dryrun github/create-issue acme-org --input '{"repository":"acme/app","title":"Hi"}'
  portico dryrun issues acme-org --checkpoint '{"since":"2026-01-01T00:00:00Z"}' --save-responses

Exit codes: 0 the run succeeded, 1 it failed (or the script does not compile), 2 usage error,
3 the gateway cannot be reached or refused the secret key.`,
  async run(context) {
    const { io, reporter, values, positionals } = context;
    const [wanted = '', connectionId = ''] = positionals;
    const input = jsonArgument(values.input, 'input', io.cwd);
    const checkpoint = checkpointArgument(context);
    const target = gatewayTarget(context);
    const { root, outDir } = projectPaths(context);
    const source = findScript(
      root,
      outDir,
      wanted,
      typeof values.integration === 'string' ? values.integration : undefined,
    );
    const label = `${source.integration}/${source.name}`;

    const temp = mkdtempSync(join(tmpdir(), 'portico-dryrun-'));
    try {
      const compiled = await compileScripts({
        root,
        outDir: temp,
        only: (s) => s.file === source.file,
        typecheck: false,
        sourcemap: true,
        manifest: false,
        progress: reporter.progress,
      });
      if (!compiled.ok) throw compileFailure(compiled);
      const bundle = compiled.scripts[0];
      const loaded = bundle && (await inspectBundle(bundle.file, bundle.sha256));
      if (!bundle || !loaded?.ok)
        throw new CliError(exitCodes.failed, 'compile_load', `${source.relative} does not load.`);
      const { manifest } = loaded;
      if (values.input !== undefined && manifest.type !== 'action')
        throw usageError(`--input is for actions; ${label} is a ${manifest.type}.`);
      if (checkpoint && (manifest.type !== 'sync' || manifest.syncType !== 'incremental')) {
        throw usageError(
          `--checkpoint is for incremental syncs; ${label} is ${manifest.type === 'sync' ? 'a full sync' : `a ${manifest.type}`}.`,
        );
      }

      const runTarget = await loadDryRunTarget(target, source.integration, connectionId, randomUUID());
      const fixtures = values['save-responses']
        ? createFixtureRecorder(join(root, source.integration, 'fixtures', source.name))
        : undefined;
      const mode =
        manifest.type === 'sync'
          ? ` (${manifest.syncType === 'incremental' ? `incremental${checkpoint ? ', from the given checkpoint' : ', no checkpoint'}` : 'full'})`
          : '';
      reporter.progress(
        `Dry run of ${manifest.type} ${label}${mode} for connection ${connectionId} through ${target.url}; nothing is saved.`,
      );
      const result = await runDryRun({
        script: loaded.script,
        manifest,
        target: runTarget,
        client: target.client,
        checkpoint,
        input,
        fixtures,
        onLog: (log) => {
          if (!reporter.json) io.stderr(`${logLine(log)}\n`);
        },
      });
      reporter.text(dryRunText(result, { cwd: io.cwd, root, label }));
      reporter.result(dryRunJson(result, { integration: source.integration, script: source.name, connectionId }));
      return result.ok ? exitCodes.ok : exitCodes.failed;
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  },
};
