import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU microseconds a process has used so far, every thread: the sum of its threads' run time
 * (the first field of /proc/<pid>/task/<tid>/schedstat, in nanoseconds); undefined where there
 * is no /proc or the process is gone. Not /proc/<pid>/stat: its user and system times come in
 * 10 ms ticks, and read right after a slice they were seen to trail it, a whole slice's CPU
 * showing up in the next one's reading (session 11).
 */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let nanos = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanos += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended between the listing and the read: its time is not counted.
      }
    }
    return nanos / 1000;
  } catch {
    return undefined;
  }
}
