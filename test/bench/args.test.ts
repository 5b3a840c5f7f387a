import t from 'tap';
import { moduleUrl, runModule } from '../helpers/child.js';

/** Runs a bench's script with `args`, as `npm run bench:… -- args` would. */
const runBench = (script: string, args: string[]) =>
  runModule(
    `process.argv = [process.execPath, 'bench', ...${JSON.stringify(args)}];
     await import(${moduleUrl(script, import.meta.url)});`,
    { limitMs: 60_000 },
  );

t.test('--help lists a bench’s options with their defaults, and starts nothing', async (t) => {
  const run = await runBench('../../bench/connections.ts', ['--help']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^bench:connections \[options\]/);
  t.match(run.stdout, /--n <value> {3}default 1000000/);
  t.match(run.stdout, /--stores <value> {3}default sqlite,redis/);
  t.notMatch(run.stdout, /connections through HTTP/, 'no import ran');
});

t.test('an unknown option is named in one line, and the bench exits with 2', async (t) => {
  const run = await runBench('../../bench/connections.ts', ['--n', '10', '--bogus']);
  t.equal(run.code, 2);
  t.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  t.match(run.stderr, /^bench:connections: .*'--bogus'.*\(--help lists the options\)/);
  t.notMatch(run.stderr, /at .*\.(ts|js):\d+/, 'no stack trace');
});

t.test('the proxy bench answers --help and names an unknown option', async (t) => {
  const help = await runBench('../../bench/proxy.ts', ['--help']);
  t.equal(help.code, 0, help.stderr);
  t.match(help.stdout, /--processes <n> +every measured process runs n times over +default 3/);
  const wrong = await runBench('../../bench/proxy.ts', ['--bogus']);
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, /unknown option --bogus \(--help lists the options\)/);
  t.notMatch(wrong.stdout, /Portico proxy bench/, 'nothing was measured');
});
