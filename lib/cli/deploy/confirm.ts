import { createInterface } from 'node:readline';
import type { CliIo } from '../io.js';

/** Asks a yes/no question at the terminal; anything but y/yes is no. */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  io.stderr(`${question} [y/N] `);
  const lines = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string>((resolve) => {
    lines.once('line', resolve);
    lines.once('close', () => resolve(''));
  });
  lines.close();
  return /^y(es)?$/i.test(answer.trim());
}
