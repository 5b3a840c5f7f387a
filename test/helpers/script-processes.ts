/**
 * The test runner's coverage hook adds its own `--import` to every child process through
 * NODE_OPTIONS. A script process runs under Node's permission model, which refuses that
 * loader (it reads files outside the bundle and starts a loader thread), so the hook is told
 * to leave script processes alone; every other child process keeps it.
 */
export function untrackScriptProcesses(): void {
  const state = (
    globalThis as Record<symbol, { listeners?: ((options: { args: readonly string[] }) => void)[] } | undefined>
  )[Symbol.for('process-on-spawn@*:singletonId')];
  if (!state?.listeners || (state as { porticoFiltered?: boolean }).porticoFiltered) return;
  state.listeners = state.listeners.map((listener) => (options) => {
    if (!options.args.some((arg) => arg.startsWith('--allow-fs-read='))) listener(options);
  });
  (state as { porticoFiltered?: boolean }).porticoFiltered = true;
}

untrackScriptProcesses();
