/*
 * Instructions a process runs over a window, counted by valgrind's callgrind: the process runs
 * under valgrind with instrumentation off (at a fraction of its speed, but not the hundredth it
 * runs at instrumented), and `callgrind_control` switches it on for the window only. A count
 * does not move with the machine's load, the core the process lands on or its neighbours
 * (bench/README.md, "Instructions per call"); it leaves out the kernel's share (system calls)
 * and the cost of cache misses, so it is a second view beside the CPU time of `npm run bench`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Callgrind {
  /** The command and arguments to put in front of `node …`. */
  wrap: string[];
  /**
   * valgrind names its control pipes after the process's $LOGNAME (or $USER) and $HOST (or
   * $HOSTNAME); the standalone server's environment has no user and its listen address as HOST.
   * A measured process runs with these, and so does `callgrind_control`, so that both agree.
   */
  env: Record<string, string>;
  /** Counts the instructions `run` makes the process spend. */
  count(pid: number, run: () => Promise<void>): Promise<number>;
}

/** Whether valgrind and callgrind_control are installed. */
export function callgrindAvailable(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `dir`: where the dumps and valgrind's control pipes go (a temporary folder of the caller's). */
export function createCallgrind(dir: string, name: string): Callgrind {
  const out = join(dir, `${name}.callgrind`);
  const prefix = `--vgdb-prefix=${join(dir, `${name}-vgdb`)}`;
  const { LOGNAME: _logname, USER: _user, HOSTNAME: _hostname, ...inherited } = process.env;
  const env = { ...(inherited as Record<string, string>), HOST: '127.0.0.1' };
  let dumps = 0;
  const control = (pid: number, ...args: string[]) =>
    execFileSync('callgrind_control', [prefix, ...args, String(pid)], { stdio: 'ignore', timeout: 120_000, env });
  return {
    wrap: ['valgrind', '--tool=callgrind', '-q', '--instr-atstart=no', prefix, `--callgrind-out-file=${out}`],
    env,
    async count(pid, run) {
      control(pid, '--instr=on');
      await run();
      control(pid, '--dump');
      control(pid, '--instr=off');
      dumps++;
      // Each dump is its own file, numbered from 1, written when valgrind gets to the request
      // (it may come after callgrind_control returns). Its `totals:` line is the window's count;
      // its `summary:` line is not, after the first dump (seen wrapped below zero).
      const file = `${out}.${dumps}`;
      for (let waited = 0; waited < 120_000; waited += 200) {
        const dump = existsSync(file) ? readFileSync(file, 'utf8') : '';
        const totals = /^totals: (\d+)$/m.exec(dump);
        if (totals) return Number(totals[1]);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`callgrind wrote no dump ${file} in 120 s`);
    },
  };
}
