import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Pins a process, every thread of it, to one CPU with util-linux's `taskset`. The bench puts
 * itself (load generator and upstream) on CPU 0 and every measured proxy process on CPU 1, so
 * no proxy process shares a core with the load generator while another does not: unpinned, the
 * same forwarder in two processes started alike was measured at 1.0 × and 2.6 × the CPU per
 * call (1 MiB), with where the scheduler put each. False when it cannot (one CPU, no taskset).
 */
export function pinToCpu(pid: number | undefined, cpu: number): boolean {
  if (pid === undefined || cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}
