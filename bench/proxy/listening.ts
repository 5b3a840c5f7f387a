import type { ChildProcess } from 'node:child_process';

/**
 * The port a child server reports once it listens: the line the standalone server prints
 * (`… (interface 127.0.0.1:<port>)`), which bare-server.ts prints too. Rejects when the child
 * exits first or `startMs` passes; what it printed goes into the error. Its output is drained
 * afterwards, so a chatty child never blocks on a full pipe.
 */
export async function portWhenListening(child: ChildProcess, what: string, startMs: number): Promise<number> {
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${startMs / 1000} s: ${seen}`)), startMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /\(interface 127\.0\.0\.1:(\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}): ${seen}`));
    });
  });
  child.stdout?.resume();
  return port;
}
