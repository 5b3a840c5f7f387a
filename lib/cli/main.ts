#!/usr/bin/env node
// The `portico` bin: the real process around runCli.
import { runCli } from './cli.js';

// Dry-runs bundle with source maps: a script's stack trace then names its own .ts lines.
process.setSourceMapsEnabled(true);

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
});
// A dry-run script may leave timers or sockets behind: exit once the output is written.
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
