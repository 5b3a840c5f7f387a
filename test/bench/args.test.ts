import t from 'tap';
import { benchArgs } from '../../bench/args.js';
import { moduleUrl, runModule } from '../helpers/child.js';

/** Runs a bench's script with `args`, as `npm run bench:… -- args` would. */
const runBench = (script: string, args: string[]) =>
  runModule(
    `process.argv = [process.execPath, 'bench', ...${JSON.stringify(args)}];
     await import(${moduleUrl(script, import.meta.url)});`,
    { limitMs: 60_000 },
  );

/** `--help`'s option lines: `  --flag <value>   what it does   default …`, split into their columns. */
const optionLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('  -'))
    .map((line) => {
      const [flag = '', help = '', fallback] = line.trim().split(/ {3,}/);
      return { line, flag, help, fallback, helpAt: line.indexOf(help, flag.length + 2) };
    });

t.test('--help lists a bench’s options with what each does and its default, and starts nothing', async (t) => {
  const run = await runBench('../../bench/connections.ts', ['--help']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^bench:connections \[options\] {3}\(bench\/README\.md\)\n/);
  const lines = optionLines(run.stdout);
  t.same(
    lines.map((o) => o.flag),
    [
      '--n <value>',
      '--stores <value>',
      '--in-flight <value>',
      '--client <value>',
      '--page-reader <value>',
      '--rounds <value>',
      '--samples <value>',
      '--batched <value>',
      '--logs <value>',
      '--checkpoints <value>',
      '--redis-url <value>',
      '--postgres-url <value>',
    ],
    'every option, in order',
  );
  for (const o of lines) {
    // Between the flag and the default, words saying what the option does (not the default itself).
    t.match(o.help, /^(?!default )\S+( \S+){2,}/, `${o.flag} says what it does: ${o.line}`);
    t.match(o.fallback, /^default \S/, `${o.flag} ends with its default: ${o.line}`);
  }
  t.equal(new Set(lines.map((o) => o.helpAt)).size, 1, 'the descriptions start in one column');
  const line = (flag: string) => lines.find((o) => o.flag.startsWith(`--${flag} `))?.line ?? '';
  t.match(line('in-flight'), /--in-flight <value> +imports sent at once by the client {3}default 16$/);
  t.match(line('n'), /--n <value> +connections imported through HTTP.* {3}default 1000000$/);
  t.match(line('stores'), /comma-separated: sqlite, redis, postgres {3}default sqlite,redis$/);
  t.match(line('client'), /process .*inline/);
  t.match(line('page-reader'), /\(on\).*\(off\).*\(ab\)/);
  t.match(line('logs'), /file .*off/);
  t.match(line('checkpoints'), /worker .*inline/);
  t.notMatch(run.stdout, /connections through HTTP, \d/, 'no import ran');
});

t.test('an option without a default is listed with what it does and no default', async (t) => {
  const run = await runBench('../../bench/connections-ab.ts', ['--help']);
  t.equal(run.code, 0, run.stderr);
  const lines = optionLines(run.stdout);
  const a = lines.find((o) => o.flag === '--a <value>');
  t.match(a?.help, /dist folder/, a?.line ?? '');
  t.equal(a?.fallback, undefined, 'no default part');
  t.match(lines.find((o) => o.flag === '--port <value>')?.line, /B's is the next one {3}default 39101$/);
  for (const o of lines) t.match(o.help, /^(?!default )\S+( \S+){2,}/, `${o.flag} says what it does: ${o.line}`);
  t.notMatch(run.stdout, /round \d/, 'nothing was measured');
});

// Checked by the compiler (npx tsc --noEmit), never called: every option needs its help line, and
// the values keep the types parseArgs gives them.
export const typeChecks = () => {
  const values = benchArgs('types', {
    n: { type: 'string', default: '1', help: 'a count' },
    seed: { type: 'string', help: 'a file' },
    verbose: { type: 'boolean', short: 'v', help: 'print more' },
    tag: { type: 'string', multiple: true, help: 'tags, one per option' },
  });
  const n: string = values.n;
  const seed: string | undefined = values.seed;
  const verbose: boolean | undefined = values.verbose;
  const tags: string[] | undefined = values.tag;
  // @ts-expect-error an option must say what it does
  benchArgs('types', { n: { type: 'string', default: '1' } });
  // @ts-expect-error no option but those declared
  void values.bogus;
  return [n, seed, verbose, tags];
};

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
