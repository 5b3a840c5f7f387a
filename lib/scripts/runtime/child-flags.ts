/** What a script process may read, and how big its heap may grow. */
export interface ChildLimits {
  /** Files and folders (a trailing `/` grants what is inside) the process may read. */
  readable: readonly string[];
  heapMb: number;
}

/**
 * Node's permission model switch: `--experimental-permission` on Node 20 (and 22 before
 * 22.13), `--permission` from 22.13 on. Chosen by version rather than by probing, so a flag
 * that a future Node renames fails the start loudly instead of running scripts unrestricted.
 */
export function permissionFlag(version: string = process.versions.node): string {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13) ? '--permission' : '--experimental-permission';
}

/**
 * The command-line flags of a script process. Under the permission model everything not
 * granted is refused: file writes, child processes, worker threads, WASI, the inspector;
 * `--no-addons` refuses native modules even where a Node version would let a grant through.
 * One `--allow-fs-read` per path: Node 20.20+ and 22+ no longer split a comma-separated list.
 */
export function childFlags(limits: ChildLimits, version?: string): string[] {
  return [
    permissionFlag(version),
    ...limits.readable.map((path) => `--allow-fs-read=${path}`),
    '--no-addons',
    `--max-old-space-size=${Math.max(16, Math.round(limits.heapMb))}`,
    '--no-warnings',
  ];
}
