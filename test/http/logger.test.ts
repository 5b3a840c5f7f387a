import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createLogger, type RequestFields } from '../../lib/http/logger.js';
import { createRequestLines } from '../../lib/http/request-lines.js';

t.test('lines keep the JSON shape: level, ISO time, fields, msg', async (t) => {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
  logger.info('request', { request_id: 'r1', status: 200 });
  logger.debug('below the threshold');
  t.equal(lines.length, 1);
  const line = JSON.parse(lines[0] as string);
  t.same(Object.keys(line).sort(), ['level', 'msg', 'request_id', 'status', 'time']);
  t.equal(line.level, 'info');
  t.equal(line.msg, 'request');
  t.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

t.test('secrets are redacted by configured paths: the top level, and request headers', async (t) => {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) });
  logger.error('refresh failed', {
    access_token: 'tok-top',
    headers: { authorization: 'Bearer tok-header', accept: 'application/json' },
    credentials: { apiKey: 'key-1' },
    client_secret: 'cs-1',
    reason: 'revoked',
  });
  const line = JSON.parse(lines[0] as string);
  for (const secret of ['tok-top', 'tok-header', 'key-1', 'cs-1'])
    t.notMatch(lines[0], secret, `${secret} never written`);
  t.equal(line.access_token, '[redacted]');
  t.equal(line.headers.authorization, '[redacted]');
  t.equal(line.headers.accept, 'application/json', 'other fields stay');
  t.equal(line.reason, 'revoked');
});

t.test('a file destination gets every line once flushed', async (t) => {
  const file = join(t.testdir(), 'logs', 'portico.log');
  const logger = createLogger({ destination: file });
  for (let i = 0; i < 50; i++) logger.info('request', { i });
  logger.flush();
  const written = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { i: number });
  t.equal(written.length, 50, 'nothing lost in the buffer');
  t.same(
    written.map((l) => l.i),
    Array.from({ length: 50 }, (_, i) => i),
    'in order',
  );
});

t.test('the request line has the same shape as any other line', async (t) => {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) });
  logger.request({ request_id: 'r2', method: 'GET', path: '/proxy/x', status: 200 });
  const line = JSON.parse(lines[0] as string);
  t.match(line, { level: 'info', msg: 'request', request_id: 'r2', method: 'GET', path: '/proxy/x', status: 200 });
  t.equal(
    createLogger({ level: 'warn', write: (l) => lines.push(l) }).enabled?.('info'),
    false,
    'the edge skips request lines below info',
  );
});

t.test('a file destination: nothing written out until a chunk fills or a flush; then all, in order', async (t) => {
  const file = join(t.testdir(), 'big.log');
  const logger = createLogger({ destination: file });
  const many = 2_000;
  for (let i = 0; i < many; i++) logger.info('request', { i, pad: 'x'.repeat(100) });
  logger.flush();
  const written = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { i: number }).i);
  // An asynchronous chunk may still be on its way: what is there is in order, and flushSync wrote the tail.
  t.ok(written.length > many / 2, `most lines out at once (${written.length})`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const all = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { i: number }).i);
  t.same(
    [...all].sort((a, b) => a - b),
    Array.from({ length: many }, (_, i) => i),
    'every line once',
  );
});

t.test('the request line reads back as what was logged, whatever the values hold', async (t) => {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) });
  const awkward = {
    request_id: 'r"3\\',
    path: '/proxy/a b/\u00e9\u2028\n\t\u0000"x"',
    status: 502,
    duration_ms: 1.25,
    provider_status: null,
    upstream_ms: Number.NaN,
    integration: undefined,
  };
  logger.request(awkward);
  t.equal(lines.length, 1, 'one line, no raw newline inside it');
  const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
  t.same(line, {
    level: 'info',
    time: line.time,
    request_id: 'r"3\\',
    path: '/proxy/a b/\u00e9\u2028\n\t\u0000"x"',
    status: 502,
    duration_ms: 1.25,
    provider_status: null,
    upstream_ms: null,
    msg: 'request',
  });
  t.notOk('integration' in line, 'an undefined field is left out, as pino leaves it out');
  t.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const quiet: string[] = [];
  createLogger({ level: 'warn', write: (l) => quiet.push(l) }).request({ request_id: 'r4' });
  t.same(quiet, [], 'below info, a request line is not written even when asked for');
});

t.test('a file destination keeps multi-byte text and a line longer than a chunk whole, in order', async (t) => {
  const file = join(t.testdir(), 'wide.log');
  const logger = createLogger({ destination: file });
  const long = 'é—🙂'.repeat(30_000);
  logger.info('before', { text: 'naïve — ✓' });
  logger.info('long', { text: long });
  for (let i = 0; i < 3_000; i++) logger.request({ request_id: `r${i}`, path: `/proxy/ünï/${i}` });
  logger.flush();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { msg: string; text?: string; request_id?: string; path?: string });
  t.equal(lines.length, 3_002, 'every line, none cut');
  t.equal(lines[0]?.text, 'naïve — ✓');
  t.equal(lines[1]?.text, long, 'a line over 64 KiB arrives whole');
  t.same(
    lines.slice(2).map((l) => l.request_id),
    Array.from({ length: 3_000 }, (_, i) => `r${i}`),
    'request lines in order',
  );
  t.equal(lines[3_001]?.path, '/proxy/ünï/2999');
});

t.test('the request line keeps any text whole and is stamped with the time it was written', async (t) => {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) });
  const texts = ['plain', 'emoji 🙂 pair', 'lone \ud800 high', 'lone \udc00 low', '\u007f del', 'back\\slash', ''];
  const times: [number, number][] = [];
  for (const path of texts) {
    const before = Date.now();
    logger.request({ request_id: 'r5', path });
    times.push([before, Date.now()]);
    // Lines across a millisecond (and a second) boundary get their own time.
    await new Promise((resolve) => setTimeout(resolve, path === 'plain' ? 1_001 : 3));
  }
  t.equal(lines.length, texts.length);
  lines.forEach((raw, i) => {
    const line = JSON.parse(raw) as { path: string; time: string };
    // A lone surrogate cannot be kept as UTF-8: it is escaped, so it reads back as itself.
    t.equal(line.path, texts[i], `path ${JSON.stringify(texts[i])} reads back as logged`);
    t.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [before, after] = times[i] as [number, number];
    const at = Date.parse(line.time);
    t.ok(at >= before && at <= after, `time ${line.time} within the call (${before}–${after})`);
  });
  t.notOk(/[\ud800-\udfff]/.test(lines[2] as string), 'no raw lone surrogate in the written line');
});

t.test(
  'a request line writes each field as JSON: escapes, non-finite numbers as null, undefined left out',
  async (t) => {
    const written: string[] = [];
    const logger = createLogger({ write: (line) => written.push(line) });
    const cases: RequestFields[] = [
      { request_id: 'r6', method: 'GET', path: '/proxy/bytes', status: 200, duration_ms: 1.25, environment: 'dev' },
      { request_id: 'r7', method: 'POST', path: '/connections', status: 401, duration_ms: 0, environment: undefined },
      {
        request_id: 'r"8\\',
        method: 'GET',
        path: '/proxy/a b/\u00e9\n"x" \ud800 🙂',
        status: 502,
        duration_ms: Number.NaN,
        environment: 'prod',
        integration: 'git-hub',
        connection: 'c "1"',
        provider_host: 'api.example.test:8443',
        provider_status: null,
        upstream_ms: 12.5,
      },
      {
        request_id: 'r9',
        method: undefined,
        path: '/proxy/x',
        status: 200,
        duration_ms: 3,
        environment: 'dev',
        integration: 'key',
        connection: 'c',
        provider_host: 'h',
        provider_status: 204,
        upstream_ms: null,
      },
    ];
    for (const fields of cases) logger.request({ ...fields });
    t.equal(written.length, cases.length);
    cases.forEach((fields, i) => {
      const parsed = JSON.parse(written[i] as string) as Record<string, unknown>;
      t.equal(parsed.msg, 'request', `case ${i}: msg`);
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined) t.notOk(key in parsed, `case ${i}: ${key} left out`);
        else
          t.same(parsed[key], typeof value === 'number' && !Number.isFinite(value) ? null : value, `case ${i}: ${key}`);
      }
    });
    t.same(
      Object.keys(JSON.parse(written[2] as string) as object),
      [
        'level',
        'time',
        'request_id',
        'method',
        'path',
        'status',
        'duration_ms',
        'environment',
        'integration',
        'connection',
        'provider_host',
        'provider_status',
        'upstream_ms',
        'msg',
      ],
      "a proxied call's line: every field, in one order",
    );
  },
);

t.test('a request line writes every number as JSON.stringify does: timings in hundredths and any other', async (t) => {
  const written: string[] = [];
  const logger = createLogger({ write: (line) => written.push(line) });
  // What the gateway writes (milliseconds rounded to hundredths), and what a caller might put there.
  const values: number[] = [0, -0, 1, -1, 0.01, 0.05, 0.1, 0.5, 0.09, 0.99, 1.2, 1.25, 1.5, 10.1, 12.34, -0.05, -3.1];
  values.push(0.1 + 0.2, 1 / 3, 1e-7, 123456.789, 1e21, 2 ** 53, 9_999_999_999_999.99, 1e14 - 0.01, -1e16);
  values.push(Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON);
  let seed = 42;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) as number;
  for (let i = 0; i < 2_000; i++) {
    const ms = random() * 10 ** Math.floor(random() * 9);
    values.push(Math.round(ms * 100) / 100, ms, -Math.round(ms * 100) / 100);
  }
  for (const value of values) logger.request({ duration_ms: value, upstream_ms: value });
  const wrong = values.filter((value, i) => {
    const expected = JSON.stringify(value);
    return !(written[i] as string).includes(`"duration_ms":${expected},"upstream_ms":${expected},`);
  });
  t.same(wrong, [], `all ${values.length} numbers written as JSON.stringify writes them`);
  t.same(
    written.slice(0, 3).map((line) => (JSON.parse(line) as { duration_ms: number }).duration_ms),
    [0, 0, 1],
    'and read back as the same numbers',
  );
});

t.test(
  'a file destination stamps each request line with the time its request ended, not when it is written out',
  async (t) => {
    const file = join(t.testdir(), 'stamped.log');
    const logger = createLogger({ destination: file });
    const realNow = Date.now;
    t.teardown(() => {
      Date.now = realNow;
    });
    // Two requests a few seconds apart, both still waiting to be formatted when the file is flushed.
    const first = Date.parse('2026-01-02T03:04:05.006Z');
    const second = Date.parse('2026-01-02T03:04:09.871Z');
    Date.now = () => first;
    logger.request({ request_id: 'early', path: '/proxy/a', status: 200 });
    Date.now = () => second;
    logger.request({ request_id: 'late', path: '/proxy/b', status: 200 });
    logger.flush();
    Date.now = realNow;
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { request_id: string; time: string });
    t.same(
      lines.map((l) => [l.request_id, l.time]),
      [
        ['early', '2026-01-02T03:04:05.006Z'],
        ['late', '2026-01-02T03:04:09.871Z'],
      ],
    );
  },
);

t.test('a file destination keeps request lines and other lines in the order they were logged', async (t) => {
  const file = join(t.testdir(), 'ordered.log');
  const logger = createLogger({ destination: file });
  logger.request({ request_id: 'r1', path: '/proxy/a', status: 200 });
  logger.warn('between', { reason: 'x' });
  logger.request({ request_id: 'r2', path: '/proxy/b', status: 502 });
  logger.error('after');
  logger.flush();
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { msg: string; request_id?: string });
  t.same(
    lines.map((l) => l.request_id ?? l.msg),
    ['r1', 'between', 'r2', 'after'],
  );
});

t.test('a request line reaches a file destination by itself, without a flush', async (t) => {
  const file = join(t.testdir(), 'by-itself.log');
  const logger = createLogger({ destination: file });
  t.teardown(() => logger.flush());
  logger.request({ request_id: 'lonely', path: '/proxy/a', status: 200 });
  const deadline = Date.now() + 3_000;
  let text = '';
  while (Date.now() < deadline) {
    text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (text.includes('"lonely"')) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.match(text, /"request_id":"lonely"/, 'written out within the buffer’s period (1 s)');
});

t.test('request lines wait for a batch at most: the batch-th line writes them all out, in order', async (t) => {
  const written: string[] = [];
  const lines = createRequestLines((line) => written.push(line), 4);
  for (const id of ['a', 'b', 'c']) lines.add({ request_id: id, status: 200 });
  t.equal(written.length, 0, 'three lines wait');
  t.equal(lines.waiting, 3);
  lines.add({ request_id: 'd', status: 200 });
  t.same(
    written.map((l) => (JSON.parse(l) as { request_id: string }).request_id),
    ['a', 'b', 'c', 'd'],
    'the fourth wrote out all four',
  );
  t.equal(lines.waiting, 0);
  lines.add({ request_id: 'e', status: 204 });
  lines.flush();
  t.equal(written.length, 5, 'a flush writes out what waits');
  t.ok((written[4] as string).endsWith('"msg":"request"}\n'), 'one line, newline included');
});

t.test('a caller cannot forge a line in a file destination through the values it sends', async (t) => {
  const file = join(t.testdir(), 'forged.log');
  const logger = createLogger({ destination: file });
  const path = '/proxy/x"}\n{"level":"error","time":"2026-01-01T00:00:00.000Z","msg":"forged"}\r\n';
  logger.request({ request_id: 'attacker', method: 'GET', path, status: 404 });
  logger.request({ request_id: 'next', method: 'GET', path: '/proxy/y', status: 200 });
  logger.flush();
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  t.equal(lines.length, 2, 'one line per request, however many newlines a value holds');
  const first = JSON.parse(lines[0] as string) as { path: string; msg: string; level: string };
  t.equal(first.path, path, 'the value reads back whole');
  t.match(first, { msg: 'request', level: 'info' });
  t.notMatch(readFileSync(file, 'utf8'), /"msg":"forged"/, 'no line of the caller’s making');
});
