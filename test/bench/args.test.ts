import t, { type Test } from 'tap';
import { benchArgs, parseBenchArgs } from '../../bench/args.js';
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
  // The accepted values come from the options' choices, after what the option does.
  t.match(
    line('stores'),
    /--stores <value> +stores run one after another; comma-separated, each one of: sqlite, redis, postgres {3}default sqlite,redis$/,
  );
  t.match(line('client'), /--client <value> +where .*; one of: process, inline {3}default process$/);
  t.match(line('page-reader'), /\(on\).*\(off\).*\(ab\); one of: on, off, ab {3}default on$/);
  t.match(line('logs'), /request log: .*; one of: file, off {3}default file$/);
  t.match(line('checkpoints'), /checkpoints: .*; one of: worker, inline {3}default worker$/);
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
  // Choices are a string option's, and only an option with choices is a comma-separated list of them.
  benchArgs('types', { store: { type: 'string', default: 'a', choices: ['a', 'b'], help: 'a store' } });
  benchArgs('types', { stores: { type: 'string', choices: ['a', 'b'], commaSeparated: true, help: 'stores' } });
  // @ts-expect-error a boolean option has no choices
  benchArgs('types', { on: { type: 'boolean', choices: ['a'], help: 'a switch' } });
  // @ts-expect-error a comma-separated list of choices needs its choices
  benchArgs('types', { stores: { type: 'string', commaSeparated: true, help: 'stores' } });
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

t.test('the proxy bench sets up its in-process stack as README says unless told not to', async (t) => {
  const help = await runBench('../../bench/proxy.ts', ['--help']);
  t.match(help.stdout, /--tuned on\|off +the in-process stack's process set up as README's Mounting says +default on/);
  const wrong = await runBench('../../bench/proxy.ts', ['--tuned', 'maybe']);
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, /--tuned takes on or off/);
  t.notMatch(wrong.stdout, /Portico proxy bench/, 'nothing was measured');
});

t.test('the proxy bench stops the processes whose turn it is not unless told not to', async (t) => {
  const help = await runBench('../../bench/proxy.ts', ['--help']);
  t.match(help.stdout, /--freeze on\|off +between its turns, every other process of the set stopped +default on/);
  const wrong = await runBench('../../bench/proxy.ts', ['--freeze', 'sometimes']);
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, /--freeze takes on or off/);
  t.notMatch(wrong.stdout, /Portico proxy bench/, 'nothing was measured');
});

t.test('every option with a fixed set of values lists them in --help', async (t) => {
  const expected: [string, string, RegExp][] = [
    ['connections-ab.ts', 'store', /; one of: sqlite, redis, postgres {3}default sqlite$/],
    ['connections-search.ts', 'stores', /; comma-separated, each one of: sqlite, redis {3}default sqlite,redis$/],
    ['records.ts', 'stores', /; comma-separated, each one of: memory, redis, postgres {3}default memory,redis$/],
    ['webhooks.ts', 'stores', /; comma-separated, each one of: memory, sqlite, redis {3}default memory,sqlite,redis$/],
    [
      'proxy-instructions.ts',
      'modes',
      /; comma-separated, each one of: api-key, oauth2, app {3}default api-key,oauth2,app$/,
    ],
    [
      'proxy-instructions.ts',
      'rows',
      /; comma-separated, each one of: bare, standalone, logs-off, metrics {3}default bare,standalone,logs-off,metrics$/,
    ],
  ];
  const helps = new Map<string, string>();
  for (const [bench, flag, line] of expected) {
    if (!helps.has(bench)) {
      const run = await runBench(`../../bench/${bench}`, ['--help']);
      t.equal(run.code, 0, run.stderr);
      helps.set(bench, run.stdout);
    }
    const lines = optionLines(helps.get(bench) ?? '');
    t.match(lines.find((o) => o.flag === `--${flag} <value>`)?.line, line, `${bench} --${flag}`);
    t.equal(new Set(lines.map((o) => o.helpAt)).size, 1, `${bench}: the descriptions start in one column`);
  }
});

/** A one-line error on stderr, before the bench started anything, and exit code 2. */
const refused = (t: Test, run: { code: number | null; stdout: string; stderr: string }, message: RegExp) => {
  t.equal(run.code, 2, run.stderr);
  t.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
  t.match(run.stderr.trim(), message);
  t.notMatch(run.stderr, /at .*\.(ts|js):\d+|^\s+at /m, 'no stack trace');
  t.equal(run.stdout, '', 'nothing ran');
};

t.test(
  'a value outside an option’s choices is named in one line with the accepted ones, and the bench exits with 2',
  async (t) => {
    // Without --a and --b: were the value not checked first, the bench would stop at once all the same.
    const store = await runBench('../../bench/connections-ab.ts', ['--store', 'bogus']);
    refused(
      t,
      store,
      /^connections-ab: Unknown value 'bogus' for option '--store'; accepted values: sqlite, redis, postgres \(--help lists the options\)$/,
    );
    // Were it not checked, a run of seconds: 10 connections, one sample per figure.
    const client = await runBench('../../bench/connections.ts', [
      ...['--client=bogus', '--stores', 'sqlite'],
      ...['--n', '10', '--samples', '1', '--batched', '0'],
    ]);
    refused(
      t,
      client,
      /^bench:connections: Unknown value 'bogus' for option '--client'; accepted values: process, inline \(--help lists the options\)$/,
    );
  },
);

t.test('an unknown item of a comma-separated option is refused before the items before it run', async (t) => {
  // Were the list not checked first, a run of seconds on redis, then bogus would fail.
  const run = await runBench('../../bench/connections.ts', [
    ...['--stores', 'redis,bogus'],
    ...['--n', '10', '--samples', '1', '--batched', '0'],
  ]);
  refused(
    t,
    run,
    /^bench:connections: Unknown value 'bogus' for option '--stores' \(in 'redis,bogus'\); accepted values, comma-separated: sqlite, redis, postgres \(--help lists the options\)$/,
  );
  // Were it not checked, one event through the memory store, then bogus would fail.
  const webhooks = await runBench('../../bench/webhooks.ts', ['--stores', 'memory,bogus', '--events', '1']);
  refused(
    t,
    webhooks,
    /^bench:webhooks: Unknown value 'bogus' for option '--stores' \(in 'memory,bogus'\); accepted values, comma-separated: memory, sqlite, redis \(--help lists the options\)$/,
  );
});

t.test('parseBenchArgs checks choices without printing or exiting', async (t) => {
  const options = {
    client: { type: 'string', default: 'process', choices: ['process', 'inline'], help: 'where the client runs' },
    stores: {
      type: 'string',
      default: 'sqlite,redis',
      choices: ['sqlite', 'redis', 'postgres'],
      commaSeparated: true,
      help: 'stores run one after another',
    },
    tag: { type: 'string', multiple: true, choices: ['a', 'b'], help: 'tags, one per option' },
    n: { type: 'string', default: '1', help: 'a count' },
  } as const;
  const parse = (...argv: string[]) => parseBenchArgs('bench:x', options, argv);

  t.same(parse(), { values: { client: 'process', stores: 'sqlite,redis', n: '1' } }, 'the defaults are in the choices');
  t.same(parse('--client', 'inline', '--stores', 'postgres', '--tag', 'b', '--tag', 'a', '--n', 'anything'), {
    values: { client: 'inline', stores: 'postgres', tag: ['b', 'a'], n: 'anything' },
  });
  t.same(
    parse('--stores', 'redis, sqlite'),
    { values: { client: 'process', stores: 'redis,sqlite', n: '1' } },
    'spaces around items dropped',
  );

  const error = (...argv: string[]) => {
    const parsed = parse(...argv);
    return 'error' in parsed ? parsed.error : `no error: ${JSON.stringify(parsed)}`;
  };
  t.equal(
    error('--client', 'bogus'),
    "bench:x: Unknown value 'bogus' for option '--client'; accepted values: process, inline (--help lists the options)",
  );
  t.equal(error('--client=bogus'), error('--client', 'bogus'), 'either form of the option');
  t.match(error('--client', 'Inline'), /Unknown value 'Inline' for option '--client'/, 'case matters');
  t.equal(
    error('--stores', 'redis,bogus'),
    "bench:x: Unknown value 'bogus' for option '--stores' (in 'redis,bogus'); accepted values, comma-separated: sqlite, redis, postgres (--help lists the options)",
  );
  t.match(error('--stores', 'sqlite,'), /Unknown value '' for option '--stores' \(in 'sqlite,'\)/, 'an empty item');
  t.match(error('--stores', ''), /Unknown value '' for option '--stores'/, 'no item at all');
  t.match(
    error('--stores', 'sqlite,redis', '--tag', 'a', '--tag', 'c'),
    /Unknown value 'c' for option '--tag'; accepted values: a, b/,
  );
  t.match(
    error('--n', '1', '--bogus'),
    /^bench:x: Unknown option '--bogus'.*\(--help lists the options\)$/,
    'unknown options as before',
  );

  const help = parse('--client', 'bogus', '--help');
  t.ok('help' in help, '--help wins over a wrong value');
  const text = 'help' in help ? help.help : '';
  t.match(text, /\n {2}--client <value> {3}where the client runs; one of: process, inline {3}default process\n/);
  t.match(
    text,
    /\n {2}--stores <value> {3}stores run one after another; comma-separated, each one of: sqlite, redis, postgres {3}default sqlite,redis\n/,
  );
  t.match(text, /\n {2}--n <value> {8}a count {3}default 1$/, 'an option without choices: what it does alone');

  t.throws(
    () =>
      parseBenchArgs(
        'bench:x',
        { store: { type: 'string', default: 'mysql', choices: ['sqlite'], help: 'a store' } },
        [],
      ),
    /--store's default mysql is not in its choices/,
    'a default outside the choices is the bench’s mistake',
  );
});

t.test('connections-import-cpu refuses a store or a count it does not know, before it opens anything', async (t) => {
  const store = await runBench('../../bench/connections-import-cpu.ts', ['.', 'bogus', '10']);
  refused(t, store, /^connections-import-cpu: usage: <tree> sqlite\|redis <n> \(got store 'bogus', n '10'/);
  const count = await runBench('../../bench/connections-import-cpu.ts', ['.', 'sqlite', 'ten']);
  refused(t, count, /^connections-import-cpu: usage: .*n 'ten'; n a whole number ≥ 1\)$/);
});
