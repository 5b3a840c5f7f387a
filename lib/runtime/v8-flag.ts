import { setFlagsFromString } from 'node:v8';

/**
 * Whether a command line (`process.execArgv`) names V8 flag `name` (written with dashes), on or
 * off, in any spelling V8 reads: one dash or two, `no`, `no-` or `no_` before it, `-` or `_` within.
 */
export function namesV8Flag(name: string, execArgv: readonly string[]): boolean {
  const pattern = new RegExp(`^--?(no[-_]?)?${name.split('-').join('[-_]')}(=|$)`);
  return execArgv.some((arg) => pattern.test(arg));
}

/**
 * Sets V8 flag `name` (with `=value` when one is given) at run time with `v8.setFlagsFromString`,
 * unless Node's command line names it: there it is the operator's choice, and it is left alone.
 * Returns whether it set the flag.
 */
export function setV8FlagUnlessNamed(name: string, value?: number): boolean {
  if (namesV8Flag(name, process.execArgv)) return false;
  setFlagsFromString(value === undefined ? `--${name}` : `--${name}=${value}`);
  return true;
}
