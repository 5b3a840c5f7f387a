import { setFlagsFromString } from 'node:v8';

const flagName = 'external-memory-accounted-in-global-limit';
const flag = /^--(no-)?external[-_]memory[-_]accounted[-_]in[-_]global[-_]limit(=|$)/;

/**
 * Whether a V8 of this version (`process.versions.v8`) has the flag and leaves it off: 13.6
 * (Node 24) through 14.7 (14.6 is Node 26's). V8 14.8 made the behaviour its default and removed
 * the flag; 12.4 (Node 22) and 11.3 (Node 20) do not know it, and V8 prints an error on stderr
 * for a flag it does not know.
 */
export function takesExternalMemoryFlag(v8Version: string): boolean {
  const [major = 0, minor = 0] = v8Version.split('.').map(Number);
  const version = major * 1000 + minor;
  return version >= 13_006 && version < 14_008;
}

/**
 * Has V8 count the memory Buffers hold within the heap's global limit, rather than counting every
 * byte allocated in Buffers since the last full collection against the old generation's limit.
 *
 * Why a proxy process needs it: every body chunk a proxy reads is a Buffer outside the heap, and
 * most are garbage by the next scavenge. Under V8's historic accounting, megabytes of them
 * allocated and already freed still bring the next full collection closer; a process streaming
 * 1 MiB bodies on Node 24 ran several full collections a second whatever the heap's growth factor
 * (`steadyHeapGrowth`), and used 1.1–1.2 times a bare forwarder's CPU a call. With the flag V8
 * counts what Buffers hold now, beside the heap, and the collections stop: bench/README.md,
 * session 30. V8 14.8 made this its default.
 *
 * Set where the running V8 takes the flag (`takesExternalMemoryFlag`), with
 * `v8.setFlagsFromString`; elsewhere nothing. The flag named on Node's command line, either way,
 * is the operator's choice and is left alone. Returns whether it set the flag.
 */
export function accountExternalMemoryInHeapLimit(): boolean {
  if (!takesExternalMemoryFlag(process.versions.v8)) return false;
  if (process.execArgv.some((arg) => flag.test(arg))) return false;
  setFlagsFromString(`--${flagName}`);
  return true;
}
