import { relative } from 'node:path';
import { compileScripts, typeCheckStep } from '../build/compile.js';
import { compileFailure } from '../build/report.js';
import { dirOption, gatewayOptions, type Command } from '../command.js';
import { confirm } from '../deploy/confirm.js';
import { planDeploy, planLines } from '../deploy/plan.js';
import { CliError, exitCodes } from '../exit.js';
import { elapsed, kilobytes } from '../io.js';
import { gatewayTarget, onGateway } from '../gateway.js';
import { projectPaths } from './paths.js';

export const deployCommand: Command = {
  name: 'deploy',
  summary: 'Compile the scripts and upload them to a gateway; shows what changed, asks before destructive changes.',
  args: '',
  options: {
    dir: dirOption,
    out: { type: 'string', value: '<folder>', description: 'where bundles go (default: <dir>/dist)' },
    'allow-destructive': {
      type: 'boolean',
      description: 'deploy even when it removes a sync or a model, without asking',
    },
    ...gatewayOptions,
  },
  details: `
Compiles first (as portico compile, the type-check once the plan is accepted), then replaces the environment's deployed scripts with these
bundles (POST /scripts/deploy): the key names the environment (SERVICE_DEPLOY_KEY when the
environment has a deploy key, else its secret key). The plan lists each script
as added (+), changed (~), unchanged (=) or removed (-). Removing a deployed sync, or a model
from a sync, is destructive: at a terminal the command asks; elsewhere (CI, --json) it stops
unless --allow-destructive is given. When nothing changed, nothing is uploaded.

Exit codes: 0 deployed (or nothing to do), 1 compile errors or the gateway refused a bundle,
2 usage error, 3 the gateway cannot be reached or refused the secret key, 4 a destructive change
was not confirmed (nothing changed).`,
  async run(context) {
    const { io, reporter, values } = context;
    const target = gatewayTarget(context, 'deploy');
    const { root, outDir } = projectPaths(context);
    // Bundled and loaded first (the plan needs what each script declares); the slower
    // type-check runs once the plan is confirmed, before anything is uploaded.
    const outcome = await compileScripts({
      root,
      outDir,
      typecheck: false,
      manifest: true,
      progress: reporter.progress,
    });
    if (!outcome.ok) throw compileFailure(outcome);
    const listed = await onGateway(target, 'listing the deployed scripts', (c) => c.listScripts());
    const plan = planDeploy(listed, outcome.scripts);
    reporter.text(`Changes for ${target.url}:`);
    reporter.text(planLines(plan).join('\n'));
    const summary = { url: target.url, changes: plan.changes, out: relative(io.cwd, outDir) || '.' };
    if (!plan.changesSomething) {
      reporter.text('Nothing to deploy: every script is up to date.');
      reporter.result({ ok: true, deployed: false, ...summary });
      return exitCodes.ok;
    }

    if (plan.destructive.length > 0 && values['allow-destructive'] !== true) {
      const what = plan.destructive.map((c) => `${c.integration}/${c.name}: ${c.destructive}`).join('; ');
      const asked = io.interactive && !reporter.json;
      if (!asked || !(await confirm(io, `This deploy is destructive (${what}). Deploy anyway?`))) {
        throw new CliError(
          exitCodes.notConfirmed,
          'destructive_change_not_confirmed',
          `Not deployed: the deploy is destructive (${what}).${asked ? '' : ' Pass --allow-destructive to deploy anyway.'} Nothing changed.`,
          { changes: plan.changes },
        );
      }
    }

    const typeErrors = await typeCheckStep(
      root,
      outcome.scripts.map((s) => s.sourceFile),
      reporter.progress,
    );
    if (typeErrors) throw compileFailure(typeErrors);
    const bytes = outcome.scripts.reduce((sum, s) => sum + s.bytes, 0);
    const started = performance.now();
    reporter.progress(`Uploading ${outcome.scripts.length} scripts (${kilobytes(bytes)}) to ${target.url}…`);
    try {
      // Idempotent: the same bundles replace the same deployment.
      await onGateway(
        target,
        'deploying',
        (c) =>
          c.deployScripts(outcome.scripts.map((s) => ({ integration: s.integration, name: s.name, bundle: s.bundle }))),
        { idempotent: true },
      );
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      const problems = (error.details.problems ?? []) as { integration: string; name: string; message: string }[];
      if (problems.length === 0) throw error;
      throw new CliError(
        error.exitCode,
        error.code,
        [
          'The gateway refused the deploy; nothing changed:',
          ...problems.map((p) => `  ${p.integration}/${p.name}: ${p.message}`),
        ].join('\n'),
        error.details,
      );
    }
    reporter.text(
      `Deployed ${outcome.scripts.length} script${outcome.scripts.length === 1 ? '' : 's'} to ${target.url} (${elapsed(started)}).`,
    );
    reporter.result({ ok: true, deployed: true, ...summary });
    return exitCodes.ok;
  },
};
