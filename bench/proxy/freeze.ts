/*
 * Only the process whose turn it is runs. The bench's proxy processes share CPU 1, and one left
 * running while another is measured still wakes on its own timers: the standalone server with
 * metrics on about 100 times a second (its event-loop delay monitor), the others for their log
 * flush and keep-alive timers. Each wake-up takes the measured process off the core and evicts
 * part of its working set, which costs a large working set (the server's) more to win back than a
 * small one (the forwarder's). Measured in interleaved rounds (session 27, 3 or 4 processes of
 * each kind, mean CPU per call): the standalone server used 0.93–0.97 × the bare forwarder's with
 * no metrics server beside them (4 runs), 1.00–1.07 × beside three or four idle metrics servers
 * left running (4 runs), and 0.95–0.98 × with those stopped (2 runs). A deployed server does not
 * share its core with the bench's other targets, so between its turns every other process of the
 * set is stopped (SIGSTOP) and continued (SIGCONT) when its turn comes. Work a process left
 * pending when its turn ended (a log write, a timer) then runs in its next turn and is counted
 * there, instead of falling on whichever target runs meanwhile.
 */

/**
 * A process the harness started: Node's ChildProcess or what wraps one. Its `kill` signals the
 * process while it runs and does nothing once it has exited (Node drops the handle when it reaps
 * the child), so a pid the system has since given to another process is never signalled.
 */
export interface Stoppable {
  kill(signal: 'SIGSTOP' | 'SIGCONT'): unknown;
}

export interface Freezer {
  /** Lets `running` run and stops every other process of the set (`undefined`: stops them all). */
  runOnly(running: Stoppable | undefined): void;
  /** Lets every process of the set run again (before stopping them, or a run that needs them all). */
  thawAll(): void;
}

/** Every stopped process of every freezer, continued when the harness exits or is interrupted. */
const frozen = new Set<Stoppable>();
let guarded = false;
function guardExit(): void {
  if (guarded) return;
  guarded = true;
  const thaw = () => {
    for (const member of frozen) member.kill('SIGCONT');
    frozen.clear();
  };
  process.on('exit', thaw);
  // A stopped process acts on no signal but SIGKILL: continued first, the children then get the
  // interrupt (they share the terminal's process group) or the harness's own stop. Not SIGHUP: a
  // handler would undo `nohup`, and a harness whose children are orphaned stopped has the kernel
  // send them SIGHUP and SIGCONT itself.
  for (const [name, number] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
  ] as const)
    process.once(name, () => {
      // process.exit runs the 'exit' listener above, which continues them.
      console.error(`bench: ${name}: the processes it had stopped were continued`);
      process.exit(128 + number);
    });
}

/** `enabled` false (`--freeze off`): every process runs all the time, as before session 27. */
export function createFreezer(processes: readonly (Stoppable | undefined)[], enabled: boolean): Freezer {
  const members = processes.filter((member): member is Stoppable => member !== undefined);
  if (!enabled) return { runOnly: () => {}, thawAll: () => {} };
  guardExit();
  return {
    runOnly(running) {
      for (const member of members) {
        if (member === running) {
          if (frozen.delete(member)) member.kill('SIGCONT');
        } else if (!frozen.has(member)) {
          frozen.add(member);
          member.kill('SIGSTOP');
        }
      }
    },
    thawAll() {
      for (const member of members) if (frozen.delete(member)) member.kill('SIGCONT');
    },
  };
}
