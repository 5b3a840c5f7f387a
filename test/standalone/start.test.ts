import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

t.setTimeout(300_000);
const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `npm start`'s script until the server's banner shows (then stops it); answers what it printed. */
function start(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['adapters/standalone/start.mjs'], {
      cwd: repo,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SERVICE_PORT: '0',
        SERVICE_STORE_URL: 'memory://',
        SERVICE_LOG_LEVEL: 'silent',
      },
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner in time:\n${out}`));
    }, 240_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (/Portico gateway listening on/.test(out)) child.kill('SIGTERM');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

t.test('npm start builds only when the sources are newer than dist/, and says so', async (t) => {
  const first = await start();
  t.match(first, /Portico gateway listening on http:\/\/localhost:\d+/);
  // Whether the first run built depends on the checkout; the second never does.
  const second = await start();
  t.notMatch(second, /building/i, 'an up-to-date build is not rebuilt');
  t.match(second, /Portico gateway listening on/);
  if (/building/i.test(first))
    t.match(first, /(Sources changed since the last build|No build yet): building \(npm run build\)/);
});
